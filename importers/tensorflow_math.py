"""TF elementwise math -> ivy ops: arithmetic, comparisons, logic, casts, selection,
activations and matrix products.

TF's binary ops take operands of one dtype (TF does not promote implicitly: a promotion
in TF source is an explicit `Cast` op, imported as `ivy.astype`), so most raw ops map
one to one onto a registry op: those maps (`UNARY`, `BINARY`, `ACTIVATIONS`) come from
the registry's op sets, each op under its CamelCase name unless TF spells it otherwise.
Rows where TF's semantics differ from the registry op's are short exact compositions
(float `FloorDiv` is `floor(x / y)` in TF, not NumPy's `floor_divide`).
"""

from __future__ import annotations

from typing import Any

from ivy_ir.dialect.types import COMPLEX, FLOATS

from .common import BINARY_OPS, UNARY_OPS, Rule, Unmapped, camel, one_to_one, swapped
from .tensorflow_ctx import Ctx

UNARY = one_to_one(
    UNARY_OPS, camel,
    renamed={"negative": "Neg", "isnan": "IsNan", "isinf": "IsInf", "isfinite": "IsFinite",
             "bitwise_invert": "Invert", "log2": None, "log10": None, "trunc": None},
    aliases={"Inv": "reciprocal", "Rint": "round", "ComplexAbs": "abs", "Erfinv": "erfinv",
             "PreventGradient": "stop_gradient"})
"""One TF op, one registry op, same operand (TF's Round and Rint both round half to even;
`tf.math.abs` of complex is ComplexAbs; TF has no Log2, Log10 or Trunc raw op; TF raises
when asked for a gradient through PreventGradient, where the import stops it)."""

BINARY = one_to_one(
    BINARY_OPS, camel,
    renamed={"add": "AddV2", "subtract": "Sub", "multiply": "Mul", "divide": "RealDiv",
             "remainder": "FloorMod", "bitwise_left_shift": "LeftShift",
             "bitwise_right_shift": "RightShift", "nextafter": "NextAfter",
             "floor_divide": None, "logical_xor": None},
    aliases={"Add": "add"})
"""Broadcasting binary ops on operands of one dtype (FloorMod: TF and NumPy both take the
sign of the divisor). TF's `FloorDiv` differs from `floor_divide` on floats (a rule
below); TF has no LogicalXor raw op (`tf.math.logical_xor` is composed)."""

ACTIVATIONS = one_to_one(("elu", "relu", "sigmoid", "softplus"), camel)
"""Activations TF computes exactly as the registry op (its Elu has alpha 1)."""

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _unary(name: str) -> Rule:
    return lambda c, x, **_: c.emit(name, x)


def _binary(name: str) -> Rule:
    return lambda c, x, y, **_: c.emit(name, x, y)


def _scalar(c: Ctx, value: float, like: Any) -> Any:
    """A scalar constant in the dtype of `like`."""
    return c.const(value, c.spec(like).dtype)


def trunc_div(c: Ctx, x: Any, y: Any, dtype: str) -> Any:
    """Integer division of `dtype` operands rounding toward zero (C semantics): the floor
    quotient, plus one where the remainder is nonzero and the operands' signs differ."""
    q = c.emit("floor_divide", x, y)
    zero = c.const(0, dtype)
    inexact = c.emit("not_equal", c.emit("remainder", x, y), zero)
    signs = c.emit("not_equal", c.emit("less", x, zero), c.emit("less", y, zero))
    fix = c.emit("logical_and", inexact, signs)
    return c.emit("add", q, c.cast(fix, dtype))


def _div(c: Ctx, x: Any, y: Any, **_: Any) -> Any:
    # TF `Div`: true division for floats and complex, truncating division for integers
    dtype = c.spec(x).dtype
    if dtype in FLOATS | COMPLEX:
        return c.emit("divide", x, y)
    return trunc_div(c, x, y, dtype)


