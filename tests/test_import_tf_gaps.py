"""TF raw ops and calling conventions Keras models meet: image resizing
(every `tf.image.resize` method: `ivy.interpolate` where its mode matches, else
exact per-axis takes or matrix products),
dilated convolutions (SpaceToBatchND / BatchToSpaceND), linear algebra with a unique
result, multi-input functional models, and source detection through wrapped JAX
helpers. Each program is imported once and run on the NumPy, JAX and PyTorch targets
against TF's / Keras' own output."""

from __future__ import annotations

import functools

import keras
import numpy as np
import pytest
import tensorflow as tf

import ivy_ir
from ivy_ir.core.errors import UnsupportedOpsError

TARGETS = ("numpy", "jax", "torch")
TOL = {"rtol": 1e-5, "atol": 1e-5}
rng = np.random.default_rng(17)
IMAGES = rng.standard_normal((2, 7, 9, 3)).astype(np.float32)


def _np(x):
    return x.detach().numpy() if hasattr(x, "detach") else np.asarray(x)


def _check(fn, args, targets=TARGETS):
    """Import `fn` once; every target's output equals TF's (1e-5, in TF's dtype)."""
    want = np.asarray(fn(*args))
    module = ivy_ir.trace(fn, args, source="tensorflow")
    for target in targets:
        got = _np(ivy_ir.compile(module, target=target)(*args))
        assert got.dtype == want.dtype, target
        np.testing.assert_allclose(got, want, **TOL, err_msg=target)
    return module


def _v1(op, size, **flags):
    return lambda x: getattr(tf.raw_ops, op)(images=x, size=size, **flags)


RESIZES = {
    # tf.image.resize: half-pixel centers; bilinear maps for any sizes (odd ones here)
    "bilinear-down-up": lambda x: tf.image.resize(x, (5, 11)),
    "bilinear-up": lambda x: tf.image.resize(x, (14, 27)),
    "bilinear-align-corners": _v1("ResizeBilinear", (5, 13), align_corners=True),
    "bilinear-legacy-integer-down": _v1("ResizeBilinear", (7, 3)),  # lands on pixels: nearest
    # half-pixel nearest equals floor-nearest for integer upscales
    "nearest-up": lambda x: tf.image.resize(x, (14, 27), method="nearest"),
    "nearest-legacy": _v1("ResizeNearestNeighbor", (5, 11)),
    "nearest-legacy-up": _v1("ResizeNearestNeighbor", (21, 18)),
    # antialiasing changes nothing when both axes grow: a triangle kernel is bilinear
    "antialias-up": lambda x: tf.image.resize(x, (14, 18), antialias=True),
    "scale-and-translate-no-antialias": lambda x: tf.raw_ops.ScaleAndTranslate(
        images=x, size=[4, 13], scale=[4 / 7, 13 / 9], translation=[0.0, 0.0],
        kernel_type="triangle", antialias=False),
}


SEPARABLE = {
    # no interpolate mode samples these positions: a take (nearest) or a matrix product
    # per axis, computed from TF's own index rules and kernels
    "nearest-half-pixel-down": (lambda x: tf.image.resize(x, (5, 11), method="nearest"),
                                "ivy.take"),
    "nearest-align-corners": (_v1("ResizeNearestNeighbor", (5, 11), align_corners=True),
                              "ivy.take"),
    "bilinear-legacy": (_v1("ResizeBilinear", (5, 11)), "ivy.matmul"),
    "antialias-down": (lambda x: tf.image.resize(x, (5, 11), antialias=True), "ivy.matmul"),
    "bicubic": (lambda x: tf.image.resize(x, (14, 18), method="bicubic"), "ivy.matmul"),
    "bicubic-down": (lambda x: tf.image.resize(x, (4, 5), method="bicubic"), "ivy.matmul"),
    "bicubic-legacy": (_v1("ResizeBicubic", (11, 6)), "ivy.matmul"),
    "bicubic-align-corners": (_v1("ResizeBicubic", (11, 13), align_corners=True),
                              "ivy.matmul"),
    "bicubic-antialias-down": (lambda x: tf.image.resize(x, (4, 5), method="bicubic",
                                                         antialias=True), "ivy.matmul"),
    "area": (lambda x: tf.image.resize(x, (4, 5), method="area"), "ivy.matmul"),
    "area-align-corners": (_v1("ResizeArea", (5, 4), align_corners=True), "ivy.matmul"),
    **{kernel: (functools.partial(tf.image.resize, size=(5, 14), method=kernel),
                "ivy.matmul")
       for kernel in ("lanczos3", "lanczos5", "gaussian", "mitchellcubic")},
    "box-kernel": (lambda x: tf.raw_ops.ScaleAndTranslate(
        images=x, size=[4, 13], scale=[4 / 7, 13 / 9], translation=[0.5, -1.0],
        kernel_type="box", antialias=True), "ivy.matmul"),
}


