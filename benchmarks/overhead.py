"""Compiled vs hand-written: the per-target cost of going through ivy_ir.

For each program of programs.py and each target, `ivy_ir.compile` output and the same
program written by hand in that framework (native.py) run in one process, under the
same wrapping (jax.jit, tf.function, torch eager), interleaved round by round so that
machine noise hits both alike. Reported: median time per call and the ratio
compiled / native (goal: <= 1.02). Run from the repository root:

    .venv/bin/python benchmarks/overhead.py [--rounds 30] [--targets jax,torch]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))  # not the site-packages `benchmarks`

import native  # noqa: E402
from programs import PROGRAMS, make_inputs  # noqa: E402

import ivy_ir  # noqa: E402

NATIVE = {"jax": native.jax_programs, "torch": native.torch_programs,
          "tensorflow": native.tensorflow_programs, "numpy": native.numpy_programs}


def _sync(target: str) -> Callable[[Any], Any]:
    if target == "jax":
        return lambda y: y.block_until_ready()
    if target == "tensorflow":
        return lambda y: y.numpy()
    return lambda y: y


def _time(fn: Callable[[], Any], sync: Callable[[Any], Any], reps: int) -> float:
    t0 = time.perf_counter()
    for _ in range(reps):
        sync(fn())
    return (time.perf_counter() - t0) / reps


def bench(target: str, name: str, rounds: int) -> tuple[float, float, float] | None:
    hand = NATIVE[target]().get(name)
    if hand is None:
        return None
    params, buffers, x = make_inputs(name, np.random.default_rng(0))
    c = ivy_ir.compile(PROGRAMS[name], target=target, args=(x,), params=params,
                       buffers=buffers)
    xs = c.runtime.to_native(x)
    # the hand-written program gets the same native parameter objects (nn.Parameter,
    # tf.Variable, jax arrays), as a model written in that framework would hold
    flat = c.params
    sync = _sync(target)
    run_c = lambda: c(xs)  # noqa: E731
    run_n = lambda: hand(flat, xs)  # noqa: E731
    err = float(np.max(np.abs(_np(run_c()) - _np(run_n()))))
    reps = max(1, int(0.05 / max(_time(run_n, sync, 3), 1e-7)))  # ~50 ms per sample
    samples_c, samples_n = [], []
    for _ in range(rounds):
        samples_n.append(_time(run_n, sync, reps))
        samples_c.append(_time(run_c, sync, reps))
    med_c, med_n = statistics.median(samples_c), statistics.median(samples_n)
    return med_c, med_n, err


def _np(y: Any) -> np.ndarray:
    return np.asarray(y.detach() if hasattr(y, "detach") else y, dtype=np.float64)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--targets", default="jax,torch,tensorflow,numpy")
    ap.add_argument("--programs", default=",".join(PROGRAMS))
    args = ap.parse_args()
    print(f"{'target':<11} {'program':<16} {'compiled':>11} {'native':>11} {'ratio':>7} "
          f"{'max|diff|':>10}")
    for target in args.targets.split(","):
        for name in args.programs.split(","):
            res = bench(target, name, args.rounds)
            if res is None:
                continue
            c, n, err = res
            print(f"{target:<11} {name:<16} {c * 1e3:>9.3f}ms {n * 1e3:>9.3f}ms "
                  f"{c / n:>7.3f} {err:>10.1e}", flush=True)


if __name__ == "__main__":
    main()
