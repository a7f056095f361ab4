"""ONNX's quantization operators -> ivy ops.

Quantized tensors are plain tensors of the registry's integer dtypes (uint8, int8,
uint16, int16) or of its storage dtypes (int4, uint4, int2, uint2, float8, float4:
`onnx_lowprec.py`). Each operator is its defining arithmetic, computed in the dtypes
ONNX's definition uses, so the results are exact: `QuantizeLinear` rounds `x / scale`
half to even, adds the zero point in int32 and saturates (into float8 it casts
`x / scale` as `Cast` does, saturating by the `saturate` attribute, and ignores the zero
point, as ONNX's reference does; into float4 it adds the zero point and casts);
`DequantizeLinear` is `(x - zero_point) * scale` in float32 (no zero point for float8
and float4 input); `MatMulInteger` multiplies in int32; `QLinearMatMul` requantizes the
int32 product in float64. Per-axis and blocked scales are broadcast along `axis` first.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import onnx_lowprec as lowprec
from .common import Rule, Unmapped
from .onnx_ctx import Ctx

FLOAT4 = "float4_e2m1fn"
UNCENTRED = lowprec.FLOAT8 | {FLOAT4}
"""Quantized float dtypes: scaled, never shifted back (ONNX's dequantization ignores
their zero point)."""
RANGES: dict[str, tuple[int, int]] = {
    "uint8": (0, 255), "int8": (-128, 127), "uint16": (0, 65535), "int16": (-32768, 32767),
    "uint4": (0, 15), "int4": (-8, 7), "uint2": (0, 3), "int2": (-2, 1),
}
"""Quantized integer dtype -> the range results saturate to."""


def _along(c: Ctx, value: Any, x: Any, axis: int, block_size: int) -> Any:
    """A scale or zero point broadcastable to `x`: a scalar as is, a vector along
    `axis`, blocks repeated `block_size` times along it (the last one cut to fit)."""
    spec, shape = c.spec(value), c.spec(x).shape
    if spec.rank == 0:
        return value
    if np.prod(spec.shape) == 1:
        return c.emit("reshape", value, shape=[])
    axis = axis % len(shape)
    if not block_size:
        dims = [1] * len(shape)
        dims[axis] = spec.shape[0]
        return c.emit("reshape", value, shape=dims)
    value = c.emit("repeat", value, repeats=block_size, axis=axis)
    full = c.spec(value).shape
    if full[axis] != shape[axis]:
        stop = list(full)
        stop[axis] = shape[axis]
        value = c.emit("slice", value, start=[0] * len(full), stop=stop, step=[1] * len(full))
    return value


def _saturated(c: Ctx, value: Any, dtype: str) -> Any:
    """An int32 value clipped to `dtype`'s range and cast to it."""
    if dtype not in RANGES:
        raise Unmapped(f"quantized dtype {dtype}")
    low, high = RANGES[dtype]
    value = c.emit("maximum", value, c.const(low, "int32"))
    return c.cast(c.emit("minimum", value, c.const(high, "int32")), dtype)


def _dequantize(c: Ctx, x: Any, scale: Any, zero_point: Any = None, axis: int = 1,
                block_size: int = 0, output_dtype: int = 0) -> Any:
    out = c.dtype(output_dtype) if output_dtype else c.spec(scale).dtype
    shifted = c.cast(x, "float32")
    if zero_point is not None and c.spec(x).dtype not in UNCENTRED:
        zero = _along(c, c.cast(zero_point, "float32"), x, axis, block_size)
        shifted = c.emit("subtract", shifted, zero)
    factor = c.cast(_along(c, scale, x, axis, block_size), "float32")
    return c.cast(c.emit("multiply", shifted, factor), out)


