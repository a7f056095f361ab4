"""Elementwise lax primitives -> registry ops: math, comparisons, logic, dtype
conversion and selection.

The plain one-to-one maps (`UNARY`, `BINARY`) come from the registry's elementwise op
sets, each under its lax name; the other rules are compositions. Lax binary ops already
have equal operand dtypes (JAX inserts `convert_element_type` where it promotes), so a
rule adds an `astype` only where a composition needs one.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ivy_ir.dialect.types import COMPLEX, FLOATS, INTS, numpy_dtype

from .common import BINARY_OPS, UNARY_OPS, Rule, Unmapped, one_to_one
from .jax_ctx import Ctx, Value

UNARY = one_to_one(
    UNARY_OPS,
    renamed={"negative": "neg", "isfinite": "is_finite",
             # no such lax primitive (jnp composes them)
             "isinf": None, "isnan": None, "log2": None, "log10": None, "reciprocal": None,
             "trunc": None, "logical_not": None, "bitwise_invert": None,
             "round": None,  # a rule of its own (two rounding methods)
             "conj": None},  # of a real x complex in lax: jax_fft.py
    aliases={"logistic": "sigmoid"})
"""Unary lax primitive -> registry op of the same meaning."""
BINARY = one_to_one(
    BINARY_OPS,
    renamed={"subtract": "sub", "multiply": "mul", "equal": "eq", "not_equal": "ne",
             "less": "lt", "less_equal": "le", "greater": "gt", "greater_equal": "ge",
             "bitwise_left_shift": "shift_left",
             "bitwise_right_shift": "shift_right_arithmetic",
             # lax `and`/`or`/`xor`/`max`/`min` pick by operand kind; `div`, `rem`
             # and `pow` differ in semantics: rules of their own
             "bitwise_and": None, "bitwise_or": None, "bitwise_xor": None,
             "logical_and": None, "logical_or": None, "logical_xor": None,
             "maximum": None, "minimum": None, "divide": None, "floor_divide": None,
             "remainder": None, "pow": None},
    aliases={"add_any": "add"})  # the sum of two cotangents in a jax.grad program
"""Binary lax primitive -> registry op of the same meaning."""
IDENTITY = ("copy", "optimization_barrier", "device_put",
            "sharding_constraint", "pvary", "reshard")
"""Primitives that only steer placement or copies: their inputs pass through
(`stop_gradient` steers autodiff, so it is the registry op of that name)."""


def _op(op: str) -> Rule:
    """Same operands, same meaning: the registry op `op`."""
    return lambda ctx, *ins, **_: ctx.emit(op, *ins)


def kind(dtype: str) -> str:
    return "bool" if dtype == "bool" else "float" if dtype in FLOATS else \
        "complex" if dtype in COMPLEX else "int"


def _by_kind(**ops: str) -> Rule:
    """One registry op per operand kind (bool/int/float), e.g. `and` on bool is
    `logical_and`, on integers `bitwise_and`."""
    def rule(ctx: Ctx, *ins: Value, **_: Any) -> Value:
        k = kind(ctx.spec(ins[0]).dtype)
        if k not in ops:
            raise Unmapped(f"{ctx.primitive} on {k} operands")
        return ctx.emit(ops[k], *ins)
    return rule


def _shift_right_logical(ctx: Ctx, x: Value, y: Value, **_: Any) -> Value:
    if not ctx.spec(x).dtype.startswith("uint"):
        raise Unmapped("logical right shift of signed integers")
    return ctx.emit("bitwise_right_shift", x, y)  # on unsigned integers shifts are logical


def _identity(ctx: Ctx, *ins: Value, **_: Any) -> list[Value]:
    return list(ins)


def _scalar(ctx: Ctx, value: float, like: Value) -> np.ndarray:
    return ctx.const(value, ctx.spec(like).dtype)


def _div(ctx: Ctx, x: Value, y: Value, **_: Any) -> Value:
    pooled = ctx.window_sums.get(x) if not isinstance(x, np.ndarray) else None
    size = ctx.known(y)
    if pooled is not None and size is not None and size.ndim == 0 and size == pooled[1]:
        return pooled[0]  # reduce_window_sum / window size: the average pool itself
    if kind(ctx.spec(x).dtype) in ("float", "complex"):
        return ctx.emit("divide", x, y)
    # integer lax.div rounds toward zero: sign(x) sign(y) (|x| // |y|)
    q = ctx.emit("floor_divide", ctx.emit("abs", x), ctx.emit("abs", y))
    sign = ctx.emit("multiply", ctx.emit("sign", x), ctx.emit("sign", y))
    dtype = ctx.spec(x).dtype
    return _by_zero(ctx, y, ctx.const(np.iinfo(dtype).max if dtype.startswith("u") else -1,
                                      dtype), ctx.emit("multiply", sign, q))


def _rem(ctx: Ctx, x: Value, y: Value, **_: Any) -> Value:
    # lax.rem is C fmod (sign of x); on |x|, |y| it equals Python's mod exactly
    r = ctx.emit("remainder", ctx.emit("abs", x), ctx.emit("abs", y))
    r = ctx.emit("multiply", ctx.emit("sign", x), r)
    return r if kind(ctx.spec(x).dtype) == "float" else _by_zero(ctx, y, x, r)


def _by_zero(ctx: Ctx, y: Value, by_zero: Value, result: Value) -> Value:
    """`result`, but `by_zero` where the integer divisor y is 0: XLA's quotient there is
    all ones (-1) and its remainder x, where the IR's (NumPy's) are 0. Nothing is added
    for a known divisor without zeros."""
    known = ctx.known(y)
    if known is not None and np.all(known != 0):
        return result
    return ctx.emit("where", ctx.emit("equal", y, ctx.const(0, ctx.spec(y).dtype)), by_zero,
                    result)


def _pow(ctx: Ctx, x: Value, y: Value, **_: Any) -> Value:
    # lax.pow allows an integer exponent on a float base
    return ctx.emit("pow", x, ctx.cast(y, ctx.spec(x).dtype))


def _integer_pow(ctx: Ctx, x: Value, *, y: int, **_: Any) -> Value:
    """x ** y by squaring, the multiplication order XLA gets from JAX."""
    if y == 0:
        return ctx.emit("ones_like", x)
    acc, n = None, abs(y)
    while n > 0:
        if n & 1:
            acc = x if acc is None else ctx.emit("multiply", acc, x)
        n >>= 1
        if n:
            x = ctx.emit("square", x)
    return ctx.emit("reciprocal", acc) if y < 0 else acc


def _round(ctx: Ctx, x: Value, *, rounding_method: Any, **_: Any) -> Value:
    if int(rounding_method) == 1:  # TO_NEAREST_EVEN, as NumPy
        return ctx.emit("round", x)
    # AWAY_FROM_ZERO: x - trunc(x) is exact, so the half-way test is too
    t = ctx.emit("trunc", x)
    frac = ctx.emit("abs", ctx.emit("subtract", x, t))
    up = ctx.emit("greater_equal", frac, _scalar(ctx, 0.5, x))
    return ctx.emit("where", up, ctx.emit("add", t, ctx.emit("sign", x)), t)


def _exp2(ctx: Ctx, x: Value, **_: Any) -> Value:
    return ctx.emit("pow", _scalar(ctx, 2.0, x), x)


def _total_order_key(ctx: Ctx, x: Value) -> Value:
    """A float's bits as a signed integer that orders as IEEE's total order does
    (-NaN < -inf < ... < -0.0 < +0.0 < ... < inf < NaN, NaNs by payload): the bits
    themselves for a clear sign bit; for a set one, all bits but the sign flipped, so a
    larger magnitude is a smaller key."""
    width = numpy_dtype(ctx.spec(x).dtype).itemsize * 8
    signed = f"int{width}"
    bits = ctx.emit("bitcast", x, dtype=signed)
    sign = ctx.emit("bitwise_right_shift", bits, ctx.const(width - 1, signed))  # 0 or -1
    flip = ctx.emit("bitwise_and", sign, ctx.const(2 ** (width - 1) - 1, signed))
    return ctx.emit("bitwise_xor", bits, flip)


def _total_order(op: str) -> Rule:
    """lt_to / le_to / eq_to (searchsorted, digitize, histogram): floats through their
    total order keys (which order -0.0 before +0.0 and NaNs by sign and payload, as the
    IR's comparisons do not); integers compare as they are, bools as 0 and 1."""
    def rule(ctx: Ctx, x: Value, y: Value, **_: Any) -> Value:
        k = kind(ctx.spec(x).dtype)
        if k == "complex":
            raise Unmapped("complex operands")
        if k == "float":
            x, y = _total_order_key(ctx, x), _total_order_key(ctx, y)
        elif k == "bool":
            x, y = ctx.cast(x, "int8"), ctx.cast(y, "int8")
        return ctx.emit(op, x, y)
    return rule


def _convert(ctx: Ctx, x: Value, **_: Any) -> Value:
    """A float -> integer conversion saturates, as XLA's: NaN gives 0, values past the
    integer dtype's range its extremes (the IR's `astype` is NumPy's, which wraps)."""
    src, dst = ctx.spec(x).dtype, ctx.out.dtype
    if src not in FLOATS or dst not in INTS:
        return ctx.cast(x, dst)
    info = np.iinfo(dst)
    with np.errstate(over="ignore"):  # 2**31 and up are inf in float16: only inf is past
        top, bottom = ctx.const(float(info.max) + 1, src), ctx.const(float(info.min), src)
    inside = ctx.emit("logical_and", ctx.emit("greater_equal", x, bottom),
                      ctx.emit("less", x, top))
    ints = ctx.cast(ctx.emit("where", inside, x, ctx.const(0, src)), dst)
    past = ctx.emit("where", ctx.emit("greater_equal", x, top), ctx.const(info.max, dst),
                    ctx.emit("where", ctx.emit("less", x, bottom), ctx.const(info.min, dst),
                             ctx.const(0, dst)))
    return ctx.emit("where", inside, ints, past)


FLOAT_FORMATS = {(5, 10): "float16", (8, 7): "bfloat16", (8, 23): "float32",
                 (11, 52): "float64"}
"""reduce_precision (exponent_bits, mantissa_bits) of the IR's float dtypes."""
_BITS = {v: k for k, v in FLOAT_FORMATS.items()}


def _reduce_precision(ctx: Ctx, x: Value, *, exponent_bits: int, mantissa_bits: int,
                      **_: Any) -> Value:
    dtype = ctx.spec(x).dtype
    bits = (exponent_bits, mantissa_bits)
    own = _BITS[dtype]
    if bits[0] >= own[0] and bits[1] >= own[1]:
        return x  # every value of x is representable: identity
    if bits not in FLOAT_FORMATS:
        raise Unmapped(f"reduce_precision to {bits} bits")
    # rounding through the narrower IEEE type is round-to-nearest-even, as XLA
    return ctx.cast(ctx.cast(x, FLOAT_FORMATS[bits]), dtype)


def _select_n(ctx: Ctx, pred: Value, *cases: Value, **_: Any) -> Value:
    known = ctx.known(pred)
    if known is not None and known.ndim == 0:
        return cases[int(known)]
    if len(cases) == 1:
        return cases[0]
    if ctx.spec(pred).dtype == "bool":  # select_n(p, false_case, true_case)
        return ctx.emit("where", pred, cases[1], cases[0])
    out = cases[-1]
    for i in reversed(range(len(cases) - 1)):
        hit = ctx.emit("equal", pred, _scalar(ctx, i, pred))
        out = ctx.emit("where", hit, cases[i], out)
    return out


def _clamp(ctx: Ctx, lo: Value, x: Value, hi: Value, **_: Any) -> Value:
    return ctx.emit("minimum", ctx.emit("maximum", x, lo), hi)


MATH: dict[str, Rule] = {
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
    "convert_element_type": _convert,
    "reduce_precision": _reduce_precision,
    "select_n": _select_n,
    "clamp": _clamp,
    "lt_to": _total_order("less"),
    "le_to": _total_order("less_equal"),
    "eq_to": _total_order("equal"),
    # composites (no one-to-one entry): the registry ops of the same meaning
    "cbrt": _op("cbrt"),
    "population_count": _op("population_count"),
}
"""Elementwise lax primitive name -> rule."""
