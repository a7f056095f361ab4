"""The benchmark programs hand-written in each framework: the baselines of overhead.py.

Parameters arrive as the same flat dict of native arrays keyed by dotted name that the
compiled program gets, and each function is wrapped the framework's way (jax.jit,
tf.function; torch eager), exactly as `ivy_ir.compile` wraps its output.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ivy_ir.demo import DIM, HEADS


def jax_programs() -> dict[str, Callable[..., Any]]:
    import jax
    import jax.numpy as jnp
    from jax import lax

    def lin(p, n, x):
        return x @ p[f"{n}.weight"].T + p[f"{n}.bias"]

    def elementwise(p, x):
        return jnp.tanh(x) * 0.5 + jax.nn.sigmoid(x) * x - jnp.exp(-jnp.abs(x))

    def mlp(p, x):
        h = jax.nn.relu(lin(p, "fc2", jax.nn.gelu(lin(p, "fc1", x), approximate=False)))
        return lin(p, "out", h)

    def conv(p, n, x):
        y = lax.conv_general_dilated(x, p[f"{n}.weight"], (1, 1), ((1, 1), (1, 1)))
        return y + p[f"{n}.bias"][None, :, None, None]

    def conv_block(p, x):
        bn = lambda t, k: p[f"bn.{k}"][None, :, None, None]  # noqa: E731
        h = conv(p, "conv1", x)
        h = (h - bn(h, "mean")) * lax.rsqrt(bn(h, "var") + 1e-5) * bn(h, "weight") + bn(h, "bias")
        h = lax.reduce_window(jax.nn.relu(h), -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2),
                              "VALID")
        h = jax.nn.relu(conv(p, "conv2", h))
        return lin(p, "fc", jnp.mean(h, axis=(2, 3)))

    def ln(p, n, x):
        m = jnp.mean(x, -1, keepdims=True)
        v = jnp.mean(jnp.square(x - m), -1, keepdims=True)
        return (x - m) * lax.rsqrt(v + 1e-5) * p[f"{n}.weight"] + p[f"{n}.bias"]

    def attention_block(p, x):
        b, s, d = x.shape
        q, k, v = jnp.split(lin(p, "attn.qkv", ln(p, "ln1", x)), 3, axis=-1)
        heads = [t.reshape(b, s, HEADS, DIM // HEADS) for t in (q, k, v)]
        a = jax.nn.dot_product_attention(*heads, is_causal=True).reshape(b, s, d)
        x = x + lin(p, "attn.out", a)
        h = jax.nn.gelu(lin(p, "mlp.fc1", ln(p, "ln2", x)), approximate=False)
        return x + lin(p, "mlp.fc2", h)

    return {k: jax.jit(f) for k, f in {"elementwise": elementwise, "mlp": mlp,
                                       "conv_block": conv_block,
                                       "attention_block": attention_block}.items()}


def torch_programs() -> dict[str, Callable[..., Any]]:
    import torch
    import torch.nn.functional as F

    def lin(p, n, x):
        return F.linear(x, p[f"{n}.weight"], p[f"{n}.bias"])

    def elementwise(p, x):
        return torch.tanh(x) * 0.5 + torch.sigmoid(x) * x - torch.exp(-torch.abs(x))

    def mlp(p, x):
        return lin(p, "out", F.relu(lin(p, "fc2", F.gelu(lin(p, "fc1", x)))))

    def conv_block(p, x):
        h = F.conv2d(x, p["conv1.weight"], p["conv1.bias"], padding=1)
        h = F.batch_norm(h, p["bn.mean"], p["bn.var"], p["bn.weight"], p["bn.bias"])
        h = F.max_pool2d(F.relu(h), 2)
        h = F.relu(F.conv2d(h, p["conv2.weight"], p["conv2.bias"], padding=1))
        return lin(p, "fc", F.adaptive_avg_pool2d(h, 1).flatten(1))

    def attention_block(p, x):
        b, s, d = x.shape
        h = F.layer_norm(x, (d,), p["ln1.weight"], p["ln1.bias"])
        q, k, v = lin(p, "attn.qkv", h).split(d, dim=-1)
        heads = [t.reshape(b, s, HEADS, d // HEADS).transpose(1, 2) for t in (q, k, v)]
        a = F.scaled_dot_product_attention(*heads, is_causal=True)
        x = x + lin(p, "attn.out", a.transpose(1, 2).reshape(b, s, d))
        h = F.gelu(lin(p, "mlp.fc1", F.layer_norm(x, (d,), p["ln2.weight"], p["ln2.bias"])))
        return x + lin(p, "mlp.fc2", h)

    return {"elementwise": elementwise, "mlp": mlp, "conv_block": conv_block,
            "attention_block": attention_block}


def tensorflow_programs() -> dict[str, Callable[..., Any]]:
    import tensorflow as tf

    def lin(p, n, x):
        return tf.linalg.matmul(x, p[f"{n}.weight"], transpose_b=True) + p[f"{n}.bias"]

    def elementwise(p, x):
        return tf.tanh(x) * 0.5 + tf.sigmoid(x) * x - tf.exp(-tf.abs(x))

    def mlp(p, x):
        return lin(p, "out", tf.nn.relu(lin(p, "fc2", tf.nn.gelu(lin(p, "fc1", x)))))

    def conv(p, n, x):  # NHWC data, OIHW weights as in the source model
        w = tf.transpose(p[f"{n}.weight"], (2, 3, 1, 0))
        return tf.nn.conv2d(x, w, 1, [[0, 0], [1, 1], [1, 1], [0, 0]]) + p[f"{n}.bias"]

    def conv_block(p, x):
        h = conv(p, "conv1", tf.transpose(x, (0, 2, 3, 1)))
        h = tf.nn.batch_normalization(h, p["bn.mean"], p["bn.var"], p["bn.bias"],
                                      p["bn.weight"], 1e-5)
        h = tf.nn.max_pool2d(tf.nn.relu(h), 2, 2, "VALID")
        h = tf.nn.relu(conv(p, "conv2", h))
        return lin(p, "fc", tf.reduce_mean(h, axis=(1, 2)))

    def ln(p, n, x):
        m, v = tf.nn.moments(x, axes=[-1], keepdims=True)
        return (x - m) * tf.math.rsqrt(v + 1e-5) * p[f"{n}.weight"] + p[f"{n}.bias"]

    def attention_block(p, x):
        b, s, d = x.shape
        q, k, v = tf.split(lin(p, "attn.qkv", ln(p, "ln1", x)), 3, axis=-1)
        q, k, v = (tf.transpose(tf.reshape(t, (b, s, HEADS, d // HEADS)), (0, 2, 1, 3))
                   for t in (q, k, v))
        scores = tf.linalg.matmul(q, k, transpose_b=True) / (d // HEADS) ** 0.5
        causal = tf.linalg.band_part(tf.ones((s, s), tf.bool), -1, 0)
        scores = tf.where(causal, scores, float("-inf"))
        a = tf.linalg.matmul(tf.nn.softmax(scores, axis=-1), v)
        x = x + lin(p, "attn.out", tf.reshape(tf.transpose(a, (0, 2, 1, 3)), (b, s, d)))
        h = tf.nn.gelu(lin(p, "mlp.fc1", ln(p, "ln2", x)))
        return x + lin(p, "mlp.fc2", h)

    return {k: tf.function(f, autograph=False) for k, f in {
        "elementwise": elementwise, "mlp": mlp, "conv_block": conv_block,
        "attention_block": attention_block}.items()}


def numpy_programs() -> dict[str, Callable[..., Any]]:
    import math

    import numpy as np

    erf = np.vectorize(math.erf, otypes=[np.float32])

    def lin(p, n, x):
        return x @ p[f"{n}.weight"].T + p[f"{n}.bias"]

    def gelu(x):
        return 0.5 * x * (1 + erf(x / np.float32(math.sqrt(2))))

    def elementwise(p, x):
        return np.tanh(x) * np.float32(0.5) + x / (1 + np.exp(-x)) - np.exp(-np.abs(x))

    def mlp(p, x):
        return lin(p, "out", np.maximum(lin(p, "fc2", gelu(lin(p, "fc1", x))), 0))

    return {"elementwise": elementwise, "mlp": mlp}