@pytest.mark.parametrize("name", RESIZES)
def test_resize_matches_tf_on_every_target(name):
    module = _check(RESIZES[name], (IMAGES,))
    assert "ivy.interpolate" in str(module)


@pytest.mark.parametrize("dtype", [np.float64, np.uint8, np.int16, np.int64])
def test_nearest_resize_keeps_the_dtype(dtype):
    # nearest copies pixels: integer images are a take of them, in their dtype
    x = (IMAGES * 40).astype(dtype)
    _check(lambda v: tf.image.resize(v, (14, 18), method="nearest"), (x,))


@pytest.mark.parametrize("name", SEPARABLE)
def test_resize_without_an_interpolate_mode_is_exact_per_axis(name):
    fn, op = SEPARABLE[name]
    module = _check(fn, (IMAGES,))
    assert "ivy.interpolate" not in str(module) and op in str(module)


def test_resize_to_a_size_known_only_at_run_time_is_reported():
    fn = tf.function(lambda x, size: tf.image.resize(x, size, method="bicubic"))
    with pytest.raises(UnsupportedOpsError, match=r"ResizeBicubic \(.*size"):
        ivy_ir.trace(fn, (IMAGES, np.array([4, 5], np.int32)), source="tensorflow")


FILTER = rng.standard_normal((3, 2, 3, 4)).astype(np.float32)
SPACE_BATCH = {
    "space-to-batch": lambda x: tf.space_to_batch(x, [2, 3], [[1, 0], [2, 1]]) * 2.0,
    "round-trip": lambda x: tf.batch_to_space(
        tf.space_to_batch(x, [2, 3], [[1, 0], [2, 1]]) + 1.0, [2, 3], [[0, 1], [1, 1]]),
    "1d-block": lambda x: tf.batch_to_space(
        tf.space_to_batch(x, [3], [[1, 1]]) - 1.0, [3], [[1, 0]]),
    # a SAME convolution of the phases is no dilated convolution: not folded
    "same-conv-between": lambda x: tf.batch_to_space(tf.nn.conv2d(
        tf.space_to_batch(x, [2, 2], [[1, 0], [1, 0]]), FILTER, 1, "SAME"), [2, 2],
        [[0, 1], [1, 0]]),
}


@pytest.mark.parametrize("name", SPACE_BATCH)
def test_space_batch_ops_import_generally(name):
    _check(SPACE_BATCH[name], (IMAGES,))


def _spd(x):
    return tf.matmul(x, x, transpose_b=True) + 4.0 * tf.eye(4, dtype=x.dtype)


