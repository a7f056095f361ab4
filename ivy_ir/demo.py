"""The built-in demo program: a small transformer-style block written with the facade."""

from __future__ import annotations

from typing import Any

import numpy as np

import ivy

DIM, HEADS, HIDDEN, SEQ, BATCH = 32, 4, 64, 8, 2


def block(p: dict[str, Any], x: Any) -> Any:
    """Pre-norm self-attention followed by a GELU MLP, both residual."""
    b, s, d = x.shape
    h = ivy.layer_norm(x, p["ln1"]["weight"], p["ln1"]["bias"])
    qkv = ivy.linear(h, p["attn"]["qkv"]["weight"], p["attn"]["qkv"]["bias"])
    q, k, v = ivy.split(qkv, sizes=[d, d, d], axis=-1)
    heads = [ivy.permute_dims(ivy.reshape(t, shape=[b, s, HEADS, d // HEADS]), axes=[0, 2, 1, 3])
             for t in (q, k, v)]
    a = ivy.scaled_dot_product_attention(*heads, causal=True)
    a = ivy.reshape(ivy.permute_dims(a, axes=[0, 2, 1, 3]), shape=[b, s, d])
    x = x + ivy.linear(a, p["attn"]["out"]["weight"], p["attn"]["out"]["bias"])
    h = ivy.layer_norm(x, p["ln2"]["weight"], p["ln2"]["bias"])
    h = ivy.gelu(ivy.linear(h, p["mlp"]["fc1"]["weight"], p["mlp"]["fc1"]["bias"]))
    return x + ivy.linear(h, p["mlp"]["fc2"]["weight"], p["mlp"]["fc2"]["bias"])


def init_params(seed: int = 0) -> dict[str, Any]:
    rng = np.random.default_rng(seed)

    def dense(n_out: int, n_in: int) -> dict[str, np.ndarray]:
        w = rng.standard_normal((n_out, n_in)) / np.sqrt(n_in)
        return {"weight": w.astype(np.float32), "bias": np.zeros(n_out, np.float32)}

    def norm() -> dict[str, np.ndarray]:
        return {"weight": np.ones(DIM, np.float32), "bias": np.zeros(DIM, np.float32)}

    return {"ln1": norm(), "ln2": norm(),
            "attn": {"qkv": dense(3 * DIM, DIM), "out": dense(DIM, DIM)},
            "mlp": {"fc1": dense(HIDDEN, DIM), "fc2": dense(DIM, HIDDEN)}}


def example_input(seed: int = 1) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((BATCH, SEQ, DIM)).astype(np.float32)
