"""ONNX's casts into the low-precision storage dtypes (float8, float4, int4, int2).

The IR's `astype` into a storage dtype is ml_dtypes' conversion (round to nearest
even; a float8 overflow gives inf or NaN as the type has them; an int4/int2 takes the
truncated value's low bits), which is ONNX's `Cast` with `saturate=0`. What ONNX adds
is decomposed here, once, for `Cast`, `CastLike` and `QuantizeLinear` alike:
`saturate=1` clips to the type's finite range first (`onnx.numpy_helper.saturate_cast`),
and float8e8m0 (a bare power-of-two exponent) is computed from the float32 bits with
ONNX's `round_mode`, since no framework rounds to it the way ONNX does.
"""

from __future__ import annotations

from typing import Any

from ivy_ir.dialect.types import FLOATS, storage_range

from .common import Unmapped
from .onnx_ctx import Ctx

FLOAT8 = frozenset({"float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz"})
"""The float8 dtypes `saturate` applies to (float8e8m0 has its own rule)."""
E8M0 = "float8_e8m0fnu"


def cast(c: Ctx, x: Any, dtype: str, saturate: int = 1, round_mode: str = "up") -> Any:
    """`x` in `dtype` as ONNX's `Cast` (opset 19+ attributes; the older opsets' casts
    saturate, which is the default)."""
    if dtype == E8M0:
        return _to_e8m0(c, x, bool(saturate), round_mode)
    if dtype in FLOAT8 and saturate:
        x = clipped(c, x, dtype)
    return c.cast(x, dtype)


def clipped(c: Ctx, x: Any, dtype: str) -> Any:
    """`x` clipped to the finite range of storage dtype `dtype` (NaN stays NaN, inf
    becomes the largest finite value). Non-float values are clipped in float32, which
    holds every value inside the range exactly; floats in their own dtype, so nothing
    is rounded twice."""
    if c.spec(x).dtype not in FLOATS:
        x = c.cast(x, "float32")
    low, high = storage_range(dtype)
    return c.emit("clip", x, min=low, max=high)


def _to_e8m0(c: Ctx, x: Any, saturate: bool, round_mode: str) -> Any:
    """`onnx.numpy_helper.to_float8e8m0`: the float32 exponent field (the sign is
    dropped, zero gives 2**-127), raised by one when `round_mode` rounds the fraction
    up (not past the largest exponent under `saturate`); inf and NaN give NaN."""
    bits = c.emit("bitcast", c.cast(x, "float32"), dtype="int32")

    def const(v: int) -> Any:
        return c.const(v, "int32")

    def masked(mask: int) -> Any:
        return c.emit("not_equal", c.emit("bitwise_and", bits, const(mask)), const(0))

    exponent = c.emit("bitwise_and", c.emit("bitwise_right_shift", bits, const(23)),
                      const(255))
    special = c.emit("equal", exponent, const(255))
    if round_mode == "up":
        up = masked(0x7FFFFF)
    elif round_mode == "nearest":  # guard and (round or sticky or a normal number)
        rest = c.emit("logical_or", masked(0x200000), masked(0x1FFFFF))
        up = c.emit("logical_and", masked(0x400000),
                    c.emit("logical_or", rest, c.emit("greater", exponent, const(0))))
    elif round_mode == "down":
        up = c.const(False, "bool")
    else:
        raise Unmapped(f"round_mode '{round_mode}'")
    up = c.emit("logical_and", up, c.emit("logical_not", special))
    if saturate:
        up = c.emit("logical_and", up, c.emit("not_equal", exponent, const(254)))
    exponent = c.emit("add", exponent, c.cast(up, "int32"))
    # 2**(exponent - 127) as float64 bits (normal there, where float32 has a subnormal
    # for exponent 0); exponent 255 (after inf, NaN, or rounding past the top) is NaN
    wide = c.emit("bitwise_left_shift", c.cast(c.emit("add", exponent, const(896)), "int64"),
                  c.const(52, "int64"))
    nan = c.emit("logical_or", special, c.emit("equal", exponent, const(255)))
    wide = c.emit("where", nan, c.const(0x7FF8000000000000, "int64"), wide)
    return c.cast(c.emit("bitcast", wide, dtype="float64"), E8M0)
