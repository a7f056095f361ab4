"""JAX helpers for ops that need more than one `jax.numpy`/`jax.lax` call.

The emitter copies the source of each helper a program uses into the generated code,
so these functions may only use `jax`, `jnp`, `lax`, `np` and each other. Index and
weight arithmetic on static shapes runs in NumPy at trace time; only the data path is
traced. Resampling kernels work channels-first internally, like `numpy_nn_kernels.py`.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ivy_ir.core.resample import adaptive_weights, even_windows, resample_taps

__all__ = ["adaptive_avg_pool", "column_signs", "complex_cosh", "complex_ops", "complex_sinh",
           "depthwise_conv", "eigh", "float_remainder", "grouped_conv", "grouped_transpose_kernel",
           "interpolate", "max_pool", "pointwise_conv", "scatter_mul", "searchsorted",
           "standardize", "sum_pool", "svd", "top_k", "window_count", "window_views"]


def depthwise_conv(x, w, b, strides, padding, dilations, channels_first):
    # one group per input channel as a sum over kernel taps of shifted input slices times
    # that tap's weights: XLA's CPU grouped convolution is ~30x slower on such convs (a
    # 3x3 over 96 channels at 56x56: 67 ms against 1.8 ms, its gradient 234 against 46).
    # Each layout keeps its own (channels-last vectorises over the channels). Half floats
    # add in float32 and round once, as the convolutions of NumPy, torch and XLA do
    dtype = x.dtype
    if dtype in (jnp.float16, jnp.bfloat16):
        x, w = x.astype(jnp.float32), w.astype(jnp.float32)
    n = len(strides)
    if channels_first:  # (N, C, *S), (C*M, 1, *K)
        c, kernel = x.shape[1], w.shape[2:]
        taps = w[:, 0].reshape((c, -1, *kernel))  # output channel c*M + m reads channel c
    else:  # (N, *S, C), (*K, 1, C*M)
        c, kernel = x.shape[-1], w.shape[:n]
        taps = w[..., 0, :].reshape((*kernel, c, -1))
    space = [(padding[2 * i], padding[2 * i + 1]) for i in range(n)]
    head, tail = ((1, 1), ()) if channels_first else ((1,), (1,))
    views = window_views(x, 0, (*head, *kernel, *tail), (*head, *strides, *tail),
                         (*head, *dilations, *tail),
                         [(0, 0)] * len(head) + space + [(0, 0)] * len(tail))
    y = 0
    for tap, view in zip(np.ndindex(*kernel), views):
        if channels_first:  # (N, C, M, *S)
            y = y + view[:, :, None] * \
                taps[(slice(None), slice(None), *tap)].reshape((1, c, -1) + (1,) * n)
        else:  # (N, *S, C, M)
            y = y + view[..., None] * taps[tap]
    if channels_first:
        y = y.reshape((y.shape[0], -1, *y.shape[3:]))
        b = None if b is None else b.reshape((-1,) + (1,) * n)
    else:
        y = y.reshape((*y.shape[:-2], -1))
    return (y if b is None else y + b).astype(dtype)


def pointwise_conv(x, w, b, strides, groups, channels_first):
    # a 1x1 convolution is a product over channels: XLA's CPU convolution runs these 2-3x
    # slower than its dot (256 -> 64 channels at 8 x 32 x 32: 9.0 ms against 2.8) and
    # their gradients 6-28x slower. Channels-first, the weight is the left operand and
    # the batch moves back in front after: broadcasting the weight over the batch
    # instead copies it per call (10x slower for 512 -> 2048 channels at 4 x 4)
    n = len(strides)
    step = tuple(slice(None, None, s) for s in strides)
    if channels_first:
        x = x[(slice(None), slice(None), *step)]
        batch, spatial = x.shape[0], x.shape[2:]
        cg, og = x.shape[1] // groups, w.shape[0] // groups
        y = lax.dot_general(w.reshape(groups, og, cg), x.reshape(batch, groups, cg, -1),
                            (((2,), (2,)), ((0,), (1,))))  # (groups, og, batch, S)
        y = jnp.moveaxis(y, 2, 0).reshape((batch, groups * og, *spatial))
        return y if b is None else y + b.reshape((-1,) + (1,) * n)
    x = x[(slice(None), *step, slice(None))]
    if groups == 1:
        y = lax.dot_general(x, w.reshape(w.shape[-2:]), (((x.ndim - 1,), (0,)), ((), ())))
    else:
        cg, og = w.shape[-2], w.shape[-1] // groups
        y = jnp.einsum("...gi,igo->...go", x.reshape(x.shape[:-1] + (groups, cg)),
                       w.reshape(cg, groups, og)).reshape(x.shape[:-1] + (-1,))
    return y if b is None else y + b


def float_remainder(x, y):
    # NumPy's float remainder, from the exact fmod plus y where the signs differ:
    # x - y * floor(x / y) loses every digit once |x / y| passes 2**24 (float32)
    m = jnp.fmod(x, y)
    return jnp.where((m != 0) & ((m < 0) != (y < 0)), m + y, m)


def standardize(x, axes, eps):
    # the mean of the residuals is removed too: a float32 mean of a constant row is not
    # its value, and 1 / sqrt(eps) would amplify the difference (jax.nn.standardize's).
    # Its two sums read the residuals side by side (the corrected two-pass variance), so
    # XLA reads them in one pass: three passes over x in all, as for a plain two-pass
    centred = x - jnp.mean(x, axes, keepdims=True)
    drift = jnp.mean(centred, axes, keepdims=True)
    var = jnp.mean(centred * centred, axes, keepdims=True) - drift * drift
    return (centred - drift) * lax.rsqrt(var + eps)


def top_k(x, k, axis, largest):
    # lax.top_k ranks ties by index; the k smallest are the k largest of an order-reversed
    # key (-x for floats, ~x for integers, which cannot overflow)
    # (XLA ranks floats by their bits' total order: -x of a NaN below -inf and -0.0
    # below 0.0, so every NaN is made positive, the largest float, and every zero +0.0)
    if jnp.issubdtype(x.dtype, jnp.floating):
        key = jnp.where(jnp.isnan(x), jnp.nan, jnp.where(x == 0, 0, x))
        key = key if largest else -key
    else:
        key = x if largest else ~x
    _, indices = lax.top_k(key, k, axis=axis)
    return jnp.take_along_axis(x, indices, axis), indices.astype(jnp.int64)


def searchsorted(a, v, side):
    # jnp's is one sorted row: a batch of rows maps it over the leading dims
    def row(a, v):
        return jnp.searchsorted(a, v, side=side)
    for _ in range(a.ndim - 1):
        row = jax.vmap(row)
    return row(a, v).astype(jnp.int64)


def grouped_conv(x, w, strides, padding, dims, groups, lhs_dilation=None, rhs_dilation=None):
    # lax.conv_general_dilated with feature groups, run as one convolution per group and
    # joined: XLA's CPU convolution runs feature groups 1.5-6x slower than the same
    # groups as separate convolutions (AlexNet's 5x5 over 2 groups of 48 channels at
    # 27x27: 19.2 ms against 4.9; 32 groups of 8 channels, 3x3 at 8x28x28: 69 against 11)
    lhs, rhs, out = dims
    xs = jnp.split(x, groups, axis=lhs.index("C"))
    ws = jnp.split(w, groups, axis=rhs.index("O"))
    return jnp.concatenate([lax.conv_general_dilated(
        part, kernel, strides, padding, lhs_dilation=lhs_dilation, rhs_dilation=rhs_dilation,
        dimension_numbers=dims) for part, kernel in zip(xs, ws)], axis=out.index("C"))


def grouped_transpose_kernel(w, groups, layout):
    # conv_transpose weight (I, O/g, *K) or (*K, O/g, I) -> the flipped forward-conv kernel
    # (O, I/g, *K) or (*K, I/g, O) whose grouped conv of the dilated input is the transpose
    n = w.ndim - 2
    if layout == "channels_first":
        cin, og, kernel = w.shape[0], w.shape[1], w.shape[2:]
        w = w.reshape((groups, cin // groups, og) + kernel).swapaxes(1, 2)
        return jnp.flip(w.reshape((groups * og, cin // groups) + kernel), tuple(range(2, 2 + n)))
    kernel, og, cin = w.shape[:n], w.shape[n], w.shape[n + 1]
    w = jnp.transpose(w.reshape(kernel + (og, groups, cin // groups)),
                      tuple(range(n)) + (n + 2, n + 1, n))
    return jnp.flip(w.reshape(kernel + (cin // groups, groups * og)), tuple(range(n)))


def adaptive_avg_pool(x, output_size, layout):
    first = 2 if layout == "channels_first" else 1
    even = even_windows(x.shape, first, output_size)
    if even is not None:
        return jnp.mean(x.reshape(even[0]), axis=even[1])
    for i, o in enumerate(output_size):
        ax = first + i
        avg = adaptive_weights(x.shape[ax], o, x.dtype)
        x = jnp.moveaxis(jnp.tensordot(x, avg, axes=([ax], [1])), -1, ax)
    return x


def interpolate(x, size, mode, align_corners, layout):
    # separable per-axis resampling with PyTorch's source-index rules
    first = 2 if layout == "channels_first" else 1
    for i, o in enumerate(size):
        ax = first + i
        i0, i1, lam = resample_taps(x.shape[ax], o, mode, align_corners, x.dtype)
        if lam is None:
            x = jnp.take(x, i0, axis=ax)
        else:
            lam = lam.reshape((-1,) + (1,) * (x.ndim - 1 - ax))
            x = jnp.take(x, i0, axis=ax) * (1 - lam) + jnp.take(x, i1, axis=ax) * lam
    return x


def window_views(x, init, window, strides, dilation, pads):
    # one strided view of x, padded with init by pads ((lo, hi) per dim), per window tap
    # in row-major order. XLA's CPU reduce_window runs 3-9x slower than an elementwise
    # fold of these views (a 3x3/2 max pool over 8 x 112 x 112 x 64: 6.3 ms against 1.0;
    # its gradient 136 ms against 24). Padding each view on its own instead of x once
    # fuses into the fold when x is an input, but made MobileNetV3 (batch 8) 10-20%
    # slower: in a network x's padding fuses into the work that makes x
    xp = lax.pad(x, jnp.asarray(init, x.dtype), [(lo, hi, 0) for lo, hi in pads])
    outs = [(d - dl * (k - 1) - 1) // s + 1
            for d, k, s, dl in zip(xp.shape, window, strides, dilation)]
    views = []
    for offset in np.ndindex(*window):
        start = [o * dl for o, dl in zip(offset, dilation)]
        limit = [b + (n - 1) * s + 1 for b, n, s in zip(start, outs, strides)]
        views.append(lax.slice(xp, start, limit, strides))
    return views


def max_pool(x, init, window, strides, dilation, pads):
    # the largest of the window's views. Its derivative is the tangent of each window's
    # first largest element in row-major order, a NaN counting as largest (torch's
    # choice; jnp.maximum would split ties): a masked pick among the tangent's views,
    # which JAX transposes into pads for the gradient
    @jax.custom_jvp
    def pool(x):
        views = window_views(x, init, window, strides, dilation, pads)
        y = views[0]
        for v in views[1:]:
            y = jnp.maximum(y, v)
        return y

    @pool.defjvp
    def pool_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        y = pool(x)
        dy, taken = jnp.zeros_like(t, shape=y.shape), jnp.zeros(y.shape, bool)
        for v, tv in zip(window_views(x, init, window, strides, dilation, pads),
                         window_views(t, 0, window, strides, dilation, pads)):
            hit = ((v == y) | (v != v)) & ~taken
            dy, taken = jnp.where(hit, tv, dy), taken | hit
        return y, dy

    return pool(x)


def scatter_mul(x, indices, updates):
    # x.at[...].multiply(updates), differentiable where indices repeat (JAX's own rule
    # wants them unique): an update's derivative is x times the other updates of its
    # place, their product taken over the nonzero ones and the zeros counted, as torch's
    # prod does, so a zero update gives the exact derivative
    @jax.custom_jvp
    def mul(x, updates, indices):
        return x.at[tuple(jnp.moveaxis(indices, -1, 0))].multiply(updates)

    @mul.defjvp
    def mul_jvp(primals, tangents):
        (x, u, indices), (dx, du, _) = primals, tangents
        at = tuple(jnp.moveaxis(indices, -1, 0))
        zero = u == 0
        nonzero = jnp.where(zero, 1, u)
        product = jnp.ones_like(x).at[at].multiply(nonzero)[at]
        zeros = jnp.zeros(x.shape, jnp.int32).at[at].add(zero.astype(jnp.int32))[at]
        others = jnp.where(zero, jnp.where(zeros == 1, product, 0),
                           jnp.where(zeros == 0, product / nonzero, 0))
        factor = jnp.ones_like(x).at[at].multiply(u)
        return mul(x, u, indices), dx * factor + x * jnp.zeros_like(x).at[at].add(du * others)

    return mul(x, updates, indices)


def sum_pool(x, window, strides, pads):
    # the sum of the window's views (see window_views); half floats add in float32 and
    # round once
    dtype = x.dtype
    if dtype in (jnp.float16, jnp.bfloat16):
        x = x.astype(jnp.float32)
    views = window_views(x, 0, window, strides, (1,) * len(window), pads)
    y = views[0]
    for v in views[1:]:
        y = y + v
    return y.astype(dtype)


def window_count(shape, window, strides, pads, dtype):
    # how many cells of an input of `shape` each window covers, padded by pads: a
    # constant computed in NumPy at trace time
    ones = np.pad(np.ones(shape, np.int64), pads)
    outs = [(d - k) // s + 1 for d, k, s in zip(ones.shape, window, strides)]
    count = 0
    for offset in np.ndindex(*window):
        count = count + ones[tuple(slice(o, o + (n - 1) * s + 1, s)
                                   for o, n, s in zip(offset, outs, strides))]
    return count.astype(dtype)


def column_signs(v):
    # +1/-1 per column of v: the sign of its first largest-magnitude component (ops.spec's
    # sign rule for svd/eigh; a comparison, so no gradient flows through the sign)
    if v.shape[-2] == 0:
        return jnp.ones(v.shape[:-2] + v.shape[-1:], v.dtype)
    i = jnp.argmax(jnp.abs(v), axis=-2)[..., None, :]
    return jnp.where(jnp.take_along_axis(v, i, axis=-2)[..., 0, :] < 0, -1, 1).astype(v.dtype)


def svd(x, full_matrices):
    # pair j < k flipped by u[:, j]'s sign; extra columns of u / rows of vh by their own
    u, s, vh = jnp.linalg.svd(x, full_matrices=full_matrices)
    k = s.shape[-1]
    su, sv = column_signs(u), column_signs(jnp.swapaxes(vh, -1, -2))
    sv = jnp.concatenate([su[..., :k], sv[..., k:]], axis=-1)
    return u * su[..., None, :], s, vh * sv[..., :, None]


def eigh(x):
    w, v = jnp.linalg.eigh(x)
    return w, v * column_signs(v)[..., None, :]


def complex_sinh(z):
    # sinh(a) cos(b) + i cosh(a) sin(b): XLA's complex sinh and cosh lose sinh(a) for
    # |a| below ~1e-8 (e^a - e^-a: sinh(1e-20 + 1e-20j) had real part 0)
    a, b = jnp.real(z), jnp.imag(z)
    return lax.complex(jnp.sinh(a) * jnp.cos(b), jnp.cosh(a) * jnp.sin(b))


def complex_cosh(z):
    # cosh(a) cos(b) + i sinh(a) sin(b), as `complex_sinh`
    a, b = jnp.real(z), jnp.imag(z)
    return lax.complex(jnp.cosh(a) * jnp.cos(b), jnp.sinh(a) * jnp.sin(b))


def complex_ops():
    # JAX's functions for `complex_special` (`ivy_ir.core.complex_kernel`)
    return {"is_complex": jnp.iscomplexobj, "real": jnp.real, "imag": jnp.imag,
            "complex": lax.complex, "signbit": jnp.signbit, "where": jnp.where,
            "isinf": jnp.isinf, "isnan": jnp.isnan, "isfinite": jnp.isfinite, "abs": jnp.abs,
            "cos": jnp.cos, "sin": jnp.sin, "copysign": jnp.copysign,
            "constant": lambda v, like: v, "stop_gradient": lax.stop_gradient}
