"""Elementwise math, comparisons and logic on traced arrays: the ufuncs (`np.add(x, 1)`,
`x * y`, `np.maximum.reduce(x)`, ...) and the elementwise functions `np.where`,
`np.clip`, `np.round`.

`ufunc.resolve_dtypes` is the oracle for promotion: it takes Python scalars as weak
(NEP 50) and NumPy scalars and arrays as strong and names the loop NumPy would run, so
each operand is cast to its loop dtype (one explicit `astype` where it differs) and the
result comes out in NumPy's dtype. `UFUNCS` maps each ufunc name to its rule, called as
`rule(call, *operands)` with the operands in their loop dtypes: the ufuncs of
`ONE_TO_ONE` (one registry op of the same meaning, built from the registry's shared
op sets) go through `_one_to_one`, which also covers what changes meaning with the
loop dtype (NumPy's `add` on bools is a logical or); a few others are short
compositions. Any other ufunc, and any dtype the registry op does not take, is
recorded as unsupported (`numpy.f`, `numpy.f[dtype]`). `MATH` is the function table
of this family.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.ir import SSAValue

from ivy_ir.core.rules import SCATTER_COMBINES
from ivy_ir.dialect import SPECS
from ivy_ir.dialect.infer import InferError
from ivy_ir.dialect.types import CLASS_MEMBERS, COMPLEX, numpy_dtype

from .common import BINARY_OPS, UNARY_OPS, Rule, Unmapped, one_to_one, spec_of
from .numpy_array import NpArray, Session
from .numpy_context import NO, Call, store_out
from .numpy_index import index_value

ONE_TO_ONE: dict[str, str] = one_to_one(
    UNARY_OPS | BINARY_OPS,
    renamed={"abs": "absolute", "acos": "arccos", "acosh": "arccosh", "asin": "arcsin",
             "asinh": "arcsinh", "atan": "arctan", "atan2": "arctan2", "atanh": "arctanh",
             "bitwise_invert": "invert", "bitwise_left_shift": "left_shift",
             "bitwise_right_shift": "right_shift", "pow": "power", "round": "rint",
             # NumPy has no ufunc of these
             "erf": None, "erfc": None, "rsqrt": None, "lgamma": None, "digamma": None,
             "bessel_i0e": None, "stop_gradient": None,  # NumPy has no autodiff
             # functions, not ufuncs (numpy_fft.py); conjugate: a rule below
             "real": None, "imag": None, "conj": None},
    aliases={"fabs": "abs", "float_power": "pow", "matmul": "matmul", "vecdot": "vecdot",
             "cbrt": "cbrt"})
"""Ufunc name -> the registry op of the same meaning."""
LOGICAL = frozenset({"logical_and", "logical_or", "logical_xor", "logical_not"})
"""NumPy's logical ufuncs take any dtype and test it for non-zero."""
ROUNDING = frozenset({"floor", "ceil", "trunc", "rint"})
ORDERED = frozenset({"less", "less_equal", "greater", "greater_equal"})
BOOL_AS = {"add": "logical_or", "multiply": "logical_and", "maximum": "logical_or",
           "minimum": "logical_and"}
"""NumPy's arithmetic on bools: `True + True` is True."""


# ---- ufunc rules: `rule(call, *operands in their loop dtypes) -> results` ----

def _accepts(op: str, values: tuple[SSAValue, ...]) -> bool:
    spec = SPECS[op]
    return all(spec_of(v).dtype in CLASS_MEMBERS[a.dtype_class]
               for a, v in zip(spec.operands, values))


def _one_to_one(c: Call, *values: SSAValue) -> list[SSAValue]:
    name = c.name
    loop = numpy_dtype(spec_of(values[0]).dtype)
    kind = loop.kind
    if kind in "iub" and name in ROUNDING or kind == "b" and name == "absolute":
        return list(values)
    op = ONE_TO_ONE[name]
    if name in LOGICAL:
        values = tuple(c.s.cast(v, np.bool_) for v in values)
    elif kind == "b" and name in BOOL_AS:
        op = BOOL_AS[name]
    elif kind == "b" and name in ORDERED:
        values = tuple(c.s.cast(v, np.int8) for v in values)
    if not _accepts(op, values):
        raise Unmapped(str(loop))
    return c.emit_all(op, *values)


def _same(c: Call, *values: SSAValue) -> list[SSAValue]:
    return list(values)


def _conjugate(c: Call, x: SSAValue) -> list[SSAValue]:
    # the identity on real numbers, integers and bools included
    return [c.emit("conj", x) if spec_of(x).dtype in COMPLEX else x]


