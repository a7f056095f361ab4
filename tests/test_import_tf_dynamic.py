"""Dynamic dims from TensorFlow and Keras: the importer traces with `None` sizes where the
user names dims (`dynamic=`), folds TF's shape arithmetic (`tf.shape(x)[0]`, Keras'
Flatten) into size expressions, and one compiled program then serves every batch and
sequence length on the numpy, JAX, PyTorch and TensorFlow targets."""

from __future__ import annotations

import numpy as np
import pytest

import ivy_ir
from ivy_ir.core.errors import UnsupportedOpsError

tf = pytest.importorskip("tensorflow")
keras = pytest.importorskip("keras")

TARGETS = ["numpy", "jax", "torch", "tensorflow"]
BATCHES = [1, 3, 8, 17]
SIZES = [(1, 5), (3, 40), (8, 5), (17, 40)]
rng = np.random.default_rng(0)


def _import(fn, args, dynamic):
    return ivy_ir.trace(fn, tuple(args), dynamic=dynamic, source="tensorflow")


def _np(v):
    return v.detach().numpy() if hasattr(v, "detach") else np.asarray(v)


def _serves_every_size(module, reference, inputs, target):
    compiled = ivy_ir.compile(module, target=target)
    for x in inputs:
        np.testing.assert_allclose(_np(compiled(x)), np.asarray(reference(x)), rtol=1e-5,
                                   atol=2e-5, err_msg=f"{target} at {x.shape}")
    assert compiled.traces == 1


@pytest.fixture(scope="module")
def mlp():
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(16, activation="relu"),
                              keras.layers.Dense(3)])
    return model, _import(model, [np.zeros((2, 6), np.float32)], True)


@pytest.fixture(scope="module")
def cnn():
    keras.utils.set_random_seed(1)
    layers = keras.layers
    model = keras.Sequential([keras.Input((12, 12, 3)), layers.Conv2D(4, 3, activation="relu"),
                              layers.MaxPooling2D(), layers.Flatten(), layers.Dense(5)])
    return model, _import(model, [np.zeros((2, 12, 12, 3), np.float32)], True)


HEADS = 2
W = rng.standard_normal((16, 16)).astype(np.float32) * 0.3