LINALG = {
    "cholesky": lambda x: tf.linalg.cholesky(_spd(x)),
    "inverse": lambda x: tf.linalg.inv(_spd(x)),
    "inverse-adjoint": lambda x: tf.raw_ops.MatrixInverse(input=_spd(x) + x, adjoint=True),
    "determinant": lambda x: tf.linalg.det(_spd(x)),
    "solve": lambda x: tf.linalg.solve(_spd(x) + x, x[..., :3]),
    "solve-adjoint": lambda x: tf.linalg.solve(_spd(x) + x, x, adjoint=True),
    "l2_loss and global_norm": lambda x: tf.linalg.global_norm([x, tf.nn.l2_loss(x) * x]),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", LINALG)
def test_linear_algebra_with_a_unique_result(name, dtype):
    _check(LINALG[name], (rng.standard_normal((3, 4, 4)).astype(dtype),))


def _dilated(layer, shape=(2, 11, 10, 3)):
    x = rng.standard_normal(shape).astype(np.float32)
    layer(x)
    return layer, x


DILATED = {
    "conv-same-2": lambda: _dilated(keras.layers.Conv2D(4, 3, dilation_rate=2, padding="same")),
    "conv-valid-2x3": lambda: _dilated(keras.layers.Conv2D(4, (3, 2), dilation_rate=(2, 3))),
    "conv-same-odd-3": lambda: _dilated(keras.layers.Conv2D(2, 3, dilation_rate=3,
                                                            padding="same"), (1, 9, 13, 2)),
    "depthwise-same-2x3": lambda: _dilated(keras.layers.DepthwiseConv2D(
        3, dilation_rate=(2, 3), padding="same", depth_multiplier=2)),
    "separable-same-2": lambda: _dilated(keras.layers.SeparableConv2D(4, 3, dilation_rate=2,
                                                                      padding="same")),
    "conv3d-same-2": lambda: _dilated(keras.layers.Conv3D(2, 2, dilation_rate=2, padding="same"),
                                      (1, 5, 6, 7, 2)),
}


@pytest.mark.parametrize("name", DILATED)
def test_dilated_keras_convolution_is_one_dilated_conv(name):
    layer, x = DILATED[name]()
    ir = str(_check(layer, (x,)))  # as imported: the phase reshuffles are gone already
    assert ir.count("ivy.conv ") == (2 if "separable" in name else 1)
    assert "dilations = [" in ir and "permute_dims" not in ir


@pytest.mark.parametrize("padding", ["causal", "same"])
def test_dilated_conv1d_is_one_dilated_conv(padding):
    # Conv1D reaches a 2-D convolution through ExpandDims/Squeeze of phases and filter
    layer, x = _dilated(keras.layers.Conv1D(4, 3, dilation_rate=3, padding=padding), (2, 13, 3))
    ir = str(_check(layer, (x,)))
    assert ir.count("ivy.conv ") == 1 and "dilations = [3]" in ir and "permute_dims" not in ir


def _keras_model_with_resizing():
    x = keras.Input((7, 9, 3))
    y = keras.layers.Resizing(12, 15)(x)
    y = keras.layers.Conv2D(4, 3, dilation_rate=2, padding="same", activation="relu")(y)
    y = keras.layers.UpSampling2D(2, interpolation="bilinear")(y)
    y = keras.layers.DepthwiseConv2D(3, dilation_rate=(2, 2))(y)
    y = keras.layers.UpSampling2D((1, 2))(y)
    return keras.Model(x, keras.layers.Resizing(40, 104, interpolation="nearest")(y))


def test_keras_model_with_resizing_and_dilated_convolutions():
    model = _keras_model_with_resizing()
    _check(model, (IMAGES,))


@functools.cache
def _two_input_models():
    a, b = keras.Input((4,), name="a"), keras.Input((3,), name="b")
    y = keras.layers.Dense(2)(keras.layers.Concatenate()([a, keras.layers.Dense(4)(b) * 2.0]))
    return keras.Model([a, b], y), keras.Model({"b": b, "a": a}, y)


A, B = (rng.standard_normal(s).astype(np.float32) for s in ((2, 4), (2, 3)))
CALLS = {"positional": (A, B), "list": ([A, B],), "tuple": ((A, B),),
         "dict": ({"a": A, "b": B},)}


@pytest.mark.parametrize("keyed", [False, True], ids=["list-model", "dict-model"])
@pytest.mark.parametrize("call", CALLS)
def test_multi_input_keras_model_in_every_calling_convention(call, keyed):
    model = _two_input_models()[keyed]
    want = np.asarray(model({"a": A, "b": B}))
    module = ivy_ir.trace(model, CALLS[call])
    assert module.input_names == ["a", "b"]
    for target in TARGETS:
        c = ivy_ir.compile(module, target=target)
        np.testing.assert_allclose(_np(c(A, B)), want, **TOL, err_msg=target)
        np.testing.assert_allclose(_np(c(a=A, b=B)), want, **TOL, err_msg=target)
        # and the way the Keras model itself is called: one list, or a dict by name
        np.testing.assert_allclose(_np(c([A, B])), want, **TOL, err_msg=target)
        np.testing.assert_allclose(_np(c({"b": B, "a": A})), want, **TOL, err_msg=target)


@pytest.mark.parametrize("args", [(A,), (A, B, B), ([A],), ({"a": A, "c": B},)],
                         ids=["one", "three", "short-list", "wrong-key"])
def test_multi_input_keras_model_names_its_inputs_on_a_mismatch(args):
    with pytest.raises(TypeError, match=r"takes 2 inputs \(a, b\)"):
        ivy_ir.compile(_two_input_models()[0], args=args)
    c = ivy_ir.compile(_two_input_models()[0], args=(A, B))
    with pytest.raises(TypeError, match=r"takes 2 input\(s\) \(a, b\), got|inputs are \(a, b\)"):
        c(*args)


def test_source_of_a_function_calling_wrapped_jax_helpers_is_jax():
    # jit-, custom_jvp- and checkpoint-wrapped helpers keep the user's `__module__`: their
    # type names the framework, and NumPy example arrays then go to the JAX importer
    import jax
    import jax.numpy as jnp

    from importers import detect_source

    jitted = jax.jit(lambda v: jnp.sin(v) * 2.0)
    smooth = jax.custom_jvp(lambda v: jnp.tanh(v))
    smooth.defjvp(lambda p, t: (smooth(p[0]), t[0] * (1 - smooth(p[0]) ** 2)))
    remat = jax.checkpoint(lambda v: jnp.cos(v) + 1.0)
    x = rng.standard_normal((3, 4)).astype(np.float32)
    for fn in (lambda v: jitted(v) + 1.0, lambda v: smooth(v) * 3.0,
               lambda v: remat(smooth(jitted(v)))):
        assert detect_source(fn, (x,)) == "jax"
        got = ivy_ir.compile(fn, target="numpy", args=(x,))(x)
        np.testing.assert_allclose(got, np.asarray(fn(x)), **TOL)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_bucketize_counts_the_boundaries_at_or_below_each_value(dtype):
    """Keras' `Discretization` layer: ties go up, values below the first and above the
    last boundary to the end buckets, NaN past the last (TF's upper bound)."""
    x = np.array([[-3, -1, -0.5, 0, 0.5, 1, 2, 9]], np.float64)
    if dtype is not np.int32:
        x = np.concatenate([x, [[np.nan, -np.inf, np.inf, 1.0, -1.0, 0.25, 0, 2]]])
    x = x.astype(dtype)
    _check(lambda t: tf.raw_ops.Bucketize(input=t, boundaries=[-1.0, 0.0, 0.5, 2.0]), (x,),
           TARGETS + ("tensorflow",))
    layer = keras.layers.Discretization(bin_boundaries=[-1.0, 0.0, 0.5, 2.0])
    _check(lambda t: layer(t), (x,))


def test_bucketize_of_unsorted_boundaries_is_reported():
    with pytest.raises(UnsupportedOpsError, match="Bucketize.*not sorted"):
        ivy_ir.trace(lambda t: tf.raw_ops.Bucketize(input=t, boundaries=[1.0, 0.0]),
                     (np.zeros(3, np.float32),), source="tensorflow")


def test_an_unmapped_op_with_a_text_result_is_reported_with_the_rest():
    """Placeholders keep the walk going past unmapped ops; a text result (which no op but
    the string ops makes) used to fail type inference inside the importer instead."""
    def fn(x):
        return tf.strings.to_hash_bucket_fast(tf.strings.as_string(x), 5)
    with pytest.raises(UnsupportedOpsError, match=r"(?s)AsString.*StringToHashBucketFast"):
        ivy_ir.compile(tf.function(fn), target="numpy", args=(np.arange(4),))


def test_a_legacy_defun_loop_is_read_and_reported_by_name():
    """tf.nn.ctc_loss loops through legacy `Defun` functions, which hold only their
    FunctionDef (no FuncGraph): read from it, their ops are reported like any others
    (an AttributeError inside the importer before)."""
    def loss(labels, logits):
        return tf.nn.ctc_loss(labels, logits, label_length=tf.constant([3, 3]),
                              logit_length=tf.constant([6, 6]),
                              logits_time_major=False, blank_index=0)
    labels = np.array([[1, 2, 3], [2, 2, 4]], np.int32)
    logits = np.random.default_rng(3).standard_normal((2, 6, 6)).astype(np.float32)
    with pytest.raises(UnsupportedOpsError, match=r"Empty \(x2\)"):
        ivy_ir.compile(tf.function(loss), target="numpy", args=(labels, logits))


_counts = np.random.default_rng(11)
MORE_OPS = {  # name: (function, args)
    "DenseBincount with weights": (
        lambda v, w: tf.raw_ops.DenseBincount(input=v, size=6, weights=w),
        (_counts.integers(0, 7, (3, 5)), _counts.standard_normal((3, 5)).astype(np.float32))),
    "DenseBincount, binary": (
        lambda v: tf.raw_ops.DenseBincount(input=v, size=5, weights=tf.zeros([0]),
                                           binary_output=True),
        (_counts.integers(0, 7, (3, 5)),)),
    "CategoryEncoding counts (a size TF infers)": (
        keras.layers.CategoryEncoding(num_tokens=7, output_mode="count"),
        (_counts.integers(0, 7, (3, 5)),)),
    "MatrixDiagPartV3 off the main diagonal": (
        lambda x: tf.linalg.diag_part(x, k=1)[..., :3] + tf.linalg.diag_part(x, k=-1),
        (_counts.standard_normal((2, 4, 5)).astype(np.float32),)),
    "Cross": (tf.linalg.cross, (_counts.standard_normal((4, 3)).astype(np.float32),
                                _counts.standard_normal((4, 3)).astype(np.float32))),
    "Erfinv": (tf.math.erfinv, (_counts.uniform(-0.99, 0.99, (6,)).astype(np.float32),)),
}


@pytest.mark.parametrize("name", sorted(MORE_OPS))
def test_more_raw_ops_import(name):
    fn, args = MORE_OPS[name]
    _check(fn if isinstance(fn, keras.layers.Layer) else tf.function(fn), args)


def test_bitcast_of_one_width_imports_and_another_is_reported():
    """Keras' `ops.signbit` reads the sign through a Bitcast of the same width."""
    x = np.array([-0.0, 0.0, -2.5, np.inf, -np.nan, 3.0], np.float32)
    _check(tf.function(lambda v: keras.ops.signbit(v)), (x,))
    with pytest.raises(UnsupportedOpsError, match="another bit width"):
        ivy_ir.compile(tf.function(lambda v: tf.bitcast(v, tf.int16)), "numpy", args=(x,))
