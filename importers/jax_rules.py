"""`LAX_TO_IVY`: lax primitive name -> rule emitting registry ops (elementwise math,
comparisons, logic, dtype conversion and reductions here; shapes in `jax_shape.py`,
indexing in `jax_index.py`, layers in `jax_nn.py`).

A rule gets the walker, the equation (for `eqn.params` and result types) and the input
values; it returns the result value(s). Lax binary ops already have equal operand
dtypes (JAX inserts `convert_element_type` where it promotes), so a rule adds an
`astype` only where a composition needs one.
"""

from __future__ import annotations

import numpy as np
from jax.extend.core import JaxprEqn

from ivy_ir.dialect.types import FLOATS, numpy_dtype
from ivy_ir.dialect.types import dtype_name as _dtype_name

from .jax_index import INDEX_RULES
from .jax_nn import NN_RULES
from .jax_shape import SHAPE_RULES
from .jax_walk import JaxprWalker, Rule, Unmapped, Value


def _op(op: str) -> Rule:
    """Same operands, same meaning: the registry op `op`."""
    return lambda w, eqn, ins: w.emit(op, ins)


def _kind(dtype: str) -> str:
    return "bool" if dtype == "bool" else "float" if dtype in FLOATS else "int"


def _by_kind(**ops: str) -> Rule:
    """One registry op per operand kind (bool/int/float), e.g. `and` on bool is
    `logical_and`, on integers `bitwise_and`."""
    def rule(w: JaxprWalker, eqn: JaxprEqn, ins: list[Value]) -> Value:
        kind = _kind(w.spec(ins[0]).dtype)
        if kind not in ops:
            raise Unmapped(f"{eqn.primitive.name} on {kind} operands")
        return w.emit(ops[kind], ins)
    return rule


def _shift_right_logical(w: JaxprWalker, eqn: JaxprEqn, ins: list[Value]) -> Value:
    if not w.spec(ins[0]).dtype.startswith("uint"):
        raise Unmapped("logical right shift of signed integers")
    return w.emit("bitwise_right_shift", ins)  # on unsigned integers shifts are logical


def _identity(w: JaxprWalker, eqn: JaxprEqn, ins: list[Value]) -> list[Value]:
    return list(ins)


def _scalar(w: JaxprWalker, value: float, like: Value) -> np.ndarray:
    return np.asarray(value, dtype=numpy_dtype(w.spec(like).dtype))


def _div(w: JaxprWalker, eqn: JaxprEqn, ins: list[Value]) -> Value:
    x, y = ins
    pooled = w.window_sums.get(x) if not isinstance(x, np.ndarray) else None
    size = w.known(y)
    if pooled is not None and size is not None and size.ndim == 0 and size == pooled[1]:
        return pooled[0]  # reduce_window_sum / window size: the average pool itself
    if _kind(w.spec(x).dtype) == "float":
        return w.emit("divide", [x, y])
    # integer lax.div rounds toward zero: sign(x) sign(y) (|x| // |y|)
    q = w.emit("floor_divide", [w.emit("abs", [x]), w.emit("abs", [y])])
    sign = w.emit("multiply", [w.emit("sign", [x]), w.emit("sign", [y])])
    return w.emit("multiply", [sign, q])


def _rem(w: JaxprWalker, eqn: JaxprEqn, ins: list[Value]) -> Value:
    # lax.rem is C fmod (sign of x); on |x|, |y| it equals Python's mod exactly
    x, y = ins
    r = w.emit("remainder", [w.emit("abs", [x]), w.emit("abs", [y])])
    return w.emit("multiply", [w.emit("sign", [x]), r])


def _pow(w: JaxprWalker, eqn: JaxprEqn, ins: list[Value]) -> Value:
    x, y = ins  # lax.pow allows an integer exponent on a float base
    return w.emit("pow", [x, w.cast(y, w.spec(x).dtype)])


