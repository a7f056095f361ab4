"""NumPy's `np.fft` functions (the Array API's `fft` extension) as registry ops.

The NumPy importer and the facade's tracing (`ivy.fft.*` on tracers) both take the
user-level signature (`s`/`n`, `axes`/`axis`, `norm`), so its meaning is written once
here, over an `emit(op, *operands, **attrs)` callable each of them supplies:

* defaults as NumPy has them: `axes` the last `len(s)` axes (all without `s`), `s` the
  sizes along `axes` (an entry of -1 too), for a real result the last one 2 * (m - 1);
* the n-dimensional real transforms as one real axis (the last of `axes`, halved) and
  a complex transform of the others, as NumPy computes them; the norm factors per axis,
  so each part takes the same `norm`;
* `hfft`/`ihfft` as the real transforms of the conjugate, in the other direction's
  scaling; `fftshift`/`ifftshift` as rolls by half of each axis.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

Emit = Callable[..., Any]
"""`emit(op, *operands, **attrs)`: the registry op applied (recorded or imported)."""
SWAPPED = {"backward": "forward", "ortho": "ortho", "forward": "backward"}
"""The scaling a transform has as the inverse of the other direction."""


def plan(shape: Sequence[int], s: Sequence[int] | None, axes: Sequence[int] | None,
         real_out: bool = False) -> tuple[list[int], list[int]]:
    """(lengths, axes) as NumPy reads `s` and `axes`: canonical axes, in their order."""
    rank = len(shape)
    if axes is None:
        axes = range(rank - len(s), rank) if s is not None else range(rank)
    axes = [a % rank if rank else a for a in axes]
    if s is None:
        s = [-1] * len(axes)
    if len(s) != len(axes):
        raise ValueError(f"s {list(s)} and axes {axes} differ in length")
    lengths = [shape[a] if n == -1 else n for n, a in zip(s, axes)]
    if real_out and axes and s[-1] == -1:
        lengths[-1] = 2 * (shape[axes[-1]] - 1)
    return [int(n) for n in lengths], axes


def complex_nd(emit: Emit, x: Any, axes: list[int], lengths: list[int], inverse: bool,
               norm: str) -> Any:
    """One `fftn` (NumPy transforms a repeated axis again: one op per axis then)."""
    if not axes:
        return x
    if len(set(axes)) < len(axes):
        for axis, n in zip(axes, lengths):
            x = emit("fftn", x, axes=[axis], lengths=[n], inverse=inverse, norm=norm)
        return x
    return emit("fftn", x, axes=axes, lengths=lengths, inverse=inverse, norm=norm)


def c2c(emit: Emit, x: Any, shape: Sequence[int], s: Any, axes: Any, norm: str | None,
        inverse: bool) -> Any:
    lengths, axes = plan(shape, s, axes)
    return complex_nd(emit, x, axes, lengths, inverse, norm or "backward")


def r2c(emit: Emit, x: Any, shape: Sequence[int], s: Any, axes: Any,
        norm: str | None) -> Any:
    lengths, axes = plan(shape, s, axes)
    norm = norm or "backward"
    half = emit("rfft", x, axis=axes[-1], n=lengths[-1], norm=norm)
    return complex_nd(emit, half, axes[:-1], lengths[:-1], False, norm)


def c2r(emit: Emit, x: Any, shape: Sequence[int], s: Any, axes: Any,
        norm: str | None) -> Any:
    lengths, axes = plan(shape, s, axes, real_out=True)
    norm = norm or "backward"
    x = complex_nd(emit, x, axes[:-1], lengths[:-1], True, norm)
    return emit("irfft", x, axis=axes[-1], n=lengths[-1], norm=norm)


def hfft(emit: Emit, x: Any, shape: Sequence[int], n: int | None, axis: int,
         norm: str | None) -> Any:
    """The real spectrum of a signal with Hermitian symmetry: irfft of its conjugate."""
    return c2r(emit, emit("conj", x), shape, None if n is None else [n], [axis],
               SWAPPED[norm or "backward"])


def ihfft(emit: Emit, x: Any, shape: Sequence[int], n: int | None, axis: int,
          norm: str | None) -> Any:
    """hfft's inverse: the conjugate of a real signal's rfft."""
    half = r2c(emit, x, shape, None if n is None else [n], [axis], SWAPPED[norm or "backward"])
    return emit("conj", half)


def shift(emit: Emit, x: Any, shape: Sequence[int], axes: Any, inverse: bool) -> Any:
    """fftshift (zero frequency to the middle) or its inverse: a roll by half of each axis."""
    rank = len(shape)
    axes = list(range(rank)) if axes is None else \
        [a % rank for a in ([axes] if isinstance(axes, int) else axes)]
    if not axes:
        return x
    shifts = [-(shape[a] // 2) if inverse else shape[a] // 2 for a in axes]
    return emit("roll", x, shift=shifts, axis=axes)