def _divmod(c: Call, x: SSAValue, y: SSAValue) -> list[SSAValue]:
    return [c.emit("floor_divide", x, y), c.emit("remainder", x, y)]


def _matvec(c: Call, m: SSAValue, v: SSAValue) -> list[SSAValue]:
    # (..., n, k) @ (..., k) -> (..., n)
    col = c.emit("expand_dims", v, axis=[-1])
    return [c.emit("squeeze", c.emit("matmul", m, col), axis=[-1])]


def _vecmat(c: Call, v: SSAValue, m: SSAValue) -> list[SSAValue]:
    # (..., k) @ (..., k, n) -> (..., n)
    row = c.emit("expand_dims", v, axis=[-2])
    return [c.emit("squeeze", c.emit("matmul", row, m), axis=[-2])]


def _bitwise_count(c: Call, x: SSAValue) -> list[SSAValue]:
    # the bits of |x| (the caller casts the count to the loop's uint8)
    signed = numpy_dtype(spec_of(x).dtype).kind == "i"
    return [c.emit("population_count", c.emit("abs", x) if signed else x)]


UFUNCS: dict[str, Rule] = {
    **dict.fromkeys(ONE_TO_ONE, _one_to_one),
    "positive": _same,
    "conjugate": _conjugate,
    "divmod": _divmod,
    "matvec": _matvec,
    "vecmat": _vecmat,
    "bitwise_count": _bitwise_count,
}
"""Ufunc name (`ufunc.__name__`) -> its rule."""


# ---- ufunc calls and methods ----

def call_ufunc(s: Session, ufunc: np.ufunc, method: str, inputs: tuple[Any, ...],
               kwargs: dict[str, Any]) -> Any:
    """`ufunc.method(*inputs, **kwargs)` on traced arrays."""
    s.here()
    what = f"numpy.{ufunc.__name__}" + ("" if method == "__call__" else f".{method}")
    handler = METHODS.get(method)
    if handler is None:
        return s.unsupported(what, s.oracle(getattr(ufunc, method), inputs, kwargs, what))
    return handler(s, ufunc, inputs, kwargs, what)


def _dtype_arg(x: Any) -> Any:
    """What `resolve_dtypes` wants: a dtype, or the Python type of a weak scalar."""
    if isinstance(x, (NpArray, np.ndarray, np.generic)):
        return x.dtype
    if isinstance(x, bool):
        return np.dtype(bool)
    if isinstance(x, (int, float, complex)):
        return type(x)
    return np.asarray(x).dtype


def _call(s: Session, ufunc: np.ufunc, inputs: tuple[Any, ...], kwargs: dict[str, Any],
          what: str) -> Any:
    options = dict(kwargs)
    out, where = options.pop("out", None), options.pop("where", True)
    dtype, casting = options.pop("dtype", None), options.pop("casting", "same_kind")
    options.pop("order", None), options.pop("subok", None)
    nin, nout = ufunc.nin, ufunc.nout
    if options or where is not True and out is None:
        extra = ", ".join(list(options) or ["where"])
        return s.unsupported(f"{what}({extra}=)", s.oracle(ufunc, inputs, kwargs, what))
    forced = {} if dtype is None else {"signature": (None,) * nin + (np.dtype(dtype),) * nout}
    try:
        loop = ufunc.resolve_dtypes(tuple(_dtype_arg(x) for x in inputs) + (None,) * nout,
                                    **forced)
    except (TypeError, ValueError) as exc:
        raise s.rethrow(exc, what) from None
    shapes = [x.shape if isinstance(x, NpArray) else np.shape(x) for x in inputs]
    shape = None  # gufuncs (matmul, vecdot): their ops infer the result shape
    if ufunc.signature is None:
        try:
            shape = np.broadcast_shapes(*shapes)
        except ValueError:
            raise ValueError(f"{s.where}: {what}: operands could not be broadcast together "
                             f"with shapes {' '.join(map(str, shapes))}") from None
    if ufunc.__name__ == "power" and loop[1].kind in "iu" and not isinstance(inputs[1], NpArray) \
            and np.any(np.asarray(inputs[1]) < 0):
        raise ValueError(f"{s.where}: {what}: Integers to negative integer powers are not "
                         "allowed.")
    values = [s.lift(x, loop[i]) for i, x in enumerate(inputs)]
    example_args = {} if dtype is None else {"dtype": dtype}
    rule = UFUNCS.get(ufunc.__name__)
    if rule is None:
        return s.unsupported(what, s.oracle(ufunc, inputs, example_args, what))
    call = Call(s, ufunc.__name__, oracle=lambda: s.oracle(ufunc, inputs, example_args, what))
    try:
        results = rule(call, *values)
    except InferError:
        s.oracle(ufunc, inputs, {}, what)  # NumPy's own error for the operands it rejects
        raise
    except Unmapped as exc:  # no registry op for this loop dtype
        return s.unsupported(f"{what}[{exc.detail}]", s.oracle(ufunc, inputs, example_args,
                                                               what))
    results = [s.cast(r, d) for r, d in zip(results, loop[nin:])]
    outs = out if out is not None else (None,) * nout
    arrays = [s.new(r) if o is None else store_out(s, what, r, o, shape or spec_of(r).shape,
                                                   where, casting)
              for r, o in zip(results, outs)]
    return arrays[0] if nout == 1 else tuple(arrays)


