"""NumPy ufuncs on traced arrays: `np.add(x, 1)`, `x * y`, `np.maximum.reduce(x)`, ...

`ufunc.resolve_dtypes` is the oracle for promotion: it takes Python scalars as weak
(NEP 50) and NumPy scalars and arrays as strong and names the loop NumPy would run, so
each operand is cast to its loop dtype (one explicit `astype` where it differs) and the
result comes out in NumPy's dtype. `UFUNC_OPS` maps ufuncs with a registry op of the
same meaning; `SPECIAL` holds the few that need a short composition or change meaning
with the loop dtype (NumPy's `add` on bools is a logical or). Any other ufunc, and
any dtype the registry op does not take, is recorded as unsupported.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.ir import SSAValue

from ivy_ir.dialect import SPECS
from ivy_ir.dialect.infer import InferError
from ivy_ir.dialect.types import CLASS_MEMBERS, numpy_dtype

from .common import spec_of
from .numpy_array import NpArray, Session
from .numpy_index import index_value

UFUNC_OPS: dict[str, str] = {
    "add": "add", "subtract": "subtract", "multiply": "multiply", "divide": "divide",
    "floor_divide": "floor_divide", "remainder": "remainder", "power": "pow",
    "float_power": "pow", "maximum": "maximum", "minimum": "minimum", "arctan2": "atan2",
    "equal": "equal", "not_equal": "not_equal", "less": "less", "less_equal": "less_equal",
    "greater": "greater", "greater_equal": "greater_equal", "logical_and": "logical_and",
    "logical_or": "logical_or", "logical_xor": "logical_xor", "logical_not": "logical_not",
    "bitwise_and": "bitwise_and", "bitwise_or": "bitwise_or", "bitwise_xor": "bitwise_xor",
    "left_shift": "bitwise_left_shift", "right_shift": "bitwise_right_shift",
    "invert": "bitwise_invert", "absolute": "abs", "fabs": "abs", "negative": "negative",
    "sign": "sign", "sqrt": "sqrt", "square": "square", "reciprocal": "reciprocal",
    "exp": "exp", "expm1": "expm1", "log": "log", "log1p": "log1p", "log2": "log2",
    "log10": "log10", "sin": "sin", "cos": "cos", "tan": "tan", "arcsin": "asin",
    "arccos": "acos", "arctan": "atan", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh",
    "arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh", "floor": "floor",
    "ceil": "ceil", "rint": "round", "trunc": "trunc", "isnan": "isnan", "isinf": "isinf",
    "isfinite": "isfinite", "matmul": "matmul", "vecdot": "vecdot",
}
LOGICAL = frozenset({"logical_and", "logical_or", "logical_xor", "logical_not"})
"""NumPy's logical ufuncs take any dtype and test it for non-zero."""
ROUNDING = frozenset({"floor", "ceil", "trunc", "rint"})
ORDERED = frozenset({"less", "less_equal", "greater", "greater_equal"})
BOOL_AS = {"add": "logical_or", "multiply": "logical_and", "maximum": "logical_or",
           "minimum": "logical_and"}
"""NumPy's arithmetic on bools: `True + True` is True."""

Values = list[SSAValue]


def _matvec(s: Session, v: Values) -> Values:
    # (..., n, k) @ (..., k) -> (..., n)
    col = s.emit("expand_dims", [v[1]], axis=[-1])
    return [s.emit("squeeze", [s.emit("matmul", [v[0], col])], axis=[-1])]


def _vecmat(s: Session, v: Values) -> Values:
    # (..., k) @ (..., k, n) -> (..., n)
    row = s.emit("expand_dims", [v[0]], axis=[-2])
    return [s.emit("squeeze", [s.emit("matmul", [row, v[1]])], axis=[-2])]


SPECIAL: dict[str, Callable[[Session, Values], Values]] = {
    "positive": lambda s, v: v,
    "conjugate": lambda s, v: v,  # real dtypes only
    "divmod": lambda s, v: [s.emit("floor_divide", v), s.emit("remainder", v)],
    "matvec": _matvec,
    "vecmat": _vecmat,
}


def _dtype_arg(x: Any) -> Any:
    """What `resolve_dtypes` wants: a dtype, or the Python type of a weak scalar."""
    if isinstance(x, (NpArray, np.ndarray, np.generic)):
        return x.dtype
    if isinstance(x, bool):
        return np.dtype(bool)
    if isinstance(x, (int, float, complex)):
        return type(x)
    return np.asarray(x).dtype


def _accepts(op: str, values: Values) -> bool:
    spec = SPECS[op]
    return all(spec_of(v).dtype in CLASS_MEMBERS[a.dtype_class]
               for a, v in zip(spec.operands, values))


