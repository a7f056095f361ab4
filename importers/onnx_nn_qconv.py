"""ONNX's integer convolutions (ConvInteger, QLinearConv) through the float Conv rule.

The registry convolves floats only, so the zero-point-centred integer operands are
convolved in float64, which holds every int8/uint8 product sum exactly (below 2^53),
and cast back to int32: the same integers ONNX's int32 convolution gives. Padding
cells are zero after centring, as in ONNX. QLinearConv then requantizes: the int32
result (plus the int32 bias) times x_scale * w_scale / y_scale (per output channel when
w_scale is a vector) in float64, plus the output zero point, rounded half to even and
saturated to the output type.
"""

from __future__ import annotations

from typing import Any

from . import onnx_nn_conv
from .common import Rule, Unmapped

RANGES = {"uint8": (0.0, 255.0), "int8": (-128.0, 127.0)}
"""Quantized dtype -> its saturation bounds."""


def _centered(ctx: Any, v: Any, zero_point: Any, per_channel_axis: int | None) -> Any:
    """`v - zero_point` in float64; a vector zero point of a weight is per output channel."""
    v = ctx.cast(ctx.cast(v, "int32"), "float64")
    if zero_point is None:
        return v
    zero = ctx.cast(ctx.cast(zero_point, "int32"), "float64")
    if per_channel_axis is not None and ctx.rank(zero) == 1 and ctx.spec(zero).shape[0] != 1:
        zero = ctx.emit("reshape", zero, shape=[-1] + [1] * (ctx.rank(v) - 1))
    return ctx.emit("subtract", v, zero)


def _integer_conv(ctx: Any, x: Any, w: Any, x_zero_point: Any, w_zero_point: Any,
                  bias: Any, attrs: dict[str, Any]) -> Any:
    """The int32 convolution of the centred operands (plus an int32 bias), in float64."""
    conv = onnx_nn_conv.TABLE["Conv"]
    return conv(ctx, _centered(ctx, x, x_zero_point, None), _centered(ctx, w, w_zero_point, 0),
                None if bias is None else ctx.cast(ctx.cast(bias, "int32"), "float64"),
                **{k: v for k, v in attrs.items() if v is not None})


def _conv_integer(ctx: Any, x: Any, w: Any, x_zero_point: Any = None, w_zero_point: Any = None,
                  *, auto_pad: str = "NOTSET", dilations: list[int] | None = None,
                  group: int = 1, kernel_shape: list[int] | None = None,
                  pads: list[int] | None = None, strides: list[int] | None = None) -> Any:
    attrs = {"auto_pad": auto_pad, "dilations": dilations, "group": group,
             "kernel_shape": kernel_shape, "pads": pads, "strides": strides}
    return ctx.cast(_integer_conv(ctx, x, w, x_zero_point, w_zero_point, None, attrs), "int32")


def _qlinear_conv(ctx: Any, x: Any, x_scale: Any, x_zero_point: Any, w: Any, w_scale: Any,
                  w_zero_point: Any, y_scale: Any, y_zero_point: Any = None, b: Any = None, *,
                  auto_pad: str = "NOTSET", dilations: list[int] | None = None,
                  group: int = 1, kernel_shape: list[int] | None = None,
                  pads: list[int] | None = None, strides: list[int] | None = None) -> Any:
    attrs = {"auto_pad": auto_pad, "dilations": dilations, "group": group,
             "kernel_shape": kernel_shape, "pads": pads, "strides": strides}
    total = _integer_conv(ctx, x, w, x_zero_point, w_zero_point, b, attrs)
    factor = ctx.emit("divide", ctx.emit("multiply", x_scale, w_scale), y_scale)
    if ctx.rank(factor) == 1 and ctx.spec(factor).shape[0] != 1:
        factor = ctx.emit("reshape", factor, shape=[-1] + [1] * (ctx.rank(total) - 2))
    out = ctx.emit("multiply", total, ctx.cast(factor, "float64"))
    target = ctx.spec(x).dtype
    if y_zero_point is not None:
        out = ctx.emit("add", out, ctx.cast(y_zero_point, "float64"))
        target = ctx.spec(y_zero_point).dtype
    if target not in RANGES:
        raise Unmapped(f"quantized dtype {target}")
    low, high = RANGES[target]
    return ctx.cast(ctx.emit("round", ctx.emit("clip", out, min=low, max=high)), target)


TABLE: dict[str, Rule] = {"ConvInteger": _conv_integer, "QLinearConv": _qlinear_conv}
"""ONNX op_type -> rule of the integer convolutions."""
