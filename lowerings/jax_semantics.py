"""Where JAX's own answer differs from the IR's meaning (docs/semantics.md), the jax
rules that emit the correction."""

from __future__ import annotations

import numpy as np

from ivy_ir.core.complex_cases import FUNCTIONS
from ivy_ir.core.numpy_api import AS_TYPE
from ivy_ir.core.rules import OpContext, Rule, rounded_once
from ivy_ir.dialect.types import COMPLEX, FLOATS, INTS, STORAGE, STORAGE_FLOATS, STORAGE_INTS

PINNED_CASTS = frozenset({"int8", "int16", "int32", "int64", "uint8", "uint16"}) | STORAGE_INTS
"""Integer dtypes whose conversion from a non-representable float the IR pins
(uint32 and uint64: NumPy's own answers are irregular, docs/semantics.md; the 4- and
2-bit ones take the low bits of the int32 value, as ml_dtypes does)."""


def float_to_int_range(dtype: str) -> tuple[str, int, int]:
    """For a float -> `dtype` cast: the integer type the hardware converts through and
    the half-open range of values it holds; any other value (NaN, inf) becomes that
    type's minimum. This is x86-64's answer (NumPy's, torch's and TF's on the CPU),
    wrapped to a narrower `dtype`; XLA saturates instead."""
    info = np.iinfo("int64" if dtype == "int64" else "int32")
    return info.dtype.name, int(info.min), int(info.max) + 1


def _astype(c: OpContext) -> str:
    x, src, dst = c.args["x"], c.in_types["x"].dtype, c.out.dtype
    # see STORAGE_FLOATS; not into float8e8m0, whose 2**-127 XLA flushes in float32
    if (src in STORAGE_FLOATS and dst not in FLOATS | STORAGE) or (
            src == "float64" and dst in STORAGE - {"float8_e8m0fnu"}):
        x, src = f"{x}.astype(jnp.float32)", "float32"
    if src not in FLOATS or dst not in PINNED_CASTS:
        return f"{x}.astype({c.lit('dtype')})"
    wide, lo, hi = float_to_int_range(dst)
    inside = f"({x} >= {float(lo)!r}) & ({x} < {float(hi)!r})"
    cast = f"jnp.where({inside}, {x}, {lo}).astype(jnp.{wide})"
    return cast if wide == dst else f"{cast}.astype({c.lit('dtype')})"


def _floor_divide(c: OpContext) -> str:
    """Integer division by zero gives 0, as in NumPy (XLA's quotient is unspecified)."""
    x, y = c.args["x"], c.args["y"]
    if c.out.dtype not in INTS:
        return f"jnp.floor_divide({x}, {y})"
    return f"jnp.where({y} == 0, 0, jnp.floor_divide({x}, jnp.where({y} == 0, 1, {y})))"


def _remainder(c: OpContext) -> str:
    """Floats from the exact fmod, as NumPy (jnp.remainder loses every digit of a
    quotient past 2**24); integers by jnp.remainder, 0 for a zero divisor as NumPy's."""
    fn = "float_remainder" if c.out.dtype in FLOATS else "jnp.remainder"
    return f"{fn}({c.args['x']}, {c.args['y']})"


def _abs(c: OpContext) -> str:
    """|z| of a complex z with an infinite part is inf, NaN in the other part or not (C99
    `cabs`, NumPy's); XLA's complex abs gives NaN there."""
    x = c.args["x"]
    if c.in_types["x"].dtype not in COMPLEX:
        return f"jnp.abs({x})"
    return f"jnp.where(jnp.isinf({x}.real) | jnp.isinf({x}.imag), jnp.inf, jnp.abs({x}))"


COMPLEX_SPECIAL = frozenset(FUNCTIONS)
"""Complex functions whose special values XLA misses (`exp(inf + inf j)` is NaN + NaN j,
`sqrt(-4 - 0j)` is 2j: it ignores the sign of a zero on a branch cut):
`ivy_ir/core/complex_cases.py` puts them in, for every function that has a table."""
COMPLEX_NATIVES = {"sinh": "complex_sinh", "cosh": "complex_cosh"}
"""XLA's complex sinh and cosh (and so sin and cos) lose sinh(a) for tiny real parts:
computed from the real functions (`jax_kernels.py`)."""

SEMANTIC_RULES: dict[str, Rule] = {
    "abs": _abs,
    "astype": _astype,
    # half floats divide in float32, rounded once: XLA turns a division by a broadcast
    # operand into a product with the reciprocal rounded to float16, an ulp off in a
    # quarter of the quotients (every softmax's normalization)
    "divide": rounded_once("jnp.divide({x}, {y})", AS_TYPE),
    "floor_divide": _floor_divide,
    "remainder": _remainder,
}
"""Rules that override the generic ones of `lowerings/jax.py`."""
