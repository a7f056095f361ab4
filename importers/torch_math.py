"""ATen elementwise math and activations onto ivy ops.

Keys are ATen op names: a packet (`add`, applies to every overload) or one overload
(`max.dim`), looked up overload first. Each rule receives the node's arguments as
torch passes them; promotion goes through `Ctx.elementwise`, and the walker casts every
result to the dtype torch recorded for the node.

The plain one-to-one maps come from the registry's op sets through
`importers.common.one_to_one`: an ATen op named like its registry op needs no line here,
`renamed` holds ATen's own spelling where it differs (None where a rule below handles
the op), `aliases` ATen's extra names for the same op.
"""

from __future__ import annotations

from typing import Any

from xdsl.ir import SSAValue

from ivy_ir.dialect import COMPOSITE, ELEMENTWISE, SPECS
from ivy_ir.dialect.types import CLASS_MEMBERS, FLOATS

from .common import BINARY_OPS, UNARY_OPS, Rule, Unmapped, one_to_one, spec_of
from .torch_ctx import Ctx, promote_types

ROUNDING_OPS = frozenset({"floor", "ceil", "round", "trunc"})
"""Rounding is the identity on integer tensors in torch (the registry ops are float-only)."""
LOGICAL_OPS = frozenset(op for op in BINARY_OPS
                        if CLASS_MEMBERS[SPECS[op].operands[0].dtype_class] == {"bool"})
"""torch's logical ops take any dtype (nonzero is True); the registry's take bools."""
ACTIVATION_OPS = frozenset(op for op in ELEMENTWISE & COMPOSITE
                           if not SPECS[op].attrs and len(SPECS[op].operands) == 1)
"""Activations without attributes (relu, sigmoid, ...): one call `name(x)` in ATen too."""

UNARY = one_to_one(
    UNARY_OPS - ROUNDING_OPS,
    # bitwise_not and digamma: rules below
    renamed={"negative": "neg", "bitwise_invert": None, "bessel_i0e": "special_i0e",
             "digamma": None, "stop_gradient": "detach"},
    aliases={"negative": "negative", "sgn": "sign", "arcsin": "asin", "arccos": "acos",
             "arctan": "atan", "_conj": "conj", "conj_physical": "conj",
             "special_gammaln": "lgamma", "detach_": "stop_gradient"})
ACTIVATIONS = one_to_one(ACTIVATION_OPS, renamed={"hard_sigmoid": "hardsigmoid",
                                                  # ATen has neither
                                                  "cbrt": None, "population_count": None},
                         aliases={"special_expit": "sigmoid"})
ROUNDING = one_to_one(ROUNDING_OPS, renamed={"round": "round.default"},  # not round.decimals
                      aliases={"fix": "trunc"})
BINARY = one_to_one(
    BINARY_OPS - LOGICAL_OPS,
    # add/sub take alpha=, div a rounding_mode= in other overloads: rules below
    renamed={"add": None, "subtract": None, "divide": None, "multiply": "mul",
             "equal": "eq", "not_equal": "ne", "less": "lt", "less_equal": "le",
             "greater": "gt", "greater_equal": "ge"},
    aliases={"multiply": "multiply", "div.Tensor": "divide", "div.Scalar": "divide",
             "true_divide": "divide", "arctan2": "atan2", "__and__": "bitwise_and",
             "__or__": "bitwise_or", "__xor__": "bitwise_xor",
             "__lshift__": "bitwise_left_shift", "__rshift__": "bitwise_right_shift",
             "max.other": "maximum", "min.other": "minimum"})
LOGICAL = one_to_one(LOGICAL_OPS)
SELU_ALPHA, SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def _unary(op: str) -> Rule:
    return lambda c, x, **_: c.elementwise(op, x)


def _rounding(op: str) -> Rule:
    def emit(c: Ctx, x: SSAValue, decimals: int = 0) -> SSAValue:
        if decimals:
            raise Unmapped("rounding to decimals")
        return c.emit(op, x) if spec_of(x).dtype in FLOATS else x
    return emit


def _binary(op: str) -> Rule:
    return lambda c, x, y: c.elementwise(op, x, y)


def _logical(op: str) -> Rule:
    return lambda c, x, y: c.emit(op, c.tensor(x, "bool"), c.tensor(y, "bool"))


def _scaled(c: Ctx, y: Any, alpha: Any, dtype: str) -> Any:
    """`alpha * y` in `dtype` (torch's `alpha=` of add/sub)."""
    if alpha == 1:
        return y
    return c.emit("multiply", c.tensor(y, dtype), c.const(alpha, dtype))


def _digamma(c: Ctx, x: SSAValue) -> SSAValue:
    # torch's pole at 0 is signed, -1/x (-inf at +0, +inf at -0); the registry's is NaN
    x = c.float_in(x)
    dtype = spec_of(x).dtype
    pole = c.emit("divide", c.const(-1.0, dtype), x)
    return c.emit("where", c.emit("equal", x, c.const(0.0, dtype)), pole, c.emit("digamma", x))


