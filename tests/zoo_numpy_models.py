"""Networks for the NumPy zoo, written as NumPy users write them: MLPs, norms,
attention, a transformer encoder layer, im2col convolutions, pooling by reshape, and
unrolled RNN/GRU cells (parameters passed as a dict: `fn(params, x)`)."""

from __future__ import annotations

from typing import Any

import numpy as np
from zoo_common import ZooProgram

F64_TOL = {"rtol": 1e-10, "atol": 1e-12}
"""Float64 programs: every target computes in float64, so only summation order and
last-ulp differences of library kernels remain."""
_rng = np.random.default_rng(7)


def normal(*shape: int, dtype: Any = np.float64) -> np.ndarray:
    return _rng.standard_normal(shape).astype(dtype)


def ints(low: int, high: int, *shape: int, dtype: Any = np.int64) -> np.ndarray:
    return _rng.integers(low, high, shape).astype(dtype)


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def _softmax(z, axis=-1):
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _layer_norm(z, gamma, beta, eps=1e-5):
    mu = z.mean(axis=-1, keepdims=True)
    var = z.var(axis=-1, keepdims=True)
    return (z - mu) / np.sqrt(var + eps) * gamma + beta


def _gelu(z):
    return 0.5 * z * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (z + 0.044715 * z**3)))


def mlp(params, x):
    h = np.maximum(x @ params["w1"] + params["b1"], 0.0)
    h = np.tanh(h @ params["w2"] + params["b2"])
    return _softmax(h @ params["w3"] + params["b3"])


def mlp_f32(params, x):
    h = np.maximum(x @ params["l0"]["w"] + params["l0"]["b"], 0)
    return _sigmoid(h @ params["l1"]["w"] + params["l1"]["b"])


def softmax_logsumexp(x):
    m = x.max(axis=-1, keepdims=True)
    lse = m[..., 0] + np.log(np.exp(x - m).sum(axis=-1))
    return _softmax(x), x - lse[..., None], lse


def cross_entropy(logits, labels):
    p = _softmax(logits)
    picked = p[np.arange(logits.shape[0]), labels]
    return -np.log(picked).mean(), np.argmax(p, axis=1) == labels


def layer_norm(params, x):
    mu = np.mean(x, axis=-1, keepdims=True)
    sigma = np.sqrt(np.mean((x - mu) ** 2, axis=-1, keepdims=True) + 1e-5)
    return (x - mu) / sigma * params["gamma"] + params["beta"]


def batch_norm(params, x):
    s = (x - params["mean"][None, :, None, None]) / np.sqrt(params["var"][None, :, None, None]
                                                            + 1e-5)
    return s * params["weight"][:, None, None] + params["bias"][:, None, None]


def attention(params, x):
    q, k, v = (x @ params[n] for n in ("wq", "wk", "wv"))
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    causal = np.triu(np.full((x.shape[1], x.shape[1]), -1e9), k=1)
    return _softmax(scores + causal) @ v


