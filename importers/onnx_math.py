"""ONNX elementwise math, logic, comparisons, casts, selection and matrix products ->
ivy ops.

ONNX's binary operators take operands of one dtype and broadcast NumPy-style, as the
registry's do, so most map one to one (`UNARY`, `BINARY`). Rows whose ONNX meaning
differs from the registry op's are short exact compositions: integer `Div` truncates
toward zero, `Mod` with fmod=1 takes the dividend's sign, `Pow` keeps the base's dtype,
the variadic `Sum`/`Mean`/`Max`/`Min` fold pairwise with broadcasting.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ivy_ir.dialect.dtypes import HALF
from ivy_ir.dialect.types import FLOATS, INTS

from . import onnx_lowprec as lowprec
from .common import Rule, Unmapped, spec_of
from .onnx_ctx import Ctx, Deferred
from .onnx_strings import with_text

UNARY: dict[str, str] = {
    "Abs": "abs", "Acos": "acos", "Acosh": "acosh", "Asin": "asin", "Asinh": "asinh",
    "Atan": "atan", "Atanh": "atanh", "Ceil": "ceil", "Cos": "cos", "Cosh": "cosh",
    "Erf": "erf", "Exp": "exp", "Floor": "floor", "Log": "log", "Neg": "negative",
    "Reciprocal": "reciprocal", "Round": "round", "Sigmoid": "sigmoid", "Sign": "sign",
    "Sin": "sin", "Sinh": "sinh", "Sqrt": "sqrt", "Tan": "tan", "Tanh": "tanh",
    "Not": "logical_not", "BitwiseNot": "bitwise_invert", "IsNaN": "isnan", "Det": "det",
}
"""One ONNX operator, one registry op of the same meaning (Round: half to even in both)."""

BINARY: dict[str, str] = {
    "Add": "add", "Sub": "subtract", "Mul": "multiply", "And": "logical_and",
    "Or": "logical_or", "Xor": "logical_xor", "BitwiseAnd": "bitwise_and",
    "BitwiseOr": "bitwise_or", "BitwiseXor": "bitwise_xor",
    "Less": "less", "LessOrEqual": "less_equal", "Greater": "greater",
    "GreaterOrEqual": "greater_equal", "MatMul": "matmul",
}
"""Broadcasting binary operators on operands of one dtype (MatMul: NumPy's matmul;
`Equal`, which also compares strings, is in `TABLE`)."""

VARIADIC: dict[str, str] = {"Sum": "add", "Max": "maximum", "Min": "minimum"}
"""Operators over any number of inputs, broadcast together, folded pairwise."""


def _unary(op: str) -> Rule:
    return lambda c, x: c.emit(op, x)


def _binary(op: str) -> Rule:
    return lambda c, x, y: c.emit(op, x, y)


def _variadic(op: str) -> Rule:
    return lambda c, *xs: functools.reduce(lambda a, b: c.emit(op, a, b), xs)


def trunc_div(c: Ctx, x: Any, y: Any) -> Any:
    """Integer division rounding toward zero (C semantics): the floor quotient, plus one
    where the remainder is nonzero and the operands' signs differ."""
    dtype = c.spec(x).dtype
    q = c.emit("floor_divide", x, y)
    zero = c.const(0, dtype)
    inexact = c.emit("not_equal", c.emit("remainder", x, y), zero)
    signs = c.emit("not_equal", c.emit("less", x, zero), c.emit("less", y, zero))
    return c.emit("add", q, c.cast(c.emit("logical_and", inexact, signs), dtype))


def _div(c: Ctx, x: Any, y: Any) -> Any:
    if c.spec(x).dtype in INTS:
        return trunc_div(c, x, y)
    return c.emit("divide", x, y)


