"""How fast do the importers turn a ~500-op program into ivy IR?

Run as a script (`.venv/bin/python benchmarks/import_speed.py`; site-packages holds an
unrelated `benchmarks` package, so this file is never imported). Each source's zoo
(`tests/zoo_<source>.py`) provides `build_500_op()`, a ~500-op program written natively;
the figure is `ivy_ir.trace` (the framework's own tracing: torch.export, make_jaxpr,
tf.function graph building, or NumPy call recording, plus building and verifying the
IR), no framework JIT compile. Medians of several runs after one warm-up (the warm-up
pays the one-off framework import and first-trace costs, reported separately).
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import ivy_ir  # noqa: E402

SOURCES = ("torch", "jax", "tensorflow", "numpy")
GOAL_S = 2.0


def measure(source: str, runs: int) -> tuple[int, float, float]:
    """(ivy ops, first trace seconds, median trace seconds) of the source's 500-op program."""
    zoo = importlib.import_module(f"zoo_{source}")
    fn, args, params = zoo.build_500_op()
    start = time.perf_counter()
    module = ivy_ir.trace(fn, args, params=params)
    first = time.perf_counter() - start
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        ivy_ir.trace(fn, args, params=params)
        times.append(time.perf_counter() - start)
    return module.op_count(), first, statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sources", nargs="*", default=list(SOURCES))
    args = parser.parse_args()
    print(f"import speed: median of {args.runs} runs after a warm-up; goal < {GOAL_S:.0f} s")
    print(f"{'source':<12}{'ivy ops':>9}{'first (s)':>11}{'median (s)':>12}  goal")
    for source in args.sources:
        n, first, med = measure(source, args.runs)
        print(f"{source:<12}{n:>9}{first:>11.3f}{med:>12.3f}  "
              f"{'ok' if med < GOAL_S else 'MISSED'}")


if __name__ == "__main__":
    main()
