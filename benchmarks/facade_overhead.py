"""The cost of calling `ivy.<fn>` instead of the framework's own function (the 2021
paper's Table 3 method, on this code).

For every facade function whose backend body is one native call with the same
arguments (elementwise ops, reductions, shape functions), on inputs of 1e4 elements,
eagerly: the native call and `ivy.<fn>` run interleaved, round after round, so that
machine noise hits both alike; each round times a batch of calls; reported is the
median per-call time of each and the overhead ivy / native - 1, in two modes:
`global` (the backend set with `ivy.set_backend`, so `ivy.<fn>` is rebound to the
backend's function) and `inferred` (no backend set: the backend-agnostic function reads
the argument types, then calls the same function). Goals: mean overhead <= 1% global,
<= 5% inferred. Run from the repository root:

    .venv/bin/python benchmarks/facade_overhead.py [--rounds 25] [--backends numpy,torch]

Writes benchmarks/results/facade_overhead.json, and a .png where matplotlib is installed.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import ivy

UNARY = ["abs", "negative", "sqrt", "square", "exp", "expm1", "log", "log1p", "log2",
         "log10", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh",
         "asinh", "atanh", "floor", "ceil", "round", "trunc", "isnan", "isinf", "isfinite",
         "sign"]
BINARY = ["add", "subtract", "multiply", "divide", "pow", "maximum", "minimum", "atan2",
          "equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]
REDUCE = ["sum", "prod", "mean", "max", "min", "std", "var", "argmax", "argmin"]
NATIVE_NAMES = {
    "torch": {"asin": "arcsin", "acos": "arccos", "atan": "arctan", "asinh": "arcsinh",
              "atanh": "arctanh", "pow": "pow", "max": "amax", "min": "amin", "equal": "eq",
              "not_equal": "ne", "sign": "sgn"},
    "tensorflow": {"negative": "negative", "pow": "pow", "max": "reduce_max",
                   "min": "reduce_min", "sum": "reduce_sum", "prod": "reduce_prod",
                   "mean": "reduce_mean", "std": "reduce_std", "var": "reduce_variance"},
}
"""The native function each benchmarked ivy function calls, where not the same name."""


def _framework(backend: str) -> tuple[Callable[[str], Any | None],
                                      Callable[[np.ndarray], Any], Callable[[Any], Any]]:
    """(native function of an ivy name, array maker, result sync) for a backend."""
    names = NATIVE_NAMES.get(backend, {})
    if backend == "numpy":
        return (lambda n: getattr(np, n)), np.asarray, lambda y: y
    if backend == "jax":
        import jax.numpy as jnp
        return (lambda n: getattr(jnp, n)), jnp.asarray, lambda y: y.block_until_ready()
    if backend == "torch":
        import torch
        return (lambda n: getattr(torch, names.get(n, n))), torch.as_tensor, lambda y: y
    import tensorflow as tf
    import tensorflow.experimental.numpy as tnp

    def find(n: str) -> Any:
        n = names.get(n, n)
        return getattr(tf.math, n, None) or getattr(tnp, n, None)
    return find, tf.convert_to_tensor, lambda y: y


def _cases(backend: str) -> list[tuple[str, tuple[Any, ...]]]:
    rng = np.random.default_rng(0)
    x = rng.uniform(0.1, 0.9, 10_000).astype(np.float32)
    y = rng.uniform(0.1, 0.9, 10_000).astype(np.float32)
    cases = [(n, (x,)) for n in UNARY] + [(n, (x, y)) for n in BINARY]
    cases += [(n, (x.reshape(100, 100),)) for n in REDUCE]
    return cases


def _per_call(fn: Callable[..., Any], args: tuple[Any, ...], sync: Callable[[Any], Any],
              n: int) -> float:
    start = time.perf_counter()
    for _ in range(n):
        sync(fn(*args))
    return (time.perf_counter() - start) / n


def measure(backend: str, rounds: int) -> list[dict[str, Any]]:
    native_of, make, sync = _framework(backend)
    rows = []
    for name, raw in _cases(backend):
        native = native_of(name)
        if native is None:
            continue  # no single native function to compare with (TF has no trunc)
        args = tuple(make(a) for a in raw)
        ivy.set_backend(backend)
        bound = getattr(ivy, name)
        ivy.unset_backend()
        inferred = getattr(ivy, name)
        for f in (native, bound, inferred):
            _per_call(f, args, sync, 20)  # warm up (first-call compilation, caches)
        n = max(10, int(2e-3 / max(_per_call(native, args, sync, 20), 1e-7)))
        times: dict[str, list[float]] = {"native": [], "global": [], "inferred": []}
        for _ in range(rounds):
            times["native"].append(_per_call(native, args, sync, n))
            times["global"].append(_per_call(bound, args, sync, n))
            times["inferred"].append(_per_call(inferred, args, sync, n))
        med = {k: statistics.median(v) for k, v in times.items()}
        rows.append({"backend": backend, "function": name, "native_us": med["native"] * 1e6,
                     "global": med["global"] / med["native"] - 1,
                     "inferred": med["inferred"] / med["native"] - 1})
        print(f"{backend:10s} {name:14s} native {med['native'] * 1e6:8.2f} us   "
              f"global {rows[-1]['global']:+7.2%}   inferred {rows[-1]['inferred']:+7.2%}",
              flush=True)
    return rows


def plot(rows: list[dict[str, Any]], path: Path) -> None:
    try:
        import matplotlib
    except ImportError:
        print("(matplotlib is not installed: no PNG)")
        return
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    backends = sorted({r["backend"] for r in rows})
    fig, ax = plt.subplots(figsize=(7, 3.5))
    for i, mode in enumerate(("global", "inferred")):
        means = [100 * statistics.mean(r[mode] for r in rows if r["backend"] == b)
                 for b in backends]
        ax.bar([j + 0.4 * i for j in range(len(backends))], means, 0.4, label=mode)
    ax.set_xticks([j + 0.2 for j in range(len(backends))], backends)
    ax.axhline(1, color="grey", lw=0.8, ls="--")
    ax.set_ylabel("mean overhead vs native call (%)")
    ax.set_title("ivy.<fn> eager overhead, 1e4-element inputs")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=25)
    parser.add_argument("--backends", default="numpy,jax,torch,tensorflow")
    opts = parser.parse_args()
    rows = [r for b in opts.backends.split(",") for r in measure(b, opts.rounds)]
    out = Path(__file__).resolve().parent / "results"
    out.mkdir(exist_ok=True)
    (out / "facade_overhead.json").write_text(json.dumps(rows, indent=1))
    plot(rows, out / "facade_overhead.png")
    print("\n| backend | functions | mean overhead, set globally | mean overhead, inferred |"
          " median native call |\n|---|---|---|---|---|")
    for b in opts.backends.split(","):
        mine = [r for r in rows if r["backend"] == b]
        print(f"| {b} | {len(mine)} | {statistics.mean(r['global'] for r in mine):+.2%} | "
              f"{statistics.mean(r['inferred'] for r in mine):+.2%} | "
              f"{statistics.median(r['native_us'] for r in mine):.1f} us |")


if __name__ == "__main__":
    main()
