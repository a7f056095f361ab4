"""TF image resizing -> `ivy.interpolate`: ResizeBilinear, ResizeNearestNeighbor and
ScaleAndTranslate (what `tf.image.resize`, Keras `Resizing` and `UpSampling2D` emit).

Every resize is separable: per spatial axis, output pixel j is a weighted sum of input
pixels, one (out, in) weight matrix per axis. TF and the registry op each define that
matrix by their own source-index rules (TF: `align_corners`, `half_pixel_centers`, the
kernel and antialiasing of ScaleAndTranslate; `interpolate`: PyTorch's rules, the
taps of `ivy_ir.core.resample`). Rather than trusting a table of flag combinations,
the rule computes TF's matrices at import time and maps the op onto the `interpolate`
whose matrices are the same (to float32 rounding) on both axes; where none is, the op
is reported (`Unmapped`), never approximated. Rounding in TF's index arithmetic is
float32, as in its kernels.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ivy_ir.dialect.types import numpy_dtype

from .common import Rule, Unmapped, interpolate_weights, taps_matrix
from .tensorflow_ctx import Ctx

WEIGHT_ATOL = 1e-6
"""Largest difference between two weights that counts as the same weight: the two rules
compute positions in float32 in different orders, which moves a weight by a few units
of float32 rounding; a weight off by less changes no result beyond that rounding."""

FLOAT_RESULT = "float32"
"""ResizeBilinear and ScaleAndTranslate compute and return float32 for every input
dtype; nearest-neighbour keeps the input's dtype."""

NEAREST_CARRIERS = {"int8": "float32", "uint8": "float32", "int16": "float32",
                    "uint16": "float32"}
"""Integer images a nearest-neighbour resize (which only copies pixels) runs on through
a float dtype that holds each of their values exactly; wider integers are reported."""

KERNELS = {"triangle": lambda t: np.maximum(0.0, 1.0 - t)}
"""ScaleAndTranslate kernel types whose weights can equal an `interpolate` mode (radius
1): the triangle is bilinear's tent. The others (keyscubic, lanczos, gaussian, box,
mitchellcubic) have no registry form and are reported."""

F32 = np.float32


def _scale(d: int, o: int, align_corners: bool) -> np.float32:
    """TF's input/output size ratio (aligned corners map the end pixels onto each other)."""
    if align_corners and o > 1:
        return F32(d - 1) / F32(o - 1)
    return F32(d) / F32(o)


def _tf_bilinear(d: int, o: int, align_corners: bool, half_pixel: bool) -> np.ndarray:
    scale = _scale(d, o, align_corners)
    dst = np.arange(o, dtype=F32)
    src = (dst + F32(0.5)) * scale - F32(0.5) if half_pixel else dst * scale
    low = np.floor(src)
    i0 = np.maximum(low, 0).astype(np.int64)  # below 0 and above d - 1 the edge repeats
    i1 = np.minimum(np.ceil(src), d - 1).astype(np.int64)
    return taps_matrix(i0, i1, src - low, d)


def _tf_nearest(d: int, o: int, align_corners: bool, half_pixel: bool) -> np.ndarray:
    scale = _scale(d, o, align_corners)
    dst = np.arange(o, dtype=F32)
    # half-pixel centers here are (j + 0.5) * scale, without TF's bilinear "- 0.5"
    src = ((dst + F32(0.5)) * scale if half_pixel else dst * scale).astype(np.float64)
    index = np.floor(src + 0.5) if align_corners else np.floor(src)  # roundf: src >= 0
    index = np.clip(index, 0, d - 1).astype(np.int64)
    return taps_matrix(index, index, None, d)


def _tf_scale_and_translate(d: int, o: int, scale: float, shift: float, kernel: str,
                            antialias: bool) -> np.ndarray:
    """ScaleAndTranslate's weights: output pixel j samples at (j + 0.5 - shift) / scale
    in input pixel units; the kernel (widened by 1 / scale when antialiasing a
    downscale) weighs the input pixel centers around it, normalized to sum 1; a sample
    outside the input gives a zero row."""
    kernel_fn = KERNELS[kernel]
    inv = F32(1.0) / F32(scale)
    widen = max(float(inv), 1.0) if antialias else 1.0
    w = np.zeros((o, d))
    for j in range(o):
        sample = float(F32(j + 0.5) * inv - inv * F32(shift))
        if sample < 0 or sample > d:
            continue
        first = min(max(math.ceil(sample - widen - 0.5), 0), d - 1)
        last = min(max(math.floor(sample + widen - 0.5), 0), d - 1)
        src = np.arange(first, last + 1)
        row = kernel_fn(np.abs(src + 0.5 - sample) / widen)
        total = row.sum()
        w[j, src] = row / total if abs(total) >= 1000 * np.finfo(F32).tiny else row
    return w


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and bool(np.all(np.abs(a - b) <= WEIGHT_ATOL))


