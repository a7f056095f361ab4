"""ONNX export rules of the elementwise ops and reductions.

Each rule writes the registry op's semantics (`docs/semantics.md`, the NumPy reference)
with ONNX nodes, not ONNX's nearest operator: integer `floor_divide`/`remainder` are
floor-based and give 0 for a zero divisor where ONNX `Div` truncates (and crashes),
shifts of signed integers go through the unsigned `BitShift`, and the float64 inverse
trigonometric functions, which onnxruntime has no double kernels for, are refined from
float32 seeds with double-precision Newton steps.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from onnx import numpy_helper

from ivy_ir.dialect import TensorSpec
from ivy_ir.dialect.types import numpy_dtype

from .onnx_graph import GraphBuilder, OnnxContext, onnx_dtype, value_info
from .onnx_precise import (
    acos_f64,
    acosh_f64,
    asin_f64,
    asinh_f64,
    atan,
    atan_f64,
    atanh_f64,
    cosh_f64,
    erf_f64,
    erfc_f64,
    expm1,
    log1p,
    sinh_f64,
    tan_f64,
)

OnnxRule = Callable[[OnnxContext], "str | list[str]"]
FLOATS = {"float16", "bfloat16", "float32", "float64"}


def unary(op_type: str) -> OnnxRule:
    return lambda c: c.node(op_type, [c.x])


def binary(op_type: str) -> OnnxRule:
    return lambda c: c.node(op_type, [c.args["x"], c.args["y"]])


def negated(op_type: str) -> OnnxRule:
    return lambda c: c.node("Not", [c.node(op_type, [c.args["x"], c.args["y"]])])


def by_dtype(floats: OnnxRule, others: OnnxRule) -> OnnxRule:
    """`floats` for a float first operand, `others` otherwise (ints, bool)."""
    return lambda c: (floats if c.x_type.dtype in FLOATS else others)(c)


def _f64_unary(native: str, f64: Callable[[GraphBuilder, str, str], str]) -> OnnxRule:
    """`native` where onnxruntime has the kernel, `f64` for float64 inputs."""
    return lambda c: f64(c.b, c.x, "float64") if c.x_type.dtype == "float64" \
        else c.node(native, [c.x])


def _scaled_log(scale: float) -> OnnxRule:
    return lambda c: c.node("Mul", [c.node("Log", [c.x]), c.scalar(scale)])


def _trunc(c: OnnxContext) -> str:  # ceil below zero, floor above
    neg = c.node("Less", [c.x, c.scalar(0.0)])
    return c.node("Where", [neg, c.node("Ceil", [c.x]), c.node("Floor", [c.x])])


def _never(c: OnnxContext) -> str:  # an integer is never NaN nor infinite: x != x
    return c.node("Not", [c.node("Equal", [c.x, c.x])])


def _isfinite(c: OnnxContext) -> str:
    if c.x_type.dtype not in FLOATS:
        return c.node("Equal", [c.x, c.x])
    bad = c.node("Or", [c.node("IsNaN", [c.x]), c.node("IsInf", [c.x])])
    return c.node("Not", [bad])


def _signbit(c: OnnxContext, v: str) -> str:
    """v < 0, or a negative zero (1 / -0 = -inf)."""
    zero = c.scalar(0.0, c.out.dtype)
    recip = c.node("Div", [c.scalar(1.0, c.out.dtype), v])
    return c.node("Or", [c.node("Less", [v, zero]), c.node("Less", [recip, zero])])


def _atan2(c: OnnxContext) -> str:
    """atan(x / y), moved by pi toward x's side when y's sign bit is set; the quotients
    0/0 and inf/inf take NumPy's answers (+-0 or +-pi; +-pi/4 or +-3pi/4)."""
    x, y, dt = c.args["x"], c.args["y"], c.out.dtype
    negx, negy = _signbit(c, x), _signbit(c, y)

    def toward_x(value: float) -> str:  # copysign(value, x)
        return c.node("Where", [negx, c.scalar(-value, dt), c.scalar(value, dt)])
    r = atan(c.b, c.node("Div", [x, y]), dt)
    r = c.node("Where", [negy, c.node("Add", [r, toward_x(math.pi)]), r])
    zeros = c.node("And", [c.node("Equal", [x, c.scalar(0.0, dt)]),
                           c.node("Equal", [y, c.scalar(0.0, dt)])])
    r = c.node("Where", [zeros, c.node("Where", [negy, toward_x(math.pi), x]), r])
    infs = c.node("And", [c.node("IsInf", [x]), c.node("IsInf", [y])])
    corner = c.node("Where", [negy, toward_x(3 * math.pi / 4), toward_x(math.pi / 4)])
    return c.node("Where", [infs, corner, r])


