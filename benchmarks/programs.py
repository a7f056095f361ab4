"""The benchmark programs, written once with the ivy facade and once by hand in each
framework, as a user of that framework would write them."""

from __future__ import annotations

from typing import Any

import numpy as np

import ivy
from ivy_ir.demo import block as attention_block
from ivy_ir.demo import init_params as attention_params


def elementwise(x: Any) -> Any:
    return ivy.tanh(x) * 0.5 + ivy.sigmoid(x) * x - ivy.exp(-ivy.abs(x))


def mlp(p: dict[str, Any], x: Any) -> Any:
    h = ivy.gelu(ivy.linear(x, p["fc1"]["weight"], p["fc1"]["bias"]))
    h = ivy.relu(ivy.linear(h, p["fc2"]["weight"], p["fc2"]["bias"]))
    return ivy.linear(h, p["out"]["weight"], p["out"]["bias"])


def conv_block(p: dict[str, Any], x: Any) -> Any:
    h = ivy.conv(x, p["conv1"]["weight"], p["conv1"]["bias"], strides=[1, 1],
                 padding=[1, 1, 1, 1], dilations=[1, 1])
    bn = p["bn"]
    h = ivy.relu(ivy.batch_norm(h, bn["mean"], bn["var"], bn["weight"], bn["bias"]))
    h = ivy.max_pool(h, kernel=[2, 2], strides=[2, 2], padding=[0, 0, 0, 0])
    h = ivy.relu(ivy.conv(h, p["conv2"]["weight"], p["conv2"]["bias"], strides=[1, 1],
                          padding=[1, 1, 1, 1], dilations=[1, 1]))
    h = ivy.reshape(ivy.adaptive_avg_pool(h, output_size=[1, 1]), shape=[x.shape[0], -1])
    return ivy.linear(h, p["fc"]["weight"], p["fc"]["bias"])


def _dense(rng: np.random.Generator, n_out: int, n_in: int) -> dict[str, np.ndarray]:
    return {"weight": (rng.standard_normal((n_out, n_in)) / np.sqrt(n_in)).astype(np.float32),
            "bias": (0.1 * rng.standard_normal(n_out)).astype(np.float32)}


def make_inputs(name: str, rng: np.random.Generator
                ) -> tuple[dict[str, Any] | None, dict[str, Any] | None, np.ndarray]:
    """Parameters, buffers (each or None) and the input of a benchmark program."""
    f32 = np.float32
    if name == "elementwise":
        return None, None, rng.standard_normal((512, 1024)).astype(f32)
    if name == "mlp":
        return ({"fc1": _dense(rng, 512, 256), "fc2": _dense(rng, 512, 512),
                 "out": _dense(rng, 10, 512)}, None,
                rng.standard_normal((256, 256)).astype(f32))
    if name == "conv_block":
        conv = lambda o, i: {"weight": (rng.standard_normal((o, i, 3, 3)) / np.sqrt(9 * i))  # noqa: E731
                             .astype(f32), "bias": np.zeros(o, f32)}
        stats = {"bn": {"mean": (0.1 * rng.standard_normal(32)).astype(f32),
                        "var": rng.uniform(0.5, 1.5, 32).astype(f32)}}
        return ({"conv1": conv(32, 16), "conv2": conv(64, 32), "fc": _dense(rng, 10, 64),
                 "bn": {"weight": np.ones(32, f32), "bias": np.zeros(32, f32)}}, stats,
                rng.standard_normal((16, 16, 32, 32)).astype(f32))
    if name == "attention_block":
        return attention_params(0), None, rng.standard_normal((8, 64, 32)).astype(f32)
    raise KeyError(name)


PROGRAMS = {"elementwise": elementwise, "mlp": mlp, "conv_block": conv_block,
            "attention_block": attention_block}
