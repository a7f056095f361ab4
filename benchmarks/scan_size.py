"""Compile time and IR size of a JAX RNN over 10, 100 and 1,000 steps: `lax.scan`
imported as one `ivy.scan` against the same recurrence unrolled (a Python loop over the
steps, which is what importing a scan cost before the IR had loops).

Run as a script (`.venv/bin/python benchmarks/scan_size.py`; site-packages holds an
unrelated `benchmarks` package, so this file is never imported). For each step count
and form it reports the ivy op count, `ivy_ir.compile` seconds to the jax target
(import, passes, lowering; no XLA compile), and the first call (XLA compiles then),
median of `--runs` after a warm-up, and writes `docs/scan_size.png`.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

import ivy_ir

STEPS = (10, 100, 1000)
HIDDEN, FEATURES = 32, 16
PNG = Path(__file__).resolve().parents[1] / "docs" / "scan_size.png"


def _weights() -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(0)
    return (rng.normal(0, 0.2, (HIDDEN, HIDDEN)).astype(np.float32),
            rng.normal(0, 0.2, (FEATURES, HIDDEN)).astype(np.float32),
            np.zeros(HIDDEN, np.float32))


W, U, B = _weights()


def scanned(h: Any, xs: Any) -> Any:
    def step(h: Any, x: Any) -> tuple[Any, Any]:
        h = jnp.tanh(h @ W + x @ U + B)
        return h, h
    return lax.scan(step, h, xs)


def unrolled(h: Any, xs: Any) -> Any:
    hs = []
    for t in range(xs.shape[0]):
        h = jnp.tanh(h @ W + xs[t] @ U + B)
        hs.append(h)
    return h, jnp.stack(hs)


def measure(fn: Any, steps: int, runs: int) -> tuple[int, float, float]:
    """(ivy ops, median compile seconds, median first-call seconds)."""
    h = np.zeros(HIDDEN, np.float32)
    xs = np.random.default_rng(1).normal(size=(steps, FEATURES)).astype(np.float32)
    compile_s, call_s = [], []
    for _ in range(runs + 1):
        start = time.perf_counter()
        c = ivy_ir.compile(fn, args=(h, xs), target="jax")
        mid = time.perf_counter()
        jax.block_until_ready(c(h, xs))
        compile_s.append(mid - start)
        call_s.append(time.perf_counter() - mid)
    want = fn(h, xs)
    np.testing.assert_allclose(np.asarray(c(h, xs)[1]), np.asarray(want[1]), rtol=1e-4,
                               atol=1e-5)
    ops = ivy_ir.trace(fn, (h, xs)).op_count()
    return ops, statistics.median(compile_s[1:]), statistics.median(call_s[1:])


def plot(rows: list[tuple[str, int, int, float, float]]) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.5))
    for form, marker in (("scan", "o"), ("unrolled", "s")):
        pts = [r for r in rows if r[0] == form]
        left.plot([r[1] for r in pts], [r[2] for r in pts], marker=marker, label=form)
        right.plot([r[1] for r in pts], [r[3] + r[4] for r in pts], marker=marker, label=form)
    for ax, label in ((left, "ivy ops"), (right, "compile + first call (s)")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("steps")
        ax.set_ylabel(label)
        ax.legend()
    fig.suptitle("A JAX RNN: lax.scan as ivy.scan vs unrolled")
    fig.tight_layout()
    fig.savefig(PNG, dpi=100)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    rows = []
    print(f"{'form':<10}{'steps':>7}{'ivy ops':>9}{'compile (s)':>13}{'first call (s)':>16}")
    for steps in STEPS:
        for form, fn in (("scan", scanned), ("unrolled", unrolled)):
            ops, comp, call = measure(fn, steps, args.runs)
            rows.append((form, steps, ops, comp, call))
            print(f"{form:<10}{steps:>7}{ops:>9}{comp:>13.3f}{call:>16.3f}", flush=True)
    plot(rows)
    print(f"wrote {PNG}")


if __name__ == "__main__":
    main()
