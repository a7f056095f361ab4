"""The cost of calling `ivy.<fn>` instead of the framework's own function (the 2021
paper's Table 3 method, on this code).

For every facade function with a native counterpart of the same semantics (elementwise
functions on 1e4 elements, reductions of a 100 x 100 matrix along one axis), eagerly:
the native call and `ivy.<fn>` run interleaved, round after round, so that machine
noise hits both alike; each round times a batch of calls written out as text (no
argument unpacking on either side); reported is the median per-call time of each and
the overhead ivy / native - 1, in two modes: `global` (the backend set with
`ivy.set_backend`, so `ivy.<fn>` is rebound to the backend's function) and `inferred`
(no backend set: the backend-agnostic function reads the argument types, then calls
that backend's function). `one frame` is the floor of any Python-level API, measured
alongside: a function that only passes its arguments on. Functions whose nearest native
call means something else (`ADAPTED`) are timed but left out of the means. Goals: mean
overhead <= 1% global, <= 5% inferred. Run from the repository root:

    .venv/bin/python benchmarks/facade_overhead.py [--rounds 25] [--backends numpy,torch]

`--suite applied` runs `applied_overhead.py` instead (whole functions, same method).

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
              "atanh": "arctanh", "max": "amax", "min": "amin", "equal": "eq",
              "not_equal": "ne"},
    "tensorflow": {"max": "reduce_max", "min": "reduce_min", "sum": "reduce_sum",
                   "prod": "reduce_prod", "mean": "reduce_mean", "std": "reduce_std",
                   "var": "reduce_variance"},
}
"""The native function each benchmarked ivy function calls, where not the same name."""
NATIVE_EXTRA = {("torch", "std"): ", correction=0", ("torch", "var"): ", correction=0"}
"""Arguments the native call needs to mean what the standard's call means."""
ADAPTED = {("torch", "sign"): "torch.sign maps NaN to 0; the standard keeps NaN"}
"""Functions whose nearest native call has other semantics: the ivy function does more
work to meet the standard, so they are timed but left out of the means."""
SYNC = {"jax": ".block_until_ready()"}


def _framework(backend: str) -> tuple[Callable[[str], Any | None], Callable[[np.ndarray], Any]]:
    """(native function of an ivy name, array maker) for a backend."""
    names = NATIVE_NAMES.get(backend, {})
    if backend == "numpy":
        return (lambda n: getattr(np, n)), np.asarray
    if backend == "jax":
        import jax.numpy as jnp
        return (lambda n: getattr(jnp, n)), jnp.asarray
    if backend == "torch":
        import torch
        return (lambda n: getattr(torch, names.get(n, n))), torch.as_tensor
    import tensorflow as tf
    import tensorflow.experimental.numpy as tnp

    def find(n: str) -> Any:
        n = names.get(n, n)
        return getattr(tf.math, n, None) or getattr(tnp, n, None)
    return find, tf.convert_to_tensor


def _cases() -> list[tuple[str, tuple[np.ndarray, ...], str]]:
    """(name, arrays, extra call text): elementwise on 1e4 elements, reductions of a
    100 x 100 matrix along axis 1 (the same reduction on every framework)."""
    rng = np.random.default_rng(0)
    x = rng.uniform(0.1, 0.9, 10_000).astype(np.float32)
    y = rng.uniform(0.1, 0.9, 10_000).astype(np.float32)
    cases = [(n, (x,), "") for n in UNARY] + [(n, (x, y), "") for n in BINARY]
    cases += [(n, (x.reshape(100, 100),), ", 1") for n in REDUCE]
    return cases


def _timer(call: str) -> Callable[..., float]:
    """A loop timing `call` (text over `f`, `a`, `b`) per call: the call expression is
    written out, so that neither side pays for argument unpacking or a wrapper."""
    env: dict[str, Any] = {"perf_counter": time.perf_counter}
    exec(f"def timed(n, f, a, b):\n    start = perf_counter()\n"  # noqa: S102 (ours)
         f"    for _ in range(n):\n        {call}\n"
         f"    return (perf_counter() - start) / n\n", env)
    return env["timed"]


