"""JAX zoo models: Flax/Haiku-style `apply(params, *inputs)` functions over a params
pytree (nested dicts and lists of arrays), with layers written out in jnp/lax the way
those libraries implement them (NHWC convolutions, `lax.reduce_window` pooling)."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from zoo_common import ZooProgram

rng = np.random.default_rng(23)


def f32(*shape: int, scale: float = 1.0) -> np.ndarray:
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def dense_params(n_in: int, n_out: int) -> dict[str, np.ndarray]:
    return {"kernel": f32(n_in, n_out, scale=n_in ** -0.5), "bias": f32(n_out, scale=0.1)}


def dense(p, x):
    return x @ p["kernel"] + p["bias"]


def layer_norm(p, x, eps=1e-6):
    mean = x.mean(-1, keepdims=True)
    var = jnp.mean(jnp.square(x - mean), -1, keepdims=True)
    return (x - mean) * lax.rsqrt(var + eps) * p["scale"] + p["bias"]


def norm_params(n: int) -> dict[str, np.ndarray]:
    return {"scale": 1.0 + f32(n, scale=0.1), "bias": f32(n, scale=0.1)}


def conv(p, x, strides=(1, 1), padding="SAME"):
    y = lax.conv_general_dilated(x, p["kernel"], strides, padding,
                                 dimension_numbers=("NHWC", "HWIO", "NHWC"))
    return y + p["bias"]


def conv_params(kh: int, kw: int, c_in: int, c_out: int) -> dict[str, np.ndarray]:
    return {"kernel": f32(kh, kw, c_in, c_out, scale=(kh * kw * c_in) ** -0.5),
            "bias": f32(c_out, scale=0.1)}


def max_pool(x, window, strides, padding="VALID"):
    return lax.reduce_window(x, -jnp.inf, lax.max, (1, *window, 1), (1, *strides, 1), padding)


def avg_pool(x, window, strides, padding="VALID"):
    # flax.linen.avg_pool: window sum divided by the window size
    summed = lax.reduce_window(x, 0.0, lax.add, (1, *window, 1), (1, *strides, 1), padding)
    return summed / np.prod(window)


def mlp(params, x):
    # Flax names submodules Dense_0, Dense_1, ...
    n = len(params)
    for i in range(n - 1):
        x = jax.nn.gelu(dense(params[f"Dense_{i}"], x))
    return dense(params[f"Dense_{n - 1}"], x)


def small_cnn(params, x):
    x = jax.nn.relu(conv(params["conv1"], x))
    x = max_pool(x, (2, 2), (2, 2))
    x = jax.nn.relu(conv(params["conv2"], x))
    x = avg_pool(x, (2, 2), (2, 2))
    return dense(params["head"], x.reshape(x.shape[0], -1))


def conv_nchw(params, x):
    # PyTorch-style layouts, stride 2, kernel dilation 2, asymmetric padding
    return lax.conv_general_dilated(x, params["w"], (2, 1), ((1, 0), (2, 1)),
                                    rhs_dilation=(2, 2),
                                    dimension_numbers=("NCHW", "OIHW", "NCHW"))


def depthwise_conv(params, x):
    return lax.conv_general_dilated(x, params["w"], (1, 1), "SAME", feature_group_count=4,
                                    dimension_numbers=("NHWC", "HWIO", "NHWC"))


def conv_transpose(params, x):
    return lax.conv_transpose(x, params["w"], (2, 2), "SAME",
                              dimension_numbers=("NHWC", "HWIO", "NHWC")), \
        lax.conv_general_dilated(x, params["w"], (1, 1), ((0, 0), (1, 1)), lhs_dilation=(2, 1),
                                 dimension_numbers=("NHWC", "HWIO", "NHWC")), \
        lax.conv_general_dilated(x, params["w"], (2, 1), ((3, 1), (0, 0)), lhs_dilation=(2, 2),
                                 dimension_numbers=("NHWC", "HWIO", "NHWC"))


def conv1d(params, x):
    return lax.conv_general_dilated(x, params["w"], (1,), ((2, 0),),
                                    dimension_numbers=("NWC", "WIO", "NWC"))


def pooling(x):
    return (max_pool(x, (3, 3), (1, 1), "SAME"), avg_pool(x, (2, 2), (1, 1), "SAME"),
            max_pool(x, (2, 1), (2, 1)), lax.reduce_window(x, jnp.inf, lax.min, (1, 2, 2, 1),
                                                           (1, 1, 1, 1), "VALID"),
            x.mean(axis=(1, 2)),
            # a window over the two axes of a matrix: pooled as a one-channel image
            lax.reduce_window(x[0, :, :, 0], -jnp.inf, lax.max, (2, 3), (2, 1), "SAME"))


def norms(params, x):
    n, h, w, c = x.shape
    g = x.reshape(n, h, w, 2, c // 2)  # flax GroupNorm(num_groups=2)
    mean = g.mean(axis=(1, 2, 4), keepdims=True)
    var = g.var(axis=(1, 2, 4), keepdims=True)
    grouped = ((g - mean) / jnp.sqrt(var + 1e-5)).reshape(x.shape) * params["gn"]["scale"]
    rms = x * lax.rsqrt(jnp.mean(x * x, axis=-1, keepdims=True) + 1e-6) * params["rms"]
    return layer_norm(params["ln"], x), grouped, rms


def batch_norm(variables, x):
    stats, p = variables["batch_stats"], variables["params"]
    y = (x - stats["mean"]) / jnp.sqrt(stats["var"] + 1e-5) * p["scale"] + p["bias"]
    return jax.nn.relu(y)


def attention(params, x, causal=True):
    b, t, d = x.shape
    heads = 2

    def split(z):
        return z.reshape(b, t, heads, d // heads).transpose(0, 2, 1, 3)
    q, k, v = (split(dense(params[n], x)) for n in ("query", "key", "value"))
    scores = jnp.einsum("bhqd,bhkd->bhqk", q, k) / jnp.sqrt(d // heads).astype(x.dtype)
    if causal:
        mask = jnp.tril(jnp.ones((t, t), bool))
        scores = jnp.where(mask, scores, jnp.finfo(x.dtype).min)
    out = jax.nn.softmax(scores, axis=-1) @ v
    return dense(params["out"], out.transpose(0, 2, 1, 3).reshape(b, t, d))


def attention_params(d: int) -> dict[str, Any]:
    return {n: dense_params(d, d) for n in ("query", "key", "value", "out")}


def encoder_layer(params, x):
    x = x + attention(params["attn"], layer_norm(params["ln1"], x), causal=False)
    h = jax.nn.gelu(dense(params["fc1"], layer_norm(params["ln2"], x)))
    return x + dense(params["fc2"], h)


def rnn_unrolled(params, xs):
    # an Elman cell unrolled by a Python loop over time (static length)
    h = jnp.zeros((xs.shape[0], params["wh"].shape[0]), xs.dtype)
    outs = []
    for t in range(xs.shape[1]):
        h = jnp.tanh(xs[:, t] @ params["wx"] + h @ params["wh"] + params["b"])
        outs.append(h)
    return jnp.stack(outs, axis=1), h


def gru_scan(params, xs, h0):
    # a GRU cell run by lax.scan over time (time-major inputs), imported as ivy.scan
    def cell(h, x):
        zr = jax.nn.sigmoid(x @ params["wx"][:, :8] + h @ params["wh"][:, :8])
        z, r = jnp.split(zr, 2, axis=-1)
        n = jnp.tanh(x @ params["wx"][:, 8:] + (r * h) @ params["wh"][:, 8:])
        h = (1 - z) * n + z * h
        return h, h
    return lax.scan(cell, h0, xs)


def embed_classifier(params, tokens):
    e = params["embed"][tokens]  # (batch, seq, dim)
    pooled = e.mean(axis=1)
    return jax.nn.log_softmax(dense(params["head"], pooled))


def residual_block(params, x):
    y = jax.nn.relu(conv(params["c1"], x))
    y = conv(params["c2"], y)
    return jax.nn.relu(x + y)


MODEL_PROGRAMS: list[ZooProgram] = [
    ZooProgram("mlp", mlp, (f32(4, 8),),
               {"Dense_0": dense_params(8, 16), "Dense_1": dense_params(16, 16),
                "Dense_2": dense_params(16, 3)}),
    ZooProgram("small_cnn", small_cnn, (f32(2, 8, 8, 3),),
               {"conv1": conv_params(3, 3, 3, 4), "conv2": conv_params(3, 3, 4, 6),
                "head": dense_params(24, 5)}),
    ZooProgram("conv_nchw", conv_nchw, (f32(1, 3, 9, 8),), {"w": f32(4, 3, 3, 2, scale=0.3)}),
    ZooProgram("depthwise_conv", depthwise_conv, (f32(1, 6, 6, 4),),
               {"w": f32(3, 3, 1, 8, scale=0.3)}),
    ZooProgram("conv_transpose", conv_transpose, (f32(1, 4, 5, 3),),
               {"w": f32(3, 3, 3, 2, scale=0.3)}),
    ZooProgram("conv1d", conv1d, (f32(2, 7, 3),), {"w": f32(3, 3, 4, scale=0.4)}),
    ZooProgram("pooling", pooling, (f32(2, 6, 6, 3),)),
    ZooProgram("norms", norms, (f32(2, 3, 3, 4),),
               {"ln": norm_params(4), "gn": {"scale": 1.0 + f32(4, scale=0.1)},
                "rms": 1.0 + f32(4, scale=0.1)}),
    ZooProgram("batch_norm", batch_norm, (f32(3, 4, 4, 5),),
               {"params": norm_params(5),
                "batch_stats": {"mean": f32(5, scale=0.1), "var": 1.0 + np.abs(f32(5))}}),
    ZooProgram("attention", attention, (f32(2, 5, 8),), attention_params(8)),
    ZooProgram("encoder_layer", encoder_layer, (f32(2, 5, 8),),
               {"attn": attention_params(8), "ln1": norm_params(8), "ln2": norm_params(8),
                "fc1": dense_params(8, 16), "fc2": dense_params(16, 8)}),
    ZooProgram("rnn_unrolled", rnn_unrolled, (f32(2, 4, 3),),
               {"wx": f32(3, 5, scale=0.5), "wh": f32(5, 5, scale=0.4), "b": f32(5, scale=0.1)}),
    ZooProgram("gru_scan", gru_scan, (f32(4, 2, 3), f32(2, 4)),
               {"wx": f32(3, 12, scale=0.5), "wh": f32(4, 12, scale=0.5)}),
    ZooProgram("embed_classifier", embed_classifier,
               (rng.integers(0, 10, (3, 4)).astype(np.int32),),
               {"embed": f32(10, 6), "head": dense_params(6, 4)}),
    ZooProgram("residual_block", residual_block, (f32(1, 5, 5, 4),),
               {"c1": conv_params(3, 3, 4, 4), "c2": conv_params(3, 3, 4, 4)}),
]


def build_500_op(depth: int = 17, width: int = 16) -> tuple[Any, tuple[np.ndarray, ...], Any]:
    """A ~500-op program (pre-norm residual MLP blocks) for the import-speed check:
    returns (apply_fn, args, params)."""
    blocks = {f"Block_{i}": {"LayerNorm_0": norm_params(width),
                             "Dense_0": dense_params(width, width)} for i in range(depth)}

    def deep_mlp(params, x):
        for i in range(depth):
            p = params[f"Block_{i}"]
            x = x + jax.nn.gelu(dense(p["Dense_0"], layer_norm(p["LayerNorm_0"], x))) * 0.5
        return x
    return deep_mlp, (f32(8, width),), blocks