REDUCE_AS = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min",
             "logical_and": "all", "logical_or": "any"}
ACCUMULATE_AS = {"add": "cumsum", "multiply": "cumprod"}
"""`ufunc.reduce`/`ufunc.accumulate` as the NumPy function that computes the same."""
AT_SCATTERS = {**{fold: op for op, fold in SCATTER_COMBINES.items()},
               "subtract": "scatter_add"}
"""`ufunc.at` -> the registry scatter that folds the updates in (subtract: of -b)."""

RUNNING_OPS = {"maximum": "cummax", "minimum": "cummin", "logaddexp": "logcumsumexp"}
"""`ufunc.accumulate` -> the registry's running reduction."""


def _reduce(s: Session, ufunc: np.ufunc, inputs: tuple[Any, ...], kwargs: dict[str, Any],
            what: str) -> Any:
    example = s.oracle(ufunc.reduce, inputs, kwargs, what)
    fn = REDUCE_AS.get(ufunc.__name__)
    options = dict(kwargs)
    out = options.pop("out", None)
    args: dict[str, Any] = {"axis": options.pop("axis", 0),
                            "keepdims": options.pop("keepdims", False)}
    if "initial" in options:
        args["initial"] = options.pop("initial")
    options.pop("dtype", None)
    if fn is None or options.get("where", True) is not True:
        return s.unsupported(what, example)
    if fn in ("sum", "prod"):
        args["dtype"] = example.dtype
    return _finish(s, what, getattr(np, fn)(inputs[0], **args), example, out)


def _accumulate(s: Session, ufunc: np.ufunc, inputs: tuple[Any, ...], kwargs: dict[str, Any],
                what: str) -> Any:
    example = s.oracle(ufunc.accumulate, inputs, kwargs, what)
    if ufunc.__name__ in RUNNING_OPS:  # a registry op of its own
        x = s.lift(inputs[0], example.dtype)
        axis = kwargs.get("axis", 0) % max(spec_of(x).rank, 1)
        return _finish(s, what, s.new(s.emit(RUNNING_OPS[ufunc.__name__], x, axis=axis)),
                       example, kwargs.get("out"))
    fn = ACCUMULATE_AS.get(ufunc.__name__)
    if fn is None:
        return s.unsupported(what, example)
    result = getattr(np, fn)(inputs[0], axis=kwargs.get("axis", 0), dtype=example.dtype)
    return _finish(s, what, result, example, kwargs.get("out"))


def _finish(s: Session, what: str, result: Any, example: np.ndarray, out: Any) -> Any:
    arr = s.array(result)
    if arr.dtype != example.dtype:
        arr = s.new(s.cast(arr.value, example.dtype))
    if out is None:
        return arr
    return store_out(s, what, arr.value, out[0] if isinstance(out, tuple) else out,
                     arr.shape, True, "unsafe")


def _outer(s: Session, ufunc: np.ufunc, inputs: tuple[Any, ...], kwargs: dict[str, Any],
           what: str) -> Any:
    a, b = inputs
    s.oracle(ufunc.outer, inputs, kwargs, what)
    column = np.reshape(a, np.shape(a.dummy() if isinstance(a, NpArray) else a)
                        + (1,) * np.ndim(b.dummy() if isinstance(b, NpArray) else b))
    return ufunc(column, b, **kwargs)