def _mod(c: Ctx, x: Any, y: Any, fmod: int = 0) -> Any:
    """fmod=0: the sign of the divisor (NumPy's remainder, integers only in ONNX);
    fmod=1: C's fmod, the sign of the dividend: the floor remainder, less the divisor
    where it is nonzero and its sign differs from the dividend's."""
    r = c.emit("remainder", x, y)
    if not fmod:
        return r
    zero = c.const(0, c.spec(x).dtype)
    differs = c.emit("not_equal", c.emit("less", r, zero), c.emit("less", x, zero))
    fix = c.emit("logical_and", c.emit("not_equal", r, zero), differs)
    return c.emit("where", fix, c.emit("subtract", r, y), r)


def _pow(c: Ctx, x: Any, y: Any) -> Any:
    """The result has the base's dtype: a float exponent of an integer base is applied
    in the exponent's dtype, then truncated back."""
    base, exp = c.spec(x).dtype, c.spec(y).dtype
    if base in INTS and exp in FLOATS:
        return c.cast(c.emit("pow", c.cast(x, exp), y), base)
    return c.emit("pow", x, c.cast(y, base))


def _mean(c: Ctx, *xs: Any) -> Any:
    total = _variadic("add")(c, *xs)
    return c.emit("divide", total, c.const(len(xs), c.spec(total).dtype))


def _bit_shift(c: Ctx, x: Any, y: Any, direction: str = "") -> Any:
    ops = {"LEFT": "bitwise_left_shift", "RIGHT": "bitwise_right_shift"}
    if direction not in ops:
        raise Unmapped(f"direction '{direction}'")
    return c.emit(ops[direction], x, y)


def _is_inf(c: Ctx, x: Any, detect_negative: int = 1, detect_positive: int = 1) -> Any:
    inf = c.emit("isinf", x)
    if detect_negative and detect_positive:
        return inf
    zero = c.const(0, c.spec(x).dtype)
    side = c.emit("greater" if detect_positive else "less", x, zero)
    if not (detect_negative or detect_positive):
        return c.emit("logical_and", inf, c.emit("logical_not", inf))
    return c.emit("logical_and", inf, side)


def _cast(c: Ctx, x: Any, to: int, saturate: int = 1, round_mode: str = "up") -> Any:
    # saturate and round_mode concern the float8 targets only (onnx_lowprec.py)
    return lowprec.cast(c, x, c.dtype(to), saturate, round_mode)


def _cast_like(c: Ctx, x: Any, like: Any, saturate: int = 1, round_mode: str = "up") -> Any:
    return lowprec.cast(c, x, c.spec(like).dtype, saturate, round_mode)


def _bit_cast(c: Ctx, x: Any, to: int) -> Any:
    """The same bits read as another dtype of the same width. bool's byte is 0 or 1,
    so from bool it is the cast; into bool only bytes 0 and 1 are meaningful, which
    the cast reads the same way."""
    src, dst = c.spec(x).dtype, c.dtype(to)
    if "bool" in (src, dst):
        return c.emit("astype", x, dtype=dst)
    return c.emit("bitcast", x, dtype=dst)


def _clip(c: Ctx, x: Any, low: Any = None, high: Any = None) -> Any:
    """max(x, low) then min(.., high): with low > high every element is `high`, as
    ONNX specifies."""
    dtype = c.spec(x).dtype
    if low is not None:
        x = c.emit("maximum", x, c.cast(low, dtype))
    if high is not None:
        x = c.emit("minimum", x, c.cast(high, dtype))
    return x


def _clip_upgrade(inputs: list[Any], attrs: dict[str, Any], opset: int
                  ) -> tuple[list[Any], dict[str, Any]]:
    """Clip < 11 takes min/max as attributes; 11 as optional inputs."""
    low, high = attrs.pop("min", None), attrs.pop("max", None)
    bounds = [None if v is None else np.asarray(v, np.float64) for v in (low, high)]
    return inputs[:1] + bounds, attrs


def _gemm(c: Ctx, a: Any, b: Any, bias: Any = None, alpha: float = 1.0, beta: float = 1.0,
          transA: int = 0, transB: int = 0) -> Any:
    """alpha * A' B' + beta * C, in that order of rounding."""
    if transA:
        a = c.emit("permute_dims", a, axes=[1, 0])
    if transB:
        b = c.emit("permute_dims", b, axes=[1, 0])
    out = c.emit("matmul", a, b)
    dtype = c.spec(out).dtype
    if alpha != 1.0:
        out = c.emit("multiply", out, c.const(alpha, dtype))
    if bias is not None and beta != 0.0:
        if beta != 1.0:
            bias = c.emit("multiply", bias, c.const(beta, dtype))
        out = c.emit("add", out, bias)
    return out


