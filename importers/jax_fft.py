"""Complex numbers and the `fft` primitive -> ivy ops.

`real`, `imag` are one-to-one (`jax_math.UNARY`); `conj` is not quite: `lax.conj` of a
real x is complex (x with imaginary part 0), the registry's `conj` keeps a real x real.
Lax's `fft` transforms the trailing `len(fft_lengths)` axes, with the input already cut
or padded by `jnp.fft` (FFT/IFFT/RFFT take inputs of those lengths, IRFFT one of
n // 2 + 1 bins), in NumPy's "backward" scaling (`jnp.fft` multiplies for the others);
the multi-axis real transforms are one real axis (the last) and a complex transform of
the others, as `ivy_ir.core.fft_api` composes them.
"""

from __future__ import annotations

from typing import Any

from ivy_ir.core import fft_api
from ivy_ir.dialect.types import COMPLEX

from .common import Rule
from .jax_ctx import Ctx, Value


def _conj(ctx: Ctx, x: Value, **_: Any) -> Value:
    if ctx.spec(x).dtype in COMPLEX:
        return ctx.emit("conj", x)
    return ctx.cast(x, ctx.out.dtype)


def _fft(ctx: Ctx, x: Value, *, fft_type: Any, fft_lengths: tuple[int, ...]) -> Value:
    shape = ctx.spec(x).shape
    axes = list(range(len(shape) - len(fft_lengths), len(shape)))
    lengths = [int(n) for n in fft_lengths]
    kind = fft_type.name
    if kind == "RFFT":
        return fft_api.r2c(ctx.emit, x, shape, lengths, axes, "backward")
    if kind == "IRFFT":
        return fft_api.c2r(ctx.emit, x, shape, lengths, axes, "backward")
    return fft_api.complex_nd(ctx.emit, x, axes, lengths, kind == "IFFT", "backward")


FFT: dict[str, Rule] = {
    "conj": _conj,
    "complex": lambda ctx, x, y, **_: ctx.emit("complex", x, y),
    "fft": _fft,
}
"""Lax primitive name -> rule for complex numbers and transforms."""
