"""Kornia transpiled lazily from torch to JAX: what the first call of each function
costs (trace, optimize, lower, XLA compile, run) and what every later call costs,
against kornia itself on torch.

Run as a script (`.venv/bin/python benchmarks/kornia_lazy.py`; site-packages holds an
unrelated `benchmarks` package, so this file is never imported). The functions and
their arguments are the test table (`tests/kornia_cases.py`), on its 1x3x16x16 image.
Per function: the first call through the proxy (a miss); the median of `--runs`
cached calls through the proxy (argument binding, cache lookup, the jitted program);
the median of `--runs` calls of `jax.jit` around the proxy call (the cache is consulted
only while jit traces, so this is XLA's own dispatch); and kornia eager on torch with
`torch.no_grad()`. One thread for torch, as in `rnn_speed.py`: on a shared 2-core
machine torch's default pool makes its timings swing. Before the table, a throwaway
call pays the one-off costs (torch.export's and XLA's first use), reported apart.

Writes `docs/kornia_lazy.md` (the page: usage, this table, what does not transpile
yet and why) and `docs/kornia_lazy.png`.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import kornia  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
from kornia_cases import CASES, FAILING, IMAGE, Case  # noqa: E402

from ivy.library import transpile_library  # noqa: E402

PAGE, PNG = ROOT / "docs" / "kornia_lazy.md", ROOT / "docs" / "kornia_lazy.png"
Row = tuple[str, float, float, float, float]
"""(function, first call, cached call, under jax.jit, kornia on torch), in seconds."""


def timed(fn: Callable[[], Any], runs: int) -> float:
    for _ in range(3):
        jax.block_until_ready(fn())
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        jax.block_until_ready(fn())
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def measure(case: Case, runs: int) -> Row:
    kj = transpile_library(kornia, source="torch", to="jax")
    x, xt = jnp.asarray(IMAGE), torch.from_numpy(IMAGE)
    start = time.perf_counter()
    out = jax.block_until_ready(case.call(kj, x, jnp.asarray))
    first = time.perf_counter() - start
    with torch.no_grad():
        want = case.call(kornia, xt, torch.from_numpy).numpy()
        rtol, atol = case.tolerance
        np.testing.assert_allclose(np.asarray(out), want, rtol=rtol, atol=atol)
        native = timed(lambda: case.call(kornia, xt, torch.from_numpy), runs)
    jitted = jax.jit(lambda a: case.call(kj, a, jnp.asarray))
    return (case.name, first, timed(lambda: case.call(kj, x, jnp.asarray), runs),
            timed(lambda: jitted(x), runs), native)


def warm_up() -> float:
    """The one-off costs, paid by a function left out of the table, on another shape."""
    kj = transpile_library(kornia, source="torch", to="jax")
    start = time.perf_counter()
    jax.block_until_ready(kj.enhance.posterize(jnp.asarray(IMAGE[:, :, :8, :8]), 3))
    return time.perf_counter() - start


def table(rows: list[Row]) -> str:
    lines = ["| kornia function | first call (ms) | cached call (µs) | in `jax.jit` (µs) "
             "| kornia on torch (µs) |", "|---|---:|---:|---:|---:|"]
    lines += [f"| `{name}` | {first * 1e3:.0f} | {cached * 1e6:.0f} | {jit * 1e6:.0f} "
              f"| {native * 1e6:.0f} |" for name, first, cached, jit, native in rows]
    return "\n".join(lines)


def summary(rows: list[Row], warm: float) -> str:
    firsts = [r[1] for r in rows]
    ratios = [r[3] / r[4] for r in rows]
    return (f"{len(rows)} functions. One-off warm-up (first use of torch.export and "
            f"XLA): {warm:.1f} s. First call: median {statistics.median(firsts) * 1e3:.0f} "
            f"ms, at most {max(firsts) * 1e3:.0f} ms. Under `jax.jit`, the median function "
            f"takes {statistics.median(ratios):.2f}x kornia's time on torch "
            f"(from {min(ratios):.2f}x to {max(ratios):.2f}x).")


PROSE = """# Kornia, transpiled lazily to JAX

`ivy.transpile(kornia, source="torch", to="jax")` (for a module object it calls
`ivy.library.transpile_library`) returns a proxy over kornia's namespace. Nothing is
compiled up front: each function is traced on its first call for the argument
signature it gets (array shapes and dtypes, and the values of the other arguments,
defaults included), cached, and called natively afterwards, as `jax.jit` does. The
results are JAX arrays, so the functions compose with JAX's transforms:

