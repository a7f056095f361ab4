"""`np.fft` and the parts of complex numbers on traced arrays.

The transforms take NumPy's arguments as `ivy_ir.core.fft_api` reads them (the same
reading the facade's `ivy.fft` uses); the oracle gives NumPy's result dtype (float32
in, complex64 out; integers through float64), which fixes the dtype each transform runs
in. `z.real` and `z.imag` of a complex array are views in NumPy, and here too: writing
into one replaces that part of `z` (`PartStep`). Of a real array, `.real` is the array
itself and `.imag` a read-only array of zeros, as NumPy has them. `FFT` is the function
table of this family.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.ir import SSAValue

from ivy_ir.core import fft_api
from ivy_ir.dialect.types import REAL_OF

from .common import Rule, spec_of
from .numpy_array import NpArray, Session
from .numpy_context import Call
from .numpy_shape import ReadOnlyStep


@dataclass(frozen=True)
class PartStep:
    """`z.real` / `z.imag` of a complex z (`part`): writing it replaces that part."""

    part: str

    def apply(self, s: Session, z: SSAValue) -> SSAValue:
        return s.emit(self.part, z)

    def put(self, s: Session, z: SSAValue, new: SSAValue) -> SSAValue:
        re = new if self.part == "real" else s.emit("real", z)
        im = new if self.part == "imag" else s.emit("imag", z)
        return s.emit("complex", re, im)


def _part(part: str) -> Rule:
    def rule(c: Call, val: Any) -> NpArray:
        x = c.s.array(val)
        if x.dtype.kind == "c":
            return x.view(PartStep(part))
        return x if part == "real" else x.view(ReadOnlyStep("zeros_like", ()))
    return rule


def _angle(c: Call, z: Any, deg: bool = False) -> NpArray:
    # atan2(imag, real); NumPy reads integers as float64 (the result's dtype)
    x = c.s.array(z)
    v = x.value if x.dtype.kind in "fc" else c.val(z)
    out = c.emit("atan2", c.emit("imag", v), c.emit("real", v))
    return c.new(c.emit("multiply", out, c.val(180 / np.pi)) if deg else out)


def _shape(c: Call, a: Any) -> tuple[int, ...]:
    return spec_of(c.s.array(a).value).shape  # type: ignore[return-value]


def _complex(c: Call, a: Any) -> SSAValue:
    """`a` as the complex dtype of the result's width (a spectrum)."""
    return c.val(a, np.result_type(c.dtype, np.complex64))


def _real(c: Call, a: Any) -> SSAValue:
    """`a` as the real dtype of the result's width (a signal)."""
    return c.val(a, REAL_OF.get(c.dtype.name, c.dtype.name))


def _one(n: int | None) -> list[int] | None:
    return None if n is None else [n]


def _c2c(inverse: bool) -> Rule:
    """fft / ifft."""
    def rule(c: Call, a: Any, n: int | None = None, axis: int = -1,
             norm: str | None = None) -> NpArray:
        return c.new(fft_api.c2c(c.emit, c.val(a), _shape(c, a), _one(n), [axis], norm,
                                 inverse))
    return rule


def _c2c_nd(inverse: bool, default_axes: Any = None) -> Rule:
    """fftn / ifftn, fft2 / ifft2 (`default_axes` (-2, -1))."""
    def rule(c: Call, a: Any, s: Any = None, axes: Any = default_axes,
             norm: str | None = None) -> NpArray:
        return c.new(fft_api.c2c(c.emit, c.val(a), _shape(c, a), s, axes, norm, inverse))
    return rule


def _rfft(c: Call, a: Any, n: int | None = None, axis: int = -1,
          norm: str | None = None) -> NpArray:
    return c.new(fft_api.r2c(c.emit, _real(c, a), _shape(c, a), _one(n), [axis], norm))


def _irfft(c: Call, a: Any, n: int | None = None, axis: int = -1,
           norm: str | None = None) -> NpArray:
    return c.new(fft_api.c2r(c.emit, _complex(c, a), _shape(c, a), _one(n), [axis], norm))


def _real_nd(inverse: bool, default_axes: Any = None) -> Rule:
    """rfftn / rfft2, irfftn / irfft2."""
    def rule(c: Call, a: Any, s: Any = None, axes: Any = default_axes,
             norm: str | None = None) -> NpArray:
        if inverse:
            return c.new(fft_api.c2r(c.emit, _complex(c, a), _shape(c, a), s, axes, norm))
        return c.new(fft_api.r2c(c.emit, _real(c, a), _shape(c, a), s, axes, norm))
    return rule


def _hfft(c: Call, a: Any, n: int | None = None, axis: int = -1,
          norm: str | None = None) -> NpArray:
    return c.new(fft_api.hfft(c.emit, _complex(c, a), _shape(c, a), n, axis, norm))


def _ihfft(c: Call, a: Any, n: int | None = None, axis: int = -1,
           norm: str | None = None) -> NpArray:
    return c.new(fft_api.ihfft(c.emit, _real(c, a), _shape(c, a), n, axis, norm))


def _shift(inverse: bool) -> Rule:
    def rule(c: Call, x: Any, axes: Any = None) -> NpArray:
        return c.new(fft_api.shift(c.emit, c.val(x), _shape(c, x), axes, inverse))
    return rule


FFT: dict[str, Rule] = {
    "real": _part("real"),
    "imag": _part("imag"),
    "angle": _angle,
    "fft.fft": _c2c(False),
    "fft.ifft": _c2c(True),
    "fft.fftn": _c2c_nd(False),
    "fft.ifftn": _c2c_nd(True),
    "fft.fft2": _c2c_nd(False, (-2, -1)),
    "fft.ifft2": _c2c_nd(True, (-2, -1)),
    "fft.rfft": _rfft,
    "fft.irfft": _irfft,
    "fft.rfftn": _real_nd(False),
    "fft.irfftn": _real_nd(True),
    "fft.rfft2": _real_nd(False, (-2, -1)),
    "fft.irfft2": _real_nd(True, (-2, -1)),
    "fft.hfft": _hfft,
    "fft.ihfft": _ihfft,
    "fft.fftshift": _shift(False),
    "fft.ifftshift": _shift(True),
}
"""NumPy function -> rule for complex parts and `np.fft` (`fftfreq` takes no array: NumPy
computes it while tracing, a constant)."""
