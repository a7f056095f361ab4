"""The standard's `fft` extension on tracers: `ivy.fft.*` traced as registry ops.

Backends run `ivy.fft.*` natively; traced, each function means what NumPy's does (the
standard follows NumPy here), so its composition is `ivy_ir.core.fft_api`'s, the one
the NumPy importer uses too, recorded through the registry ops. `fftfreq`/`rfftfreq`
take no array and never meet a tracer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ivy_ir.core import fft_api

from . import ops as O  # noqa: N812 (the registry ops, as in composites.py)


def _emit(op: str, *operands: Any, **attrs: Any) -> Any:
    return getattr(O, op)(*operands, **attrs)


def _one(n: int | None) -> list[int] | None:
    return None if n is None else [n]


def _c2c(inverse: bool) -> Callable[..., Any]:
    def fn(x: Any, n: int | None = None, axis: int = -1, norm: str = "backward") -> Any:
        return fft_api.c2c(_emit, x, x.shape, _one(n), [axis], norm, inverse)
    return fn


def _c2c_nd(inverse: bool) -> Callable[..., Any]:
    def fn(x: Any, s: Any = None, axes: Any = None, norm: str = "backward") -> Any:
        return fft_api.c2c(_emit, x, x.shape, s, axes, norm, inverse)
    return fn


def _real(inverse: bool) -> Callable[..., Any]:
    transform = fft_api.c2r if inverse else fft_api.r2c

    def fn(x: Any, n: int | None = None, axis: int = -1, norm: str = "backward") -> Any:
        return transform(_emit, x, x.shape, _one(n), [axis], norm)
    return fn


def _real_nd(inverse: bool) -> Callable[..., Any]:
    transform = fft_api.c2r if inverse else fft_api.r2c

    def fn(x: Any, s: Any = None, axes: Any = None, norm: str = "backward") -> Any:
        return transform(_emit, x, x.shape, s, axes, norm)
    return fn


def _hermitian(transform: Callable[..., Any]) -> Callable[..., Any]:
    def fn(x: Any, n: int | None = None, axis: int = -1, norm: str = "backward") -> Any:
        return transform(_emit, x, x.shape, n, axis, norm)
    return fn


def _shift(inverse: bool) -> Callable[..., Any]:
    def fn(x: Any, axes: Any = None) -> Any:
        return fft_api.shift(_emit, x, x.shape, axes, inverse)
    return fn


FFT_COMPOSITES: dict[str, Callable[..., Any]] = {
    "fft.fft": _c2c(False), "fft.ifft": _c2c(True),
    "fft.fftn": _c2c_nd(False), "fft.ifftn": _c2c_nd(True),
    "fft.rfft": _real(False), "fft.irfft": _real(True),
    "fft.rfftn": _real_nd(False), "fft.irfftn": _real_nd(True),
    "fft.hfft": _hermitian(fft_api.hfft), "fft.ihfft": _hermitian(fft_api.ihfft),
    "fft.fftshift": _shift(False), "fft.ifftshift": _shift(True),
}
"""Standard `fft.*` name -> its composition (called with the bound arguments by name)."""