def _quantize(c: Ctx, x: Any, scale: Any, zero_point: Any = None, axis: int = 1,
              saturate: int = 1, block_size: int = 0, output_dtype: int = 0,
              precision: int = 0) -> Any:
    if zero_point is not None:
        target = c.spec(zero_point).dtype
    else:
        target = c.dtype(output_dtype) if output_dtype else "uint8"
    if target not in RANGES and target not in UNCENTRED:
        raise Unmapped(f"quantized dtype {target}")
    factor = _along(c, scale, x, axis, block_size)
    if precision:
        wide = c.dtype(precision)
    else:
        wide = str(np.result_type(np.dtype(c.spec(x).dtype), np.dtype(c.spec(factor).dtype)))
    steps = c.emit("divide", c.cast(x, wide), c.cast(factor, wide))
    if target in lowprec.FLOAT8:
        return lowprec.cast(c, steps, target, saturate)
    if target == FLOAT4:
        if zero_point is not None:
            zero = _along(c, c.cast(zero_point, wide), x, axis, block_size)
            steps = c.emit("add", steps, zero)
        return c.cast(steps, target)
    out = c.cast(c.emit("round", steps), "int32")
    if zero_point is not None:
        out = c.emit("add", out, _along(c, c.cast(zero_point, "int32"), x, axis, block_size))
    return _saturated(c, out, target)


def _dynamic_quantize(c: Ctx, x: Any) -> list[Any]:
    """uint8 with scale (max(0, max x) - min(0, min x)) / 255 (1 / 255 for all-zero x)
    and the zero point that maps 0 exactly, as ONNX defines them."""
    dtype = c.spec(x).dtype
    zero = c.const(0, "float32")
    x32 = c.cast(x, "float32")
    high = c.emit("maximum", c.emit("max", x32), zero)
    low = c.emit("minimum", c.emit("min", x32), zero)
    span = c.emit("subtract", high, low)
    span = c.emit("where", c.emit("equal", high, low), c.const(1, "float32"), span)
    scale = c.emit("divide", span, c.const(255, "float32"))
    start = c.emit("subtract", zero, c.emit("divide", low, scale))
    point = c.emit("round", c.emit("minimum", c.emit("maximum", start, zero),
                                   c.const(255, "float32")))
    steps = c.emit("add", c.emit("round", c.emit("divide", x32, scale)), point)
    clipped = c.emit("minimum", c.emit("maximum", steps, zero), c.const(255, "float32"))
    return [c.cast(clipped, "uint8"), c.cast(scale, dtype), c.cast(point, "uint8")]


def _centered(c: Ctx, x: Any, zero_point: Any) -> Any:
    """`x - zero_point` in int32 (NumPy broadcasting, as ONNX's definition has it)."""
    x = c.cast(x, "int32")
    return x if zero_point is None else c.emit("subtract", x, c.cast(zero_point, "int32"))


def _matmul_integer(c: Ctx, a: Any, b: Any, a_zero_point: Any = None,
                    b_zero_point: Any = None) -> Any:
    return c.emit("matmul", _centered(c, a, a_zero_point), _centered(c, b, b_zero_point))


def _qlinear_matmul(c: Ctx, a: Any, a_scale: Any, a_zero_point: Any, b: Any, b_scale: Any,
                    b_zero_point: Any, y_scale: Any, y_zero_point: Any = None) -> Any:
    """The int32 product times a_scale * b_scale / y_scale (in the scales' dtype), plus
    the output zero point, in float64; rounded half to even and saturated."""
    product = c.emit("matmul", _centered(c, a, a_zero_point), _centered(c, b, b_zero_point))
    factor = c.emit("divide", c.emit("multiply", a_scale, b_scale), y_scale)
    out = c.emit("multiply", c.cast(product, "float64"), c.cast(factor, "float64"))
    target = c.spec(a).dtype
    if y_zero_point is not None:
        out = c.emit("add", out, c.cast(y_zero_point, "float64"))
        target = c.spec(y_zero_point).dtype
    return _saturated(c, c.cast(c.emit("round", out), "int32"), target)


TABLE: dict[str, Rule] = {
    "DequantizeLinear": _dequantize, "QuantizeLinear": _quantize,
    "DynamicQuantizeLinear": _dynamic_quantize, "MatMulInteger": _matmul_integer,
    "QLinearMatMul": _qlinear_matmul,
}
"""ONNX op_type -> rule for the integer quantization operators."""