def attention(x):
    """Multi-head self-attention whose shape code reads the input's sizes, as model code
    does: `b, s` from `tf.shape(x)`, heads split and merged by reshapes."""
    b, s = tf.shape(x)[0], tf.shape(x)[1]
    q = tf.transpose(tf.reshape(tf.matmul(x, W), [b, s, HEADS, 16 // HEADS]), [0, 2, 1, 3])
    scores = tf.nn.softmax(tf.matmul(q, q, transpose_b=True) / 8.0 ** 0.5)
    out = tf.transpose(tf.matmul(scores, q), [0, 2, 1, 3])
    return tf.reshape(out, [b, s, 16]) + tf.zeros([b, 1, 16])


@pytest.fixture(scope="module")
def attn():
    return _import(attention, [np.zeros((2, 7, 16), np.float32)],
                   {"x": {0: "batch", 1: "seq"}})


@pytest.mark.parametrize("target", TARGETS)
def test_a_keras_mlp_imported_once_serves_every_batch(mlp, target):
    model, module = mlp
    assert 'ivy.dims = ["batch", ""]' in str(module)
    inputs = [rng.standard_normal((b, 6)).astype(np.float32) for b in BATCHES]
    _serves_every_size(module, lambda x: model(x, training=False), inputs, target)


@pytest.mark.parametrize("target", TARGETS)
def test_a_keras_cnn_imported_once_serves_every_batch(cnn, target):
    model, module = cnn
    text = str(module)
    assert 'ivy.dims = ["batch", "", "", ""]' in text
    assert 'shape = ["batch", 100]' in text  # Flatten: tf.shape(x)[0] packed with 100
    inputs = [rng.standard_normal((b, 12, 12, 3)).astype(np.float32) for b in BATCHES]
    _serves_every_size(module, lambda x: model(x, training=False), inputs, target)


@pytest.mark.parametrize("target", TARGETS)
def test_an_attention_reshape_serves_every_batch_and_length(attn, target):
    text = str(attn)
    assert 'ivy.dims = ["batch", "seq", ""]' in text
    assert 'shape = ["batch", "seq", 2, 8]' in text
    assert 'shape = ["batch", 1, 16]' in text  # tf.zeros([b, 1, 16])
    inputs = [rng.standard_normal((b, s, 16)).astype(np.float32) for b, s in SIZES]
    _serves_every_size(attn, attention, inputs, target)


def test_a_reshape_to_minus_one_is_solved_from_the_operand_sizes():
    def heads(x):  # the -1 is 8: seq and batch cancel against the target's
        return tf.reshape(x, [tf.shape(x)[0], tf.shape(x)[1], HEADS, -1]) * 2.0
    module = _import(heads, [np.zeros((2, 7, 16), np.float32)], {0: {0: "batch", 1: "seq"}})
    assert "shape = [\"batch\", \"seq\", 2, 8]} : (tensor<?x?x16xf32>) -> " \
           "tensor<?x?x2x8xf32>" in str(module)


CLS = rng.standard_normal((1, 1, 4)).astype(np.float32)
SHAPE_CODE = {
    "prod": (lambda x: tf.reshape(x, [-1, tf.reduce_prod(tf.shape(x)[1:])]), '["b", "s * 4"]'),
    "unstack": (lambda x: tf.reshape(x, tf.stack(tf.unstack(tf.shape(x))[:2] + [4])),
                '["b", "s", 4]'),
    "gather": (lambda x: tf.reshape(tf.transpose(x, [1, 0, 2]), tf.concat(
        [tf.gather(tf.shape(x), [1, 0]), [-1]], 0)), '["s", "b", 4]'),
    "size": (lambda x: tf.reshape(x, [tf.size(x) // 2, 2]), '["b * s * 4 // 2", 2]'),
    "tile": (lambda x: tf.concat([tf.tile(CLS, [tf.shape(x)[0], 1, 1]), x], 1),
             '["b", 1, 4]'),
    "fill": (lambda x: x + tf.ones(tf.shape(x)[:2])[..., None], '["b", "s"]'),
}


@pytest.mark.parametrize("case", SHAPE_CODE)
def test_shape_arithmetic_folds_into_size_expressions(case):
    fn, shape = SHAPE_CODE[case]
    module = _import(fn, [np.zeros((2, 6, 4), np.float32)], {0: {0: "b", 1: "s"}})
    assert f"shape = {shape}" in str(module)
    inputs = [rng.standard_normal((b, s, 4)).astype(np.float32) for b, s in [(1, 2), (5, 8)]]
    _serves_every_size(module, fn, inputs, "numpy")


def test_a_keras_transposed_conv_takes_its_batch_from_the_input():
    keras.utils.set_random_seed(2)
    model = keras.Sequential([keras.Input((5, 5, 3)), keras.layers.Conv2DTranspose(
        4, 3, strides=2, padding="same"), keras.layers.Flatten()])
    module = _import(model, [np.zeros((2, 5, 5, 3), np.float32)], True)
    assert 'shape = ["batch", 400]' in str(module)
    inputs = [rng.standard_normal((b, 5, 5, 3)).astype(np.float32) for b in (1, 3)]
    _serves_every_size(module, lambda x: model(x, training=False), inputs, "numpy")


def test_a_size_used_as_a_value_is_reported_clearly():
    def mean(x):
        return tf.reduce_sum(x, 0) / tf.cast(tf.shape(x)[0], tf.float32)
    with pytest.raises(UnsupportedOpsError, match=r"Cast \(a dynamic size cast to float32: "
                                                  r"sizes are integer expressions"):
        _import(mean, [np.zeros((4, 3), np.float32)], True)


def test_the_shape_of_a_value_whose_sizes_are_not_followed_is_reported():
    def tail(x):  # x[:, 1:] is max(seq - 1, 0) long: no size expression, so no guess
        y = x[:, 1:]
        return tf.reshape(y, [tf.shape(y)[0], -1])
    with pytest.raises(UnsupportedOpsError, match=r"Shape \(dynamic shape: the sizes of a "
                                                  r"StridedSlice result tensor<\?x\?x4xf32> "
                                                  r"have no expression in the input dims"):
        _import(tail, [np.zeros((2, 5, 4), np.float32)], {0: {0: "batch", 1: "seq"}})


def test_dynamic_names_an_input_or_says_which_exist():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(TypeError, match=r"'y' names no array argument .*'x'"):
        _import(attention, [x], {"y": {0: "batch"}})
    with pytest.raises(TypeError, match="axis 2 of 'x' is out of range for rank 2"):
        _import(attention, [x], {"x": {2: "batch"}})
    with pytest.raises(TypeError, match="dim name 'two words' is not an identifier"):
        _import(attention, [x], {"x": {0: "two words"}})
