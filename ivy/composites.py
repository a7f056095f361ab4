"""Standard functions without an op of their own, traced as compositions of ops.

A backend runs these natively (its spelling or namespace function); traced, each is
written once here in terms of the registry ops (`ivy.ops`, which record on tracers).
The data-dependent functions (`nonzero`, `unique_*`) have no composition: they refuse
to be traced (`tracing.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ivy_ir.core.decompose_scans import logaddexp

from . import ops as O  # noqa: N812 (the registry ops, as `F` elsewhere)
from .composites_fft import FFT_COMPOSITES
from .composites_linalg import LINALG_COMPOSITES
from .dtypes import dtype_name


def _perm_moving(ndim: int, source: list[int], destination: list[int]) -> list[int]:
    src = [s % ndim for s in source]
    order = [a for a in range(ndim) if a not in src]
    for s, d in sorted(zip(src, (d % ndim for d in destination)), key=lambda p: p[1]):
        order.insert(d, s)
    return order


def matrix_transpose(x: Any) -> Any:
    axes = list(range(x.ndim))
    axes[-2:] = axes[-1], axes[-2]
    return O.permute_dims(x, axes=axes)


def moveaxis(x: Any, source: Any, destination: Any) -> Any:
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    return O.permute_dims(x, axes=_perm_moving(x.ndim, src, dst))


def unstack(x: Any, axis: int = 0) -> Any:
    n = x.shape[axis]
    parts = O.split(x, sizes=[1] * n, axis=axis) if n else []
    return tuple(O.squeeze(p, axis=[axis]) for p in parts)


def broadcast_arrays(*arrays: Any) -> Any:
    shape: tuple[int, ...] = ()
    for a in arrays:
        shape = _broadcast_shape(shape, tuple(a.shape))
    return [O.broadcast_to(a, shape=list(shape)) for a in arrays]


def _broadcast_shape(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    return tuple(y if x == 1 else x for x, y in zip(a, b))


def positive(x: Any) -> Any:
    return O.add(x, O.zeros_like(x))


def _scan(op: str, x: Any, axis: Any, dtype: Any, include_initial: bool) -> Any:
    if axis is None:
        if x.ndim != 1:
            raise ValueError(f"cumulative_{op}: axis is required for a {x.ndim}-d array")
        axis = 0
    if dtype is not None:
        x = O.astype(x, dtype=str(dtype))
    out = (O.cumsum if op == "sum" else O.cumprod)(x, axis=axis)
    if include_initial:
        shape = list(x.shape)
        shape[axis] = 1
        first = (O.zeros if op == "sum" else O.ones)(shape=shape, dtype=out.dtype)
        out = O.concat([first, out], axis=axis)
    return out


def cumulative_sum(x: Any, axis: Any = None, dtype: Any = None,
                   include_initial: bool = False) -> Any:
    return _scan("sum", x, axis, dtype, include_initial)


def cumulative_prod(x: Any, axis: Any = None, dtype: Any = None,
                    include_initial: bool = False) -> Any:
    return _scan("prod", x, axis, dtype, include_initial)


def tensordot(x1: Any, x2: Any, axes: Any = 2) -> Any:
    if isinstance(axes, int):
        ax1, ax2 = list(range(x1.ndim - axes, x1.ndim)), list(range(axes))
    else:
        ax1, ax2 = list(axes[0]), list(axes[1])
    return O.tensordot(x1, x2, axes_x=ax1, axes_y=ax2)


def diff(x: Any, axis: int = -1, n: int = 1, prepend: Any = None, append: Any = None) -> Any:
    parts = [p for p in (prepend, x, append) if p is not None]
    if len(parts) > 1:
        x = O.concat(parts, axis=axis)
    ax, step = axis % x.ndim, [1] * x.ndim
    for _ in range(n):
        start, stop = [0] * x.ndim, list(x.shape)
        start[ax] = 1
        upper = O.slice(x, start=list(start), stop=list(stop), step=step)
        start[ax], stop[ax] = 0, x.shape[ax] - 1
        x = O.subtract(upper, O.slice(x, start=start, stop=stop, step=step))
    return x


def meshgrid(*arrays: Any, indexing: str = "xy") -> Any:
    n = len(arrays)
    sizes = [a.shape[0] for a in arrays]
    if indexing == "xy" and n > 1:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    out = []
    for i, a in enumerate(arrays):
        where = (1 - i if i < 2 else i) if indexing == "xy" and n > 1 else i
        shape = [1] * n
        shape[where] = a.shape[0]
        out.append(O.broadcast_to(O.reshape(a, shape=shape), shape=sizes))
    return out


def trace(x: Any, offset: int = 0, dtype: Any = None) -> Any:
    diag = O.diagonal(x, offset=offset)
    if dtype is not None:
        diag = O.astype(diag, dtype=str(dtype))
    return O.sum(diag, axis=[-1])


_SAME_WIDTH_INT = {"float16": "int16", "bfloat16": "int16", "float32": "int32",
                   "float64": "int64"}


def signbit(x: Any) -> Any:
    """The sign bit itself (set for -0.0 and a negative NaN), read as a signed integer."""
    return O.less(O.bitcast(x, dtype=_SAME_WIDTH_INT[str(x.dtype)]), 0)


def copysign(x1: Any, x2: Any) -> Any:
    magnitude = O.abs(x1)
    return O.where(signbit(x2), O.negative(magnitude), magnitude)


def hypot(x1: Any, x2: Any) -> Any:
    """sqrt(x1^2 + x2^2) without overflow or underflow (the larger magnitude factored
    out); an infinite side gives inf, a NaN beside it too, as C's hypot."""
    a, b = O.abs(x1), O.abs(x2)
    big, small = O.maximum(a, b), O.minimum(a, b)
    ratio = O.where(O.equal(big, 0), O.zeros_like(big), O.divide(small, big))
    out = O.multiply(big, O.sqrt(O.add(O.multiply(ratio, ratio), 1)))
    inf = O.logical_or(O.isinf(a), O.isinf(b))
    return O.where(inf, O.full_like(big, fill_value=float("inf")), out)


