"""Complex numbers and torch's FFT kernels (`_fft_r2c`, `_fft_c2r`, `_fft_c2c`) -> ivy ops.

`real`, `imag`, `conj` (and `_conj`, `conj_physical`) are one-to-one (`torch_math`);
`resolve_conj`/`resolve_neg` only materialize lazy views (`torch_shape` IDENTITY).
torch's FFT kernels take the signal already cut or padded (`torch.fft.*` decompose to
`constant_pad_nd`/`slice` first) and a normalization code: 0 none, 1 by sqrt(n), 2 by
n, applied in the kernel's own direction. So code 0 is "backward" for a forward
transform and "forward" for an inverse one (the inverse left unscaled), and code 2 the
other way round. `r2c` with `onesided` halves the last of `dim` (NumPy's rfftn), else it
is the full complex transform of a real signal; `c2r` is NumPy's irfftn, its last axis
`last_dim_size` long.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from xdsl.ir import SSAValue

from ivy_ir.core import fft_api
from ivy_ir.dialect.types import COMPLEX

from .common import Rule, spec_of
from .torch_ctx import Ctx

FORWARD_NORM = ("backward", "ortho", "forward")
INVERSE_NORM = ("forward", "ortho", "backward")
"""torch's normalization code -> the IR's `norm`, for each direction."""


def _dims(x: SSAValue, dim: Any) -> tuple[tuple[int | None, ...], list[int]]:
    shape = spec_of(x).shape
    return shape, [d % len(shape) for d in dim]


def _r2c(c: Ctx, x: SSAValue, dim: Any, normalization: int, onesided: bool) -> SSAValue:
    shape, axes = _dims(x, dim)
    norm = FORWARD_NORM[normalization]
    lengths = [shape[a] for a in axes]
    if onesided:
        return fft_api.r2c(c.emit, x, shape, lengths, axes, norm)
    return fft_api.complex_nd(c.emit, x, axes, lengths, False, norm)


def _c2r(c: Ctx, x: SSAValue, dim: Any, normalization: int, last_dim_size: int) -> SSAValue:
    shape, axes = _dims(x, dim)
    lengths = [shape[a] for a in axes[:-1]] + [last_dim_size]
    return fft_api.c2r(c.emit, x, shape, lengths, axes, INVERSE_NORM[normalization])


def _c2c(c: Ctx, x: SSAValue, dim: Any, normalization: int, forward: bool) -> SSAValue:
    shape, axes = _dims(x, dim)
    norm = (FORWARD_NORM if forward else INVERSE_NORM)[normalization]
    return fft_api.complex_nd(c.emit, x, axes, [shape[a] for a in axes], not forward, norm)


def _part(c: Ctx, x: SSAValue, index: int) -> SSAValue:
    return c.emit("take", x, c.const(np.asarray(index), "int64"), axis=spec_of(x).rank - 1)


def _view_as_complex(c: Ctx, x: SSAValue) -> SSAValue:
    return c.emit("complex", _part(c, x, 0), _part(c, x, 1))


def _view_as_real(c: Ctx, z: SSAValue) -> SSAValue:
    return c.emit("stack", [c.emit("real", z), c.emit("imag", z)], axis=-1)


def _angle(c: Ctx, x: SSAValue) -> SSAValue:
    """atan2(imag, real); of a real x torch's own: pi below 0, else 0 (-0.0 too), NaN kept."""
    if spec_of(x).dtype in COMPLEX:
        return c.emit("atan2", c.emit("imag", x), c.emit("real", x))
    x = c.float_in(x)
    dtype = spec_of(x).dtype
    zero = c.const(0.0, dtype)
    out = c.emit("where", c.emit("less", x, zero), c.const(math.pi, dtype), zero)
    return c.emit("where", c.emit("isnan", x), x, out)


FFT: dict[str, Rule] = {
    "_fft_r2c": _r2c,
    "_fft_c2r": _c2r,
    "_fft_c2c": _c2c,
    "complex": lambda c, re, im: c.emit("complex", re, im),
    "view_as_complex": _view_as_complex,
    "view_as_real": _view_as_real,
    "angle": _angle,
}
"""ATen op -> rule for complex numbers and transforms."""