def _integer_pow(w: JaxprWalker, eqn: JaxprEqn, ins: list[Value]) -> Value:
    """x ** y by squaring, the multiplication order XLA gets from JAX."""
    x, y = ins[0], eqn.params["y"]
    if y == 0:
        return w.emit("ones_like", [x])
    acc, n = None, abs(y)
    while n > 0:
        if n & 1:
            acc = x if acc is None else w.emit("multiply", [acc, x])
        n >>= 1
        if n:
            x = w.emit("square", [x])
    return w.emit("reciprocal", [acc]) if y < 0 else acc


def _round(w: JaxprWalker, eqn: JaxprEqn, ins: list[Value]) -> Value:
    x = ins[0]
    if int(eqn.params["rounding_method"]) == 1:  # TO_NEAREST_EVEN, as NumPy
        return w.emit("round", [x])
    # AWAY_FROM_ZERO: x - trunc(x) is exact, so the half-way test is too
    t = w.emit("trunc", [x])
    frac = w.emit("abs", [w.emit("subtract", [x, t])])
    up = w.emit("greater_equal", [frac, _scalar(w, 0.5, x)])
    return w.emit("where", [up, w.emit("add", [t, w.emit("sign", [x])]), t])


def _exp2(w: JaxprWalker, eqn: JaxprEqn, ins: list[Value]) -> Value:
    return w.emit("pow", [_scalar(w, 2.0, ins[0]), ins[0]])


def _erfc(w: JaxprWalker, eqn: JaxprEqn, ins: list[Value]) -> Value:
    # 1 - erf(x): exact in value, absolute (not relative) precision in the far tail;
    # exact-mode jax.nn.gelu is built on it
    return w.emit("subtract", [_scalar(w, 1.0, ins[0]), w.emit("erf", ins)])


def _convert(w: JaxprWalker, eqn: JaxprEqn, ins: list[Value]) -> Value:
    return w.cast(ins[0], w.out(eqn).dtype)


FLOAT_FORMATS = {(5, 10): "float16", (8, 7): "bfloat16", (8, 23): "float32",
                 (11, 52): "float64"}
"""reduce_precision (exponent_bits, mantissa_bits) of the IR's float dtypes."""
_BITS = {v: k for k, v in FLOAT_FORMATS.items()}


def _reduce_precision(w: JaxprWalker, eqn: JaxprEqn, ins: list[Value]) -> Value:
    x = ins[0]
    dtype = w.spec(x).dtype
    bits = (eqn.params["exponent_bits"], eqn.params["mantissa_bits"])
    own = _BITS[dtype]
    if bits[0] >= own[0] and bits[1] >= own[1]:
        return x  # every value of x is representable: identity
    if bits not in FLOAT_FORMATS:
        raise Unmapped(f"reduce_precision to {bits} bits")
    # rounding through the narrower IEEE type is round-to-nearest-even, as XLA
    return w.cast(w.cast(x, FLOAT_FORMATS[bits]), dtype)


def _select_n(w: JaxprWalker, eqn: JaxprEqn, ins: list[Value]) -> Value:
    pred, cases = ins[0], ins[1:]
    known = w.known(pred)
    if known is not None and known.ndim == 0:
        return cases[int(known)]
    if len(cases) == 1:
        return cases[0]
    if w.spec(pred).dtype == "bool":  # select_n(p, false_case, true_case)
        return w.emit("where", [pred, cases[1], cases[0]])
    out = cases[-1]
    for i in reversed(range(len(cases) - 1)):
        hit = w.emit("equal", [pred, _scalar(w, i, pred)])
        out = w.emit("where", [hit, cases[i], out])
    return out


def _clamp(w: JaxprWalker, eqn: JaxprEqn, ins: list[Value]) -> Value:
    lo, x, hi = ins
    return w.emit("minimum", [w.emit("maximum", [x, lo]), hi])


