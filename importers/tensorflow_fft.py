"""TF's complex numbers and `tf.signal` transforms -> ivy ops.

`Real`, `Imag`, `Conj` and `ComplexAbs` are one-to-one (`tensorflow_math`). TF's
transforms run over the innermost 1, 2 or 3 axes (`FFT`, `FFT2D`, `FFT3D`; `RFFT*`,
`IRFFT*` with an `fft_length` input cutting or zero-padding each of them, the innermost
of an `IRFFT*` to fft_length // 2 + 1 bins, as NumPy's `s`), the inverse ones divided
by n: NumPy's "backward" scaling. The real ones are a real axis (the innermost) and a
complex transform of the others (`ivy_ir.core.fft_api`).
"""

from __future__ import annotations

from typing import Any

from ivy_ir.core import fft_api

from .common import Rule
from .tensorflow_ctx import Ctx


def _trailing(c: Ctx, x: Any, k: int) -> tuple[tuple[int | None, ...], list[int]]:
    shape = c.spec(x).shape
    return shape, list(range(len(shape) - k, len(shape)))


def _complex(k: int, inverse: bool) -> Rule:
    def rule(c: Ctx, x: Any, **_: Any) -> Any:
        shape, axes = _trailing(c, x, k)
        return fft_api.complex_nd(c.emit, x, axes, [shape[a] for a in axes], inverse,
                                  "backward")
    return rule


def _real(k: int, inverse: bool) -> Rule:
    def rule(c: Ctx, x: Any, fft_length: Any, **_: Any) -> Any:
        shape, axes = _trailing(c, x, k)
        lengths = c.ints(fft_length, "fft_length")
        transform = fft_api.c2r if inverse else fft_api.r2c
        return transform(c.emit, x, shape, lengths, axes, "backward")
    return rule


FFT: dict[str, Rule] = {
    "Complex": lambda c, re, im, **_: c.emit("complex", re, im),
    "Angle": lambda c, z, **_: c.emit("atan2", c.emit("imag", z), c.emit("real", z)),
    "FFT": _complex(1, False), "FFT2D": _complex(2, False), "FFT3D": _complex(3, False),
    "IFFT": _complex(1, True), "IFFT2D": _complex(2, True), "IFFT3D": _complex(3, True),
    "RFFT": _real(1, False), "RFFT2D": _real(2, False), "RFFT3D": _real(3, False),
    "IRFFT": _real(1, True), "IRFFT2D": _real(2, True), "IRFFT3D": _real(3, True),
}
"""TF raw op -> rule: complex numbers and transforms."""