def _compute(s: Session, name: str, values: Values, loop: tuple[np.dtype, ...]) -> Values | None:
    """The registry ops for ufunc `name` on operands already in their loop dtypes."""
    kind = loop[0].kind
    if name in SPECIAL:
        return SPECIAL[name](s, values)
    if kind in "iub" and name in ROUNDING or kind == "b" and name == "absolute":
        return values
    op = UFUNC_OPS.get(name)
    if op is None:
        return None
    if name in LOGICAL:
        values = [s.cast(v, np.bool_) for v in values]
    elif kind == "b" and name in BOOL_AS:
        op = BOOL_AS[name]
    elif kind == "b" and name in ORDERED:
        values = [s.cast(v, np.int8) for v in values]
    if not _accepts(op, values):
        return None
    return s.emit_all(op, values)


def call_ufunc(s: Session, ufunc: np.ufunc, method: str, inputs: tuple[Any, ...],
               kwargs: dict[str, Any]) -> Any:
    s.here()
    what = f"numpy.{ufunc.__name__}" + ("" if method == "__call__" else f".{method}")
    handler = METHODS.get(method)
    if handler is None:
        return s.unsupported(what, s.oracle(getattr(ufunc, method), inputs, kwargs, what))
    return handler(s, ufunc, inputs, kwargs, what)


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
    try:
        results = _compute(s, ufunc.__name__, values, loop)
    except InferError:
        s.oracle(ufunc, inputs, {}, what)  # NumPy's own error for the operands it rejects
        raise
    if results is None:
        name = f"{what}[{loop[0]}]" if ufunc.__name__ in UFUNC_OPS else what
        return s.unsupported(name, s.oracle(ufunc, inputs, {} if dtype is None
                                            else {"dtype": dtype}, what))
    results = [s.cast(r, d) for r, d in zip(results, loop[nin:])]
    outs = out if out is not None else (None,) * nout
    arrays = [s.new(r) if o is None else store_out(s, what, r, o, shape or spec_of(r).shape,
                                                   where, casting)
              for r, o in zip(results, outs)]
    return arrays[0] if nout == 1 else tuple(arrays)


def store_out(s: Session, what: str, r: SSAValue, o: Any, shape: tuple[int | None, ...],
              where: Any, casting: str) -> NpArray:
    """Write a ufunc result into its `out=` array, under NumPy's casting rule."""
    if not isinstance(o, NpArray):
        raise s.trace_error(f"{what}: out= must be a traced array; a NumPy array cannot be "
                            "updated in place while tracing")
    have = numpy_dtype(spec_of(r).dtype)
    if not np.can_cast(have, o.dtype, casting):
        raise TypeError(f"{s.where}: Cannot cast ufunc '{what[6:]}' output from {have!r} to "
                        f"{o.dtype!r} with casting rule '{casting}'")
    if np.broadcast_shapes(shape, o.shape) != o.shape:
        raise ValueError(f"{s.where}: {what}: non-broadcastable output operand with shape "
                         f"{o.shape} doesn't match the broadcast shape "
                         f"{np.broadcast_shapes(shape, o.shape)}")
    r = s.cast(r, o.dtype)
    if where is not True:
        r = s.emit("where", [s.lift(where, np.bool_), r, o.value])
    if spec_of(r).shape != o.shape:
        r = s.emit("broadcast_to", [r], shape=list(o.shape))
    o.assign(r)
    return o


REDUCE_AS = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min",
             "logical_and": "all", "logical_or": "any"}
ACCUMULATE_AS = {"add": "cumsum", "multiply": "cumprod"}


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
    """`np.add.at(a, indices, b)`: an unbuffered in-place add (repeats accumulate)."""
    a, indices, b = (*inputs, None)[:3]
    if not isinstance(a, NpArray):
        raise s.trace_error(f"{what}: the array to update must be traced; a NumPy array "
                            "cannot be updated in place while tracing")
    s.oracle(ufunc.at, inputs, kwargs, what)
    if ufunc.__name__ != "add" or b is None:
        s.builder.missing.setdefault(what, []).append(s.where)
        return None
    v = s.lift(b, a.dtype)
    if isinstance(indices, NpArray):
        idx = index_value(s, indices, a.shape[0], 0)
        target = indices.shape + a.shape[1:]
        if spec_of(v).shape != target:
            v = s.emit("broadcast_to", [v], shape=list(target))
        a.assign(s.emit("scatter_add", [a.value, s.emit("expand_dims", [idx], axis=[-1]), v]))
        return None
    keys = indices if isinstance(indices, tuple) else (indices,)
    if any(isinstance(k, NpArray) for k in keys):
        raise s.trace_error(f"{what}: a traced index is supported as a single index array")
    positions = np.arange(a.size).reshape(a.shape)[indices]
    if spec_of(v).shape != positions.shape:
        v = s.emit("broadcast_to", [v], shape=list(positions.shape))
    flat = s.emit("reshape", [a.value], shape=[a.size])
    updates = s.emit("reshape", [v], shape=[positions.size])
    index = s.lift(positions.reshape(-1, 1).astype(np.int64))
    new = s.emit("scatter_add", [flat, index, updates])
    a.assign(s.emit("reshape", [new], shape=list(a.shape)))
    return None


METHODS: dict[str, Callable[..., Any]] = {
    "__call__": _call, "reduce": _reduce, "accumulate": _accumulate, "outer": _outer,
    "at": _at,
}