def _truncate_div(c: Ctx, x: Any, y: Any, **_: Any) -> Any:
    # x / y rounded toward zero, floats included
    dtype = c.spec(x).dtype
    if dtype in FLOATS:
        return c.emit("trunc", c.emit("divide", x, y))
    return trunc_div(c, x, y, dtype)


def _floor_div(c: Ctx, x: Any, y: Any, **_: Any) -> Any:
    # TF computes float FloorDiv as floor(x / y); NumPy's floor_divide rounds differently
    if c.spec(x).dtype in FLOATS:
        return c.emit("floor", c.emit("divide", x, y))
    return c.emit("floor_divide", x, y)


def _truncate_mod(c: Ctx, x: Any, y: Any, **_: Any) -> Any:
    # x - trunc(x / y) * y, the sign of the dividend (C fmod): exact for integers only
    dtype = c.spec(x).dtype
    if dtype in FLOATS:
        raise Unmapped("float operands: the registry has no fmod")
    x, y = c.operand(x), c.operand(y)
    return c.emit("subtract", x, c.emit("multiply", trunc_div(c, x, y, dtype), y))


def _zero_where_y_zero(op: str, zero_if_x: bool = False) -> Rule:
    """DivNoNan/MulNoNan (0 where y == 0) and Xlogy/Xdivy (0 where x == 0), exactly: the
    op runs on a safe operand so no NaN is formed, then the zeros are selected in."""
    def rule(c: Ctx, x: Any, y: Any, **_: Any) -> Any:
        x, y = c.operand(x), c.operand(y)
        zero = _scalar(c, 0, x)
        test = x if zero_if_x else y
        is_zero = c.emit("equal", test, zero)
        if op == "xlogy":
            safe_y = c.emit("where", is_zero, _scalar(c, 1, x), y)
            value = c.emit("multiply", x, c.emit("log", safe_y))
        elif op == "divide" and not zero_if_x:
            value = c.emit("divide", x, c.emit("where", is_zero, _scalar(c, 1, x), y))
        else:
            value = c.emit(op, x, y)
        return c.emit("where", is_zero, zero, value)
    return rule


def _squared_difference(c: Ctx, x: Any, y: Any, **_: Any) -> Any:
    return c.emit("square", c.emit("subtract", x, y))


def _add_n(c: Ctx, *xs: Any, **_: Any) -> Any:
    total = c.operand(xs[0])
    for x in xs[1:]:
        total = c.emit("add", total, x)
    return total


def _relu6(c: Ctx, x: Any, **_: Any) -> Any:
    if c.spec(x).dtype in FLOATS:
        return c.emit("relu6", x)
    return c.emit("clip", x, min=0.0, max=6.0)


def _selu(c: Ctx, x: Any, **_: Any) -> Any:
    return c.emit("multiply", c.emit("elu", x, alpha=SELU_ALPHA), _scalar(c, SELU_SCALE, x))


def _softsign(c: Ctx, x: Any, **_: Any) -> Any:
    x = c.operand(x)
    return c.emit("divide", x, c.emit("add", c.emit("abs", x), _scalar(c, 1, x)))


def _softmax(name: str) -> Rule:
    return lambda c, logits, **_: c.emit(name, logits, axis=-1)


def _leaky_relu(c: Ctx, x: Any, *, alpha: float, **_: Any) -> Any:
    return c.emit("leaky_relu", x, alpha=float(alpha))


def _cast(c: Ctx, x: Any, **_: Any) -> Any:
    return c.cast(x, c.out.dtype)


def _bitcast(c: Ctx, x: Any, **_: Any) -> Any:
    """The same bits read as another dtype of the same width (TF's change of width adds
    or drops a last dim: refused)."""
    x = c.operand(x)
    if c.spec(x).shape != c.out.shape:
        raise Unmapped("a bitcast to another bit width")
    return c.emit("bitcast", x, dtype=c.out.dtype)


