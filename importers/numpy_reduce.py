"""NumPy's reductions, cumulative functions, statistics and sorting on traced arrays
(`np.sum`, `x.mean(axis=0)`, `np.cumsum`, `np.var`, `np.argsort`, ...).

Axes are normalised here (non-negative, as the IR wants them); result dtypes are
NumPy's (`Call.dtype`: `sum` of int32 is int64, `mean` of ints is float64), reached
with explicit casts. `ufunc.reduce`/`ufunc.accumulate` (`numpy_math`) come here through
the NumPy function that computes the same. `REDUCE` is the function table of this family.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import SSAValue

from .common import Rule, Unmapped, spec_of
from .numpy_array import NpArray
from .numpy_context import NO, Call, axes_of


def flag(value: Any) -> bool:
    """A boolean argument such as `keepdims` (NumPy's "not given" is False)."""
    return bool(value) if value is not NO else False


def reduce_op(c: Call, op: str, x: SSAValue, axis: Any, keepdims: Any) -> SSAValue:
    """Registry reduction `op` over NumPy's `axis`; a 0-d input or no axes is `x` itself."""
    rank = len(spec_of(x).shape)
    axes = axes_of(axis, rank)
    if rank == 0 or axes == []:
        return x
    return c.emit(op, x, axis=axes, keepdims=flag(keepdims))


def _plain(**given: Any) -> None:
    """Arguments the mappings below take only at their defaults."""
    for name, value in given.items():
        if value is not NO and value is not None and value is not True:
            raise Unmapped(name)


# ---- reductions and statistics ----

def _sum(c: Call, a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
         keepdims: Any = NO, initial: Any = NO, where: Any = NO) -> NpArray:
    _plain(where=where)
    r = reduce_op(c, c.name, c.val(a), axis, keepdims)
    if initial is not NO:
        r = c.emit("add" if c.name == "sum" else "multiply", r, c.val(initial))
    return c.new(r)


def _mean(c: Call, a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
          keepdims: Any = NO, *, where: Any = NO) -> NpArray:
    _plain(where=where)
    if c.dtype.kind != "f":
        raise Unmapped("dtype")
    # NumPy averages float16 in float32 and rounds the mean back
    compute = np.float32 if c.dtype == np.float16 and dtype is None else c.dtype
    return c.new(reduce_op(c, "mean", c.val(a, compute), axis, keepdims))


def _var(c: Call, a: Any, axis: Any = None, dtype: Any = None, out: Any = None, ddof: Any = 0,
         keepdims: Any = NO, *, where: Any = NO, mean: Any = NO, correction: Any = NO) -> NpArray:
    _plain(where=where, mean=mean)
    if c.dtype.kind != "f":
        raise Unmapped("dtype")
    x = c.val(a)
    rank = len(spec_of(x).shape)
    axes = axes_of(axis, rank)
    corr = float(correction if correction is not NO else ddof)
    return c.new(c.emit(c.name, x, axis=axes, keepdims=flag(keepdims), correction=corr))


def _max(c: Call, a: Any, axis: Any = None, out: Any = None, keepdims: Any = NO,
         initial: Any = NO, where: Any = NO) -> NpArray:
    _plain(where=where)
    big = c.name in ("max", "amax")
    logical = c.dtype == np.bool_
    op = ("any" if big else "all") if logical else ("max" if big else "min")
    r = reduce_op(c, op, c.val(a), axis, keepdims)
    if initial is not NO:
        pair = ("logical_or" if big else "logical_and") if logical else \
            ("maximum" if big else "minimum")
        r = c.emit(pair, r, c.val(initial))
    return c.new(r)


def _argmax(c: Call, a: Any, axis: Any = None, out: Any = None, *,
            keepdims: Any = NO) -> NpArray:
    x = c.s.lift(a)
    if spec_of(x).dtype == "bool":
        x = c.s.cast(x, np.int8)
    if not spec_of(x).shape:
        return c.new(c.s.lift(0, np.int64))
    ax = None if axis is None else axes_of(axis, len(spec_of(x).shape))[0]  # type: ignore[index]
    return c.new(c.emit(c.name, x, axis=ax, keepdims=flag(keepdims)))


def _all(c: Call, a: Any, axis: Any = None, out: Any = None, keepdims: Any = NO, *,
         where: Any = NO) -> NpArray:
    _plain(where=where)
    return c.new(reduce_op(c, c.name, c.s.lift(a), axis, keepdims))


def _cumsum(c: Call, a: Any, axis: Any = None, dtype: Any = None, out: Any = None) -> NpArray:
    x = c.val(a)
    if axis is None:
        x, axis = c.emit("reshape", x, shape=[-1]), 0
    return c.new(c.emit(c.name, x, axis=int(axis)))


def _ptp(c: Call, a: Any, axis: Any = None, out: Any = None, keepdims: Any = NO) -> NpArray:
    x = c.val(a)
    top, bottom = (reduce_op(c, op, x, axis, keepdims) for op in ("max", "min"))
    return c.new(c.emit("subtract", top, bottom))


def _average(c: Call, a: Any, axis: Any = None, weights: Any = None, returned: bool = False, *,
             keepdims: Any = NO) -> NpArray:
    _plain(weights=weights, returned=returned or None)
    return c.new(reduce_op(c, "mean", c.val(a), axis, keepdims))


def _trace(c: Call, a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None,
           out: Any = None) -> NpArray:
    d = c.emit("diagonal", c.val(a), offset=offset, axis1=axis1, axis2=axis2)
    return c.new(c.emit("sum", d, axis=[-1]))


def _count_nonzero(c: Call, a: Any, axis: Any = None, *, keepdims: bool = False) -> NpArray:
    x = c.s.lift(a)
    nonzero = c.emit("not_equal", x, c.s.lift(0, c.s.array(a).dtype))
    return c.new(reduce_op(c, "sum", c.s.cast(nonzero, c.dtype), axis, keepdims))


# ---- sorting ----

def _sort(c: Call, a: Any, axis: Any = -1, kind: Any = None, order: Any = None, *,
          stable: Any = None) -> NpArray:
    if order is not None:
        raise Unmapped("order")
    x = c.s.lift(a)
    if spec_of(x).dtype == "bool":
        raise Unmapped("a")
    if axis is None:
        x, axis = c.emit("reshape", x, shape=[-1]), -1
    return c.new(c.emit(c.name, x, axis=int(axis)))


REDUCE: dict[str, Rule] = {
    "sum": _sum, "prod": _sum, "mean": _mean, "var": _var, "std": _var, "max": _max,
    "amax": _max, "min": _max, "amin": _max, "argmax": _argmax, "argmin": _argmax, "all": _all,
    "any": _all, "cumsum": _cumsum, "cumprod": _cumsum, "ptp": _ptp, "average": _average,
    "trace": _trace, "count_nonzero": _count_nonzero, "sort": _sort, "argsort": _sort,
}
"""NumPy function name -> its rule (see `numpy_context`)."""
