"""NumPy functions on traced arrays (`np.sum`, `np.concatenate`, `np.where`, ...).

`FUNCTIONS` maps NumPy's public function names (`sum`, `linalg.norm`) to small
implementations that take the same arguments as NumPy (after a `Call`). Before one
runs, NumPy runs the same call on stand-in arrays: that gives NumPy's own errors for
bad arguments and the exact result dtypes and shapes (`Call.out`), which the
implementation casts to and which are checked afterwards. Argument values a mapping
does not cover raise `Unsupported` and are reported as `numpy.f(arg=)`; functions
without an entry as `numpy.f`. Linear algebra lives in `numpy_linalg`, registered
into the same table.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple
from xdsl.ir import SSAValue

from .common import spec_of
from .numpy_array import NpArray, Session
from .numpy_ufuncs import store_out

NO = np._NoValue
"""NumPy's "argument not given" default."""

STATIC = frozenset({"shape", "ndim", "size", "result_type", "iscomplexobj", "isrealobj",
                    "can_cast", "min_scalar_type", "broadcast_shapes"})
"""Functions of shapes and dtypes only: NumPy's answer on stand-ins is the answer."""
DATA_DEPENDENT = frozenset({"nonzero", "argwhere", "flatnonzero", "unique", "unique_values",
                            "unique_counts", "unique_inverse", "unique_all", "compress",
                            "extract", "trim_zeros"})


class Unsupported(Exception):
    """An argument (named by the message) whose value the mapping does not cover."""


@dataclass(frozen=True)
class Entry:
    impl: Callable[..., Any]
    signature: inspect.Signature
    dummy: str | None
    """Stand-ins for the oracle: "zeros", "eye" (identities for square matrices, so
    linear algebra does not fail on them) or None (no oracle run)."""


FUNCTIONS: dict[str, Entry] = {}


def register(*names: str, dummy: str | None = "zeros") -> Callable[[Callable[..., Any]],
                                                                   Callable[..., Any]]:
    def add(fn: Callable[..., Any]) -> Callable[..., Any]:
        for name in names:
            FUNCTIONS[name] = Entry(fn, inspect.signature(fn), dummy)
        return fn
    return add


class Call:
    """One NumPy call being imported: the session, the function name and NumPy's result
    for the stand-ins (`out`, one array per result)."""

    __slots__ = ("s", "name", "out")

    def __init__(self, s: Session, name: str, out: list[np.ndarray]):
        self.s, self.name, self.out = s, name, out

    @property
    def dtype(self) -> np.dtype:
        return self.out[0].dtype

    @property
    def shape(self) -> tuple[int, ...]:
        return self.out[0].shape

    def val(self, x: Any, dtype: Any = None) -> SSAValue:
        """`x` in `dtype` (default: the result dtype)."""
        return self.s.lift(x, self.dtype if dtype is None else dtype)

    def emit(self, op: str, operands: list[Any], **attrs: Any) -> SSAValue:
        return self.s.emit(op, operands, **attrs)

    def new(self, v: SSAValue, dtype: Any = None) -> NpArray:
        return self.s.new(self.s.cast(v, self.dtype if dtype is None else dtype))


def public_name(func: Any) -> str:
    module = getattr(func, "__module__", None) or "numpy"
    sub = module[len("numpy."):] if module.startswith("numpy.") else ""
    return f"{sub}.{func.__name__}" if sub and not sub.startswith("_") else func.__name__


