"""Where TensorFlow's own answer differs from the IR's meaning (docs/semantics.md),
the TF rules that emit the correction."""

from __future__ import annotations

import numpy as np

from ivy_ir.core.rules import OpContext, Rule, arange_stop, literal
from ivy_ir.dialect.symbolic import SymDim
from ivy_ir.dialect.types import INTS


def _zero(c: OpContext) -> str:
    return f"tf.constant(0, {c.target.dtype(c.out.dtype)})"


def _division(fn: str, float_fn: str) -> Rule:
    """Integer division by zero gives 0, as in NumPy (TF raises); floats go through
    `float_fn`, float16 and bfloat16 in float32 rounded back once, as NumPy computes
    them (TF's TruncateMod has no kernel of either)."""
    def rule(c: OpContext) -> str:
        x, y = c.args["x"], c.args["y"]
        if c.out.dtype in ("float16", "bfloat16"):
            return f"tf.cast({float_fn}(tf.cast({x}, tf.float32), tf.cast({y}, tf.float32)), " \
                f"{c.target.dtype(c.out.dtype)})"
        if c.out.dtype not in INTS:
            return f"{float_fn}({x}, {y})"
        one = f"tf.constant(1, {c.target.dtype(c.out.dtype)})"
        return f"tf.where({y} == 0, {_zero(c)}, {fn}({x}, tf.where({y} == 0, {one}, {y})))"
    return rule


def _shift(fn: str) -> Rule:
    """A shift by a negative count or by the width or more gives 0 (a right shift of a
    negative signed value: -1), as in NumPy; TF clamps the count into [0, width)."""
    def rule(c: OpContext) -> str:
        x, y, dtype = c.args["x"], c.args["y"], c.out.dtype
        bits = np.iinfo(dtype).bits
        spill = _zero(c)
        if fn == "right_shift" and np.iinfo(dtype).min < 0:
            spill = f"tf.bitwise.right_shift({x}, tf.constant({bits - 1}, {x}.dtype))"
        return f"tf.where(({y} >= 0) & ({y} < {bits}), tf.bitwise.{fn}({x}, {y}), {spill})"
    return rule


def _erf(c: OpContext) -> str:
    """TF's float64 erf is NaN from |x| ~ 1e155 on (its x * x overflows); erf is +-1
    in float64 already from |x| > 6."""
    x = c.args["x"]
    if c.out.dtype != "float64":
        return f"tf.math.erf({x})"
    return f"tf.math.erf(tf.clip_by_value({x}, -6.0, 6.0))"


def _arg_reduce(fn: str) -> Rule:
    """argmax/argmin give the first NaN's index where there is one (TF skips NaN)."""
    def rule(c: OpContext) -> str:
        x, axis = c.args["x"], c.attrs["axis"]
        inner = f"tf.reshape({x}, [-1])" if axis is None else x
        ax = 0 if axis is None else axis
        arg = f"{fn}({inner}, axis={ax}, output_type=tf.int64)"
        if c.in_types["x"].dtype.startswith(("float", "bfloat")):
            nan = f"tf.math.is_nan({inner})"
            first = f"tf.math.argmax(tf.cast({nan}, tf.int32), axis={ax}, output_type=tf.int64)"
            arg = f"tf.where(tf.reduce_any({nan}, axis={ax}), {first}, {arg})"
        return f"tf.reshape({arg}, {literal(c.out.shape)})" if c.attrs["keepdims"] else arg
    return rule


def _softmax(fn: str) -> Rule:
    """A slice holding NaN or +inf is NaN throughout, as `exp(x - max(x))` makes it in
    NumPy (TF's kernel gives 0 beside the NaN)."""
    def rule(c: OpContext) -> str:
        x, axis = c.args["x"], c.attrs["axis"]
        # spelled with is_nan: grappler rewrites not(x < inf) as x >= inf, false for NaN
        bad = f"tf.math.is_nan({x}) | ({x} == np.inf)"
        bad = f"tf.reduce_any({bad}, axis={axis}, keepdims=True)"
        return f"tf.where({bad}, tf.constant(np.nan, {x}.dtype), {fn}({x}, axis={axis}))"
    return rule


def _reciprocal(c: OpContext) -> str:
    """Correctly rounded: TF's float32 reciprocal is an ulp off for about a third of all
    values (a later ceil or astype turns that into a whole unit), and grappler rewrites
    1 / x into it; float64 division rounded once more to float32 is exact."""
    x = c.args["x"]
    if c.out.dtype not in ("float32", "float16", "bfloat16"):  # float64, complex: exact
        return f"tf.math.reciprocal({x})"
    return f"tf.cast(1 / tf.cast({x}, tf.float64), {x}.dtype)"


def _arange(c: OpContext) -> str:
    """In float64, as NumPy's; symbolic bounds (int32 sizes) are cast to it and the stop
    clamped, since TF refuses a stop against the step where NumPy gives nothing."""
    dynamic = any(isinstance(c.attrs[k], SymDim) for k in ("start", "stop"))
    start, stop = (f"tf.cast({c.lit(k)}, tf.float64)" if dynamic else c.lit(k)
                   for k in ("start", "stop"))
    stop = arange_stop(c.attrs, start, stop, "tf.maximum", "tf.minimum")
    return f"tf.cast(tf.range({start}, {stop}, {c.lit('step')}, dtype=tf.float64), " \
        f"{c.lit('dtype')})"


COMPLEX_SPECIAL = ("expm1", "log", "log1p", "log2", "log10", "sqrt", "tanh", "tan")
"""Complex functions whose special values TF misses (`log1p` of any infinite part is
NaN + NaN j, `sqrt(inf - 1j)` has a +0 imaginary part, tanh's and tan's infinite limits
C99's zero signs; TF has no log2 or log10, and a complex division by log(2) makes
`log(-inf)` NaN): `ivy_ir/core/complex_cases.py` puts them in."""
COMPLEX_NATIVES = {"log": "complex_log"}
"""TF's complex log squares the parts: NaN for parts past ~1e154 or below ~1e-154
(`log(1e200 + 1e200j)`); the kernel `complex_log` computes log|z| without squares."""

SEMANTIC_RULES: dict[str, Rule] = {
    "arange": _arange,
    "reciprocal": _reciprocal,
    "floor_divide": _division("tf.math.floordiv", "floor_divide"),
    "remainder": _division("tf.math.floormod", "float_remainder"),
    "bitwise_left_shift": _shift("left_shift"),
    "bitwise_right_shift": _shift("right_shift"),
    "erf": _erf,
    "argmax": _arg_reduce("tf.math.argmax"),
    "argmin": _arg_reduce("tf.math.argmin"),
    "softmax": _softmax("tf.nn.softmax"),
    "log_softmax": _softmax("tf.nn.log_softmax"),
}
"""Rules that override the generic ones of `lowerings/tensorflow.py`."""