def _add_sub(op: str, reverse: bool = False) -> Rule:
    def emit(c: Ctx, x: Any, y: Any, alpha: Any = 1) -> SSAValue:
        if reverse:  # rsub(x, y) = y - alpha * x
            x, y = y, x
        dtype = c.compute_dtype(op, promote_types([x, y]))
        return c.emit(op, c.tensor(x, dtype), c.tensor(_scaled(c, y, alpha, dtype), dtype))
    return emit


def _div_mode(c: Ctx, x: Any, y: Any, rounding_mode: str | None = None) -> SSAValue:
    if rounding_mode is None:
        return c.elementwise("divide", x, y)
    if rounding_mode == "floor":
        return c.elementwise("floor_divide", x, y)
    dtype = promote_types([x, y])
    if dtype in FLOATS:
        return c.emit("trunc", c.elementwise("divide", x, y))
    # integer division rounding toward zero: floor, plus one where the signs differ
    # and the division is inexact
    a, b = c.tensor(x, dtype), c.tensor(y, dtype)
    q = c.emit("floor_divide", a, b)
    zero = c.const(0, dtype)
    inexact = c.emit("not_equal", c.emit("remainder", a, b), zero)
    signs = c.emit("not_equal", c.emit("less", a, zero), c.emit("less", b, zero))
    fix = c.emit("logical_and", inexact, signs)
    return c.emit("where", fix, c.emit("add", q, c.const(1, dtype)), q)


def _fmod(c: Ctx, x: Any, y: Any) -> SSAValue:
    # C fmod takes the sign of x; remainder (Python's %) takes the sign of y, so the
    # two differ by y exactly where the remainder is nonzero and the signs differ
    dtype = c.compute_dtype("remainder", promote_types([x, y]))
    a, b = c.tensor(x, dtype), c.tensor(y, dtype)
    rem = c.emit("remainder", a, b)
    zero = c.const(0, dtype)
    fix = c.emit("logical_and", c.emit("not_equal", rem, zero),
                 c.emit("not_equal", c.emit("less", rem, zero), c.emit("less", a, zero)))
    return c.emit("where", fix, c.emit("subtract", rem, b), rem)


def _clamp(c: Ctx, x: SSAValue, min: Any = None, max: Any = None) -> SSAValue:
    if isinstance(min, SSAValue) or isinstance(max, SSAValue):
        dtype = promote_types([x, min, max])
        out = c.tensor(x, dtype)
        if min is not None:
            out = c.emit("maximum", out, c.tensor(min, dtype))
        if max is not None:
            out = c.emit("minimum", out, c.tensor(max, dtype))
        return out
    dtype = c.compute_dtype("clip", promote_types([x, min, max]))
    return c.emit("clip", c.tensor(x, dtype), min=min, max=max)


def _hardtanh(c: Ctx, x: SSAValue, lo: float = -1.0, hi: float = 1.0) -> SSAValue:
    """hardtanh's gradient is 0 at its bounds where clamp's (ivy.clip's) is 1: relu6
    for (0, 6), else the bound where x reaches it and x strictly inside."""
    dtype = c.compute_dtype("clip", promote_types([x, lo, hi]))
    x = c.tensor(x, dtype)
    if (lo, hi) == (0.0, 6.0):
        return c.emit("relu6", x)
    low, high = c.const(lo, dtype), c.const(hi, dtype)
    inner = c.emit("where", c.emit("greater_equal", x, high), high, x)
    return c.emit("where", c.emit("less_equal", x, low), low, inner)


def _where(c: Ctx, cond: SSAValue, x: Any, y: Any) -> SSAValue:
    dtype = promote_types([x, y])
    return c.emit("where", c.tensor(cond, "bool"), c.tensor(x, dtype), c.tensor(y, dtype))


def _masked_fill(c: Ctx, x: SSAValue, mask: SSAValue, value: Any) -> SSAValue:
    dtype = spec_of(x).dtype
    return c.emit("where", c.tensor(mask, "bool"), c.tensor(value, dtype), x)


def _elu(c: Ctx, x: SSAValue, alpha: float = 1.0, scale: float = 1.0,
         input_scale: float = 1.0) -> SSAValue:
    x = c.float_in(x)
    dtype = spec_of(x).dtype
    if input_scale != 1:
        x = c.emit("multiply", x, c.const(input_scale, dtype))
    y = c.emit("elu", x, alpha=alpha)
    return c.emit("multiply", y, c.const(scale, dtype)) if scale != 1 else y


def _celu(c: Ctx, x: SSAValue, alpha: float = 1.0) -> SSAValue:
    # celu(x) = alpha * elu(x / alpha)
    return _elu(c, x, 1.0, alpha, 1.0 / alpha)


