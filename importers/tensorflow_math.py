"""TF math ops -> ivy ops: elementwise math, comparisons, activations, reductions,
scans and matrix products.

TF's binary ops take operands of one dtype (TF does not promote implicitly: a promotion
in TF source is an explicit `Cast` op, imported as `ivy.astype`), so most rows map one
op to one registry op. Rows where TF's semantics differ from the registry op's are
short exact compositions (float `FloorDiv` is `floor(x / y)` in TF, not NumPy's
`floor_divide`; integer `Mean` truncates).
"""

from __future__ import annotations

from typing import Any

from importers.tensorflow_walk import Handler, OpCtx, Unmapped
from ivy_ir.dialect.types import FLOATS

UNARY = {
    "Abs": "abs", "Neg": "negative", "Sign": "sign", "Sqrt": "sqrt", "Rsqrt": "rsqrt",
    "Square": "square", "Reciprocal": "reciprocal", "Inv": "reciprocal", "Exp": "exp",
    "Expm1": "expm1", "Log": "log", "Log1p": "log1p", "Sin": "sin", "Cos": "cos", "Tan": "tan",
    "Asin": "asin", "Acos": "acos", "Atan": "atan", "Sinh": "sinh", "Cosh": "cosh",
    "Tanh": "tanh", "Asinh": "asinh", "Acosh": "acosh", "Atanh": "atanh", "Erf": "erf",
    "Floor": "floor", "Ceil": "ceil", "Round": "round", "Rint": "round", "IsNan": "isnan",
    "IsInf": "isinf", "IsFinite": "isfinite", "LogicalNot": "logical_not",
    "Invert": "bitwise_invert", "Relu": "relu", "Elu": "elu", "Sigmoid": "sigmoid",
    "Softplus": "softplus",
}
"""One TF op, one registry op, same operand (TF's Round and Rint both round half to even)."""

BINARY = {
    "AddV2": "add", "Add": "add", "Sub": "subtract", "Mul": "multiply", "RealDiv": "divide",
    "FloorMod": "remainder", "Pow": "pow", "Maximum": "maximum", "Minimum": "minimum",
    "Atan2": "atan2", "Equal": "equal", "NotEqual": "not_equal", "Less": "less",
    "LessEqual": "less_equal", "Greater": "greater", "GreaterEqual": "greater_equal",
    "LogicalAnd": "logical_and", "LogicalOr": "logical_or", "BitwiseAnd": "bitwise_and",
    "BitwiseOr": "bitwise_or", "BitwiseXor": "bitwise_xor", "LeftShift": "bitwise_left_shift",
    "RightShift": "bitwise_right_shift",
}
"""Broadcasting binary ops on operands of one dtype (FloorMod: TF and NumPy both take the
sign of the divisor)."""

REDUCE = {"Sum": "sum", "Prod": "prod", "Max": "max", "Min": "min", "All": "all",
          "Any": "any", "Mean": "mean"}

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _unary(name: str) -> Handler:
    return lambda c: c.emit(name, [c.x(0)])


def _binary(name: str) -> Handler:
    return lambda c: c.emit(name, [c.x(0), c.x(1)])


def _scalar(c: OpCtx, value: float, i: int = 0) -> Any:
    """A scalar constant in the dtype of operand `i`."""
    return c.const(value, c.ins[i].dtype)


def trunc_div(c: OpCtx, x: Any, y: Any) -> Any:
    """Integer division rounding toward zero (C semantics): the floor quotient, plus one
    where the remainder is nonzero and the operands' signs differ."""
    dtype = c.ins[0].dtype
    q = c.emit("floor_divide", [x, y])
    zero = c.const(0, dtype)
    inexact = c.emit("not_equal", [c.emit("remainder", [x, y]), zero])
    signs = c.emit("not_equal", [c.emit("less", [x, zero]), c.emit("less", [y, zero])])
    fix = c.emit("logical_and", [inexact, signs])
    return c.emit("add", [q, c.cast(fix, dtype)])


def _div(c: OpCtx) -> Any:
    # TF `Div`: true division for floats, truncating division for integers
    if c.ins[0].dtype in FLOATS:
        return c.emit("divide", [c.x(0), c.x(1)])
    return trunc_div(c, c.x(0), c.x(1))


def _truncate_div(c: OpCtx) -> Any:
    # x / y rounded toward zero, floats included
    if c.ins[0].dtype in FLOATS:
        return c.emit("trunc", [c.emit("divide", [c.x(0), c.x(1)])])
    return trunc_div(c, c.x(0), c.x(1))