```python
import jax, jax.numpy as jnp, kornia, ivy

kj = ivy.transpile(kornia, source="torch", to="jax")

@jax.jit
def preprocess(images):
    blurred = kj.filters.gaussian_blur2d(images, (3, 3), (1.0, 1.0))
    gray = kj.color.rgb_to_grayscale(kj.enhance.adjust_saturation(blurred, 1.4))
    return kj.geometry.transform.resize(gray, (8, 8))

grads = jax.grad(lambda x: preprocess(x).sum())(jnp.ones((1, 3, 16, 16)))
kj.filters.gaussian_blur2d.cache_info()   # CacheInfo(hits=0, misses=1, entries=1)
```

Submodules are proxies too (`kj.filters`), every function keeps its name, docstring
and signature, and `dir()` lists what can be called. Arrays passed in (the image, a
`mean` for `normalize`) become inputs of the program; other arguments (`kernel_size`,
a float `factor`) are static: a new value is a new trace, and a gradient is taken only
with respect to arrays. Classes (`kornia.filters.GaussianBlur2d`) are not transpiled
with their library: an instance is one program, `ivy.transpile(GaussianBlur2d((3, 3),
(1.0, 1.0)), source="torch", to="jax")`.

Each function below matches kornia on torch (rtol = atol = 1e-5; atol = 1e-3 for the
CIE Lab/Luv conversions, see `tests/kornia_cases.py`), eagerly, under `jax.jit`, and
in its gradient (`tests/test_transpile_library.py`).

## Timings

Made by `benchmarks/kornia_lazy.py` on {machine} (CPU, one 1x3x16x16 float32 image,
median of {runs} calls). *First call*: trace with torch.export, import into the IR,
optimize, emit JAX source, XLA compile, run. *Cached call*: the proxy's argument
binding and cache lookup, then the jitted program. *In `jax.jit`*: the proxy call
inside the user's own `jax.jit`, where it costs nothing after tracing. For images this
small, each call is dominated by dispatch overhead on both sides.

{summary}

{table}

![first-call and per-call times]({png})

## Not transpiled yet

| kornia functions | why |
|---|---|
{failing}

Other limits: an argument torch.export cannot take (a `torch.dtype`, such as the
`dtype=` of kornia's kernel factories) fails the trace; functions taking `*args` or
`**kwargs` are refused (their values would key the cache as one opaque tuple). A
function whose first call happens inside `jax.jit` is traced on zeros of its arguments'
types, and its cached entry serves later jit traces too (the lowering makes its
constants concrete: `JaxRuntime.scope`; `test_traced_on_its_first_call_under_jit`).
"""


def plot(rows: list[Row]) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [r[0] for r in rows]
    y = np.arange(len(rows))
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 0.25 * len(rows) + 1.5),
                                      sharey=True, gridspec_kw={"width_ratios": [1, 2]})
    left.barh(y, [r[1] for r in rows], color="tab:gray")
    left.set_xlabel("first call (s)")
    for i, (label, color) in enumerate((("cached call", "tab:blue"),
                                        ("in jax.jit", "tab:green"),
                                        ("kornia on torch", "tab:orange"))):
        right.barh(y + (i - 1) * 0.27, [r[2 + i] * 1e6 for r in rows], height=0.27,
                   color=color, label=label)
    right.set_xscale("log")
    right.set_xlabel("per call (µs, log scale)")
    right.legend(loc="lower right", fontsize="small")
    left.set_yticks(y, names, fontsize="small")
    left.invert_yaxis()
    fig.tight_layout()
    fig.savefig(PNG, dpi=100)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    torch.set_num_threads(1)
    warm = warm_up()
    rows = [measure(case, args.runs) for case in CASES]
    print(table(rows), "", summary(rows, warm), sep="\n")
    by_reason: dict[str, list[str]] = {}
    for name, why in FAILING.items():
        by_reason.setdefault(why, []).append(f"`{name}`")
    failing = "\n".join(f"| {', '.join(names)} | {why} |" for why, names in by_reason.items())
    machine = (f"{platform.machine()} {platform.system()} with {os.cpu_count()} cores "
               f"(load average {os.getloadavg()[0]:.1f} at the end of the run: the "
               f"machine is shared), jax {jax.__version__}, torch {torch.__version__}, "
               f"kornia {kornia.__version__}")
    PAGE.write_text(PROSE.format(machine=machine, runs=args.runs, summary=summary(rows, warm),
                                 table=table(rows), png=PNG.name, failing=failing))
    plot(rows)
    print(f"wrote {PAGE} and {PNG}")


if __name__ == "__main__":
    main()
