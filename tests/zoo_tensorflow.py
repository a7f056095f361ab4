"""The TensorFlow zoo: programs written the way TF / Keras users write them.

Functions take TF tensors (the matrix converts the NumPy inputs); Keras models are
called as `model(x)` (inference). Weights come from seeded initializers or
`np.random.default_rng`, so every run sees the same numbers.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf
from zoo_common import ZooProgram
from zoo_tensorflow_models import MODEL_PROGRAMS, build_500_op

__all__ = ["PROGRAMS", "build_500_op"]

rng = np.random.default_rng(7)


def f32(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def ints(low: int, high: int, *shape: int, dtype: type = np.int32) -> np.ndarray:
    return rng.integers(low, high, shape).astype(dtype)


def elementwise_math(x):
    y = tf.exp(-tf.abs(x)) + tf.math.log1p(tf.square(x)) - tf.sin(x) * tf.cos(x)
    return tf.tanh(y) + tf.sqrt(tf.abs(x) + 1.0) * tf.math.rsqrt(tf.abs(x) + 2.0)


def unary_misc(x):
    return (tf.math.sign(x) * tf.math.reciprocal(tf.abs(x) + 1.0), tf.floor(x * 3.0),
            tf.math.ceil(x * 3.0), tf.round(x * 2.0), tf.math.erf(x), tf.math.expm1(x / 4.0))


def broadcasting(x, y):
    # (3, 1, 4) against (5, 4)
    return tf.maximum(x, y) * 2.0 - tf.minimum(x, y) / (tf.abs(y) + 1.0) + \
        tf.math.squared_difference(x, y)


def power_and_division(x, y):
    a = tf.abs(x) + 0.5
    return tf.pow(a, y), tf.math.floordiv(x, a), tf.math.floormod(x, a), \
        tf.math.divide_no_nan(x, tf.where(y > 0, y, 0.0)), tf.truncatediv(x, a)


def integer_arithmetic(a, b):
    # integer outputs: floor division and modulo round toward -inf, truncatediv toward 0
    return (a // b, a % b, tf.truncatediv(a, b), tf.truncatemod(a, b), a * b - a,
            tf.bitwise.bitwise_and(a, b), tf.bitwise.left_shift(tf.abs(a), 1))


def comparisons(x, y):
    close = tf.logical_and(x > -0.5, x <= y)
    far = tf.logical_or(tf.equal(tf.sign(x), tf.sign(y)), tf.not_equal(x, y))
    return tf.math.logical_xor(close, far), tf.logical_not(close), x >= y


def where_select(x, y):
    return tf.where(x > 0.0, x, y * 2.0) + tf.where(y < x, 1.0, -1.0)


def reductions(x):
    return (tf.reduce_sum(x, axis=1), tf.reduce_mean(x, axis=[0, 2], keepdims=True),
            tf.reduce_max(x, axis=-1), tf.reduce_min(x), tf.reduce_prod(x[:, :2], axis=1),
            tf.math.reduce_std(x, axis=0), tf.math.reduce_logsumexp(x, axis=-1),
            tf.norm(x, axis=-1), tf.math.reduce_euclidean_norm(x, axis=1),
            tf.add_n([x, x * 2.0, tf.abs(x)]))


def bool_reductions(x):
    pos = x > 0.0
    return tf.reduce_all(pos, axis=1), tf.reduce_any(pos, axis=[0, 2], keepdims=True), \
        tf.math.count_nonzero(pos, axis=1)


def int_reductions(a):
    # TF's integer mean truncates toward zero
    return tf.reduce_sum(a, axis=0), tf.reduce_mean(a, axis=1), tf.reduce_max(a)


def arg_reductions(x):
    return tf.argmax(x, axis=1), tf.argmin(x, axis=0, output_type=tf.int32)


def scans(x):
    return (tf.cumsum(x, axis=1), tf.cumsum(x, axis=0, exclusive=True),
            tf.cumsum(x, axis=1, reverse=True), tf.math.cumprod(x * 0.5 + 1.0, axis=1,
                                                                 exclusive=True, reverse=True))


def basic_indexing(x):
    # (4, 5, 6)
    return x[1:, ::2], x[..., -1], x[:, tf.newaxis, 2], x[-1], x[1:3, 4, :-2], \
        tf.slice(x, [1, 0, 2], [2, -1, 3])


def strided_negative(x):
    return x[::-1], x[:, 4:0:-2], x[-2::-1, 1:-1:2, ::3]


def static_boolean_mask(x):
    mask = np.array([True, False, True, True, False])
    return tf.boolean_mask(x, mask, axis=1), tf.boolean_mask(x, x.shape[0] * [True])


def gathers(x, idx):
    return tf.gather(x, idx, axis=1), tf.gather(x, [2, 0]), \
        tf.gather_nd(x, [[0, 1], [2, 3]]), tf.gather_nd(x, [[1], [0]])


def scatters(x, upd):
    idx = tf.constant([[0], [2]])
    return tf.tensor_scatter_nd_update(x, idx, upd), \
        tf.tensor_scatter_nd_add(x, [[1, 1], [3, 2], [1, 1]], [1.0, 2.0, 3.0]), \
        tf.scatter_nd(idx, upd, [4, 5]), tf.tensor_scatter_nd_sub(x, idx, upd)


def join_and_split(x, y):
    a, b, c = tf.split(tf.concat([x, y], axis=1), [2, -1, 3], axis=1)
    p, q = tf.split(x, 2, axis=0)
    rows = tf.unstack(x, axis=0)
    return tf.stack([rows[0], rows[-1]], axis=1), a, b, c * 2.0, p - q


def padding(x):
    return tf.pad(x, [[1, 2], [0, 3]]), tf.pad(x, [[1, 1], [2, 2]], mode="REFLECT"), \
        tf.pad(x, [[2, 1], [1, 3]], mode="SYMMETRIC"), tf.pad(x, [[0, 1], [1, 0]],
                                                            constant_values=-2.0)


def shape_ops(x):
    # (2, 1, 3)
    t = tf.transpose(x, [2, 0, 1])
    return (tf.tile(x, [2, 3, 1]), tf.broadcast_to(x, [4, 2, 5, 3]), tf.expand_dims(t, -1),
            tf.squeeze(x), tf.reshape(t, [-1]), tf.reverse(x, axis=[0, 2]),
            tf.roll(x, shift=[1, -1], axis=[0, 2]))


def dynamic_shape_math(x):
    # shapes computed from tf.shape are static per trace
    n, d = tf.shape(x)[0], tf.shape(x)[1]
    flat = tf.reshape(x, [n * d])
    half = tf.reshape(flat, [n, d // 2, 2])
    return tf.reduce_sum(half, axis=-1) * tf.cast(tf.size(x), tf.float32), tf.rank(x)


def matmuls(a, b, c):
    return tf.matmul(a, b, transpose_b=True), tf.matmul(a, a, transpose_a=True), \
        tf.linalg.matmul(c, c, adjoint_a=True), a @ tf.transpose(b)


def einsums(x, y):
    return tf.einsum("bij,bjk->bik", x, y), tf.einsum("...ij->...ji", x), \
        tf.einsum("bij,bij->b", x, x), tf.einsum("bij,bkj->bik", x, x)


def conv2d_raw(x, w):
    # NHWC: SAME stride 2, VALID with dilation
    return tf.nn.conv2d(x, w, strides=2, padding="SAME"), \
        tf.nn.conv2d(x, w, strides=1, padding="VALID", dilations=2), \
        tf.nn.conv2d(x, w, strides=[1, 1, 2, 1], padding=[[0, 0], [1, 2], [0, 1], [0, 0]])


def depthwise_conv(x, w):
    return tf.nn.depthwise_conv2d(x, w, strides=[1, 1, 1, 1], padding="SAME"), \
        tf.nn.depthwise_conv2d(x, w, strides=[1, 2, 2, 1], padding="VALID")


def pooling(x):
    return (tf.nn.max_pool2d(x, 3, 2, "SAME"), tf.nn.avg_pool2d(x, 3, 2, "SAME"),
            tf.nn.max_pool2d(x, 2, 2, "VALID"), tf.nn.avg_pool2d(x, [2, 3], [1, 2], "VALID"))


def conv_transpose(x, w):
    # w: (kh, kw, out, in)
    return tf.nn.conv2d_transpose(x, w, [2, 10, 10, 3], strides=2, padding="SAME"), \
        tf.nn.conv2d_transpose(x, w, [2, 11, 11, 3], strides=2, padding="VALID")


def activations(x):
    return (tf.nn.relu6(x * 4.0), tf.nn.elu(x), tf.nn.selu(x), tf.nn.leaky_relu(x, 0.1),
            tf.nn.softplus(x), tf.nn.softsign(x), tf.nn.silu(x), tf.nn.sigmoid(x),
            tf.nn.gelu(x), tf.nn.gelu(x, approximate=True), tf.nn.softmax(x, axis=0),
            tf.nn.log_softmax(x))


def normalisation(x, gamma, beta):
    mean, var = tf.nn.moments(x, axes=[0, 1, 2])
    bn = tf.nn.batch_normalization(x, mean, var, beta, gamma, 1e-3)
    ln_mean, ln_var = tf.nn.moments(x, axes=[-1], keepdims=True)
    return bn, (x - ln_mean) * tf.math.rsqrt(ln_var + 1e-5), tf.math.l2_normalize(x, axis=-1)


def fused_batch_norm(x, scale, offset, mean, var):
    y, _, _ = tf.compat.v1.nn.fused_batch_norm(x, scale, offset, mean, var, epsilon=1e-3,
                                               is_training=False)
    return y


def attention(q, k, v):
    # causal scaled dot-product attention with a band_part mask
    d = tf.cast(tf.shape(q)[-1], tf.float32)
    scores = tf.matmul(q, k, transpose_b=True) / tf.sqrt(d)
    causal = tf.linalg.band_part(tf.ones_like(scores), -1, 0)
    scores = tf.where(causal > 0, scores, -1e9)
    return tf.matmul(tf.nn.softmax(scores, axis=-1), v)


def band_parts(x):
    return tf.linalg.band_part(x, 1, 0), tf.linalg.band_part(x, 0, -1), \
        tf.linalg.band_part(x, 1, 2)


def rnn_cell(xs, h0):
    # an Elman RNN unrolled over 4 steps with weights made from a fixed seed
    w = tf.constant(np.random.default_rng(1).standard_normal((3, 5)).astype(np.float32))
    u = tf.constant(np.random.default_rng(2).standard_normal((5, 5)).astype(np.float32) * 0.3)
    h, outs = h0, []
    for t in range(xs.shape[1]):
        h = tf.tanh(tf.matmul(xs[:, t], w) + tf.matmul(h, u) + 0.1)
        outs.append(h)
    return tf.stack(outs, axis=1), h


def gru_cell(xs, h):
    wz, wr, wh = (tf.constant(np.random.default_rng(s).standard_normal((8, 4)), tf.float32)
                  for s in (3, 4, 5))
    for t in range(xs.shape[1]):
        xh = tf.concat([xs[:, t], h], axis=-1)
        z, r = tf.sigmoid(xh @ wz), tf.sigmoid(xh @ wr)
        cand = tf.tanh(tf.concat([xs[:, t], r * h], axis=-1) @ wh)
        h = (1.0 - z) * h + z * cand
    return h


def promotion_int_float(a, x):
    # TF never promotes implicitly: users cast (int32 -> float32, float32 -> float64)
    y = tf.cast(a, tf.float32) * x + 1.0
    return y, tf.cast(y, tf.float64) + tf.constant(0.5, tf.float64), tf.math.truediv(a, a + 3)


def promotion_mixed_widths(a16, b64, x64):
    return tf.cast(a16, tf.int64) + b64, x64 * tf.cast(b64, tf.float64), \
        tf.cast(tf.cast(x64, tf.float32) > 0.0, tf.int32)


def one_hot_topk_sort(x, labels):
    values, indices = tf.math.top_k(x, k=3)
    return (tf.one_hot(labels, 5), tf.one_hot(labels, 4, on_value=2.0, off_value=-1.0, axis=0),
            values, indices, tf.sort(x, axis=-1, direction="DESCENDING"), tf.argsort(x))


def creation(x):
    n = x.shape[0]
    r = tf.range(2, 2 + 3 * n, 3)
    return (tf.cast(r, tf.float32) + tf.zeros_like(x[:, 0]), tf.ones_like(x) * tf.fill([1, 4], 0.5),
            tf.linspace(0.0, 1.0, 5), tf.range(n, dtype=tf.float32), tf.eye(3) + 1.0)


def clipping_rounding(x):
    return tf.clip_by_value(x, -0.5, 0.75), tf.clip_by_value(x, x * 0.5, 1.0), \
        tf.math.rint(x * 2.0), tf.cast(x * 3.0, tf.int32)


def int_and_bool_outputs(x):
    return tf.cast(x > 0.0, tf.int64) * 3, tf.math.is_finite(x), tf.math.is_nan(x / x), \
        tf.size(x) + 0


def xlogy_family(x, y):
    a = tf.where(x > 0, x, 0.0)
    return tf.math.xlogy(a, tf.abs(y) + 0.1), tf.math.xdivy(a, y), tf.math.multiply_no_nan(x, a)


def volumetric(x, w):
    y = tf.nn.conv3d(x, w, strides=[1, 1, 2, 1, 1], padding="SAME")
    return tf.nn.max_pool3d(y, 2, 1, "VALID"), tf.nn.avg_pool3d(y, [1, 2, 2], 2, "SAME")


def misc_ops(x, v):
    rows = tf.compat.v1.where(v > 0.0, x, -x)  # v1 Select: a vector picks whole rows
    shape = tf.broadcast_dynamic_shape(tf.concat([tf.shape(v), [1]], 0), [1, 4])
    return (tf.linalg.diag_part(x), rows, tf.math.atan2(x, x + 1.5),
            tf.broadcast_to(v[:, None], shape), tf.linalg.diag(v))


def nested_tf_function(x):
    return _scaled_relu(x) + _scaled_relu(-x)


@tf.function
def _scaled_relu(x):
    return tf.nn.relu(x) * 2.0


def image_resize(x):
    # bilinear (odd sizes), nearest (integer upscale) and antialiased upscaling resizes
    return (tf.image.resize(x, (5, 11)), tf.image.resize(x, (14, 18), method="nearest"),
            tf.image.resize(x, (9, 12), antialias=True))


def dilated_convolutions(x, w):
    # TF runs these as SpaceToBatchND -> convolution -> BatchToSpaceND
    return (tf.nn.convolution(x, w, padding="SAME", dilations=(2, 3)),
            tf.nn.atrous_conv2d(x, w, rate=2, padding="VALID"))


PROGRAMS: list[ZooProgram] = [
    ZooProgram("elementwise_math", elementwise_math, (f32(3, 4),)),
    ZooProgram("unary_misc", unary_misc, (f32(3, 5),)),
    ZooProgram("broadcasting", broadcasting, (f32(3, 1, 4), f32(5, 4))),
    ZooProgram("power_and_division", power_and_division, (f32(4, 5), f32(4, 5))),
    ZooProgram("integer_arithmetic", integer_arithmetic,
               (ints(-20, 20, 3, 4), ints(1, 6, 3, 4) * np.array([1, -1, 1, -1], np.int32))),
    ZooProgram("comparisons", comparisons, (f32(4, 3), f32(4, 3))),
    ZooProgram("where_select", where_select, (f32(3, 4), f32(3, 4))),
    ZooProgram("reductions", reductions, (f32(3, 4, 5),)),
    ZooProgram("bool_reductions", bool_reductions, (f32(3, 4, 2),)),
    ZooProgram("int_reductions", int_reductions, (ints(-9, 9, 4, 5),)),
    ZooProgram("arg_reductions", arg_reductions, (f32(4, 6),)),
    ZooProgram("scans", scans, (f32(3, 5),)),
    ZooProgram("basic_indexing", basic_indexing, (f32(4, 5, 6),)),
    ZooProgram("strided_negative", strided_negative, (f32(6, 5, 7),)),
    ZooProgram("static_boolean_mask", static_boolean_mask, (f32(3, 5),)),
    ZooProgram("gathers", gathers, (f32(3, 5), np.array([4, 0, 2, 2], np.int32))),
    ZooProgram("scatters", scatters, (f32(4, 5), f32(2, 5))),
    ZooProgram("join_and_split", join_and_split, (f32(4, 3), f32(4, 6))),
    ZooProgram("padding", padding, (f32(3, 4),)),
    ZooProgram("shape_ops", shape_ops, (f32(2, 1, 3),)),
    ZooProgram("dynamic_shape_math", dynamic_shape_math, (f32(3, 4),)),
    ZooProgram("matmuls", matmuls, (f32(4, 3), f32(5, 3), f32(2, 3, 4))),
    ZooProgram("einsums", einsums, (f32(2, 3, 4), f32(2, 4, 5))),
    ZooProgram("conv2d_raw", conv2d_raw, (f32(2, 9, 9, 3), f32(3, 3, 3, 4) * 0.3)),
    ZooProgram("depthwise_conv", depthwise_conv, (f32(2, 7, 7, 3), f32(3, 3, 3, 2) * 0.3)),
    ZooProgram("pooling", pooling, (f32(2, 7, 8, 3),)),
    ZooProgram("conv_transpose", conv_transpose, (f32(2, 5, 5, 4), f32(3, 3, 3, 4) * 0.3)),
    ZooProgram("activations", activations, (f32(4, 6),)),
    ZooProgram("normalisation", normalisation, (f32(2, 3, 3, 4), f32(4), f32(4))),
    ZooProgram("fused_batch_norm", fused_batch_norm,
               (f32(2, 4, 4, 3), f32(3), f32(3), f32(3), np.abs(f32(3)) + 0.5)),
    ZooProgram("attention", attention, (f32(2, 5, 4), f32(2, 5, 4), f32(2, 5, 3))),
    ZooProgram("band_parts", band_parts, (f32(2, 4, 5),)),
    ZooProgram("rnn_cell", rnn_cell, (f32(2, 4, 3), f32(2, 5))),
    ZooProgram("gru_cell", gru_cell, (f32(2, 3, 4), f32(2, 4))),
    ZooProgram("promotion_int_float", promotion_int_float, (ints(-5, 5, 3, 4), f32(3, 4))),
    ZooProgram("promotion_mixed_widths", promotion_mixed_widths,
               (ints(-5, 5, 3, dtype=np.int16), ints(-5, 5, 3, dtype=np.int64),
                rng.standard_normal(3))),
    ZooProgram("one_hot_topk_sort", one_hot_topk_sort, (f32(3, 6), np.array([0, 4, 2], np.int32))),
    ZooProgram("creation", creation, (f32(4, 4),)),
    ZooProgram("clipping_rounding", clipping_rounding, (f32(4, 5),)),
    ZooProgram("int_and_bool_outputs", int_and_bool_outputs, (f32(3, 4),)),
    ZooProgram("xlogy_family", xlogy_family, (f32(3, 4), f32(3, 4))),
    ZooProgram("volumetric", volumetric, (f32(2, 4, 5, 5, 2), f32(2, 2, 2, 2, 3) * 0.3)),
    ZooProgram("misc_ops", misc_ops, (f32(4, 4), f32(4))),
    ZooProgram("nested_tf_function", nested_tf_function, (f32(3, 4),)),
    ZooProgram("image_resize", image_resize, (f32(2, 7, 9, 3),)),
    ZooProgram("dilated_convolutions", dilated_convolutions,
               (f32(2, 11, 10, 3), f32(3, 2, 3, 4) * 0.3)),
    *MODEL_PROGRAMS,
]