def _select(v1: bool) -> Rule:
    """SelectV2 broadcasts its operands like NumPy's where; v1 Select with a vector
    condition picks whole rows of x/y."""
    def rule(c: Ctx, cond: Any, x: Any, y: Any, **_: Any) -> Any:
        cond = c.operand(cond)
        rank, x_rank = c.rank(cond), c.rank(x)
        if v1 and rank == 1 and x_rank > 1:
            cond = c.emit("reshape", cond, shape=list(c.spec(cond).shape) + [1] * (x_rank - 1))
        return c.emit("where", cond, x, y)
    return rule


def _clip(c: Ctx, t: Any, lo: Any, hi: Any, **_: Any) -> Any:
    # minimum(maximum(t, lo), hi), as TF computes it (bounds may be tensors)
    return c.emit("minimum", c.emit("maximum", t, lo), hi)


def _matmul(c: Ctx, a: Any, b: Any, swap_a: bool, swap_b: bool) -> Any:
    a, b = c.operand(a), c.operand(b)
    out = c.out.dtype
    a, b = c.cast(a, out), c.cast(b, out)  # BatchMatMulV3 may take other input dtypes
    if swap_a:
        a = swapped(c, a)
    if swap_b:
        b = swapped(c, b)
    return c.emit("matmul", a, b)


def _einsum(c: Ctx, *inputs: Any, equation: str, **_: Any) -> Any:
    return c.emit("einsum", list(inputs), equation=equation.replace(" ", ""))


def _bucketize(c: Ctx, x: Any, *, boundaries: list[float], **_: Any) -> Any:
    """Each value's bucket among sorted `boundaries` (Keras' `Discretization`): how many
    boundaries are not above it, as TF counts with `std::upper_bound` over float
    boundaries (integers compare as floats; a NaN lands past the last boundary)."""
    if list(boundaries) != sorted(boundaries):
        raise Unmapped("boundaries are not sorted")
    dtype = c.spec(x).dtype
    dtype = dtype if dtype in FLOATS else "float32"
    edges = c.const([float(b) for b in boundaries], dtype)
    below = c.emit("less", c.emit("expand_dims", c.cast(x, dtype), axis=[-1]), edges)
    return c.emit("sum", c.cast(c.emit("logical_not", below), "int32"), axis=[-1])


MATH: dict[str, Rule] = {
    **{k: _unary(v) for k, v in {**UNARY, **ACTIVATIONS}.items()},
    **{k: _binary(v) for k, v in BINARY.items()},
    "Div": _div, "TruncateDiv": _truncate_div, "FloorDiv": _floor_div,
    "TruncateMod": _truncate_mod,
    "DivNoNan": _zero_where_y_zero("divide"), "MulNoNan": _zero_where_y_zero("multiply"),
    "Xlogy": _zero_where_y_zero("xlogy", zero_if_x=True),
    "Xdivy": _zero_where_y_zero("divide", zero_if_x=True),
    "SquaredDifference": _squared_difference, "AddN": _add_n,
    "Relu6": _relu6, "Selu": _selu, "Softsign": _softsign,
    "LeakyRelu": _leaky_relu, "Softmax": _softmax("softmax"),
    "LogSoftmax": _softmax("log_softmax"),
    "Cast": _cast, "Bitcast": _bitcast,
    "Select": _select(v1=True), "SelectV2": _select(v1=False), "ClipByValue": _clip,
    "MatMul": lambda c, a, b, *, transpose_a=False, transpose_b=False, **_:
        _matmul(c, a, b, transpose_a, transpose_b),
    **dict.fromkeys(("BatchMatMul", "BatchMatMulV2", "BatchMatMulV3"),
                    lambda c, x, y, *, adj_x=False, adj_y=False, **_:
                        _matmul(c, x, y, adj_x, adj_y)),
    "Einsum": _einsum, "Bucketize": _bucketize,
    # TF counts the bits in uint8
    "PopulationCount": lambda c, x, **_: c.cast(c.emit("population_count", x), "uint8"),
}
"""TF raw op -> rule: elementwise math, activations, selection and matrix products."""
