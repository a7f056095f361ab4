"""Pure-NumPy kernels for convolution, pooling and resampling layers.

Like `reference_kernels.py`, the source of each kernel a program uses is copied into the
generated code, so these functions may only use `np`, `math` and each other. Every
kernel works channels-first internally; channels-last inputs are transposed in and out.
Windows are strided views (`sliding_window_view`), so no kernel loops over elements.
"""

from __future__ import annotations

import numpy as np

from .resample import adaptive_weights, even_windows, pool_out_dim, resample_taps

__all__ = ["adaptive_avg_pool", "avg_pool", "channels_first", "channels_restore", "conv",
           "conv_transpose", "interpolate", "max_pool", "pool_windows"]


def channels_first(x, layout):
    # (N, *S, C) -> (N, C, *S); channels-first input passes through
    return x if layout == "channels_first" else np.moveaxis(x, -1, 1)


def channels_restore(y, layout):
    # undo channels_first on a result
    return y if layout == "channels_first" else np.moveaxis(y, 1, -1)


def pool_windows(xp, kernel, strides, dilations, outs):
    # view (N, C, *out, *kernel) of the padded channels-first input
    n = len(kernel)
    eff = tuple(dl * (k - 1) + 1 for k, dl in zip(kernel, dilations, strict=True))
    win = np.lib.stride_tricks.sliding_window_view(xp, eff, axis=tuple(range(2, 2 + n)))
    pick = tuple(slice(0, (o - 1) * s + 1, s) for o, s in zip(outs, strides, strict=True))
    return win[(slice(None), slice(None)) + pick + tuple(slice(None, None, dl)
                                                         for dl in dilations)]