def _int_divmod(c: OnnxContext) -> tuple[str, str, str, str]:
    """(quotient, remainder, zero-divisor mask, zero) of floor division on integers;
    a zero divisor is swapped for 1 first (ONNX integer division by zero is undefined)."""
    x, y = c.args["x"], c.args["y"]
    zero = c.scalar(0)
    by_zero = c.node("Equal", [y, zero])
    safe = c.node("Where", [by_zero, c.scalar(1), y])
    r = c.node("Mod", [x, safe])  # fmod=0 on integers: the sign of the divisor (floor)
    q = c.node("Div", [c.node("Sub", [x, r]), safe])  # exact: x - r is a multiple
    return q, r, by_zero, zero


def _float_divmod(c: OnnxContext) -> tuple[str, str]:
    """NumPy's divmod on floats: mod = fmod(x, y), moved by y where the signs differ;
    div = (x - mod) / y, rounded to the nearest whole number below."""
    x, y = c.args["x"], c.args["y"]
    zero = c.scalar(0.0)
    mod = c.node("Mod", [x, y], fmod=1)
    differ = c.node("And", [c.node("Not", [c.node("Equal", [mod, zero])]),
                            c.node("Xor", [c.node("Less", [y, zero]),
                                           c.node("Less", [mod, zero])])])
    div = c.node("Div", [c.node("Sub", [x, mod]), y])
    div = c.node("Where", [differ, c.node("Sub", [div, c.scalar(1.0)]), div])
    fl = c.node("Floor", [div])
    up = c.node("Greater", [c.node("Sub", [div, fl]), c.scalar(0.5)])
    fl = c.node("Where", [up, c.node("Add", [fl, c.scalar(1.0)]), fl])
    fl = c.node("Where", [c.node("Equal", [y, zero]), c.node("Div", [x, y]), fl])
    return fl, c.node("Where", [differ, c.node("Add", [mod, y]), mod])


def _floor_divide(c: OnnxContext) -> str:
    if c.x_type.dtype in FLOATS:
        return _float_divmod(c)[0]
    q, _, by_zero, zero = _int_divmod(c)
    return c.node("Where", [by_zero, zero, q])


def _remainder(c: OnnxContext) -> str:
    if c.x_type.dtype in FLOATS:
        return _float_divmod(c)[1]
    _, r, by_zero, zero = _int_divmod(c)
    return c.node("Where", [by_zero, zero, r])


def _unsigned(dtype: str) -> str:
    return dtype if dtype.startswith("u") else f"u{dtype}"


_SHIFT_WIDENED = {"int16": "int32", "uint16": "uint32"}
"""onnxruntime's BitShift and Where have no 16-bit kernels: these shift as 32-bit values
(the low 16 bits of a 32-bit shift are the 16-bit shift's, for every count)."""


def _shift(left: bool) -> OnnxRule:
    """Shifts through the unsigned `BitShift`: a count < 0 or >= the width gives 0 (a
    right shift of a negative value: -1); a signed right shift is ~(~x >> y) below 0."""
    def rule(c: OnnxContext) -> str:
        x, y, dt = c.args["x"], c.args["y"], c.out.dtype
        wide = _SHIFT_WIDENED.get(dt, dt)
        if wide != dt:
            x, y = c.b.cast(x, wide), c.b.cast(y, wide)
        u, width = _unsigned(wide), numpy_dtype(wide).itemsize * 8
        count = c.b.cast(y, u)

        def shifted(v: str) -> str:
            return c.b.cast(c.node("BitShift", [c.b.cast(v, u), count],
                                   direction="LEFT" if left else "RIGHT"), wide)
        zero = c.scalar(0, wide)
        out_of_range = c.node("Or", [c.node("Less", [y, zero]),
                                     c.node("GreaterOrEqual", [y, c.scalar(width, wide)])])
        if left or wide == u:
            out = c.node("Where", [out_of_range, zero, shifted(x)])
        else:
            neg = c.node("Less", [x, zero])
            r = c.node("Where", [neg, c.node("BitwiseNot", [shifted(c.node("BitwiseNot", [x]))]),
                                 shifted(x)])
            fill = c.node("Where", [neg, c.scalar(-1, wide), zero])
            out = c.node("Where", [out_of_range, fill, r])
        return out if wide == dt else c.b.cast(out, dt)
    return rule


