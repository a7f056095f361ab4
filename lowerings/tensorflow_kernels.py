"""TensorFlow helpers for ops that TF has no single call for.

The emitter copies the source of each helper a program uses into the generated code,
so these functions may only use `tf`, `np` and each other. Shapes are static under
`tf.function` here (the IR fixes them), so index math on them is plain Python/NumPy
done once at trace time, never control flow on tensor values.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf

__all__ = [
    "attention", "column_signs", "complex_log", "complex_ops", "diagonal", "edge_pad", "eigh",
    "float_remainder", "floor_divide", "layer_norm", "lu", "matrix_norm", "move_last",
    "nextafter_bits",
    "order_key", "random_uniform", "scatter_extreme", "scatter_mul", "sign_bit", "solve",
    "sort_along", "svd", "take_along_axis", "top_k", "tri", "variance", "vector_norm",
]


def nextafter_bits(x, y):
    # one step of x's own half-float dtype toward y, on its 16 bits (tf.math.nextafter
    # takes float32/float64 only): away from zero is +1 on the bits read as int16
    # whatever the sign; from a zero, the least subnormal of y's sign; x == y gives y
    # (so the sign of a zero is y's), and NaN either side gives NaN
    shape = tf.broadcast_dynamic_shape(tf.shape(x), tf.shape(y))
    x, y = tf.broadcast_to(x, shape), tf.broadcast_to(y, shape)
    bits = tf.bitcast(x, tf.int16)
    away = (y > x) == (x > 0)
    step = tf.bitcast(bits + tf.where(away, tf.ones_like(bits), -tf.ones_like(bits)), x.dtype)
    tiny = tf.bitcast(tf.ones_like(bits), x.dtype)
    out = tf.where(x == 0, tf.where(y > 0, tiny, -tiny), step)
    out = tf.where(x == y, y, out)
    return tf.where(tf.math.is_nan(x) | tf.math.is_nan(y), x + y, out)


def float_remainder(x, y):
    # NumPy's float remainder, from the exact fmod plus y where the signs differ:
    # x - y * floor(x / y) loses every digit once |x / y| passes 2**24 (float32); a
    # zero takes y's sign, and x of the other sign than an infinite y gives y. TF's
    # TruncateMod has no gradient: the value is the exact one, the gradient floormod's
    # where that is finite (less a zero, which keeps the exact zero's sign)
    m = tf.truncatemod(x, y)
    exact = tf.where((m != 0) & ((m < 0) != (y < 0)), m + y, m)
    exact = tf.where(m == 0, tf.where(y < 0, -tf.zeros_like(m), tf.zeros_like(m)), exact)
    exact = tf.stop_gradient(exact)
    approx = tf.math.floormod(x, y)
    zero = tf.stop_gradient(approx) - approx
    return tf.where(tf.math.is_finite(approx), exact - zero, exact)


def floor_divide(x, y):
    # NumPy's float floor division (its divmod): (x - fmod(x, y)) / y, one less where the
    # remainder's sign differs from y's, rounded; NaN for an infinite x, and x / y for
    # y == 0. TF's floordiv is floor(x / y), -inf where NumPy's is NaN.
    mod = tf.truncatemod(x, y)
    div = (x - mod) / y
    div = tf.where((mod != 0) & ((y < 0) != (mod < 0)), div - 1, div)
    floor = tf.math.floor(div)
    floor = tf.where(div - floor > 0.5, floor + 1, floor)
    floor = tf.where(floor == 0, x / y * 0, floor)  # a zero of x / y's sign, as NumPy's
    # piecewise constant: no gradient, as TF's FloorDiv has none (TruncateMod has none)
    return tf.stop_gradient(tf.where(y == 0, x / y, floor))


def tri(x, k, lower):
    # keep j - i <= k (tril) or j - i >= k (triu) on the last two axes
    i = tf.range(x.shape[-2])[:, None]
    j = tf.range(x.shape[-1])[None, :]
    keep = j - i <= k if lower else j - i >= k
    return tf.where(keep, x, tf.zeros_like(x))


def variance(x, axis, keepdims, correction):
    # tf.math.reduce_variance divides by n; rescale to n - correction
    axes = range(len(x.shape)) if axis is None else axis
    n = int(np.prod([x.shape[a] for a in axes]))
    var = tf.math.reduce_variance(x, axis=axis, keepdims=keepdims)
    # n == correction divides a tensor by 0.0 (inf or NaN, as NumPy), not a Python float
    return var if correction == 0 else var * n / (n - correction)


def vector_norm(x, ord, axis, keepdims):
    # tf.norm reduces one axis or a pair; this reduces any set of axes
    a = tf.math.abs(x)
    if ord == np.inf:
        return tf.reduce_max(a, axis=axis, keepdims=keepdims)
    if ord == -np.inf:
        return tf.reduce_min(a, axis=axis, keepdims=keepdims)
    if ord == 0:
        return tf.cast(tf.math.count_nonzero(a, axis=axis, keepdims=keepdims), x.dtype)
    if ord == 1:
        return tf.reduce_sum(a, axis=axis, keepdims=keepdims)
    if ord == 2:
        return tf.sqrt(tf.reduce_sum(tf.square(a), axis=axis, keepdims=keepdims))
    return tf.reduce_sum(a ** ord, axis=axis, keepdims=keepdims) ** (1 / ord)


def matrix_norm(x, ord, keepdims):
    # tf.norm has no nuc/-1/-2/-inf matrix norms: spectral ones from singular values
    if ord == "fro":
        out = tf.norm(x, "fro", axis=[-2, -1])
    elif ord in ("nuc", "2", "-2"):
        s = tf.linalg.svd(x, compute_uv=False)
        reduce = {"nuc": tf.reduce_sum, "2": tf.reduce_max, "-2": tf.reduce_min}[ord]
        out = reduce(s, axis=-1)
    else:
        sums = tf.reduce_sum(tf.math.abs(x), axis=-2 if ord.endswith("1") else -1)
        out = (tf.reduce_min if ord.startswith("-") else tf.reduce_max)(sums, axis=-1)
    return out[..., None, None] if keepdims else out


def solve(a, b):
    # tf.linalg.solve does not broadcast batch dims; a 1-d b is one right-hand column
    n = a.shape[-1]
    column = len(b.shape) == 1
    b = b[:, None] if column else b
    if tuple(a.shape[:-2]) != tuple(b.shape[:-2]):  # broadcast only stacks that differ
        batch = np.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
        a, b = tf.broadcast_to(a, batch + (n, n)), tf.broadcast_to(b, batch + tuple(b.shape[-2:]))
    x = tf.linalg.solve(a, b)
    return x[..., 0] if column else x


def column_signs(v):
    # +1/-1 per column of v: the sign of its first largest-magnitude component (ops.spec's
    # sign rule for svd/eigh; a comparison, so no gradient flows through the sign)
    n = v.shape[-2]
    if n == 0:
        return tf.ones(v.shape[:-2] + v.shape[-1:], v.dtype)
    first = tf.one_hot(tf.argmax(tf.math.abs(v), axis=-2), n, axis=len(v.shape) - 2,
                       dtype=v.dtype)
    return tf.cast(tf.where(tf.reduce_sum(v * first, axis=-2) < 0, -1, 1), v.dtype)


def svd(x, full_matrices):
    # tf.linalg.svd returns (s, u, v); the op returns (u, s, v^H), pair j < k flipped by
    # u[:, j]'s sign, extra columns of u / rows of v^H by their own
    s, u, v = tf.linalg.svd(x, full_matrices=full_matrices)
    k = s.shape[-1]
    su, sv = column_signs(u), column_signs(v)
    sv = tf.concat([su[..., :k], sv[..., k:]], axis=-1)
    return u * su[..., None, :], s, tf.linalg.adjoint(v * sv[..., None, :])


def eigh(x):
    w, v = tf.linalg.eigh(x)
    return w, v * column_signs(v)[..., None, :]


def lu(x):
    # getrf's partial pivoting written out (tf.linalg.lu refuses singular matrices, whose
    # factors det and slogdet need): a loop over the columns, each step a full-matrix
    # update under masks, so the loop body has static shapes
    n = x.shape[-1]
    index = tf.range(n, dtype=tf.int32)
    if n == 0:
        return x, tf.zeros(tf.shape(x)[:-1], tf.int32), tf.zeros(tf.shape(x)[:-1], tf.int32)
    below = index[:, None] > index[None, :]

    def step(k, a, pivots, perm):
        column = tf.gather(a, k, axis=-1)
        p = tf.argmax(tf.where(index >= k, tf.math.abs(column), -1), axis=-1,
                      output_type=tf.int32)
        swap = tf.where(index == k, p[..., None], tf.where(index == p[..., None], k, index))
        a = tf.gather(a, swap, axis=-2, batch_dims=len(x.shape) - 2)
        perm = tf.gather(perm, swap, axis=-1, batch_dims=len(x.shape) - 2)
        pivot = tf.gather(tf.gather(a, k, axis=-2), k, axis=-1)[..., None]
        scaled = tf.gather(a, k, axis=-1) / tf.where(pivot == 0, tf.ones_like(pivot), pivot)
        low = tf.where(index > k, scaled, 0)
        right = tf.where(index > k, tf.gather(a, k, axis=-2), 0)
        a = a - low[..., :, None] * right[..., None, :]
        a = tf.where((index[None, :] == k) & below, low[..., :, None], a)
        return k + 1, a, tf.concat([pivots[..., 1:], p[..., None]], -1), perm

    start = tf.zeros(tf.shape(x)[:-1], tf.int32)
    perm = tf.broadcast_to(index, tf.shape(x)[:-1])
    _, factors, pivots, perm = tf.while_loop(lambda k, *_: k < n, step, (0, x, start, perm))
    return factors, pivots, perm


def move_last(rank, axis):
    # permutation moving `axis` last, and its inverse
    perm = [i for i in range(rank) if i != axis] + [axis]
    return perm, [int(i) for i in np.argsort(perm)]


def diagonal(x, offset, axis1, axis2):
    # tf.linalg.diag_part reads the last two axes and rejects an empty diagonal
    rank = len(x.shape)
    rest = [i for i in range(rank) if i not in (axis1, axis2)]
    x = tf.transpose(x, rest + [axis1, axis2])
    rows, cols = x.shape[-2:]
    if min(rows + min(offset, 0), cols - max(offset, 0)) <= 0:
        return tf.zeros(tuple(x.shape[:-2]) + (0,), x.dtype)
    return tf.linalg.diag_part(x, k=offset)


def edge_pad(x, pairs):
    # tf.pad has no "edge" mode: gather clamped indices along each padded axis
    for axis, (lo, hi) in enumerate(pairs):
        if lo or hi:
            d = x.shape[axis]
            x = tf.gather(x, np.clip(np.arange(-lo, d + hi), 0, d - 1), axis=axis)
    return x


def scatter_mul(x, indices, updates):
    # TF has no multiplying tensor scatter: the product of each place's updates (a
    # segment product over x's leading dims flattened; 1 where none lands), then one
    # multiply
    depth = indices.shape[-1]
    places = tf.zeros_like(indices[..., 0])
    for d in range(depth):
        places = places * x.shape[d] + indices[..., d]
    factors = tf.math.unsorted_segment_prod(updates, places, int(np.prod(x.shape[:depth])))
    return x * tf.reshape(factors, x.shape)


def scatter_extreme(x, indices, updates, largest):
    # TF's max/min tensor scatters skip NaN: a place that x or any of its updates makes
    # NaN is set to NaN afterwards (counted by a scatter-add of the NaN flags)
    out = (tf.tensor_scatter_nd_max if largest else tf.tensor_scatter_nd_min)(x, indices, updates)
    nans = tf.tensor_scatter_nd_add(tf.cast(tf.math.is_nan(x), tf.int32), indices,
                                    tf.cast(tf.math.is_nan(updates), tf.int32))
    return tf.where(nans > 0, tf.constant(np.nan, x.dtype), out)


def take_along_axis(x, indices, axis, out_shape):
    # gather along the last axis with every other axis a batch axis (broadcast first)
    rank = len(x.shape)
    perm, back = move_last(rank, axis)
    batch = [out_shape[i] for i in perm[:-1]]
    xt = tf.broadcast_to(tf.transpose(x, perm), batch + [x.shape[axis]])
    it = tf.broadcast_to(tf.transpose(indices, perm), batch + [indices.shape[axis]])
    return tf.transpose(tf.gather(xt, it, batch_dims=rank - 1), back)


def order_key(x):
    # floats as integers in NumPy's sort order, -inf < ... < -0 == +0 < ... < inf < NaN
    # (TF's sort and top_k rank NaN below everything): the bits with every NaN the
    # positive quiet one and zeros one zero, negative floats' magnitude bits flipped;
    # 16-bit keys widened (TF sorts no int16)
    ints = {2: tf.int16, 4: tf.int32, 8: tf.int64}[x.dtype.size]
    x = tf.where(tf.math.is_nan(x), tf.constant(np.nan, x.dtype),
                 tf.where(x == 0, tf.zeros_like(x), x))
    bits = tf.bitcast(x, ints)
    flipped = tf.bitwise.bitwise_xor(bits, tf.constant(np.iinfo(ints.as_numpy_dtype).max, ints))
    return tf.cast(tf.where(bits < 0, flipped, bits), tf.int64 if x.dtype.size == 8 else tf.int32)


def sort_along(x, axis, descending, values):
    # the sorted values (`values`) or the stable order: TF's own sort, unless x is float
    # and holds a NaN: then a stable sort of `order_key(x)` (NaN the largest, as NumPy's;
    # values gathered, so signed zeros stay)
    direction = "DESCENDING" if descending else "ASCENDING"

    def keyed():
        order = tf.argsort(order_key(x), axis=axis, direction=direction, stable=True)
        return take_along_axis(x, order, axis, x.shape) if values else order

    def plain():
        if values:
            return tf.sort(x, axis=axis, direction=direction)
        return tf.argsort(x, axis=axis, direction=direction, stable=True)
    out = tf.cond(tf.reduce_any(tf.math.is_nan(x)), keyed, plain) if x.dtype.is_floating \
        else plain()
    return out if values else tf.cast(out, tf.int64)


def top_k(x, k, axis, largest):
    # tf.math.top_k takes the largest along the last axis (ties: lower index first); the
    # smallest are the largest of an order-reversed copy. A float x holding NaN is
    # ranked by its `order_key`s (NaN the largest), values gathered
    if k == 0 or 0 in x.shape:  # nothing to pick: TF's top_k and gather gradients fail
        shape = [k if a == axis else d for a, d in enumerate(x.shape)]
        return tf.zeros(shape, x.dtype), tf.zeros(shape, tf.int64)
    perm, back = move_last(len(x.shape), axis)
    xt = tf.transpose(x, perm)

    def pick(keys, flip):
        # int32 indices: TF's top_k gradient breaks on int64 ones
        return tf.math.top_k(keys if largest else flip(keys), k, index_type=tf.int32)[1]
    if x.dtype.is_floating:
        indices = tf.cond(tf.reduce_any(tf.math.is_nan(xt)),
                          lambda: pick(order_key(xt), tf.bitwise.invert),
                          lambda: pick(xt, tf.math.negative))
    else:
        indices = pick(xt, tf.bitwise.invert)
    values = tf.gather(xt, indices, batch_dims=len(x.shape) - 1)
    return tf.transpose(values, back), tf.cast(tf.transpose(indices, back), tf.int64)


def layer_norm(x, weight, bias, axes, eps):
    # the Keras LayerNormalization recipe: moments, then tf.nn.batch_normalization
    mean, var = tf.nn.moments(x, axes=axes, keepdims=True)
    shape = [x.shape[i] if i in axes else 1 for i in range(min(axes), len(x.shape))]
    scale = None if weight is None else tf.reshape(weight, shape)
    offset = None if bias is None else tf.reshape(bias, shape)
    return tf.nn.batch_normalization(x, mean, var, offset, scale, eps)


def random_uniform(key, shape, low, high, dtype):
    u = tf.random.stateless_uniform(shape, seed=tf.stack([key, 0]), minval=low, maxval=high,
                                    dtype=dtype)
    # low + (high - low) * u can round up to high; keep [low, high)
    np_dtype = dtype.as_numpy_dtype
    top = np.nextafter(np.asarray(high, np_dtype), np.asarray(low, np_dtype))
    return tf.minimum(u, tf.constant(top, dtype))


def attention(q, k, v, mask, causal, scale):
    # softmax(q k^T * scale + mask) v as TF users write it: matmul with transpose_b and
    # a 2-D band_part causal mask (True keeps, a float mask adds), broadcast over batch
    scale = q.shape[-1] ** -0.5 if scale is None else scale
    scores = tf.linalg.matmul(q, k, transpose_b=True) * tf.constant(scale, q.dtype)
    blocked = tf.constant(float("-inf"), q.dtype)
    if causal:
        keep = tf.linalg.band_part(tf.ones(scores.shape[-2:], tf.bool), -1, 0)
        scores = tf.where(keep, scores, blocked)
    if mask is None:
        return tf.linalg.matmul(tf.nn.softmax(scores, axis=-1), v)
    scores = tf.where(mask, scores, blocked) if mask.dtype == tf.bool else \
        scores + tf.cast(mask, q.dtype)
    # a row whose keys are all masked out attends to nothing: zeros, not NaN
    # (also in the gradient: the softmax of such a row runs on zeros instead of -inf)
    empty = tf.reduce_all(scores == blocked, axis=-1, keepdims=True)
    zero = tf.zeros((), q.dtype)
    probs = tf.nn.softmax(tf.where(empty, zero, scores), axis=-1)
    return tf.linalg.matmul(tf.where(empty, zero, probs), v)


def sign_bit(v):
    # v's sign bits (TF has no signbit): -0.0 and negative NaNs too
    return tf.bitcast(v, tf.int64 if v.dtype == tf.float64 else tf.int32) < 0


def complex_log(z):
    # log|z| + i arg z with |z| from its larger part and the ratio of the parts (TF's own
    # squares them: NaN past ~1e154 and below ~1e-154); non-finite parts are the table's
    a, b = tf.math.abs(tf.math.real(z)), tf.math.abs(tf.math.imag(z))
    big, small = tf.math.maximum(a, b), tf.math.minimum(a, b)
    ratio = small / tf.where(big == 0, tf.ones_like(big), big)
    modulus = tf.math.log(big) + 0.5 * tf.math.log1p(ratio * ratio)
    return tf.complex(modulus, tf.math.atan2(tf.math.imag(z), tf.math.real(z)))


def complex_ops():
    # TF's functions for `complex_special` (`ivy_ir.core.complex_kernel`); TF has no
    # signbit or copysign, and caches eager scalars by value (a -0.0 would read as an
    # earlier 0.0: negated here)
    def constant(v, like):
        c = tf.constant(abs(v), like.dtype)
        return -c if np.signbit(v) else c
    return {"is_complex": lambda z: z.dtype.is_complex, "real": tf.math.real,
            "imag": tf.math.imag, "complex": tf.complex, "signbit": sign_bit,
            "where": tf.where, "isinf": tf.math.is_inf, "isnan": tf.math.is_nan,
            "isfinite": tf.math.is_finite, "abs": tf.math.abs, "cos": tf.math.cos,
            "sin": tf.math.sin, "constant": constant, "stop_gradient": tf.stop_gradient,
            "copysign": lambda x, s: tf.where(sign_bit(x) == sign_bit(s), x, -x)}