def _mha(params, x, heads):
    b, t, d = x.shape
    qkv = x @ params["wqkv"] + params["bqkv"]
    q, k, v = np.split(qkv, 3, axis=-1)
    q, k, v = (z.reshape(b, t, heads, d // heads).transpose(0, 2, 1, 3) for z in (q, k, v))
    w = _softmax(np.einsum("bhqd,bhkd->bhqk", q, k) / np.sqrt(d // heads))
    out = (w @ v).transpose(0, 2, 1, 3).reshape(b, t, d)
    return out @ params["wo"] + params["bo"]


def transformer_encoder(params, x):
    h = _layer_norm(np.add(x, _mha(params, x, heads=4)), params["ln1_g"], params["ln1_b"])
    ff = _gelu(h @ params["w1"] + params["b1"]) @ params["w2"] + params["b2"]
    return _layer_norm(h + ff, params["ln2_g"], params["ln2_b"])


def _conv2d(x, w, b):
    # valid 3x3 convolution as users write it: shifted windows stacked, then einsum
    _, _, hh, ww = x.shape
    kh, kw = w.shape[2:]
    oh, ow = hh - kh + 1, ww - kw + 1
    patches = np.stack([x[:, :, i:i + oh, j:j + ow] for i in range(kh) for j in range(kw)], 2)
    return np.einsum("bckhw,ock->bohw", patches, w.reshape(w.shape[0], w.shape[1], -1)) \
        + b[None, :, None, None]


def _max_pool2(x):
    b, c, h, w = x.shape
    return x.reshape(b, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))


def small_cnn(params, x):
    h = np.maximum(_conv2d(x, params["c1"]["w"], params["c1"]["b"]), 0.0)
    h = _max_pool2(h)
    h = np.maximum(_conv2d(h, params["c2"]["w"], params["c2"]["b"]), 0.0)
    h = h.mean(axis=(2, 3))
    return h @ params["fc"]["w"] + params["fc"]["b"]


def conv1d_im2col(x, w):
    k = w.shape[-1]
    idx = np.arange(x.shape[-1] - k + 1)[:, None] + np.arange(k)[None, :]
    cols = x[:, :, idx]
    return np.einsum("bclk,ock->bol", cols, w)


def avg_pool(x):
    b, c, h, w = x.shape
    pooled = x.reshape(b, c, h // 2, 2, w // 2, 2).mean(axis=(3, 5))
    return pooled, np.pad(pooled, ((0, 0), (0, 0), (1, 1), (1, 1)))


def rnn_unrolled(params, x):
    h = np.zeros((x.shape[0], params["wh"].shape[0]))
    outs = []
    for t in range(x.shape[1]):
        h = np.tanh(x[:, t] @ params["wx"] + h @ params["wh"] + params["b"])
        outs.append(h)
    return np.stack(outs, axis=1), h


def gru_cell(params, x):
    h = np.zeros((x.shape[0], params["uz"].shape[0]))
    for t in range(x.shape[1]):
        xt = x[:, t, :]
        z = _sigmoid(xt @ params["wz"] + h @ params["uz"])
        r = _sigmoid(xt @ params["wr"] + h @ params["ur"])
        n = np.tanh(xt @ params["wn"] + (r * h) @ params["un"])
        h = (1 - z) * n + z * h
    return h


def _params(**shapes: tuple[int, ...]) -> dict[str, np.ndarray]:
    return {k: normal(*s) * 0.3 for k, s in shapes.items()}


def _enc_params(d: int, ff: int) -> dict[str, np.ndarray]:
    p = _params(wqkv=(d, 3 * d), bqkv=(3 * d,), wo=(d, d), bo=(d,), w1=(d, ff), b1=(ff,),
                w2=(ff, d), b2=(d,))
    p.update(ln1_g=1 + normal(d) * 0.1, ln1_b=normal(d) * 0.1, ln2_g=1 + normal(d) * 0.1,
             ln2_b=normal(d) * 0.1)
    return p


MODELS: list[ZooProgram] = [
    ZooProgram("mlp", mlp, (normal(4, 6),),
               _params(w1=(6, 8), b1=(8,), w2=(8, 8), b2=(8,), w3=(8, 3), b3=(3,)), **F64_TOL),
    ZooProgram("mlp_f32", mlp_f32, (normal(4, 6, dtype=np.float32),),
               {f"l{i}": {"w": normal(*s, dtype=np.float32), "b": normal(s[1], dtype=np.float32)}
                for i, s in enumerate([(6, 16), (16, 2)])}),
    ZooProgram("softmax_logsumexp", softmax_logsumexp, (normal(3, 5) * 4,), **F64_TOL),
    ZooProgram("cross_entropy", cross_entropy, (normal(5, 4), ints(0, 4, 5)), **F64_TOL),
    ZooProgram("layer_norm", layer_norm, (normal(2, 3, 8),),
               {"gamma": 1 + normal(8) * 0.1, "beta": normal(8) * 0.1}, **F64_TOL),
    ZooProgram("batch_norm", batch_norm, (normal(2, 3, 4, 4),),
               {"mean": normal(3) * 0.1, "var": 1 + np.abs(normal(3)), "weight": normal(3),
                "bias": normal(3)}, **F64_TOL),
    ZooProgram("attention", attention, (normal(2, 5, 8),), _params(wq=(8, 8), wk=(8, 8),
                                                                     wv=(8, 8)), **F64_TOL),
    ZooProgram("transformer_encoder", transformer_encoder, (normal(2, 5, 16),),
               _enc_params(16, 32), **F64_TOL),
    ZooProgram("small_cnn", small_cnn, (normal(2, 2, 10, 10),),
               {"c1": {"w": normal(4, 2, 3, 3) * 0.3, "b": normal(4) * 0.1},
                "c2": {"w": normal(6, 4, 3, 3) * 0.3, "b": normal(6) * 0.1},
                "fc": {"w": normal(6, 3), "b": normal(3)}}, **F64_TOL),
    ZooProgram("small_cnn_f32", small_cnn, (normal(2, 2, 10, 10, dtype=np.float32),),
               {"c1": {"w": normal(4, 2, 3, 3, dtype=np.float32) * 0.3,
                       "b": normal(4, dtype=np.float32) * 0.1},
                "c2": {"w": normal(6, 4, 3, 3, dtype=np.float32) * 0.3,
                       "b": normal(6, dtype=np.float32) * 0.1},
                "fc": {"w": normal(6, 3, dtype=np.float32), "b": normal(3, dtype=np.float32)}}),
    ZooProgram("conv1d_im2col", conv1d_im2col, (normal(2, 3, 9), normal(4, 3, 3)), **F64_TOL),
    ZooProgram("avg_pool", avg_pool, (normal(2, 3, 4, 6),), **F64_TOL),
    ZooProgram("rnn_unrolled", rnn_unrolled, (normal(3, 4, 5),),
               _params(wx=(5, 6), wh=(6, 6), b=(6,)), **F64_TOL),
    ZooProgram("gru_cell", gru_cell, (normal(2, 3, 4),),
               _params(wz=(4, 5), uz=(5, 5), wr=(4, 5), ur=(5, 5), wn=(4, 5), un=(5, 5)),
               **F64_TOL),
]
