"""The kornia functions that `test_transpile_library.py` checks and
`benchmarks/kornia_lazy.py` times, transpiled lazily from torch to JAX.

One row per function: its dotted name under `kornia`, the arguments after the image
(NumPy arrays among them become each framework's arrays, so they are inputs; other
values are static and part of the cache key), and a tolerance where the default
(rtol = atol = 1e-5) is not met, with the reason next to it.

`FAILING` lists the functions of the same modules that do not transpile yet, with the
error and its cause: they are left out of `CASES` and reported in `docs/kornia_lazy.md`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

_RNG = np.random.default_rng(0)
IMAGE = _RNG.random((1, 3, 16, 16), dtype=np.float32)
"""One small RGB image in [0, 1) for every case: shared, so each case traces once."""

DEFAULT_TOLERANCE = (1e-5, 1e-5)


@dataclass(frozen=True)
class Case:
    name: str
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    tolerance: tuple[float, float] = DEFAULT_TOLERANCE
    """(rtol, atol) for the output and for the gradient."""

    def call(self, namespace: Any, image: Any, to_array: Callable[[np.ndarray], Any]) -> Any:
        """This case's function of `namespace` (kornia or its proxy) on `image`, with
        the NumPy arguments converted by `to_array`."""
        def convert(value: Any) -> Any:
            return to_array(value) if isinstance(value, np.ndarray) else value
        fn = functools.reduce(getattr, self.name.split("."), namespace)
        return fn(image, *map(convert, self.args),
                  **{k: convert(v) for k, v in self.kwargs.items()})


# CIE Lab/Luv: XYZ goes through a cube root and is scaled to L* in [0, 100], so the
# float32 rounding of the intermediate sums (added in another order by XLA) reaches the
# outputs amplified: up to 1.3e-4 absolute on the outputs and 5.3e-4 on the gradient,
# which near-zero a*/b* (u*/v*) values turn into large relative errors.
_CIE = (1e-5, 1e-3)

CASES = [
    Case("filters.gaussian_blur2d", ((5, 5), (1.5, 1.5))),
    Case("filters.box_blur", ((3, 3),)),
    Case("filters.median_blur", ((3, 3),)),
    Case("filters.sobel"),
    Case("filters.laplacian", (3,)),
    Case("filters.spatial_gradient", kwargs={"mode": "diff", "order": 1}),
    Case("filters.unsharp_mask", ((3, 3), (1.5, 1.5))),
    Case("filters.motion_blur", (5, 45.0, 1.0)),
    Case("filters.max_blur_pool2d", (3,)),
    Case("filters.blur_pool2d", (3,)),
    Case("color.rgb_to_grayscale"),
    Case("color.rgb_to_hsv"),
    Case("color.hsv_to_rgb"),
    Case("color.rgb_to_lab", tolerance=_CIE),
    Case("color.rgb_to_luv", tolerance=_CIE),
    Case("color.rgb_to_yuv"),
    Case("color.rgb_to_linear_rgb"),
    Case("color.rgb_to_ycbcr"),
    Case("color.rgb_to_xyz"),
    Case("enhance.adjust_brightness", (0.2,)),
    Case("enhance.adjust_contrast", (1.3,)),
    Case("enhance.adjust_gamma", kwargs={"gamma": 0.8, "gain": 1.1}),
    Case("enhance.adjust_saturation", (1.5,)),
    Case("enhance.adjust_hue", (0.3,)),
    Case("enhance.normalize", (np.array([0.5, 0.4, 0.3], np.float32),
                               np.array([0.2, 0.25, 0.3], np.float32))),
    Case("enhance.equalize"),
    Case("enhance.sharpness", (0.5,)),
    Case("enhance.adjust_sigmoid", kwargs={"cutoff": 0.4, "gain": 8.0}),
    Case("enhance.adjust_log", kwargs={"gain": 1.2}),
    Case("enhance.invert"),
    Case("enhance.solarize", (0.5,)),
    Case("geometry.transform.resize", ((8, 12),)),
    Case("geometry.transform.hflip"),
    Case("geometry.transform.vflip"),
    Case("geometry.transform.rot180"),
    Case("geometry.transform.pyrdown"),
    Case("geometry.transform.pyrup"),
    Case("geometry.transform.rescale", (0.5,)),
    # the warps: aten.grid_sampler_2d, decomposed at import into gathers and arithmetic
    Case("geometry.transform.rotate", (np.array([30.0], np.float32),)),
    Case("geometry.transform.translate", (np.array([[2.5, -1.5]], np.float32),)),
    Case("geometry.transform.scale", (np.array([[1.2, 0.9]], np.float32),)),
    Case("geometry.transform.shear", (np.array([[0.2, -0.1]], np.float32),)),
    Case("geometry.transform.warp_affine",
         (np.array([[[0.9, 0.1, 1.0], [-0.1, 1.1, -0.5]]], np.float32), (16, 16))),
    Case("geometry.transform.warp_perspective",
         (np.array([[[1.0, 0.1, 0.5], [0.0, 0.9, 1.0], [0.001, 0.002, 1.0]]], np.float32),
          (16, 16))),
    Case("geometry.transform.center_crop", ((8, 8),)),
    Case("geometry.transform.elastic_transform2d",
         (_RNG.standard_normal((1, 2, 16, 16)).astype(np.float32),)),
]

FAILING = {
    "color.rgb_to_hls": "under an outer jax.jit/jax.grad only: its argmax indices are "
                        "int64, so the program runs in JAX's scoped x64 mode "
                        "(lowerings/jax.py JaxRuntime.wrap), which an enclosing trace "
                        "does not see: XLA rejects the mixed int64/int32 argmax",
}