CANDIDATES = (("bilinear", False), ("bilinear", True), ("nearest", False))
"""The `interpolate` forms a resize may be: (mode, align_corners)."""


def _resample(c: Ctx, x: Any, size: Any, tf_matrix: Callable[[int, int, int], np.ndarray],
              dtype: str, modes: tuple[str, ...], what: str) -> Any:
    """`interpolate` of `x` (NHWC) to the static `size`, in `dtype`, in the first
    candidate form whose weight matrices equal TF's (`tf_matrix(axis, d, o)`) on both
    spatial axes."""
    out = c.ints(size, "size")
    if c.rank(x) != 4 or len(out) != 2:
        raise Unmapped("images of rank other than 4")
    spatial = c.spec(x).shape[1:3]
    if None in spatial:
        raise Unmapped("dynamic image size")
    want = [tf_matrix(a, d, o) for a, (d, o) in enumerate(zip(spatial, out))]
    for mode, align in CANDIDATES:
        if mode in modes and all(
                _same(w, interpolate_weights(d, o, mode, align, numpy_dtype(dtype)))
                for w, d, o in zip(want, spatial, out)):
            x = c.cast(x, dtype)
            return c.emit("interpolate", x, size=out, mode=mode, align_corners=align,
                          layout="channels_last")
    raise Unmapped(f"{what}: its sampling positions for {tuple(spatial)} -> {tuple(out)} "
                   "match no ivy.interpolate mode")


def _resize_bilinear(c: Ctx, x: Any, size: Any, *, align_corners: bool = False,
                     half_pixel_centers: bool = False, **_: Any) -> Any:
    def tf_matrix(_: int, d: int, o: int) -> np.ndarray:
        return _tf_bilinear(d, o, align_corners, half_pixel_centers)
    flags = f"align_corners={align_corners}, half_pixel_centers={half_pixel_centers}"
    return _resample(c, x, size, tf_matrix, FLOAT_RESULT, ("bilinear", "nearest"), flags)


def _resize_nearest(c: Ctx, x: Any, size: Any, *, align_corners: bool = False,
                    half_pixel_centers: bool = False, **_: Any) -> Any:
    dtype = c.spec(x).dtype
    carrier = dtype if dtype.startswith(("float", "bfloat")) else NEAREST_CARRIERS.get(dtype)
    if carrier is None:
        raise Unmapped(f"{dtype} images (ivy.interpolate takes floats)")

    def tf_matrix(_: int, d: int, o: int) -> np.ndarray:
        return _tf_nearest(d, o, align_corners, half_pixel_centers)
    flags = f"align_corners={align_corners}, half_pixel_centers={half_pixel_centers}"
    return c.cast(_resample(c, x, size, tf_matrix, carrier, ("nearest",), flags), dtype)


def _scale_and_translate(c: Ctx, x: Any, size: Any, scale: Any, translation: Any, *,
                         kernel_type: str = "lanczos3", antialias: bool = True,
                         **_: Any) -> Any:
    """ScaleAndTranslate (tf.image.resize with antialias, or a kernel method)."""
    if kernel_type not in KERNELS:
        raise Unmapped(f"kernel_type '{kernel_type}'")
    scales = np.ravel(c.static(scale, "scale")).astype(F32)
    shifts = np.ravel(c.static(translation, "translation")).astype(F32)

    def tf_matrix(a: int, d: int, o: int) -> np.ndarray:
        return _tf_scale_and_translate(d, o, scales[a], shifts[a], kernel_type, antialias)
    what = f"kernel_type '{kernel_type}', antialias={antialias}, scale {scales.tolist()}, " \
        f"translation {shifts.tolist()}"
    return _resample(c, x, size, tf_matrix, FLOAT_RESULT, ("bilinear", "nearest"), what)


IMAGE: dict[str, Rule] = {
    "ResizeBilinear": _resize_bilinear, "ResizeNearestNeighbor": _resize_nearest,
    "ScaleAndTranslate": _scale_and_translate,
}
"""TF raw op -> rule: image resizing onto `interpolate` (exact forms only)."""