def _floor_div(c: OpCtx) -> Any:
    # TF computes float FloorDiv as floor(x / y); NumPy's floor_divide rounds differently
    if c.ins[0].dtype in FLOATS:
        return c.emit("floor", [c.emit("divide", [c.x(0), c.x(1)])])
    return c.emit("floor_divide", [c.x(0), c.x(1)])


def _truncate_mod(c: OpCtx) -> Any:
    # x - trunc(x / y) * y, the sign of the dividend (C fmod): exact for integers only
    if c.ins[0].dtype in FLOATS:
        raise Unmapped("float operands: the registry has no fmod")
    x, y = c.x(0), c.x(1)
    return c.emit("subtract", [x, c.emit("multiply", [trunc_div(c, x, y), y])])


def _zero_where_y_zero(op: str, zero_if_x: bool = False) -> Handler:
    """DivNoNan/MulNoNan (0 where y == 0) and Xlogy/Xdivy (0 where x == 0), exactly: the
    op runs on a safe operand so no NaN is formed, then the zeros are selected in."""
    def handler(c: OpCtx) -> Any:
        x, y = c.x(0), c.x(1)
        zero = _scalar(c, 0)
        test = x if zero_if_x else y
        is_zero = c.emit("equal", [test, zero])
        if op == "xlogy":
            safe_y = c.emit("where", [is_zero, _scalar(c, 1), y])
            value = c.emit("multiply", [x, c.emit("log", [safe_y])])
        elif op == "divide" and not zero_if_x:
            value = c.emit("divide", [x, c.emit("where", [is_zero, _scalar(c, 1), y])])
        else:
            value = c.emit(op, [x, y])
        return c.emit("where", [is_zero, zero, value])
    return handler


def _squared_difference(c: OpCtx) -> Any:
    return c.emit("square", [c.emit("subtract", [c.x(0), c.x(1)])])


def _add_n(c: OpCtx) -> Any:
    total = c.x(0)
    for i in range(1, c.n_inputs):
        total = c.emit("add", [total, c.x(i)])
    return total


def _relu6(c: OpCtx) -> Any:
    if c.ins[0].dtype in FLOATS:
        return c.emit("relu6", [c.x(0)])
    return c.emit("clip", [c.x(0)], min=0.0, max=6.0)


def _selu(c: OpCtx) -> Any:
    return c.emit("multiply", [c.emit("elu", [c.x(0)], alpha=SELU_ALPHA), _scalar(c, SELU_SCALE)])


def _softsign(c: OpCtx) -> Any:
    x = c.x(0)
    return c.emit("divide", [x, c.emit("add", [c.emit("abs", [x]), _scalar(c, 1)])])


def _erfc(c: OpCtx) -> Any:
    # 1 - erf(x): exact in real arithmetic; in floating point its absolute error stays
    # within an ulp of 1 (Keras' gelu is 0.5 * x * erfc(-x / sqrt(2)))
    return c.emit("subtract", [_scalar(c, 1), c.emit("erf", [c.x(0)])])


def _softmax(name: str) -> Handler:
    return lambda c: c.emit(name, [c.x(0)], axis=-1)


def _leaky_relu(c: OpCtx) -> Any:
    return c.emit("leaky_relu", [c.x(0)], alpha=float(c.attr("alpha")))


def _cast(c: OpCtx) -> Any:
    return c.cast(c.x(0), c.outs[0].dtype)


def _select(c: OpCtx) -> Any:
    cond = c.x(0)
    rank, x_rank = c.rank(0), c.rank(1)
    if c.op.type == "Select" and rank == 1 and x_rank > 1:
        # v1 Select with a vector condition picks whole rows of x/y
        cond = c.emit("reshape", [cond], shape=list(c.ins[0].shape) + [1] * (x_rank - 1))
    return c.emit("where", [cond, c.x(1), c.x(2)])


def _clip(c: OpCtx) -> Any:
    # minimum(maximum(t, lo), hi), as TF computes it (bounds may be tensors)
    return c.emit("minimum", [c.emit("maximum", [c.x(0), c.x(1)]), c.x(2)])


def axes_of(c: OpCtx, i: int) -> list[int]:
    rank = c.rank(0)
    return sorted({a % rank if rank else a for a in c.ints(i, "reduction axes")})


def _reduce(name: str) -> Handler:
    def handler(c: OpCtx) -> Any:
        axes = axes_of(c, 1)
        keep = bool(c.attr("keep_dims"))
        if not axes:
            return c.x(0)  # reducing over no axis is the identity
        if name == "mean" and c.ins[0].dtype not in FLOATS:
            return _int_mean(c, axes, keep)
        return c.emit(name, [c.x(0)], axis=axes, keepdims=keep)
    return handler