def _reduce(op: str, bool_op: str | None = None) -> Rule:
    def rule(w: JaxprWalker, eqn: JaxprEqn, ins: list[Value]) -> Value:
        name = op
        if w.spec(ins[0]).dtype == "bool":
            if bool_op is None:
                raise Unmapped(f"{eqn.primitive.name} on bool")
            name = bool_op
        elif op in ("all", "any"):
            raise Unmapped(f"bitwise {eqn.primitive.name} on integers")
        return w.emit(name, ins, axis=list(eqn.params["axes"]))
    return rule


def _arg_reduce(op: str) -> Rule:
    def rule(w: JaxprWalker, eqn: JaxprEqn, ins: list[Value]) -> Value:
        (axis,) = eqn.params["axes"]
        return w.cast(w.emit(op, ins, axis=axis), _dtype_name(eqn.params["index_dtype"]))
    return rule


UNARY = {
    "neg": "negative", "sign": "sign", "floor": "floor", "ceil": "ceil", "abs": "abs",
    "is_finite": "isfinite", "exp": "exp", "log": "log", "log1p": "log1p", "expm1": "expm1",
    "tanh": "tanh", "logistic": "sigmoid", "sin": "sin", "cos": "cos", "tan": "tan",
    "asin": "asin", "acos": "acos", "atan": "atan", "sinh": "sinh", "cosh": "cosh",
    "asinh": "asinh", "acosh": "acosh", "atanh": "atanh", "sqrt": "sqrt", "rsqrt": "rsqrt",
    "erf": "erf", "square": "square",
}
BINARY = {
    "add": "add", "sub": "subtract", "mul": "multiply", "atan2": "atan2", "eq": "equal",
    "ne": "not_equal", "lt": "less", "le": "less_equal", "gt": "greater",
    "ge": "greater_equal", "shift_left": "bitwise_left_shift",
    "shift_right_arithmetic": "bitwise_right_shift",
}
IDENTITY = ("copy", "copy_p", "stop_gradient", "optimization_barrier", "device_put",
            "sharding_constraint", "pvary", "reshard", "mesh_cast")
"""Primitives that only steer autodiff, placement or copies: their inputs pass through."""

ELEMENTWISE_RULES: dict[str, Rule] = {
    **{k: _op(v) for k, v in UNARY.items()},
    **{k: _op(v) for k, v in BINARY.items()},
    **{k: _identity for k in IDENTITY},
    "and": _by_kind(bool="logical_and", int="bitwise_and"),
    "or": _by_kind(bool="logical_or", int="bitwise_or"),
    "xor": _by_kind(bool="logical_xor", int="bitwise_xor"),
    "not": _by_kind(bool="logical_not", int="bitwise_invert"),
    "max": _by_kind(bool="logical_or", int="maximum", float="maximum"),
    "min": _by_kind(bool="logical_and", int="minimum", float="minimum"),
    "shift_right_logical": _shift_right_logical,
    "div": _div,
    "rem": _rem,
    "pow": _pow,
    "integer_pow": _integer_pow,
    "round": _round,
    "exp2": _exp2,
    "erfc": _erfc,
    "convert_element_type": _convert,
    "reduce_precision": _reduce_precision,
    "select_n": _select_n,
    "clamp": _clamp,
}
REDUCTION_RULES: dict[str, Rule] = {
    "reduce_sum": _reduce("sum"),
    "reduce_prod": _reduce("prod"),
    "reduce_max": _reduce("max", "any"),
    "reduce_min": _reduce("min", "all"),
    "reduce_and": _reduce("all", "all"),
    "reduce_or": _reduce("any", "any"),
    "argmax": _arg_reduce("argmax"),
    "argmin": _arg_reduce("argmin"),
}
LAX_TO_IVY: dict[str, Rule] = {
    **ELEMENTWISE_RULES, **REDUCTION_RULES, **SHAPE_RULES, **INDEX_RULES, **NN_RULES,
}
"""Every lax primitive the importer maps; any other is reported as unsupported."""

