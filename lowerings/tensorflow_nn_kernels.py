"""TensorFlow helpers for convolution, pooling and resampling layers.

Like `tensorflow_kernels.py`, the source of each helper a program uses is copied into
the generated code (only `tf`, `np` and each other). TF's CPU kernels take
channels-last data only, so channels-first inputs are transposed in and out; padding
is explicit (`tf.pad`, then "VALID"), and the static index math (pool divisors,
resampling indices) is NumPy evaluated once at trace time.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf

from ivy_ir.core.resample import adaptive_weights, even_windows, pool_out_dim, resample_taps

__all__ = ["adaptive_avg_pool", "along_axis", "avg_pool", "conv", "conv_transpose",
           "depthwise_conv",
           "interpolate", "max_pool", "pad_spatial", "pool_pads",
           "restore_layout", "shifted_depthwise", "subsample", "to_channels_last",
           "upsample_zeros"]


def to_channels_last(x, layout):
    # (N, C, *S) -> (N, *S, C); channels-last input passes through
    rank = len(x.shape)
    return x if layout == "channels_last" else tf.transpose(x, [0, *range(2, rank), 1])


def restore_layout(y, layout):
    # undo to_channels_last on a result
    rank = len(y.shape)
    return y if layout == "channels_last" else tf.transpose(y, [0, rank - 1, *range(1, rank - 1)])


def pad_spatial(x, pairs, value=0):
    # explicit (lo, hi) padding of the spatial axes of a channels-last tensor
    if not any(lo or hi for lo, hi in pairs):
        return x
    return tf.pad(x, [[0, 0], *[[lo, hi] for lo, hi in pairs], [0, 0]], constant_values=value)


def subsample(y, steps, outs):
    # keep every step-th window start of a dense (stride-1) result, and `outs` of them
    return y[(slice(None), *[slice(0, (o - 1) * s + 1, s) for o, s in zip(outs, steps)],
              slice(None))]


def pool_pads(sizes, kernel, strides, padding, dilations, ceil_mode):
    # output lengths, and (lo, hi) pads that give every output window its full extent
    outs, pairs = [], []
    for i, (d, k, s, dl) in enumerate(zip(sizes, kernel, strides, dilations)):
        lo, hi = padding[2 * i], padding[2 * i + 1]
        o = pool_out_dim(d, k, s, lo, hi, dl, ceil_mode)
        outs.append(o)
        pairs.append((lo, max(hi, (o - 1) * s + dl * (k - 1) + 1 - d - lo)))
    return outs, pairs


def conv(x, w, b, strides, padding, dilations, groups, layout, shifted=False):
    if x.dtype in (tf.float16, tf.bfloat16):
        # TF's half kernels round partial sums: add in float32 and round once, as the
        # convolutions of NumPy, torch and XLA do
        y = conv(*(None if t is None else tf.cast(t, tf.float32) for t in (x, w, b)),
                 strides, padding, dilations, groups, layout, shifted)
        return tf.cast(y, x.dtype)
    n = len(strides)
    x = to_channels_last(x, layout)
    if layout == "channels_first":  # (O, I/g, *K) -> (*K, I/g, O)
        w = tf.transpose(w, [*range(2, n + 2), 1, 0])
    x = pad_spatial(x, [(padding[2 * i], padding[2 * i + 1]) for i in range(n)])
    if shifted and 1 < groups == x.shape[-1] and np.prod(w.shape[:n]) <= 64:
        y = shifted_depthwise(x, w, strides, dilations)
        return restore_layout(y if b is None else tf.nn.bias_add(y, b), layout)
    depthwise = 1 < groups == x.shape[-1] and n <= 2
    # a dilated convolution, or a depthwise one with unequal strides (TF's depthwise
    # kernel takes neither), runs at stride 1 and keeps every stride-th output
    dilated = any(dl > 1 for dl in dilations) or \
        (depthwise and (n == 1 or strides[0] != strides[1]))
    step = 1 if dilated else strides
    if groups == 1:
        y = tf.nn.convolution(x, w, strides=step, padding="VALID", dilations=dilations)
    elif depthwise:
        y = depthwise_conv(x, w, step, dilations)
    else:  # one conv per group: TF has no CPU gradient of a grouped convolution
        y = tf.concat([tf.nn.convolution(xg, wg, strides=step, padding="VALID",
                                         dilations=dilations)
                       for xg, wg in zip(tf.split(x, groups, axis=-1),
                                         tf.split(w, groups, axis=-1))], axis=-1)
    if dilated:
        outs = [(d - dl * (k - 1) - 1) // s + 1 for d, k, s, dl in
                zip(x.shape[1:-1], w.shape[:n], strides, dilations)]
        y = subsample(y, strides, outs)
    if b is not None:
        y = tf.nn.bias_add(y, b)
    return restore_layout(y, layout)


def depthwise_conv(x, w, step, dilations):
    # one group per input channel: TF's depthwise kernel, (*K, 1, C*M) read as (*K, C, M)
    # (output channel c*M + m is channel c's m-th filter in both); 1-d as a 1 x W image
    flat = len(dilations) == 1
    if flat:
        x, w, dilations = x[:, None], w[None], [1, *dilations]
    strides = [1, 1, 1, 1] if step == 1 else [1, *step, 1]
    y = tf.nn.depthwise_conv2d(x, tf.reshape(w, [*w.shape[:2], x.shape[-1], -1]), strides,
                               "VALID", dilations=list(dilations))
    return y[:, 0] if flat else y


def shifted_depthwise(x, w, strides, dilations):
    # a depthwise convolution of padded channels-last x as a sum over kernel taps of
    # strided input slices times that tap's weights, (*K, 1, C*M) read as (*K, C, M):
    # XLA fuses it into one loop, where its own depthwise kernel is slow on CPU
    n = len(strides)
    kernel, c = w.shape[:n], x.shape[-1]
    taps = tf.reshape(w, [*kernel, c, -1])
    outs = [(x.shape[1 + i] - dilations[i] * (kernel[i] - 1) - 1) // strides[i] + 1
            for i in range(n)]
    y = 0
    for tap in np.ndindex(*kernel):
        window = tuple(slice(t * d, t * d + (o - 1) * s + 1, s)
                       for t, d, o, s in zip(tap, dilations, outs, strides))
        y = y + x[(slice(None), *window, slice(None), None)] * taps[tap]
    return tf.reshape(y, [-1, *outs, taps.shape[-2] * taps.shape[-1]])


def upsample_zeros(x, strides):
    # insert s - 1 zeros between neighbours along each spatial axis (channels last)
    for i, s in enumerate(strides):
        if s > 1:
            shape, axis = list(x.shape), i + 1
            pads = [[0, 0]] * (len(shape) + 1)
            pads[axis + 1] = [0, s - 1]
            grown = tf.pad(tf.expand_dims(x, axis + 1), pads)
            x = tf.reshape(grown, shape[:axis] + [shape[axis] * s] + shape[axis + 1:])
            x = x[(slice(None),) * axis + (slice(0, (shape[axis] - 1) * s + 1),)]
    return x


def conv_transpose(x, w, b, strides, padding, output_padding, dilations, groups, layout):
    # a stride-1 conv of the zero-upsampled input with the flipped, in/out-swapped weight
    # (tf.nn.conv_transpose has no groups, and its CPU kernel rejects dilations)
    n = len(strides)
    x = to_channels_last(x, layout)
    if layout == "channels_first":  # (I, O/g, *K) -> (*K, O/g, I)
        w = tf.transpose(w, [*range(2, n + 2), 1, 0])
    kernel, og, cin = list(w.shape[:n]), w.shape[n], w.shape[n + 1]
    w = tf.reshape(w, kernel + [og, groups, cin // groups])
    w = tf.transpose(w, [*range(n), n + 2, n + 1, n])  # (*K, I/g, g, O/g)
    w = tf.reverse(tf.reshape(w, kernel + [cin // groups, groups * og]), list(range(n)))
    up = upsample_zeros(x, strides)
    pairs, crop = [], []
    for i, (k, dl, op) in enumerate(zip(kernel, dilations, output_padding)):
        lo = dl * (k - 1) - padding[2 * i]
        hi = dl * (k - 1) - padding[2 * i + 1] + op
        pairs.append((max(lo, 0), max(hi, 0)))
        crop.append(slice(max(-lo, 0), up.shape[1 + i] - max(-hi, 0)))
    up = up[(slice(None), *crop, slice(None))]
    pads = [p for pair in pairs for p in pair]
    y = conv(up, w, b, (1,) * n, pads, dilations, groups, "channels_last")
    return restore_layout(y, layout)


def max_pool(x, kernel, strides, padding, dilations, ceil_mode, layout):
    if x.dtype == tf.uint32:  # no uint32 kernel: int64 holds every value, in order
        return tf.cast(max_pool(tf.cast(x, tf.int64), kernel, strides, padding, dilations,
                                ceil_mode, layout), tf.uint32)
    n = len(kernel)
    dilations = dilations or (1,) * n
    x = to_channels_last(x, layout)
    outs, pairs = pool_pads(x.shape[1:-1], kernel, strides, padding, dilations, ceil_mode)
    low = -np.inf if x.dtype.is_floating else x.dtype.min
    xp = pad_spatial(x, pairs, low)
    # tf.nn.pool refuses strides with dilations or beyond the window: pool densely then
    dense = any(dl > 1 or s > k for dl, s, k in zip(dilations, strides, kernel))

    def pool(v):
        v = tf.nn.pool(v, kernel, "MAX", strides=None if dense else strides,
                       padding="VALID", dilations=dilations)
        return subsample(v, strides if dense else (1,) * n, outs)
    y = pool(xp)
    if x.dtype.is_floating:
        # TF's max skips NaN and starts from the lowest finite value; the IR's, as
        # NumPy's, is NaN for a window holding NaN and -inf for one of -inf only
        flag = pool(2 * tf.cast(tf.math.is_nan(xp), x.dtype) + tf.cast(xp > -np.inf, x.dtype))
        y = tf.where(flag >= 2, tf.constant(np.nan, x.dtype),
                     tf.where(flag == 0, tf.constant(-np.inf, x.dtype), y))
    return restore_layout(y, layout)


def avg_pool(x, kernel, strides, padding, ceil_mode, count_include_pad, layout):
    # TF divides by the window size; the op divides by the window cells inside the
    # padded input (count_include_pad) or the input, a static factor per output cell
    n = len(kernel)
    x = to_channels_last(x, layout)
    sizes = x.shape[1:-1]
    outs, pairs = pool_pads(sizes, kernel, strides, padding, (1,) * n, ceil_mode)
    y = tf.nn.avg_pool(pad_spatial(x, pairs), kernel, strides, "VALID")
    y = subsample(y, (1,) * n, outs)
    factor = np.ones((), np.float64)
    for i, (d, k, s, o) in enumerate(zip(sizes, kernel, strides, outs)):
        lo, hi = (padding[2 * i], padding[2 * i + 1]) if count_include_pad else (0, 0)
        pos = np.arange(o)[:, None] * s + np.arange(k)[None, :] - padding[2 * i]
        count = ((pos >= -lo) & (pos < d + hi)).sum(axis=1)
        factor = np.multiply.outer(factor, k / count)
    y = y * tf.constant(factor[None, ..., None], y.dtype)
    return restore_layout(y, layout)


def along_axis(x, m, axis):
    # contract `axis` of x with the static matrix m (out, in), keeping the axis in place
    rank = len(x.shape)
    y = tf.tensordot(x, tf.constant(m.T, x.dtype), axes=[[axis], [0]])
    return tf.transpose(y, [*range(axis), rank - 1, *range(axis, rank - 1)])


def adaptive_avg_pool(x, output_size, layout):
    first = 2 if layout == "channels_first" else 1
    even = even_windows(x.shape, first, output_size)
    if even is not None:
        return tf.reduce_mean(tf.reshape(x, even[0]), axis=even[1])
    for i, o in enumerate(output_size):
        avg = adaptive_weights(x.shape[first + i], o, x.dtype.as_numpy_dtype)
        x = along_axis(x, avg, first + i)
    return x


def interpolate(x, size, mode, align_corners, layout):
    # separable per-axis resampling with PyTorch's source-index rules
    first = 2 if layout == "channels_first" else 1
    for i, o in enumerate(size):
        axis = first + i
        i0, i1, lam = resample_taps(x.shape[axis], o, mode, align_corners,
                                    x.dtype.as_numpy_dtype)
        if lam is None:
            x = tf.gather(x, i0, axis=axis)
            continue
        shape = [o if a == axis else 1 for a in range(len(x.shape))]
        lam = tf.constant(lam.reshape(shape), x.dtype)
        x = tf.gather(x, i0, axis=axis) * (1 - lam) + tf.gather(x, i1, axis=axis) * lam
    return x