def _int_mean(c: OpCtx, axes: list[int], keep: bool) -> Any:
    # TF's integer Mean: the integer sum divided by the count, truncated toward zero
    count = 1
    for a in axes:
        count *= c.ins[0].shape[a]
    total = c.emit("sum", [c.x(0)], axis=axes, keepdims=keep)
    return trunc_div(c, total, c.const(count, c.ins[0].dtype))


def _euclidean_norm(c: OpCtx) -> Any:
    axes = axes_of(c, 1)
    return c.emit("vector_norm", [c.x(0)], ord=2.0, axis=axes, keepdims=bool(c.attr("keep_dims")))


def _arg_reduce(name: str) -> Handler:
    def handler(c: OpCtx) -> Any:
        (axis,) = c.ints(1, "axis")
        return c.cast(c.emit(name, [c.x(0)], axis=axis), c.outs[0].dtype)
    return handler


def _scan(name: str) -> Handler:
    """Cumsum/Cumprod with TF's `reverse` (scan from the end) and `exclusive` (shifted by
    one, starting from the identity) flags, as flips and a slice + concat: exact, no
    subtraction of a running total."""
    def handler(c: OpCtx) -> Any:
        (axis,) = c.ints(1, "axis")
        rank, x = c.rank(0), c.x(0)
        axis %= rank
        if c.attr("reverse"):
            x = c.emit("flip", [x], axis=[axis])
        if c.attr("exclusive"):
            shape = list(c.ins[0].shape)
            n = shape[axis]
            start, stop, step = [0] * rank, list(shape), [1] * rank
            stop[axis] = max(n - 1, 0)
            head = c.emit("slice", [x], start=start, stop=stop, step=step)
            shape[axis] = 1
            first = c.emit("full", shape=shape, fill_value=float(name == "cumprod"),
                           dtype=c.ins[0].dtype)
            x = c.emit("concat", [[first, c.emit(name, [head], axis=axis)]], axis=axis) if n \
                else x
        else:
            x = c.emit(name, [x], axis=axis)
        if c.attr("reverse"):
            x = c.emit("flip", [x], axis=[axis])
        return x
    return handler


def _swap_last(c: OpCtx, x: Any, rank: int) -> Any:
    axes = list(range(rank))
    axes[-2:] = [rank - 1, rank - 2]
    return c.emit("permute_dims", [x], axes=axes)


def _matmul(flag_a: str, flag_b: str) -> Handler:
    def handler(c: OpCtx) -> Any:
        a, b = c.x(0), c.x(1)
        out = c.outs[0].dtype
        a, b = c.cast(a, out), c.cast(b, out)  # BatchMatMulV3 may take other input dtypes
        if c.attr(flag_a):
            a = _swap_last(c, a, c.rank(0))
        if c.attr(flag_b):
            b = _swap_last(c, b, c.rank(1))
        return c.emit("matmul", [a, b])
    return handler


def _einsum(c: OpCtx) -> Any:
    return c.emit("einsum", [[c.x(i) for i in range(c.n_inputs)]],
                  equation=c.attr("equation").replace(" ", ""))


MATH_OPS: dict[str, Handler] = {
    **{k: _unary(v) for k, v in UNARY.items()},
    **{k: _binary(v) for k, v in BINARY.items()},
    **{k: _reduce(v) for k, v in REDUCE.items()},
    "Div": _div, "TruncateDiv": _truncate_div, "FloorDiv": _floor_div, "TruncateMod": _truncate_mod,
    "DivNoNan": _zero_where_y_zero("divide"), "MulNoNan": _zero_where_y_zero("multiply"),
    "Xlogy": _zero_where_y_zero("xlogy", zero_if_x=True),
    "Xdivy": _zero_where_y_zero("divide", zero_if_x=True),
    "SquaredDifference": _squared_difference, "AddN": _add_n,
    "Relu6": _relu6, "Selu": _selu, "Softsign": _softsign, "Erfc": _erfc,
    "LeakyRelu": _leaky_relu, "Softmax": _softmax("softmax"),
    "LogSoftmax": _softmax("log_softmax"),
    "Cast": _cast, "Select": _select, "SelectV2": _select, "ClipByValue": _clip,
    "EuclideanNorm": _euclidean_norm,
    "ArgMax": _arg_reduce("argmax"), "ArgMin": _arg_reduce("argmin"),
    "Cumsum": _scan("cumsum"), "Cumprod": _scan("cumprod"),
    "MatMul": _matmul("transpose_a", "transpose_b"),
    "BatchMatMul": _matmul("adj_x", "adj_y"), "BatchMatMulV2": _matmul("adj_x", "adj_y"),
    "BatchMatMulV3": _matmul("adj_x", "adj_y"), "Einsum": _einsum,
}