def _at(s: Session, ufunc: np.ufunc, inputs: tuple[Any, ...], kwargs: dict[str, Any],
        what: str) -> None:
    """`np.add.at(a, indices, b)` (and subtract, multiply, maximum, minimum): an
    unbuffered in-place update (every update of a repeated index takes part)."""
    a, indices, b = (*inputs, None)[:3]
    if not isinstance(a, NpArray):
        raise s.trace_error(f"{what}: the array to update must be traced; a NumPy array "
                            "cannot be updated in place while tracing")
    s.oracle(ufunc.at, inputs, kwargs, what)
    op = AT_SCATTERS.get(ufunc.__name__)
    if op is None or b is None:
        s.builder.missing.setdefault(what, []).append(s.where)
        return None
    v = s.lift(b, a.dtype)
    if ufunc.__name__ == "subtract":
        v = s.emit("negative", v)
    if isinstance(indices, NpArray):
        idx = index_value(s, indices, a.shape[0], 0)
        target = indices.shape + a.shape[1:]
        if spec_of(v).shape != target:
            v = s.emit("broadcast_to", v, shape=list(target))
        a.assign(s.emit(op, a.value, s.emit("expand_dims", idx, axis=[-1]), v))
        return None
    keys = indices if isinstance(indices, tuple) else (indices,)
    if any(isinstance(k, NpArray) for k in keys):
        raise s.trace_error(f"{what}: a traced index is supported as a single index array")
    positions = np.arange(a.size).reshape(a.shape)[indices]
    if spec_of(v).shape != positions.shape:
        v = s.emit("broadcast_to", v, shape=list(positions.shape))
    flat = s.emit("reshape", a.value, shape=[a.size])
    updates = s.emit("reshape", v, shape=[positions.size])
    index = s.lift(positions.reshape(-1, 1).astype(np.int64))
    new = s.emit(op, flat, index, updates)
    a.assign(s.emit("reshape", new, shape=list(a.shape)))
    return None


METHODS: dict[str, Callable[..., Any]] = {
    "__call__": _call, "reduce": _reduce, "accumulate": _accumulate, "outer": _outer,
    "at": _at,
}
"""Ufunc method -> its handler, `handler(session, ufunc, inputs, kwargs, what)`."""


# ---- elementwise functions ----

def _where(c: Call, condition: Any, x: Any = NO, y: Any = NO) -> NpArray:
    if x is NO and y is NO:
        raise c.s.trace_error("numpy.where with one argument returns the indices of true "
                              "elements, a data-dependent shape; pass x and y")
    cond = c.s.lift(condition, np.bool_)
    return c.new(c.emit("where", cond, c.val(x), c.val(y)))


def _scalar(b: Any) -> bool:
    return not isinstance(b, NpArray) and np.ndim(b) == 0


def _clip(c: Call, a: Any, a_min: Any = NO, a_max: Any = NO, out: Any = None, *, min: Any = NO,
          max: Any = NO, **kwargs: Any) -> NpArray:
    if kwargs:
        raise Unmapped(", ".join(kwargs))
    lo = a_min if a_min is not NO else (None if min is NO else min)
    hi = a_max if a_max is not NO else (None if max is NO else max)
    x = c.val(a)
    if c.dtype.kind == "f" and _scalar(lo) and _scalar(hi):
        # bounds rounded to the array's dtype first, as NumPy compares in that dtype
        def bound(b: Any) -> float | None:
            return None if b is None else float(np.asarray(b).astype(c.dtype))
        return c.new(c.emit("clip", x, min=bound(lo), max=bound(hi)))
    if lo is not None:
        x = c.emit("maximum", x, c.val(lo))
    if hi is not None:
        x = c.emit("minimum", x, c.val(hi))
    return c.new(x)


def _round(c: Call, a: Any, decimals: int = 0, out: Any = None) -> NpArray:
    x = c.val(a)
    if c.dtype.kind in "iub":
        if decimals < 0:
            raise Unmapped("decimals")
        return c.s.new(x)
    if decimals == 0:
        return c.new(c.emit("round", x))
    # NumPy's own recipe: scale by a power of ten (a weak Python float), rint, unscale
    up, down = ("multiply", "divide") if decimals > 0 else ("divide", "multiply")
    f = c.val(10.0 ** abs(decimals))
    return c.new(c.emit(down, c.emit("round", c.emit(up, x, f)), f))


def _searchsorted(c: Call, a: Any, v: Any, side: str = "left", sorter: Any = None
                  ) -> NpArray:
    if sorter is not None:
        raise Unmapped("sorter")
    common = np.result_type(*(x.dtype if isinstance(x, NpArray) else np.asarray(x)
                              for x in (a, v)))
    return c.new(c.emit("searchsorted", c.val(a, common), c.val(v, common), side=side))


MATH: dict[str, Rule] = {
    "where": _where, "clip": _clip, "round": _round, "around": _round,
    "searchsorted": _searchsorted,
}
"""NumPy function name -> its rule (see `numpy_context`)."""