def _bitwise(bool_op: str, int_op: str) -> OnnxRule:
    return lambda c: c.node(bool_op if c.x_type.dtype == "bool" else int_op,
                            [c.args["x"], *([c.args["y"]] if "y" in c.args else [])])


def _where(c: OnnxContext) -> str:
    cond, x, y = c.args["condition"], c.args["x"], c.args["y"]
    if c.out.dtype != "bool":
        return c.node("Where", [cond, x, y])
    # onnxruntime has no bool Where: (c and x) or (not c and y)
    return c.node("Or", [c.node("And", [cond, x]), c.node("And", [c.node("Not", [cond]), y])])


def _clip(c: OnnxContext) -> str:
    lo, hi, dt = c.attrs["min"], c.attrs["max"], c.x_type.dtype
    whole = all(v is None or float(v).is_integer() for v in (lo, hi))
    if dt in FLOATS or whole:
        bounds = [("" if v is None else c.scalar(v, dt)) for v in (lo, hi)]
        return c.node("Clip", [c.x, *bounds])
    # fractional bounds on integers: NumPy clips in float64, then casts back (truncates)
    wide = c.b.cast(c.x, "float64")
    bounds = [("" if v is None else c.scalar(v, "float64")) for v in (lo, hi)]
    return c.b.cast(c.node("Clip", [wide, *bounds]), dt)


def _astype(c: OnnxContext) -> str:
    src, dst = c.x_type.dtype, c.out.dtype
    if src in FLOATS and dst in {"int8", "int16", "uint8", "uint16"}:
        # NumPy truncates through a 32-bit integer, then wraps to the narrow type
        return c.b.cast(c.b.cast(c.x, "int32"), dst)
    return c.b.cast(c.x, dst)


ELEMENTWISE_RULES: dict[str, OnnxRule] = {
    "astype": _astype,
    "bitcast": lambda c: c.node("BitCast", [c.x], to=onnx_dtype(c.out.dtype)),
    # an inference graph has no gradients to stop
    "stop_gradient": lambda c: c.node("Identity", [c.x]),
    "abs": unary("Abs"),
    "negative": unary("Neg"),
    "sign": unary("Sign"),
    "sqrt": unary("Sqrt"),
    "rsqrt": lambda c: c.node("Div", [c.scalar(1.0), c.node("Sqrt", [c.x])]),
    "square": lambda c: c.node("Mul", [c.x, c.x]),
    "reciprocal": lambda c: c.node("Div", [c.scalar(1.0), c.x]),
    "exp": unary("Exp"),
    "expm1": lambda c: expm1(c.b, c.x, c.x_type.dtype),
    "log": unary("Log"),
    "log1p": lambda c: log1p(c.b, c.x, c.x_type.dtype),
    "log2": _scaled_log(1 / math.log(2)),
    "log10": _scaled_log(1 / math.log(10)),
    "sin": unary("Sin"),
    "cos": unary("Cos"),
    "tan": _f64_unary("Tan", tan_f64),
    "asin": _f64_unary("Asin", asin_f64),
    "acos": _f64_unary("Acos", acos_f64),
    "atan": _f64_unary("Atan", atan_f64),
    "sinh": _f64_unary("Sinh", sinh_f64),
    "cosh": _f64_unary("Cosh", cosh_f64),
    "tanh": unary("Tanh"),
    "asinh": _f64_unary("Asinh", asinh_f64),
    "acosh": _f64_unary("Acosh", acosh_f64),
    "atanh": _f64_unary("Atanh", atanh_f64),
    "erf": _f64_unary("Erf", erf_f64),
    "erfc": lambda c: erfc_f64(c.b, c.x, c.x_type.dtype),
    "floor": unary("Floor"),
    "ceil": unary("Ceil"),
    "round": unary("Round"),  # half to even, as NumPy's rint
    "trunc": _trunc,
    "isnan": by_dtype(unary("IsNaN"), _never),
    "isinf": by_dtype(unary("IsInf"), _never),
    "isfinite": _isfinite,
    "logical_not": unary("Not"),
    "bitwise_invert": lambda c: c.node("Not" if c.x_type.dtype == "bool" else "BitwiseNot",
                                       [c.x]),
    "add": binary("Add"),
    "subtract": binary("Sub"),
    "multiply": binary("Mul"),
    "divide": binary("Div"),
    "floor_divide": _floor_divide,
    "remainder": _remainder,
    "pow": binary("Pow"),
    "maximum": binary("Max"),
    "minimum": binary("Min"),
    "atan2": _atan2,
    "equal": binary("Equal"),
    "not_equal": negated("Equal"),
    "less": binary("Less"),
    "less_equal": binary("LessOrEqual"),
    "greater": binary("Greater"),
    "greater_equal": binary("GreaterOrEqual"),
    "logical_and": binary("And"),
    "logical_or": binary("Or"),
    "logical_xor": binary("Xor"),
    "bitwise_and": _bitwise("And", "BitwiseAnd"),
    "bitwise_or": _bitwise("Or", "BitwiseOr"),
    "bitwise_xor": _bitwise("Xor", "BitwiseXor"),
    "bitwise_left_shift": _shift(left=True),
    "bitwise_right_shift": _shift(left=False),
    "where": _where,
    "clip": _clip,
}