def _einsum(c: Ctx, *xs: Any, equation: str) -> Any:
    return c.emit("einsum", list(xs), equation=equation.replace(" ", ""))


def _swish(c: Ctx, x: Any, alpha: float = 1.0) -> Any:
    return c.cast(swished(c, x, alpha), c.spec(x).dtype)


def swished(c: Ctx, x: Any, alpha: float) -> Any:
    """x * sigmoid(alpha * x), in float32 for float16/bfloat16 `x` (one operator, so one
    rounding, as ONNX's reference computes it)."""
    wide = "float32" if c.spec(x).dtype in HALF else c.spec(x).dtype
    x = c.cast(x, wide)
    scaled = x if alpha == 1.0 else c.emit("multiply", x, c.const(alpha, wide))
    return c.emit("multiply", x, c.emit("sigmoid", scaled))


def _where(c: Ctx, cond: Any, x: Any, y: Any) -> Any:
    return c.emit("where", cond, x, y)


def _legacy_broadcast(inputs: list[Any], attrs: dict[str, Any], opset: int
                      ) -> tuple[list[Any], dict[str, Any]]:
    """Binary operators before opset 7 broadcast only when `broadcast=1`, aligning B's
    dims with A's from `axis` (by default the trailing ones, NumPy's rule); 7 always
    broadcasts NumPy-style. B aligned elsewhere gains trailing 1-dims (a reshape).
    `consumed_inputs` (opset 1) was an optimization hint."""
    attrs.pop("consumed_inputs", None)
    broadcast, axis = attrs.pop("broadcast", 0), attrs.pop("axis", None)
    if broadcast and axis is not None and len(inputs) == 2:
        a, b = inputs
        a_rank = a.ndim if isinstance(a, np.ndarray) else spec_of(a).rank
        shape = b.shape if isinstance(b, np.ndarray) else spec_of(b).shape
        extra = a_rank - axis % max(a_rank, 1) - len(shape)
        if extra:
            dims = [*shape, *[1] * extra]
            inputs = [a, Deferred(lambda c: c.emit("reshape", b, shape=dims))]
    return inputs, attrs


def _gemm_upgrade(inputs: list[Any], attrs: dict[str, Any], opset: int
                  ) -> tuple[list[Any], dict[str, Any]]:
    """Gemm before opset 7 says with `broadcast` whether C broadcasts; 7 always
    broadcasts it unidirectionally, which covers both."""
    attrs.pop("broadcast", None)
    return inputs, attrs


LEGACY_BROADCAST = ("Add", "Sub", "Mul", "Div", "Pow", "And", "Or", "Xor", "Equal", "Greater",
                    "Less")
"""Binary operators whose opset-7 form dropped the `broadcast`/`axis` attributes."""

TABLE: dict[str, Rule] = {
    **{k: _unary(v) for k, v in UNARY.items()},
    **{k: _binary(v) for k, v in BINARY.items()},
    **{k: _variadic(v) for k, v in VARIADIC.items()},
    "Div": _div, "Mod": _mod, "Pow": _pow, "Mean": _mean, "BitShift": _bit_shift,
    "IsInf": _is_inf, "Cast": _cast, "CastLike": _cast_like, "BitCast": _bit_cast,
    "Clip": _clip,
    "Gemm": _gemm, "Einsum": _einsum, "Where": _where, "Swish": _swish,
    "Equal": with_text(_binary("equal"), "string_equal"),
}
"""ONNX op_type -> rule for the math family."""

UPGRADES = {"Clip": (11, _clip_upgrade), "Gemm": (7, _gemm_upgrade),
            **{op: (7, _legacy_broadcast) for op in LEGACY_BROADCAST}}
"""op_type -> (since, upgrade) for the math family's older operator forms."""
