"""The zoo's kornia functions: every case of `tests/kornia_cases.py` (filters, color,
enhance, geometry with its warps), plus the functions that table leaves out as failing
under the lazy transpiler, compiled here from torch as any function is.

A case's NumPy arguments (angles, matrices, means) are inputs of the compiled program
beside the image, as torch tensors to the source; the rest are static.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from kornia_cases import CASES, IMAGE, Case
from model_zoo_core import Built, Model
from zoo_common import F32_TOL

EXTRA = [
    Case("filters.bilateral_blur", ((3, 3), 0.1, (1.5, 1.5))),
    Case("color.rgb_to_hls"),
    Case("filters.canny"),
    Case("geometry.transform.affine",
         (np.array([[[0.9, 0.1, 0.5], [-0.1, 1.1, -1.0]]], np.float32),)),
    # a guide image of its own, box sums and a batched `torch.linalg.solve`
    Case("filters.guided_blur", (np.random.default_rng(3).random((1, 3, 16, 16),
                                                                   np.float32), 3, 0.1)),
    Case("morphology.gradient", (np.ones((3, 3), np.float32),)),
    Case("enhance.equalize_clahe", (40.0, (4, 4))),
]
"""`kornia_cases.FAILING`'s one, `bilateral_blur` (listed there until `aten.unfold`
imported), and more of the same modules and of `morphology`."""

CIE_WHY = ("CIE Lab/Luv: a cube root and the scaling to L* in [0, 100] amplify float32 "
           "rounding to ~1e-4 absolute (`kornia_cases._CIE`)")


def _build(case: Case) -> Callable[[], Built]:
    def build() -> Built:
        import kornia
        import torch
        arrays = [a for a in (*case.args, *case.kwargs.values()) if isinstance(a, np.ndarray)]
        tensors = tuple(torch.from_numpy(a.copy()) for a in arrays)

        def fn(image: Any, *inputs: Any) -> Any:
            it = iter(inputs)  # `Case.call` converts the arrays in `arrays`' order
            return case.call(kornia, image, lambda _: next(it))
        args = (torch.from_numpy(IMAGE.copy()), *tensors)

        def reference() -> Any:
            with torch.no_grad():
                return fn(*args)
        return Built(fn, args, reference)
    return build


def _model(case: Case) -> Model:
    tolerance = tuple(max(a, b) for a, b in zip(F32_TOL, case.tolerance))
    why = CIE_WHY if tolerance != F32_TOL else ""
    return Model(f"kornia.{case.name}", "kornia", _build(case), "kornia", tolerance, why)


KORNIA = [_model(c) for c in [*CASES, *EXTRA]]