def call_function(s: Session, func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    s.here()
    name = public_name(func)
    what = f"numpy.{name}"
    if name in STATIC:
        return s.oracle(func, args, kwargs, what)
    if name in DATA_DEPENDENT:
        raise s.trace_error(f"{what} of a traced array has a data-dependent shape or value, "
                            "which a static graph cannot hold")
    entry = FUNCTIONS.get(name)
    if entry is None:
        return s.unsupported(what, s.oracle(func, args, kwargs, what))
    example = s.oracle(func, args, kwargs, what, eye=entry.dummy == "eye") \
        if entry.dummy else None
    out = kwargs.get("out")
    given = {k: v for k, v in kwargs.items() if k != "out"} if out is not None else kwargs
    try:
        entry.signature.bind(None, *args, **given)
    except TypeError:
        unknown = [k for k in given if k not in entry.signature.parameters] or ["args"]
        return s.unsupported(f"{what}({', '.join(unknown)}=)",
                             example if example is not None else s.oracle(func, args, kwargs,
                                                                          what))
    results = list(example) if isinstance(example, (tuple, list)) else [example]
    try:
        result = entry.impl(Call(s, name, results), *args, **given)
    except Unsupported as exc:
        return s.unsupported(f"{what}({exc}=)", example if example is not None
                             else s.oracle(func, args, kwargs, what))
    if example is not None:
        _check(what, result, example)
    if out is not None:
        return store_out(s, what, s.array(result).value, out, np.shape(example), True,
                         "unsafe")
    return result


def _check(what: str, got: Any, want: Any) -> None:
    """The import must give NumPy's result types: a mismatch is a bug of this importer."""
    gots = list(got) if isinstance(got, (tuple, list)) else [got]
    wants = list(want) if isinstance(want, (tuple, list)) else [want]
    have = [(g.shape, g.dtype) if isinstance(g, NpArray) else (np.shape(g), np.asarray(g).dtype)
            for g in gots]
    need = [(np.shape(w), np.asarray(w).dtype) for w in wants]
    if have != need:
        raise RuntimeError(f"internal error importing {what}: the importer produced {have} "
                           f"where NumPy gives {need}")


def axes_of(axis: Any, ndim: int) -> list[int] | None:
    return None if axis is None else list(normalize_axis_tuple(axis, ndim))


def flag(value: Any) -> bool:
    return bool(value) if value is not NO else False


def reduce_op(c: Call, op: str, x: SSAValue, axis: Any, keepdims: Any) -> SSAValue:
    rank = len(spec_of(x).shape)
    axes = axes_of(axis, rank)
    if rank == 0 or axes == []:
        return x
    return c.emit(op, [x], axis=axes, keepdims=flag(keepdims))


def _plain(**given: Any) -> None:
    """Arguments the mappings below take only at their defaults."""
    for name, value in given.items():
        if value is not NO and value is not None and value is not True:
            raise Unsupported(name)


# ---- reductions ----

@register("sum", "prod")
def _sum(c: Call, a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
         keepdims: Any = NO, initial: Any = NO, where: Any = NO) -> NpArray:
    _plain(where=where)
    r = reduce_op(c, c.name, c.val(a), axis, keepdims)
    if initial is not NO:
        r = c.emit("add" if c.name == "sum" else "multiply", [r, c.val(initial)])
    return c.new(r)


@register("mean")
def _mean(c: Call, a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
          keepdims: Any = NO, *, where: Any = NO) -> NpArray:
    _plain(where=where)
    if c.dtype.kind != "f":
        raise Unsupported("dtype")
    # NumPy averages float16 in float32 and rounds the mean back
    compute = np.float32 if c.dtype == np.float16 and dtype is None else c.dtype
    return c.new(reduce_op(c, "mean", c.val(a, compute), axis, keepdims))


@register("var", "std")
def _var(c: Call, a: Any, axis: Any = None, dtype: Any = None, out: Any = None, ddof: Any = 0,
         keepdims: Any = NO, *, where: Any = NO, mean: Any = NO, correction: Any = NO) -> NpArray:
    _plain(where=where, mean=mean)
    if c.dtype.kind != "f":
        raise Unsupported("dtype")
    x = c.val(a)
    rank = len(spec_of(x).shape)
    axes = axes_of(axis, rank)
    corr = float(correction if correction is not NO else ddof)
    return c.new(c.emit(c.name, [x], axis=axes, keepdims=flag(keepdims), correction=corr))


@register("max", "amax", "min", "amin")
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
        r = c.emit(pair, [r, c.val(initial)])
    return c.new(r)


@register("argmax", "argmin")
def _argmax(c: Call, a: Any, axis: Any = None, out: Any = None, *,
            keepdims: Any = NO) -> NpArray:
    x = c.s.lift(a)
    if spec_of(x).dtype == "bool":
        x = c.s.cast(x, np.int8)
    if not spec_of(x).shape:
        return c.new(c.s.lift(0, np.int64))
    ax = None if axis is None else axes_of(axis, len(spec_of(x).shape))[0]  # type: ignore[index]
    return c.new(c.emit(c.name, [x], axis=ax, keepdims=flag(keepdims)))


@register("all", "any")
def _all(c: Call, a: Any, axis: Any = None, out: Any = None, keepdims: Any = NO, *,
         where: Any = NO) -> NpArray:
    _plain(where=where)
    return c.new(reduce_op(c, c.name, c.s.lift(a), axis, keepdims))


@register("cumsum", "cumprod")
def _cumsum(c: Call, a: Any, axis: Any = None, dtype: Any = None, out: Any = None) -> NpArray:
    x = c.val(a)
    if axis is None:
        x, axis = c.emit("reshape", [x], shape=[-1]), 0
    return c.new(c.emit(c.name, [x], axis=int(axis)))


@register("ptp")
def _ptp(c: Call, a: Any, axis: Any = None, out: Any = None, keepdims: Any = NO) -> NpArray:
    x = c.val(a)
    top, bottom = (reduce_op(c, op, x, axis, keepdims) for op in ("max", "min"))
    return c.new(c.emit("subtract", [top, bottom]))


@register("average")
def _average(c: Call, a: Any, axis: Any = None, weights: Any = None, returned: bool = False, *,
             keepdims: Any = NO) -> NpArray:
    _plain(weights=weights, returned=returned or None)
    return c.new(reduce_op(c, "mean", c.val(a), axis, keepdims))


@register("trace")
def _trace(c: Call, a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None,
           out: Any = None) -> NpArray:
    d = c.emit("diagonal", [c.val(a)], offset=offset, axis1=axis1, axis2=axis2)
    return c.new(c.emit("sum", [d], axis=[-1]))


@register("count_nonzero")
def _count_nonzero(c: Call, a: Any, axis: Any = None, *, keepdims: bool = False) -> NpArray:
    x = c.s.lift(a)
    nonzero = c.emit("not_equal", [x, c.s.lift(0, c.s.array(a).dtype)])
    return c.new(reduce_op(c, "sum", c.s.cast(nonzero, c.dtype), axis, keepdims))


# ---- creation from traced arrays ----

@register("zeros_like", "ones_like", "empty_like")
def _zeros_like(c: Call, a: Any, dtype: Any = None, order: str = "K", subok: bool = True,
                shape: Any = None, *, device: Any = None) -> NpArray:
    op = "ones" if c.name == "ones_like" else "zeros"
    return c.s.new(c.emit(op, [], shape=list(c.shape), dtype=c.s.dtype_name(c.dtype)))


@register("full_like")
def _full_like(c: Call, a: Any, fill_value: Any, dtype: Any = None, order: str = "K",
               subok: bool = True, shape: Any = None, *, device: Any = None) -> NpArray:
    if isinstance(fill_value, NpArray) or np.ndim(fill_value):
        raise Unsupported("fill_value")
    fill = np.asarray(fill_value).astype(c.dtype)
    if c.dtype.kind in "iu" and abs(int(fill)) >= 2**53:
        return c.s.new(c.emit("broadcast_to", [c.s.lift(fill)], shape=list(c.shape)))
    return c.s.new(c.emit("full", [], shape=list(c.shape), fill_value=float(fill),
                          dtype=c.s.dtype_name(c.dtype)))


@register("copy")
def _copy(c: Call, a: Any, order: str = "K", subok: bool = False) -> NpArray:
    return c.s.new(c.s.lift(a))


@register("astype")
def _astype(c: Call, x: Any, dtype: Any, *, copy: bool = True, device: Any = None) -> NpArray:
    if not copy and isinstance(x, NpArray) and x.dtype == c.dtype:
        return x
    return c.new(c.val(x))


@register("round", "around")
def _round(c: Call, a: Any, decimals: int = 0, out: Any = None) -> NpArray:
    x = c.val(a)
    if c.dtype.kind in "iub":
        if decimals < 0:
            raise Unsupported("decimals")
        return c.s.new(x)
    if decimals == 0:
        return c.new(c.emit("round", [x]))
    # NumPy's own recipe: scale by a power of ten (a weak Python float), rint, unscale
    up, down = ("multiply", "divide") if decimals > 0 else ("divide", "multiply")
    f = c.val(10.0 ** abs(decimals))
    return c.new(c.emit(down, [c.emit("round", [c.emit(up, [x, f])]), f]))


from . import numpy_linalg, numpy_shapes  # noqa: E402,F401  (fill FUNCTIONS)
