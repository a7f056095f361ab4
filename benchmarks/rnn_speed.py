"""Recurrent layers compiled to their own framework against the framework's layer:
`nn.LSTM`/`nn.GRU` on torch, `keras.layers.LSTM`/`GRU` on TensorFlow, a `lax.scan`
LSTM/GRU under `jax.jit` on JAX.

Run as a script (`.venv/bin/python benchmarks/rnn_speed.py`; site-packages holds an
unrelated `benchmarks` package, so this file is never imported). Each model is compiled
from its framework to that same framework's target and timed against the original in
one process: batch 16, 50 steps, 64 features, 2 layers of 128 units for torch, one
layer of 128 for Keras and JAX; median of `--runs` calls after warm-up calls (inference:
`torch.no_grad()`, Keras `model(x)` in a `tf.function` as `predict` would, jitted JAX).
Writes `docs/rnn_speed.png`.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import ivy_ir

BATCH, STEPS, FEATURES, HIDDEN = 16, 50, 64, 128
PNG = Path(__file__).resolve().parents[1] / "docs" / "rnn_speed.png"
GOAL = 1.1


def timed(fn: Callable[[], Any], runs: int, sync: Callable[[Any], Any] = lambda v: v) -> float:
    for _ in range(3):
        sync(fn())
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        sync(fn())
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def torch_cases(runs: int) -> list[tuple[str, float, float]]:
    import torch

    torch.manual_seed(0)
    torch.set_num_threads(1)  # this script's own process: on a shared 2-core machine,
    # torch's default thread pool makes both sides' timings swing by 100x
    x = torch.randn(BATCH, STEPS, FEATURES)
    rows = []
    for name, cls in (("LSTM", torch.nn.LSTM), ("GRU", torch.nn.GRU)):
        model = cls(FEATURES, HIDDEN, num_layers=2, batch_first=True).eval()
        c = ivy_ir.compile(model, args=(x,), target="torch")
        with torch.no_grad():
            np.testing.assert_allclose(c(x)[0].numpy(), model(x)[0].numpy(), atol=1e-4)
            rows.append((f"torch nn.{name}", timed(lambda m=model: m(x), runs),
                         timed(lambda c=c: c(x), runs)))
    return rows


def keras_cases(runs: int) -> list[tuple[str, float, float]]:
    import keras
    import tensorflow as tf

    x = np.random.default_rng(0).normal(size=(BATCH, STEPS, FEATURES)).astype(np.float32)
    rows = []
    for name, cls in (("LSTM", keras.layers.LSTM), ("GRU", keras.layers.GRU)):
        model = keras.Sequential([keras.Input((STEPS, FEATURES)),
                                  cls(HIDDEN, return_sequences=True)])
        native = tf.function(lambda v, m=model: m(v, training=False))
        c = ivy_ir.compile(model, args=(x,), target="tensorflow")
        np.testing.assert_allclose(np.asarray(c(x)), native(x).numpy(), atol=1e-4)
        xt = tf.constant(x)
        rows.append((f"tensorflow keras.layers.{name}",
                     timed(lambda f=native, v=xt: f(v), runs),
                     timed(lambda c=c, v=xt: c(v), runs)))
    return rows


def _jax_lstm(params: dict[str, Any], xs: Any) -> Any:
    import jax.numpy as jnp
    from jax import lax

    def step(carry: Any, x: Any) -> Any:
        h, cell = carry
        z = x @ params["wi"] + h @ params["wh"] + params["b"]
        i, f, g, o = jnp.split(z, 4, axis=-1)
        cell = jax_sigmoid(f) * cell + jax_sigmoid(i) * jnp.tanh(g)
        h = jax_sigmoid(o) * jnp.tanh(cell)
        return (h, cell), h

    zeros = jnp.zeros((xs.shape[1], HIDDEN), xs.dtype)
    return lax.scan(step, (zeros, zeros), xs)[1]


def _jax_gru(params: dict[str, Any], xs: Any) -> Any:
    import jax.numpy as jnp
    from jax import lax

    def step(h: Any, x: Any) -> Any:
        xr, xz, xn = jnp.split(x @ params["wi"] + params["b"], 3, axis=-1)
        hr, hz, hn = jnp.split(h @ params["wh"], 3, axis=-1)
        r, z = jax_sigmoid(xr + hr), jax_sigmoid(xz + hz)
        h = (1 - z) * jnp.tanh(xn + r * hn) + z * h
        return h, h

    return lax.scan(step, jnp.zeros((xs.shape[1], HIDDEN), xs.dtype), xs)[1]


def jax_sigmoid(v: Any) -> Any:
    import jax

    return jax.nn.sigmoid(v)


def jax_cases(runs: int) -> list[tuple[str, float, float]]:
    import jax

    rng = np.random.default_rng(0)
    xs = rng.normal(size=(STEPS, BATCH, FEATURES)).astype(np.float32)
    rows = []
    for name, fn, gates in (("LSTM", _jax_lstm, 4), ("GRU", _jax_gru, 3)):
        params = {"wi": rng.normal(0, 0.1, (FEATURES, gates * HIDDEN)).astype(np.float32),
                  "wh": rng.normal(0, 0.1, (HIDDEN, gates * HIDDEN)).astype(np.float32),
                  "b": np.zeros(gates * HIDDEN, np.float32)}
        native = jax.jit(fn)
        c = ivy_ir.compile(fn, args=(xs,), params=params, target="jax", source="jax")
        np.testing.assert_allclose(np.asarray(c(xs)), np.asarray(native(params, xs)),
                                   atol=1e-4)
        jp = jax.device_put(params)
        jx = jax.device_put(xs)
        rows.append((f"jax lax.scan {name}",
                     timed(lambda f=native, p=jp, v=jx: f(p, v), runs, jax.block_until_ready),
                     timed(lambda c=c, v=jx: c(v), runs, jax.block_until_ready)))
    return rows


def plot(rows: list[tuple[str, float, float]]) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3))
    names = [r[0] for r in rows]
    ax.barh(names, [r[2] / r[1] for r in rows])
    ax.axvline(1.0, color="black", lw=0.8)
    ax.axvline(GOAL, color="red", lw=0.8, ls="--", label=f"goal {GOAL}x")
    ax.set_xlabel("compiled time / native time")
    ax.invert_yaxis()
    ax.legend()
    fig.tight_layout()
    fig.savefig(PNG, dpi=100)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--frameworks", nargs="*", default=["torch", "tensorflow", "jax"])
    args = parser.parse_args()
    cases = {"torch": torch_cases, "tensorflow": keras_cases, "jax": jax_cases}
    rows = [r for f in args.frameworks for r in cases[f](args.runs)]
    print(f"{'model':<34}{'native (ms)':>12}{'compiled (ms)':>15}{'ratio':>8}")
    for name, native, compiled in rows:
        print(f"{name:<34}{native * 1e3:>12.2f}{compiled * 1e3:>15.2f}"
              f"{compiled / native:>8.2f}")
    plot(rows)
    print(f"wrote {PNG}")


if __name__ == "__main__":
    main()