def measure(backend: str, rounds: int) -> list[dict[str, Any]]:
    native_of, make = _framework(backend)
    rows = []
    for name, raw, extra in _cases():
        native = native_of(name)
        if native is None:
            continue  # no single native function to compare with (TF has no trunc)
        arrays = tuple(make(a) for a in raw)
        a, b = arrays if len(arrays) == 2 else (arrays[0], None)
        operands = "a, b" if len(arrays) == 2 else "a"
        sync = SYNC.get(backend, "")
        ivy_call = _timer(f"f({operands}{extra}){sync}")
        native_call = _timer(f"f({operands}{extra}{NATIVE_EXTRA.get((backend, name), '')})"
                             f"{sync}")
        ivy.set_backend(backend)
        bound = getattr(ivy, name)
        ivy.unset_backend()
        inferred = getattr(ivy, name)
        frame = _one_frame(native, len(arrays))
        runs = {"native": (native_call, native), "global": (ivy_call, bound),
                "inferred": (ivy_call, inferred), "one frame": (ivy_call, frame)}
        if extra:  # the one-frame floor is measured for elementwise calls only
            del runs["one frame"]
        for timed, f in runs.values():
            timed(20, f, a, b)  # warm up (first-call compilation, caches)
        n = max(10, int(2e-3 / max(native_call(20, native, a, b), 1e-7)))
        times: dict[str, list[float]] = {k: [] for k in runs}
        for _ in range(rounds):
            for key, (timed, f) in runs.items():
                times[key].append(timed(n, f, a, b))
        med = {k: statistics.median(v) for k, v in times.items()}
        row = {"backend": backend, "function": name, "native_us": med["native"] * 1e6,
               "adapted": ADAPTED.get((backend, name))}
        row.update({k: med[k] / med["native"] - 1 for k in med if k != "native"})
        rows.append(row)
        print(f"{backend:10s} {name:14s} native {med['native'] * 1e6:8.2f} us   "
              f"global {row['global']:+7.2%}   inferred {row['inferred']:+7.2%}"
              + (f"   one frame {row['one frame']:+7.2%}" if "one frame" in row else "")
              + (f"   (adapted: {row['adapted']})" if row["adapted"] else ""), flush=True)
    return rows


def _one_frame(native: Callable[..., Any], arity: int) -> Callable[..., Any]:
    """The floor of any Python-level API: a function that only passes its arguments on."""
    if arity == 1:
        return lambda x, /: native(x)
    return lambda x1, x2, /: native(x1, x2)


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
        means = [100 * statistics.mean(r[mode] for r in _counted(rows, b)) for b in backends]
        ax.bar([j + 0.4 * i for j in range(len(backends))], means, 0.4, label=mode)
    ax.set_xticks([j + 0.2 for j in range(len(backends))], backends)
    ax.axhline(1, color="grey", lw=0.8, ls="--")
    ax.set_ylabel("mean overhead vs native call (%)")
    ax.set_title("ivy.<fn> eager overhead, 1e4-element inputs")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main() -> None:
    suites = ("facade", "applied")
    chosen = argparse.ArgumentParser(add_help=False)
    chosen.add_argument("--suite", choices=suites, default="facade")
    suite, argv = chosen.parse_known_args()
    if suite.suite == "applied":  # whole functions and a training step, own options
        from applied_overhead import main as applied_main
        applied_main(argv)
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--suite", choices=suites, default="facade",
                        help="'applied': benchmarks/applied_overhead.py, ivy.applied's "
                             "functions and an Adam step against the same code native")
    parser.add_argument("--rounds", type=int, default=25)
    parser.add_argument("--backends", default="numpy,jax,torch,tensorflow")
    opts = parser.parse_args(argv)
    rows = [r for b in opts.backends.split(",") for r in measure(b, opts.rounds)]
    out = Path(__file__).resolve().parent / "results"
    out.mkdir(exist_ok=True)
    (out / "facade_overhead.json").write_text(json.dumps(rows, indent=1))
    plot(rows, out / "facade_overhead.png")
    print("\n| backend | functions | mean overhead, set globally | mean overhead, inferred |"
          " one Python frame (elementwise) | median native call |\n|---|---|---|---|---|---|")
    for b in opts.backends.split(","):
        mine = _counted(rows, b)
        floor = [r["one frame"] for r in mine if "one frame" in r]
        print(f"| {b} | {len(mine)} | {statistics.mean(r['global'] for r in mine):+.2%} | "
              f"{statistics.mean(r['inferred'] for r in mine):+.2%} | "
              f"{statistics.mean(floor):+.2%} | "
              f"{statistics.median(r['native_us'] for r in mine):.1f} us |")
    for r in rows:
        if r["adapted"]:
            print(f"- {r['backend']} `{r['function']}`: global {r['global']:+.0%} "
                  f"({r['adapted']})")


def _counted(rows: list[dict[str, Any]], backend: str) -> list[dict[str, Any]]:
    """A backend's rows that enter its means: those with a same-semantics native call."""
    return [r for r in rows if r["backend"] == backend and not r["adapted"]]


if __name__ == "__main__":
    main()
