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
from collections.abc import Sequence
from typing import Any

from .common import Rule, Unmapped
from .tensorflow_ctx import Ctx


def _layout(c: Ctx, data: Any, data_format: str) -> tuple[str, list[int]]:
    """The registry layout and the positions of the spatial axes of `data` in the data
    format."""
    rank = c.rank(data)
    if (data_format or "NHWC").endswith("C"):
        return "channels_last", list(range(1, rank - 1))
    return "channels_first", list(range(2, rank))


def _spatial(values: list[int], axes: list[int]) -> list[int]:
    return [int(values[a]) for a in axes]


def _sizes(c: Ctx, x: Any, axes: list[int]) -> list[int | None]:
    """The spatial sizes of `x` (None: dynamic)."""
    shape = c.spec(x).shape
    return [shape[a] for a in axes]


def tf_pads(padding: str, explicit: Sequence[int], sizes: list[int | None], kernel: list[int],
            strides: list[int], dilations: list[int], axes: list[int]) -> list[int]:
    """Flat (lo, hi) pads per spatial axis for TF's `padding` attribute (`explicit`: the
    `explicit_paddings` attribute)."""
    if padding == "VALID":
        return [0] * (2 * len(sizes))
    if padding == "EXPLICIT":
        return [int(explicit[2 * a + j]) for a in axes for j in (0, 1)]
    pads = []
    for d, k, s, dl in zip(sizes, kernel, strides, dilations):
        if d is None and s != 1:
            raise Unmapped("SAME padding of a dynamic spatial size with stride > 1")
        # at stride 1 the total pad is (k - 1) * dl for every size, a dynamic one too
        total = (k - 1) * dl if d is None else \
            max((math.ceil(d / s) - 1) * s + (k - 1) * dl + 1 - d, 0)
        pads += [total // 2, total - total // 2]
    return pads


def _bias_add(c: Ctx, x: Any, bias: Any, *, data_format: str = "NHWC", **_: Any) -> Any:
    x, bias = c.operand(x), c.operand(bias)
    layout, _ = _layout(c, x, data_format)
    if layout == "channels_first" and c.rank(x) > 2:
        bias = c.emit("reshape", bias, shape=[-1] + [1] * (c.rank(x) - 2))
    return c.emit("add", x, bias)


def _conv(depthwise: bool) -> Rule:
    """Conv2D/Conv3D (groups = in channels / filter in channels) and
    DepthwiseConv2dNative (filter HW x in x multiplier -> a grouped conv)."""
    def rule(c: Ctx, x: Any, w: Any, *, strides: list[int], padding: str,
             explicit_paddings: Sequence[int] = (), data_format: str = "NHWC",
             dilations: list[int] | None = None, **_: Any) -> Any:
        layout, axes = _layout(c, x, data_format)
        n = len(axes)
        steps = _spatial(strides, axes)
        dilation = _spatial(dilations or [1] * (n + 2), axes)
        pads = tf_pads(padding, explicit_paddings, _sizes(c, x, axes),
                       list(c.spec(w).shape[:n]), steps, dilation, axes)
        return emit_conv(c, x, w, depthwise, layout, steps, pads, dilation)
    return rule


def emit_conv(c: Ctx, x: Any, w: Any, depthwise: bool, layout: str, steps: list[int],
              pads: list[int], dilation: list[int]) -> Any:
    """`ivy.conv` of `x` with a TF filter `w` (HWIO, or HW x in x multiplier), with
    explicit (lo, hi) pads per spatial axis."""
    n = len(steps)
    x_shape, w_shape = c.spec(x).shape, list(c.spec(w).shape)
    channels = x_shape[-1] if layout == "channels_last" else x_shape[1]
    w = c.operand(w)
    if depthwise:
        groups = channels
        w_shape = w_shape[:n] + [1, w_shape[n] * w_shape[n + 1]]
        w = c.emit("reshape", w, shape=w_shape)
    else:
        groups = channels // w_shape[n]
    if layout == "channels_first":  # the registry wants OI(D)HW filters then
        w = c.emit("permute_dims", w, axes=[n + 1, n, *range(n)])
    return c.emit("conv", x, w, None, strides=steps, padding=pads, dilations=dilation,
                  groups=groups, layout=layout)


def _conv_transpose(c: Ctx, output_size: Any, w: Any, x: Any, *, strides: list[int],
                    padding: str, explicit_paddings: Sequence[int] = (),
                    data_format: str = "NHWC", dilations: list[int] | None = None,
                    **_: Any) -> Any:
    """Conv2DBackpropInput/Conv3DBackpropInputV2 (tf.nn.conv2d_transpose): the transposed
    conv whose forward conv maps the requested output size to the input's."""
    layout, axes = _layout(c, x, data_format)
    n = len(axes)
    out_sizes = _spatial(c.ints(output_size, "output size"), axes)
    in_sizes = _spatial(list(c.spec(x).shape), axes)
    kernel = list(c.spec(w).shape[:n])
    steps = _spatial(strides, axes)
    dilation = _spatial(dilations or [1] * (n + 2), axes)
    pads = tf_pads(padding, explicit_paddings, out_sizes, kernel, steps, dilation, axes)
    extra = [o - ((i - 1) * s - lo - hi + (k - 1) * dl + 1) for o, i, s, lo, hi, k, dl in
             zip(out_sizes, in_sizes, steps, pads[::2], pads[1::2], kernel, dilation)]
    if any(not 0 <= e < max(s, dl) for e, s, dl in zip(extra, steps, dilation)):
        raise Unmapped(f"output size {out_sizes} does not fit the input {in_sizes}")
    w = c.operand(w)
    if layout == "channels_first":
        w = c.emit("permute_dims", w, axes=[n + 1, n, *range(n)])
    return c.emit("conv_transpose", x, w, None, strides=steps, padding=pads,
                  output_padding=extra, dilations=dilation, layout=layout)


def _pool(op: str, c: Ctx, x: Any, ksize: list[int], strides: list[int], padding: str,
          explicit: Sequence[int], data_format: str) -> Any:
    """MaxPool/AvgPool (2-D, 3-D, V2 with window operands). Max pools pad with -inf; TF's
    average pools divide by the number of cells inside the input."""
    layout, axes = _layout(c, x, data_format)
    kernel, steps = _spatial(ksize, axes), _spatial(strides, axes)
    sizes = _sizes(c, x, axes)
    pads = tf_pads(padding, explicit, sizes, kernel, steps, [1] * len(axes), axes)
    extra = {"count_include_pad": False} if op == "avg_pool" else {}
    return c.emit(op, x, kernel=kernel, strides=steps, padding=pads, layout=layout, **extra)


def _window_pool(op: str) -> Rule:
    def rule(c: Ctx, x: Any, *, ksize: list[int], strides: list[int], padding: str,
             explicit_paddings: Sequence[int] = (), data_format: str = "NHWC", **_: Any) -> Any:
        return _pool(op, c, x, ksize, strides, padding, explicit_paddings, data_format)
    return rule


def _max_pool_v2(c: Ctx, x: Any, ksize: Any, strides: Any, *, padding: str,
                 data_format: str = "NHWC", **_: Any) -> Any:
    # the window and strides are operands, known at import time
    return _pool("max_pool", c, x, c.ints(ksize, "ksize"), c.ints(strides, "strides"), padding,
                 [], data_format)


def _fused_batch_norm(c: Ctx, x: Any, *stats: Any, epsilon: float, is_training: bool = False,
                      data_format: str = "NHWC", **_: Any) -> list[Any]:
    """FusedBatchNorm(V2/V3) in inference mode; only `y` has a value (the batch
    statistics outputs are those of training)."""
    if is_training:
        raise Unmapped("training mode")
    layout, _ = _layout(c, x, data_format)
    dtype = c.spec(x).dtype
    x = c.operand(x)
    scale, offset, mean, var = (c.cast(v, dtype) for v in stats)
    y = c.emit("batch_norm", x, mean, var, scale, offset,
               axis=-1 if layout == "channels_last" else 1, eps=float(epsilon))
    return [y]


NN: dict[str, Rule] = {
    "BiasAdd": _bias_add, "BiasAddV1": _bias_add,
    "Conv2D": _conv(False), "Conv3D": _conv(False), "DepthwiseConv2dNative": _conv(True),
    "Conv2DBackpropInput": _conv_transpose, "Conv3DBackpropInputV2": _conv_transpose,
    "MaxPool": _window_pool("max_pool"), "MaxPoolV2": _max_pool_v2,
    "MaxPool3D": _window_pool("max_pool"), "AvgPool": _window_pool("avg_pool"),
    "AvgPool3D": _window_pool("avg_pool"),
    "FusedBatchNorm": _fused_batch_norm, "FusedBatchNormV2": _fused_batch_norm,
    "FusedBatchNormV3": _fused_batch_norm,
}
"""TF raw op -> rule: layers (bias add, convolutions, pooling, inference batch norm)."""