def _prelu(c: Ctx, x: SSAValue, weight: SSAValue) -> SSAValue:
    # max(0, x) + w * min(0, x), with one weight per channel (dim 1)
    rank, n = spec_of(x).rank, spec_of(weight).shape[0]
    if rank >= 2 and n != 1:
        weight = c.emit("reshape", weight, shape=[n] + [1] * (rank - 2))
    zero = c.const(0, spec_of(x).dtype)
    return c.emit("where", c.emit("greater", x, zero), x, c.emit("multiply", x, weight))


def _threshold(c: Ctx, x: SSAValue, threshold: Any, value: Any) -> SSAValue:
    dtype = spec_of(x).dtype
    keep = c.emit("greater", x, c.const(threshold, dtype))
    return c.emit("where", keep, x, c.const(value, dtype))


def _glu(c: Ctx, x: SSAValue, dim: int = -1) -> SSAValue:
    half = spec_of(x).shape[dim] // 2
    a, b = c.emit_all("split", x, sizes=[half, half], axis=dim)
    return c.emit("multiply", a, c.emit("sigmoid", b))


def _log_sigmoid(c: Ctx, x: SSAValue) -> SSAValue:
    # log(sigmoid(x)) = -softplus(-x), stable for large |x|
    x = c.float_in(x)
    return c.emit("negative", c.emit("softplus", c.emit("negative", x)))


def _lerp(c: Ctx, start: SSAValue, end: SSAValue, weight: Any) -> SSAValue:
    # torch's two-sided form: start + w (end - start) for |w| < 0.5, else
    # end - (end - start)(1 - w), which hits `end` exactly at w = 1
    dtype = promote_types([start, end])
    a, b = c.tensor(start, dtype), c.tensor(end, dtype)
    diff = c.emit("subtract", b, a)
    w = c.tensor(weight, dtype)
    low = c.emit("add", a, c.emit("multiply", w, diff))
    high = c.emit("subtract", b, c.emit("multiply", diff,
                                        c.emit("subtract", c.const(1, dtype), w)))
    if not isinstance(weight, SSAValue):
        return low if abs(weight) < 0.5 else high
    small = c.emit("less", c.emit("abs", w), c.const(0.5, dtype))
    return c.emit("where", small, low, high)


def _addc(op: str) -> Rule:
    def emit(c: Ctx, x: SSAValue, t1: SSAValue, t2: SSAValue, value: Any = 1) -> SSAValue:
        dtype = promote_types([x, t1, t2])
        prod = c.elementwise(op, c.tensor(t1, dtype), c.tensor(t2, dtype))
        return c.emit("add", c.tensor(x, dtype), _scaled(c, prod, value, dtype))
    return emit


def _with_attr(op: str, **names: str) -> Rule:
    """An activation whose torch keyword arguments map one-to-one onto attributes."""
    def emit(c: Ctx, x: SSAValue, *args: Any, **kwargs: Any) -> SSAValue:
        keys = list(names)
        attrs = {names[k]: v for k, v in zip(keys, args)}
        attrs.update({names[k]: v for k, v in kwargs.items() if k in names})
        return c.emit(op, c.float_in(x), **attrs)
    return emit


MATH: dict[str, Rule] = {
    **{k: _unary(v) for k, v in UNARY.items()},
    **{k: _unary(v) for k, v in ACTIVATIONS.items()},
    **{k: _rounding(v) for k, v in ROUNDING.items()},
    **{k: _binary(v) for k, v in BINARY.items()},
    **{k: _logical(v) for k, v in LOGICAL.items()},
    "bitwise_not": lambda c, x: c.emit("bitwise_invert", x),
    **dict.fromkeys(("digamma", "special_digamma", "special_psi"), _digamma),
    "add": _add_sub("add"),
    "sub": _add_sub("subtract"),
    "subtract": _add_sub("subtract"),
    "rsub": _add_sub("subtract", reverse=True),
    "div.Tensor_mode": _div_mode,
    "div.Scalar_mode": _div_mode,
    "fmod": _fmod,
    "clamp": _clamp,
    "clip": _clamp,
    "clamp_min": lambda c, x, m: _clamp(c, x, min=m),
    "clamp_max": lambda c, x, m: _clamp(c, x, max=m),
    "hardtanh": _hardtanh,
    "where.self": _where,
    "where.ScalarSelf": _where,
    "where.ScalarOther": _where,
    "where.Scalar": _where,
    "masked_fill": _masked_fill,
    "gelu": _with_attr("gelu", approximate="approximate"),
    "leaky_relu": _with_attr("leaky_relu", negative_slope="alpha"),
    "softplus": _with_attr("softplus", beta="beta", threshold="threshold"),
    "elu": _elu,
    "celu": _celu,
    "selu": lambda c, x: _elu(c, x, SELU_ALPHA, SELU_SCALE),
    "prelu": _prelu,
    "threshold": _threshold,
    "glu": _glu,
    "log_sigmoid": _log_sigmoid,
    "lerp": _lerp,
    "addcmul": _addc("multiply"),
    "addcdiv": _addc("divide"),
    "exp2": lambda c, x: c.elementwise("pow", 2.0, c.float_in(x)),
}
