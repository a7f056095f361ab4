"""Convolution and pooling layers: Conv1D/2D/3D, Conv2DTranspose, DepthwiseConv2D,
MaxPool2D, AvgPool2D.

Input is channels-last by default ((batch, *spatial, channels), as Keras, Flax and the
Ivy papers have it); `data_format='channels_first'` takes torch's (batch, channels,
*spatial). The kernel layout follows the data format, because `ivy.conv` ties the two:
channels-last kernels are (*filter_shape, in_channels / groups, out_channels) like
Keras's and Flax's, channels-first ones (out_channels, in_channels / groups,
*filter_shape) like torch's, so weights copy from either framework unchanged.

Padding is 'SAME' (output size ceil(input / stride), the total padding split with the
odd element after, as TensorFlow, Flax and torch's 'same' do), 'VALID' (none), an int
for every side, one int per spatial dimension, or one (before, after) pair per
dimension. 'SAME' depends on the input size, so it is resolved at each call.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy

import ivy

from .initializers import GlorotUniform, Initializer, Seed, Zeros
from .layers_norm import channel_axis
from .module import Module

Array = Any
Padding = str | int | Sequence[int] | Sequence[Sequence[int]]


def _tuple(value: int | Sequence[int], n: int, what: str) -> tuple[int, ...]:
    values = (value,) * n if isinstance(value, int) else tuple(int(v) for v in value)
    if len(values) != n:
        raise ValueError(f"{what} needs 1 or {n} values, got {value!r}")
    return values


def _same(size: int, kernel: int, stride: int, dilation: int) -> tuple[int, int]:
    span = dilation * (kernel - 1) + 1
    total = max((-(-size // stride) - 1) * stride + span - size, 0)
    return total // 2, total - total // 2


def explicit_padding(padding: Padding, sizes: Sequence[int], kernel: Sequence[int],
                     strides: Sequence[int], dilations: Sequence[int]) -> list[int]:
    """`padding` as the flat [before_0, after_0, before_1, ...] list `ivy.conv` and the
    pools take, for input spatial `sizes`."""
    n = len(sizes)
    if isinstance(padding, str):
        if padding.upper() == "VALID":
            return [0] * (2 * n)
        if padding.upper() != "SAME":
            raise ValueError(f"padding must be 'SAME', 'VALID' or ints, not {padding!r}")
        pairs = [_same(*args) for args in zip(sizes, kernel, strides, dilations)]
    elif isinstance(padding, int):
        pairs = [(padding, padding)] * n
    elif len(padding) == n and all(isinstance(p, int) for p in padding):
        pairs = [(int(p), int(p)) for p in padding]
    elif len(padding) == n and all(len(p) == 2 for p in padding):
        pairs = [(int(lo), int(hi)) for lo, hi in padding]
    else:
        raise ValueError(f"padding {padding!r}: give 'SAME', 'VALID', an int, {n} ints or "
                         f"{n} (before, after) pairs")
    return [p for pair in pairs for p in pair]


class _Windowed(Module):
    """What the convolutions and pools share: the data format and the input's
    spatial sizes."""

    rank = 2

    def _spatial_sizes(self, x: Array) -> list[int]:
        shape = [int(d) for d in x.shape]
        if len(shape) != self.rank + 2:
            raise ValueError(f"{type(self).__name__} takes (batch, *{self.rank} spatial "
                             f"dims, channels) input (or channels first), got shape "
                             f"{tuple(shape)}")
        return shape[1:-1] if self.channels_last else shape[2:]

    def _set_window(self, filter_shape: int | Sequence[int], strides: int | Sequence[int],
                    padding: Padding, dilations: int | Sequence[int],
                    data_format: str) -> None:
        self.filter_shape = _tuple(filter_shape, self.rank, "filter_shape")
        self.strides = _tuple(strides, self.rank, "strides")
        self.dilations = _tuple(dilations, self.rank, "dilations")
        self.padding = padding
        self.channels_last = channel_axis(data_format) == -1
        self.layout = "channels_last" if self.channels_last else "channels_first"

    def _padding_for(self, x: Array) -> list[int]:
        return explicit_padding(self.padding, self._spatial_sizes(x), self.filter_shape,
                                self.strides, self.dilations)


class _Conv(_Windowed):
    """Convolution of `rank` spatial dimensions; variables `w` (layout in the module
    docstring) and `b` (output_channels,). Glorot-uniform kernel, zero bias."""

    transposed = False

    def __init__(self, input_channels: int, output_channels: int,
                 filter_shape: int | Sequence[int], strides: int | Sequence[int] = 1,
                 padding: Padding = "VALID", dilations: int | Sequence[int] = 1,
                 groups: int = 1, *, data_format: str = "channels_last",
                 weight_initializer: Initializer | None = None,
                 bias_initializer: Initializer | None = None, with_bias: bool = True,
                 dtype: Any = None, device: Any = None, seed: Seed = None):
        if input_channels % groups or output_channels % groups:
            raise ValueError(f"groups {groups} must divide input_channels "
                             f"{input_channels} and output_channels {output_channels}")
        self.input_channels, self.output_channels = int(input_channels), int(output_channels)
        self.groups = int(groups)
        self._set_window(filter_shape, strides, padding, dilations, data_format)
        self.weight_initializer = weight_initializer or GlorotUniform()
        self.bias_initializer = bias_initializer or Zeros()
        self.with_bias = with_bias
        self._seed = seed
        Module.__init__(self, dtype=dtype, device=device)

    def _kernel_shape(self) -> tuple[int, ...]:
        """(*filter, a, b) channels-last, (b, a, *filter) channels-first: a counts the
        grouped side's channels per group (the input's for a convolution, the output's
        for a transposed one), b the other side's in full."""
        if self.transposed:
            a, b = self.output_channels // self.groups, self.input_channels
        else:
            a, b = self.input_channels // self.groups, self.output_channels
        return (*self.filter_shape, a, b) if self.channels_last else \
            (b, a, *self.filter_shape)

    def _create_variables(self, *, dtype: Any = None, device: Any = None) -> dict[str, Any]:
        rng = numpy.random.default_rng(self._seed)
        taps = math.prod(self.filter_shape)
        ins, outs = (self.output_channels, self.input_channels) if self.transposed else \
            (self.input_channels, self.output_channels)
        fans = (ins // self.groups * taps, outs * taps)
        own = {"w": self.weight_initializer(self._kernel_shape(), *fans, dtype=dtype,
                                            device=device, seed=rng)}
        if self.with_bias:
            own["b"] = self.bias_initializer((self.output_channels,), *fans, dtype=dtype,
                                             device=device, seed=rng)
        return own

    def _forward(self, x: Array) -> Array:
        return ivy.conv(x, self.v.w, self.v.get("b"), strides=list(self.strides),
                        padding=self._padding_for(x), dilations=list(self.dilations),
                        groups=self.groups, layout=self.layout)


class Conv1D(_Conv):
    rank = 1


class Conv2D(_Conv):
    rank = 2


class Conv3D(_Conv):
    rank = 3


class DepthwiseConv2D(Conv2D):
    """Each input channel convolved with its own `depth_multiplier` filters: a Conv2D
    with groups = num_channels. Its kernel is that grouped convolution's, (kh, kw, 1,
    num_channels * depth_multiplier) channels-last; Keras's (kh, kw, num_channels,
    depth_multiplier) `depthwise_kernel` reshapes to it, output channel c * multiplier
    + m coming from input channel c in both."""

    def __init__(self, num_channels: int, filter_shape: int | Sequence[int],
                 depth_multiplier: int = 1, strides: int | Sequence[int] = 1,
                 padding: Padding = "VALID", dilations: int | Sequence[int] = 1,
                 **options: Any):
        super().__init__(num_channels, num_channels * depth_multiplier, filter_shape,
                         strides, padding, dilations, groups=num_channels, **options)


class Conv2DTranspose(_Conv):
    """The gradient of a Conv2D with respect to its input: upsamples by `strides`.

    Kernel (kh, kw, output_channels / groups, input_channels) channels-last, as Keras's
    Conv2DTranspose; (input_channels, output_channels / groups, kh, kw) channels-first,
    as torch's ConvTranspose2d. 'SAME' gives input * stride outputs and 'VALID' input *
    stride + max(kernel - stride, 0), as Keras; explicit ints crop like torch's
    `padding`, with `output_padding` adding to the far side."""

    rank = 2
    transposed = True

    def __init__(self, input_channels: int, output_channels: int,
                 filter_shape: int | Sequence[int], strides: int | Sequence[int] = 1,
                 padding: Padding = "VALID", output_padding: int | Sequence[int] = 0,
                 dilations: int | Sequence[int] = 1, groups: int = 1, **options: Any):
        self.output_padding = _tuple(output_padding, self.rank, "output_padding")
        super().__init__(input_channels, output_channels, filter_shape, strides, padding,
                         dilations, groups, **options)

    def _crop(self, x: Array) -> tuple[list[int], list[int]]:
        """(padding, output_padding) for `ivy.conv_transpose`. A string padding is the
        padding of the forward convolution whose input has the target size."""
        sizes = self._spatial_sizes(x)
        if not isinstance(self.padding, str):
            return explicit_padding(self.padding, sizes, self.filter_shape, self.strides,
                                    self.dilations), list(self.output_padding)
        padding, extra = [], []
        for d, k, s, dil in zip(sizes, self.filter_shape, self.strides, self.dilations):
            span = dil * (k - 1) + 1
            target = d * s + (max(span - s, 0) if self.padding.upper() == "VALID" else 0)
            padding += explicit_padding(self.padding, [target], [k], [s], [dil])
            extra.append(target - ((d - 1) * s + span - padding[-2] - padding[-1]))
        return padding, extra

    def _forward(self, x: Array) -> Array:
        padding, output_padding = self._crop(x)
        return ivy.conv_transpose(x, self.v.w, self.v.get("b"), strides=list(self.strides),
                                  padding=padding, output_padding=output_padding,
                                  dilations=list(self.dilations), groups=self.groups,
                                  layout=self.layout)


class _Pool(_Windowed):
    """A pooling window over `rank` spatial dimensions; no variables. The stride
    defaults to the window size, as in torch and Keras."""

    def __init__(self, kernel_size: int | Sequence[int],
                 strides: int | Sequence[int] | None = None, padding: Padding = "VALID", *,
                 data_format: str = "channels_last"):
        self._set_window(kernel_size, kernel_size if strides is None else strides, padding,
                         1, data_format)
        Module.__init__(self)


class MaxPool2D(_Pool):
    """The window's maximum; padded positions never win (they count as -inf)."""

    def _forward(self, x: Array) -> Array:
        return ivy.max_pool(x, list(self.filter_shape), list(self.strides),
                            self._padding_for(x), layout=self.layout)


class AvgPool2D(_Pool):
    """The window's mean. Padded positions are left out of the count by default, which
    is what 'SAME' means in TensorFlow and Flax; torch's AvgPool2d counts them
    (`count_include_pad=True`)."""

    def __init__(self, kernel_size: int | Sequence[int],
                 strides: int | Sequence[int] | None = None, padding: Padding = "VALID", *,
                 count_include_pad: bool = False, data_format: str = "channels_last"):
        self.count_include_pad = count_include_pad
        super().__init__(kernel_size, strides, padding, data_format=data_format)

    def _forward(self, x: Array) -> Array:
        return ivy.avg_pool(x, list(self.filter_shape), list(self.strides),
                            self._padding_for(x), count_include_pad=self.count_include_pad,
                            layout=self.layout)