def all_axes(c: OnnxContext) -> list[int]:
    axis = c.attrs.get("axis")
    return list(range(c.x_type.rank)) if axis is None else list(axis)


def reduce(c: OnnxContext, op_type: str, x: str | None = None) -> str:
    """`op_type` over the op's axes (all for None; none: the input as it is)."""
    axes, x = all_axes(c), c.x if x is None else x
    if not axes:
        return c.node("Identity", [x])
    return c.node(op_type, [x, c.b.ints(axes)], keepdims=int(c.attrs["keepdims"]))


def count(c: OnnxContext, axes: list[int], dtype: str) -> str:
    """How many elements one reduction over `axes` takes, in `dtype`."""
    dims = [c.x_type.shape[a] for a in axes]
    if None not in dims:
        return c.scalar(float(np.prod(dims, dtype=np.int64)), dtype)
    sizes = c.node("Gather", [c.node("Shape", [c.x]), c.b.ints(axes)])
    return c.b.cast(c.node("ReduceProd", [sizes], keepdims=0), dtype)


def _var(c: OnnxContext, root: bool) -> str:
    axes, dt = all_axes(c), c.out.dtype
    if not axes:
        zero = c.node("Mul", [c.node("Sub", [c.x, c.x]), c.scalar(0.0)])
        return c.node("Div", [zero, c.node("Sub", [c.scalar(1.0), c.scalar(
            c.attrs["correction"])])])
    centred = c.node("Sub", [c.x, c.node("ReduceMean", [c.x, c.b.ints(axes)], keepdims=1)])
    ss = c.node("ReduceSum", [c.node("Mul", [centred, centred]), c.b.ints(axes)],
                keepdims=int(c.attrs["keepdims"]))
    n = c.node("Sub", [count(c, axes, dt), c.scalar(c.attrs["correction"], dt)])
    v = c.node("Div", [ss, n])
    return c.node("Sqrt", [v]) if root else v


def _truth(c: OnnxContext, all_of: bool) -> str:
    """all: no element is false; any: some element is true (counted in int64, so an
    empty reduction gives True and False)."""
    x = c.x if c.x_type.dtype == "bool" else c.node("Not", [c.node("Equal", [
        c.x, c.scalar(0)])])
    if all_of:
        x = c.node("Not", [x])
    n = reduce(c, "ReduceSum", c.b.cast(x, "int64"))
    hit = c.node("Greater", [n, c.b.const(0, "int64")])
    return c.node("Not", [hit]) if all_of else hit


def _arg(op_type: str) -> OnnxRule:
    def rule(c: OnnxContext) -> str:
        axis, x = c.attrs["axis"], c.x
        if axis is None:
            x, axis = c.node("Reshape", [x, c.b.ints([-1])]), 0
        keep = int(c.attrs["keepdims"])
        out = c.node(op_type, [x], axis=axis, keepdims=keep)
        if c.x_type.dtype in FLOATS:  # the first NaN's index, where there is one
            nan = c.b.cast(c.node("IsNaN", [x]), "int32")
            first = c.node("ArgMax", [nan], axis=axis, keepdims=keep)
            has = c.b.cast(c.node("ReduceMax", [nan, c.b.ints([axis])], keepdims=keep), "bool")
            out = c.node("Where", [has, first, out])
        if c.attrs["axis"] is None and c.attrs["keepdims"]:
            out = c.node("Reshape", [out, c.b.ints([1] * c.x_type.rank)])
        return c.b.cast(out, c.out.dtype) if c.out.dtype != "int64" else out
    return rule


