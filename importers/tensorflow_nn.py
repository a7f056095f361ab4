"""TF neural-network ops -> ivy ops: convolutions, pooling, bias add, fused batch norm.

TF states padding as "VALID", "SAME" or "EXPLICIT"; the registry takes explicit
(lo, hi) pads per spatial axis, computed here statically the way TF does ("SAME": the
output is ceil(in / stride) long and the odd pad goes at the end). Strides, dilations
and window sizes are listed in the data format's order, batch and channel included.
TF filters are HWIO (depthwise: HW, in, multiplier), which is the registry's
channels-last weight layout.
"""

from __future__ import annotations

import math
from typing import Any

from importers.tensorflow_walk import Handler, OpCtx, Unmapped


def _layout(c: OpCtx, data: int = 0) -> tuple[str, list[int]]:
    """The registry layout and the positions of the spatial axes in the data format
    (of operand `data`)."""
    fmt = c.attr("data_format") or "NHWC"
    rank = c.rank(data)
    if fmt.endswith("C"):
        return "channels_last", list(range(1, rank - 1))
    return "channels_first", list(range(2, rank))


def _spatial(values: list[int], axes: list[int]) -> list[int]:
    return [int(values[a]) for a in axes]


def tf_pads(c: OpCtx, sizes: list[int], kernel: list[int], strides: list[int],
            dilations: list[int], axes: list[int]) -> list[int]:
    """Flat (lo, hi) pads per spatial axis for TF's padding attribute."""
    padding = c.attr("padding")
    if padding == "VALID":
        return [0] * (2 * len(sizes))
    if padding == "EXPLICIT":
        explicit = c.attr("explicit_paddings")
        return [int(explicit[2 * a + j]) for a in axes for j in (0, 1)]
    pads = []
    for d, k, s, dl in zip(sizes, kernel, strides, dilations):
        total = max((math.ceil(d / s) - 1) * s + (k - 1) * dl + 1 - d, 0)
        pads += [total // 2, total - total // 2]
    return pads


def _bias_add(c: OpCtx) -> Any:
    x, bias = c.x(0), c.x(1)
    layout, _ = _layout(c)
    if layout == "channels_first" and c.rank(0) > 2:
        bias = c.emit("reshape", [bias], shape=[-1] + [1] * (c.rank(0) - 2))
    return c.emit("add", [x, bias])


def _conv(depthwise: bool) -> Handler:
    """Conv2D/Conv3D (groups = in channels / filter in channels) and
    DepthwiseConv2dNative (filter HW x in x multiplier -> a grouped conv)."""
    def handler(c: OpCtx) -> Any:
        layout, axes = _layout(c)
        n = len(axes)
        x_shape, w_shape = c.ins[0].shape, list(c.ins[1].shape)
        channels = x_shape[-1] if layout == "channels_last" else x_shape[1]
        w = c.x(1)
        if depthwise:
            groups = channels
            w_shape = w_shape[:n] + [1, w_shape[n] * w_shape[n + 1]]
            w = c.emit("reshape", [w], shape=w_shape)
        else:
            groups = channels // w_shape[n]
        if layout == "channels_first":  # the registry wants OI(D)HW filters then
            w = c.emit("permute_dims", [w], axes=[n + 1, n, *range(n)])
        strides = _spatial(c.attr("strides"), axes)
        dilations = _spatial(c.attr("dilations") or [1] * (n + 2), axes)
        pads = tf_pads(c, _spatial(list(x_shape), axes), w_shape[:n], strides, dilations, axes)
        return c.emit("conv", [c.x(0), w, None], strides=strides, padding=pads, dilations=dilations,
                      groups=groups, layout=layout)
    return handler


def _conv_transpose(c: OpCtx) -> Any:
    """Conv2DBackpropInput/Conv3DBackpropInputV2 (tf.nn.conv2d_transpose): the transposed
    conv whose forward conv maps the requested output size to the input's."""
    layout, axes = _layout(c, data=2)
    n = len(axes)
    out_sizes = _spatial(c.ints(0, "output size"), axes)
    in_sizes = _spatial(list(c.ins[2].shape), axes)
    kernel = list(c.ins[1].shape[:n])
    strides = _spatial(c.attr("strides"), axes)
    dilations = _spatial(c.attr("dilations") or [1] * (n + 2), axes)
    pads = tf_pads(c, out_sizes, kernel, strides, dilations, axes)
    extra = [o - ((i - 1) * s - lo - hi + (k - 1) * dl + 1) for o, i, s, lo, hi, k, dl in
             zip(out_sizes, in_sizes, strides, pads[::2], pads[1::2], kernel, dilations)]
    if any(not 0 <= e < max(s, dl) for e, s, dl in zip(extra, strides, dilations)):
        raise Unmapped(f"output size {out_sizes} does not fit the input {in_sizes}")
    w = c.x(1)
    if layout == "channels_first":
        w = c.emit("permute_dims", [w], axes=[n + 1, n, *range(n)])
    return c.emit("conv_transpose", [c.x(2), w, None], strides=strides, padding=pads,
                  output_padding=extra, dilations=dilations, layout=layout)


def _pool(op: str) -> Handler:
    """MaxPool/AvgPool (2-D, 3-D, V2 with window operands). Max pools pad with -inf; TF's
    average pools divide by the number of cells inside the input."""
    def handler(c: OpCtx) -> Any:
        layout, axes = _layout(c)
        if c.op.type == "MaxPoolV2":
            ksize, strides = c.ints(1, "ksize"), c.ints(2, "strides")
        else:
            ksize, strides = c.attr("ksize"), c.attr("strides")
        kernel, steps = _spatial(ksize, axes), _spatial(strides, axes)
        sizes = _spatial(list(c.ins[0].shape), axes)
        pads = tf_pads(c, sizes, kernel, steps, [1] * len(axes), axes)
        extra = {"count_include_pad": False} if op == "avg_pool" else {}
        return c.emit(op, [c.x(0)], kernel=kernel, strides=steps, padding=pads, layout=layout,
                      **extra)
    return handler


def _fused_batch_norm(c: OpCtx) -> list[Any]:
    """FusedBatchNorm(V2/V3) in inference mode; only `y` has a value (the batch
    statistics outputs are those of training)."""
    if c.attr("is_training"):
        raise Unmapped("training mode")
    layout, _ = _layout(c)
    x = c.x(0)
    dtype = c.ins[0].dtype
    scale, offset, mean, var = (c.cast(c.x(i), dtype) for i in range(1, 5))
    y = c.emit("batch_norm", [x, mean, var, scale, offset],
               axis=-1 if layout == "channels_last" else 1, eps=float(c.attr("epsilon")))
    return [y]


NN_OPS: dict[str, Handler] = {
    "BiasAdd": _bias_add, "BiasAddV1": _bias_add,
    "Conv2D": _conv(False), "Conv3D": _conv(False), "DepthwiseConv2dNative": _conv(True),
    "Conv2DBackpropInput": _conv_transpose, "Conv3DBackpropInputV2": _conv_transpose,
    "MaxPool": _pool("max_pool"), "MaxPoolV2": _pool("max_pool"),
    "MaxPool3D": _pool("max_pool"), "AvgPool": _pool("avg_pool"),
    "AvgPool3D": _pool("avg_pool"),
    "FusedBatchNorm": _fused_batch_norm, "FusedBatchNormV2": _fused_batch_norm,
    "FusedBatchNormV3": _fused_batch_norm,
}
