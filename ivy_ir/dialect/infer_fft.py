"""Result-type rules of complex numbers and the discrete Fourier transforms.

They live apart from `infer.py` because their dtypes pair each real float with the
complex dtype of its width: float16 and bfloat16 have none (no framework has a
complex32 FFT), so these rules refuse them where the spec's classes cannot.
"""

from __future__ import annotations

from typing import Any

from .infer import Rule, broadcast, check, registrar
from .types import REAL_OF, TensorSpec

FFT_RULES: dict[str, Rule] = {}
rule = registrar(FFT_RULES)

COMPLEX_OF = {real: cplx for cplx, real in REAL_OF.items()}
"""The complex dtype whose parts have a real float dtype: float32 -> complex64."""


def _complex_of(dtype: str, what: str) -> str:
    """The complex dtype `dtype` is (complex) or becomes (a real float of its width)."""
    cplx = dtype if dtype in REAL_OF else COMPLEX_OF.get(dtype)
    check(cplx is not None, f"{what} has no complex dtype for {dtype} "
                            "(only float32, float64, complex64 and complex128)")
    return cplx  # type: ignore[return-value]


def _length(n: int, what: str) -> None:
    check(n >= 1, f"{what} must be at least 1, got {n}")


@rule("complex")
def _complex(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    dtype = _complex_of(ins[0].dtype, "complex")
    return [TensorSpec(broadcast(ins[0].shape, ins[1].shape), dtype)]


@rule("fft")
def _fft(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    x, axes, lengths = ins[0], a["axes"], a["lengths"]
    check(len(axes) >= 1, "fftn transforms at least one axis")
    check(len(lengths) == len(axes),
          f"lengths {list(lengths)} must give one length per axis of {list(axes)}")
    shape = list(x.shape)
    for axis, n in zip(axes, lengths):
        _length(n, "an fftn length")
        shape[axis] = n
    return [TensorSpec(tuple(shape), _complex_of(x.dtype, "fftn"))]


@rule("rfft")
def _rfft(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    x, n = ins[0], a["n"]
    _length(n, "rfft's n")
    shape = list(x.shape)
    shape[a["axis"]] = n // 2 + 1
    return [TensorSpec(tuple(shape), _complex_of(x.dtype, "rfft"))]


@rule("irfft")
def _irfft(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    x, n = ins[0], a["n"]
    _length(n, "irfft's n")
    shape = list(x.shape)
    shape[a["axis"]] = n
    return [TensorSpec(tuple(shape), REAL_OF[_complex_of(x.dtype, "irfft")])]