def conv(x, w, b, strides, padding, dilations, groups, layout):
    # half floats add in float32 and round once (NumPy's einsum takes no bfloat16)
    dtype, n = x.dtype, x.ndim - 2
    if dtype.name in ("float16", "bfloat16"):
        x, w = x.astype(np.float32), w.astype(np.float32)
    x = channels_first(x, layout)
    if layout != "channels_first":
        w = np.transpose(w, (n + 1, n) + tuple(range(n)))
    xp = np.pad(x, [(0, 0), (0, 0)] + [(padding[2 * i], padding[2 * i + 1]) for i in range(n)])
    kernel = w.shape[2:]
    outs = [pool_out_dim(d, k, s, 0, 0, dl, False)
            for d, k, s, dl in zip(xp.shape[2:], kernel, strides, dilations, strict=True)]
    win = pool_windows(xp, kernel, strides, dilations, outs)
    g = groups
    win = win.reshape((x.shape[0], g, x.shape[1] // g) + win.shape[2:])
    wg = w.reshape((g, w.shape[0] // g) + w.shape[1:])
    sp = "".join(chr(ord("p") + i) for i in range(n))
    ks = "".join(chr(ord("h") + i) for i in range(n))
    y = np.einsum(f"ngc{sp}{ks},goc{ks}->ngo{sp}", win, wg, optimize=True)
    y = y.reshape((x.shape[0], w.shape[0]) + tuple(outs))
    if b is not None:
        y = y + b.reshape((1, -1) + (1,) * n)
    return channels_restore(y.astype(dtype, copy=False), layout)


def conv_transpose(x, w, b, strides, padding, output_padding, dilations, groups, layout):
    # a stride-1 conv of the stride-dilated input with the flipped, in/out-swapped weight
    n = x.ndim - 2
    x = channels_first(x, layout)
    if layout != "channels_first":
        w = np.transpose(w, (n + 1, n) + tuple(range(n)))
    g, (cin, og), kernel = groups, w.shape[:2], w.shape[2:]
    wc = w.reshape((g, cin // g, og) + kernel).swapaxes(1, 2).reshape((g * og, cin // g) + kernel)
    wc = np.flip(wc, axis=tuple(range(2, 2 + n)))
    grid = tuple((d - 1) * s + 1 for d, s in zip(x.shape[2:], strides, strict=True))
    up = np.zeros(x.shape[:2] + grid, dtype=x.dtype)
    up[(slice(None), slice(None)) + tuple(slice(None, None, s) for s in strides)] = x
    pads, crop = [], []
    for i, (k, dl, op) in enumerate(zip(kernel, dilations, output_padding, strict=True)):
        lo = dl * (k - 1) - padding[2 * i]
        hi = dl * (k - 1) - padding[2 * i + 1] + op
        pads += [max(lo, 0), max(hi, 0)]
        crop.append(slice(max(-lo, 0), up.shape[2 + i] - max(-hi, 0)))
    up = up[(slice(None), slice(None)) + tuple(crop)]
    y = conv(up, wc, b, (1,) * n, pads, dilations, g, "channels_first")
    return channels_restore(y, layout)


def max_pool(x, kernel, strides, padding, dilations, ceil_mode, layout):
    n = len(kernel)
    dilations = dilations or (1,) * n
    x = channels_first(x, layout)
    if x.dtype == np.bool_:
        low = False
    elif np.issubdtype(x.dtype, np.integer):
        low = np.iinfo(x.dtype).min
    else:
        low = -np.inf
    outs = [pool_out_dim(d, k, s, padding[2 * i], padding[2 * i + 1], dl, ceil_mode)
            for i, (d, k, s, dl) in enumerate(zip(x.shape[2:], kernel, strides, dilations,
                                                  strict=True))]
    pads = [(padding[2 * i], max(padding[2 * i + 1], (o - 1) * s + dl * (k - 1) + 1
                                 - d - padding[2 * i]))
            for i, (d, k, s, dl, o) in enumerate(zip(x.shape[2:], kernel, strides, dilations,
                                                       outs, strict=True))]
    xp = np.pad(x, [(0, 0), (0, 0)] + pads, constant_values=low)
    win = pool_windows(xp, kernel, strides, dilations, outs)
    y = win.max(axis=tuple(range(-n, 0))) if win.size else np.zeros(win.shape[:-n], x.dtype)
    return channels_restore(y, layout)


def avg_pool(x, kernel, strides, padding, ceil_mode, count_include_pad, layout):
    # the divisor counts window cells inside the padded (or the original) input, as torch
    n = len(kernel)
    x = channels_first(x, layout)
    ones = (1,) * n
    outs = [pool_out_dim(d, k, s, padding[2 * i], padding[2 * i + 1], 1, ceil_mode)
            for i, (d, k, s) in enumerate(zip(x.shape[2:], kernel, strides, strict=True))]
    pads = [(padding[2 * i], max(padding[2 * i + 1], (o - 1) * s + k - d - padding[2 * i]))
            for i, (d, k, s, o) in enumerate(zip(x.shape[2:], kernel, strides, outs,
                                                 strict=True))]
    xp = np.pad(x, [(0, 0), (0, 0)] + pads)
    total = pool_windows(xp, kernel, strides, ones, outs).sum(axis=tuple(range(-n, 0)))
    inside = np.ones((1, 1) + x.shape[2:], dtype=x.dtype)
    if count_include_pad:
        inside = np.pad(inside, [(0, 0), (0, 0)] + [(padding[2 * i], padding[2 * i + 1])
                                                    for i in range(n)], constant_values=1)
        pads = [(0, hi - padding[2 * i + 1]) for i, (_, hi) in enumerate(pads)]
    mask = np.pad(inside, [(0, 0), (0, 0)] + pads)
    count = pool_windows(mask, kernel, strides, ones, outs).sum(axis=tuple(range(-n, 0)))
    return channels_restore((total / count).astype(x.dtype, copy=False), layout)


def adaptive_avg_pool(x, output_size, layout):
    even = even_windows(x.shape, 2 if layout == "channels_first" else 1, output_size)
    if even is not None:
        return x.reshape(even[0]).mean(axis=even[1], dtype=x.dtype)
    x = channels_first(x, layout)
    y = x
    for i, o in enumerate(output_size):
        avg = adaptive_weights(x.shape[2 + i], o, x.dtype)
        y = np.moveaxis(np.moveaxis(y, 2 + i, -1) @ avg.T, -1, 2 + i)
    return channels_restore(y.astype(x.dtype, copy=False), layout)


def interpolate(x, size, mode, align_corners, layout):
    # separable per-axis resampling with PyTorch's source-index rules
    x = channels_first(x, layout)
    y = x
    for i, o in enumerate(size):
        i0, i1, lam = resample_taps(x.shape[2 + i], o, mode, align_corners, x.dtype)
        y = np.moveaxis(y, 2 + i, -1)
        y = y[..., i0] if lam is None else y[..., i0] * (1 - lam) + y[..., i1] * lam
        y = np.moveaxis(y, -1, 2 + i)
    return channels_restore(y.astype(x.dtype, copy=False), layout)