def count_nonzero(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    axes = list(range(x.ndim)) if axis is None else [axis] if isinstance(axis, int) \
        else list(axis)
    nonzero = O.astype(O.not_equal(x, O.zeros_like(x)), dtype="int64")
    return O.sum(nonzero, axis=[a % x.ndim for a in axes], keepdims=keepdims)


def asarray(obj: Any, dtype: Any = None, device: Any = None, copy: Any = None) -> Any:
    """A traced array is already one: cast where a dtype is asked for."""
    if not hasattr(obj, "dtype"):
        raise TypeError("ivy.asarray of a nested sequence holding traced arrays cannot be "
                        "traced: use ivy.stack")
    return obj if dtype is None else O.astype(obj, dtype=dtype_name(dtype) or str(dtype))


def empty_like(x: Any, dtype: Any = None, device: Any = None) -> Any:
    """Zeros: the standard leaves the values unspecified."""
    return O.zeros_like(x, dtype=None if dtype is None else dtype_name(dtype) or str(dtype))


def scatter_nd(indices: Any, updates: Any, shape: Any) -> Any:
    """The 2021 form: `updates` scattered into zeros of `shape`."""
    base = O.zeros(shape=list(shape), dtype=updates.dtype)
    return O.scatter_nd(base, indices, updates)


COMPOSITES: dict[str, Callable[..., Any]] = {
    "scatter_nd": scatter_nd,
    "matrix_transpose": matrix_transpose, "linalg.matrix_transpose": matrix_transpose,
    "moveaxis": moveaxis, "unstack": unstack, "broadcast_arrays": broadcast_arrays,
    "positive": positive, "tensordot": tensordot, "linalg.tensordot": tensordot,
    "cumulative_sum": cumulative_sum,
    "cumulative_prod": cumulative_prod, "diff": diff, "meshgrid": meshgrid,
    "linalg.trace": trace, "signbit": signbit, "copysign": copysign, "hypot": hypot,
    "logaddexp": logaddexp, "count_nonzero": count_nonzero, "asarray": asarray,
    "empty_like": empty_like,
    **FFT_COMPOSITES, **LINALG_COMPOSITES,
}
"""Facade name -> its composition (called with the bound arguments by name)."""