def _cumprod(c: OnnxContext) -> str:
    """A `Scan` multiplying along the axis (ONNX has CumSum only)."""
    axis, dt = c.attrs["axis"], c.out.dtype
    if 0 in c.x_type.shape:  # nothing to scan (onnxruntime's Scan refuses it)
        return c.node("Identity", [c.x])
    body = c.b.sub()
    acc, item = body.names.fresh("acc"), body.names.fresh("item")
    prod = body.node("Mul", [acc, item])
    step = body.node("Identity", [prod])
    rest = [d for i, d in enumerate(c.x_type.shape) if i != axis]
    slice_type = TensorSpec(tuple(rest), dt)
    graph = body.graph("cumprod_step", [value_info(acc, slice_type), value_info(item, slice_type)],
                       [value_info(prod, slice_type), value_info(step, slice_type)])
    shape = c.node("Concat", [c.node("Shape", [c.x], end=axis), c.node("Shape", [c.x],
                                                                        start=axis + 1)], axis=0)
    one = numpy_helper.from_array(np.ones(1, numpy_dtype(dt)))
    init = c.node("ConstantOfShape", [shape], value=one)
    return c.node("Scan", [init, c.x], 2, body=graph, num_scan_inputs=1,
                  scan_input_axes=[axis], scan_output_axes=[axis])[1]


def _nan_any(c: OnnxContext, x: str, **keep: int) -> str:
    """Whether each reduction holds a NaN (onnxruntime's max/min skip NaN)."""
    nan = c.b.cast(c.node("IsNaN", [x]), "int32")
    axes = all_axes(c)
    if not axes:
        return c.b.cast(nan, "bool")
    return c.b.cast(c.node("ReduceMax", [nan, c.b.ints(axes)], **keep), "bool")


def _extreme(op_type: str) -> OnnxRule:
    """ReduceMax/ReduceMin, NaN wherever the reduction holds one (as NumPy)."""
    def rule(c: OnnxContext) -> str:
        out = reduce(c, op_type)
        if c.x_type.dtype not in FLOATS:
            return out
        nan = _nan_any(c, c.x, keepdims=int(c.attrs["keepdims"]))
        return c.node("Where", [nan, c.scalar(float("nan")), out])
    return rule


def _prod(c: OnnxContext) -> str:
    """onnxruntime's integer ReduceProd saturates where every other target wraps around
    (3**20 in int32 gives 2**31 - 1), so an integer product over static axes is a tree
    of elementwise Muls, which wrap: the axes moved last and flattened, then halves
    multiplied until one element is left."""
    axes, t = all_axes(c), c.x_type
    dims = [t.shape[a] for a in axes]
    if numpy_dtype(t.dtype).kind not in "iu" or not axes or None in t.shape or 0 in dims:
        return reduce(c, "ReduceProd")
    kept = [a for a in range(t.rank) if a not in axes]
    n = math.prod(dims)
    x = c.node("Reshape", [c.node("Transpose", [c.x], perm=kept + axes),
                           c.b.ints([t.shape[a] for a in kept] + [n])])
    last = c.b.ints([-1])
    while n > 1:
        half = n // 2
        product = c.node("Mul", [c.node("Slice", [x, c.b.ints([lo]), c.b.ints([hi]), last])
                                 for lo, hi in ((0, half), (half, 2 * half))])
        if n % 2:  # the odd element out goes on to the next round
            product = c.node("Concat", [product, c.node(
                "Slice", [x, c.b.ints([n - 1]), c.b.ints([n]), last])], axis=-1)
        x, n = product, n - half
    return c.node("Reshape", [x, c.b.ints(list(c.out.shape))])


REDUCTION_RULES: dict[str, OnnxRule] = {
    "sum": lambda c: reduce(c, "ReduceSum"),
    "prod": _prod,
    "mean": lambda c: reduce(c, "ReduceMean"),
    "min": _extreme("ReduceMin"),
    "max": _extreme("ReduceMax"),
    "var": lambda c: _var(c, root=False),
    "std": lambda c: _var(c, root=True),
    "all": lambda c: _truth(c, all_of=True),
    "any": lambda c: _truth(c, all_of=False),
    "argmax": _arg("ArgMax"),
    "argmin": _arg("ArgMin"),
    "cumsum": lambda c: c.node("CumSum", [c.x, c.b.const(c.attrs["axis"], "int64")]),
    "cumprod": _cumprod,
}


__all__ = ["ELEMENTWISE_RULES", "FLOATS", "REDUCTION_RULES", "OnnxRule", "all_axes", "unary"]
