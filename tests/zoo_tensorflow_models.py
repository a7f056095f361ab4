"""Keras models and `tf.Module`s of the TensorFlow zoo, and the 500-op speed program.

Models are built once with seeded initializers; batch-norm statistics and scales are
set to random values so inference-mode normalisation is not the identity.
"""

from __future__ import annotations

from typing import Any

import keras
import numpy as np
import tensorflow as tf
from zoo_common import ZooProgram

L = keras.layers
rng = np.random.default_rng(11)
keras.utils.set_random_seed(11)


def _data(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def randomize_batch_norm(model: keras.Model) -> keras.Model:
    for layer in model.layers if hasattr(model, "layers") else ():
        if isinstance(layer, L.BatchNormalization):
            n = layer.gamma.shape[0]
            layer.gamma.assign(rng.uniform(0.5, 1.5, n).astype(np.float32))
            layer.beta.assign(rng.standard_normal(n).astype(np.float32) * 0.1)
            layer.moving_mean.assign(rng.standard_normal(n).astype(np.float32) * 0.1)
            layer.moving_variance.assign(rng.uniform(0.5, 2.0, n).astype(np.float32))
    return model


def keras_mlp() -> keras.Model:
    return keras.Sequential([keras.Input((6,)), L.Dense(16, activation="relu"),
                             L.Dense(8, activation="tanh"), L.Dense(3, activation="softmax")])


def keras_cnn() -> keras.Model:
    return randomize_batch_norm(keras.Sequential([
        keras.Input((8, 8, 3)), L.Conv2D(4, 3, padding="same", activation="relu"),
        L.BatchNormalization(), L.MaxPooling2D(), L.Conv2D(6, 3, strides=2, padding="same"),
        L.AveragePooling2D(2, padding="same"), L.Flatten(), L.Dense(5)]))


def keras_transformer_encoder() -> keras.Model:
    x = keras.Input((6, 8))
    attn = L.MultiHeadAttention(num_heads=2, key_dim=4)(x, x)
    h = L.LayerNormalization(epsilon=1e-5)(x + attn)
    ff = L.Dense(8)(L.Dense(16, activation="relu")(h))
    return keras.Model(x, L.LayerNormalization(epsilon=1e-5)(h + ff))


def keras_cross_attention() -> Any:
    q, kv = keras.Input((4, 8)), keras.Input((6, 8))
    out = L.MultiHeadAttention(num_heads=2, key_dim=3, value_dim=5, output_shape=7)(q, kv)
    model = keras.Model([q, kv], out)

    def cross_attention(query, context):
        return model([query, context])
    return cross_attention


def keras_dense_3d() -> keras.Model:
    x = keras.Input((5, 4))
    y = L.LayerNormalization()(L.Dense(6, activation="gelu")(x))
    return keras.Model(x, L.Dense(3, use_bias=False)(y))


def keras_depthwise_pooling() -> keras.Model:
    x = keras.Input((9, 9, 3))
    y = L.DepthwiseConv2D(3, depth_multiplier=2, activation="relu6")(x)
    y = L.SeparableConv2D(4, 3, padding="same")(y)
    return keras.Model(x, [L.GlobalAveragePooling2D()(y), L.GlobalMaxPooling2D()(y)])


def keras_conv1d_embedding() -> keras.Model:
    return keras.Sequential([keras.Input((7,), dtype="int32"), L.Embedding(12, 4),
                             L.Conv1D(5, 3, activation="elu"), L.GlobalMaxPooling1D(),
                             L.Dense(2)])


def keras_conv_transpose() -> keras.Model:
    return randomize_batch_norm(keras.Sequential([
        keras.Input((4, 4, 3)), L.Conv2DTranspose(2, 3, strides=2, padding="same"),
        L.BatchNormalization(), L.Conv2DTranspose(3, 2, strides=1)]))


class ResidualBlock(keras.Model):
    """A subclassed model: conv, batch norm, a residual add and keras.ops calls."""

    def __init__(self):
        super().__init__()
        self.conv = L.Conv2D(3, 3, padding="same")
        self.norm = L.BatchNormalization()
        self.head = L.Dense(2)

    def call(self, x, training=False):
        y = keras.ops.relu(self.norm(self.conv(x), training=training))
        pooled = keras.ops.mean(x + y, axis=(1, 2))
        return self.head(pooled)


class Scaler(tf.Module):
    """A plain tf.Module: trainable weights, a non-trainable running scale and an
    embedding table read with `embedding_lookup` (a ResourceGather)."""

    def __init__(self):
        super().__init__()
        self.w = tf.Variable(_data(4, 3), name="w")
        self.b = tf.Variable(tf.zeros([3]), name="b")
        self.scale = tf.Variable(_data(3), trainable=False, name="scale")
        self.table = tf.Variable(_data(6, 3), name="table")

    def __call__(self, x, ids):
        y = tf.nn.relu(x @ self.w + self.b) * self.scale
        return y + tf.nn.embedding_lookup(self.table, ids)


def _residual_block() -> keras.Model:
    model = ResidualBlock()
    model(np.zeros((1, 5, 5, 3), np.float32))
    model.norm.moving_mean.assign(_data(3) * 0.1)
    model.norm.moving_variance.assign(np.abs(_data(3)) + 0.5)
    return model


def build_500_op(depth: int = 100) -> tuple[Any, tuple[np.ndarray, ...], None]:
    """A ~500-op program: `depth` blocks of matmul, bias add, relu, scale and residual,
    with captured variables (the program's parameters)."""
    weights = [tf.Variable(_data(16, 16) * 0.25, name=f"block{i}/w") for i in range(depth)]
    biases = [tf.Variable(_data(16) * 0.1, name=f"block{i}/b") for i in range(depth)]

    def deep(x):
        for w, b in zip(weights, biases):
            x = x + tf.nn.relu(tf.matmul(x, w) + b) * 0.5
        return x
    return deep, (_data(4, 16),), None


def keras_resize_dilated() -> keras.Model:
    # Resizing, bilinear UpSampling2D and dilated convolutions (SpaceToBatchND in TF)
    x = keras.Input((7, 9, 3))
    y = L.Conv2D(4, 3, dilation_rate=2, padding="same", activation="relu")(L.Resizing(12, 15)(x))
    y = L.DepthwiseConv2D(3, dilation_rate=(2, 3))(L.UpSampling2D(2, interpolation="bilinear")(y))
    return keras.Model(x, L.SeparableConv2D(3, 3, dilation_rate=2, padding="same")(y))


MODEL_PROGRAMS: list[ZooProgram] = [
    ZooProgram("keras_mlp", keras_mlp(), (_data(4, 6),)),
    ZooProgram("keras_cnn", keras_cnn(), (_data(2, 8, 8, 3),)),
    ZooProgram("keras_transformer_encoder", keras_transformer_encoder(), (_data(2, 6, 8),)),
    ZooProgram("keras_cross_attention", keras_cross_attention(),
               (_data(2, 4, 8), _data(2, 6, 8))),
    ZooProgram("keras_dense_3d", keras_dense_3d(), (_data(2, 5, 4),)),
    ZooProgram("keras_depthwise_pooling", keras_depthwise_pooling(), (_data(2, 9, 9, 3),)),
    ZooProgram("keras_conv1d_embedding", keras_conv1d_embedding(),
               (rng.integers(0, 12, (3, 7)).astype(np.int32),)),
    ZooProgram("keras_conv_transpose", keras_conv_transpose(), (_data(2, 4, 4, 3),)),
    ZooProgram("keras_residual_block", _residual_block(), (_data(2, 5, 5, 3),)),
    ZooProgram("keras_resize_dilated", keras_resize_dilated(), (_data(2, 7, 9, 3),)),
    ZooProgram("tf_module_variables", Scaler(),
               (_data(5, 4), rng.integers(0, 6, 5).astype(np.int64))),
]
