"""What the default pass pipeline buys on imported real architectures.

Two models written in PyTorch (a `torch.nn.TransformerEncoderLayer` as it ships, and a
small ResNet-style CNN with BatchNorm), imported with the torch importer in the forms
torch hands out: `torch.export.export` as is (high-level ATen: linear, layer_norm, sdpa,
conv stay whole), its core-ATen decomposition (`run_decompositions()`: addmm, bmm on
flattened heads, sdpa spelled out with a guarded softmax, ...), and for the transformer
also core ATen with layer norm and softmax decomposed too (var_mean, rsqrt, amax, exp,
sum, div). For each: op counts before and after the default pipeline, the ops on
activations apart from the ones that only touch parameters (a batch-norm fold adds a
few of those: they run on weights, not on the data), which composite ops the pipeline
recomposed or folded, and the latency of the torch-eager and numpy targets compiled
with `passes=""` vs the default pipeline, interleaved in one process (ratio = with /
without; < 1 is a gain). Last, the pipeline's own time on a 500-op graph (goal < 0.5 s).
Run from the repository root:

    .venv/bin/python benchmarks/passes.py [--rounds 15]

It runs torch and NumPy's BLAS on one thread (OMP_NUM_THREADS, OPENBLAS_NUM_THREADS and
MKL_NUM_THREADS default to 1; export them to override): on a shared 2-core machine a
thread pool waits on threads other processes have descheduled, and a 0.4 ms torch call
took 70 ms, a 1 ms NumPy one 30 to 250 ms.
"""

# ruff: noqa: E402 (thread settings and the benchmarks dir come before the imports)
from __future__ import annotations

import os

if __name__ == "__main__":  # before NumPy and torch load their thread pools
    for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_var, "1")

import argparse
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))  # not the site-packages `benchmarks`

from ir_speed import build_module

import ivy_ir
from ivy_ir.core.module import Module
from ivy_ir.passes import PRESETS, run_pipeline

COMPOSITES = ("scaled_dot_product_attention", "layer_norm", "linear", "softmax", "gelu",
              "batch_norm", "conv")
"""Ops whose count before and after says which recompositions (and folds) fired."""
WARMUP = 50
"""Calls of each compiled program before timing it."""


def transformer() -> tuple[Any, np.ndarray]:
    import torch

    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=256,
                                             dropout=0.0, batch_first=True).eval()
    return layer, np.random.default_rng(0).standard_normal((8, 32, 64)).astype(np.float32)


def resnet() -> tuple[Any, np.ndarray]:
    import torch
    from torch import nn

    class Block(nn.Module):
        def __init__(self, c: int):
            super().__init__()
            self.conv1, self.bn1 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)
            self.conv2, self.bn2 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)

        def forward(self, x: Any) -> Any:
            h = torch.relu(self.bn1(self.conv1(x)))
            return torch.relu(x + self.bn2(self.conv2(h)))

    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16),
                          nn.ReLU(), Block(16), Block(16), nn.AdaptiveAvgPool2d(1),
                          nn.Flatten(), nn.Linear(16, 10)).eval()
    for m in model.modules():  # non-trivial running statistics, as after training
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 2.0)
    return model, np.random.default_rng(0).standard_normal((8, 3, 32, 32)).astype(np.float32)


def _decomposed(ep: Any) -> Any:
    """Core ATen with layer norm and softmax decomposed as well (torch keeps both whole)."""
    import torch
    from torch._decomp import get_decompositions

    table = torch.export.default_decompositions()
    table.update(get_decompositions([torch.ops.aten.native_layer_norm,
                                     torch.ops.aten._softmax]))
    return ep.run_decompositions(table)


FORMS: dict[str, Callable[[Any], Any]] = {
    "export": lambda ep: ep,
    "core ATen": lambda ep: ep.run_decompositions(),
    "core ATen, norms decomposed": _decomposed,
}
"""Import forms: what is done to `torch.export.export(model, (x,))` before importing."""

MODELS: dict[str, tuple[Callable[[], tuple[Any, np.ndarray]], tuple[str, ...]]] = {
    "TransformerEncoderLayer": (transformer, tuple(FORMS)),
    # torch cannot decompose inference batch norm further (its decomposition mutates)
    "ResNet-style CNN": (resnet, ("export", "core ATen")),
}


def exported(model: Any, x: np.ndarray, form: str) -> Any:
    """The `ExportedProgram` of `model` on `x` in import form `form`."""
    import torch

    from importers.torch_capture import quiet

    with quiet():
        return FORMS[form](torch.export.export(model, (torch.as_tensor(x),)))


def histogram(module: Module) -> Counter[str]:
    return Counter(o.name.removeprefix("ivy.") for o in module.entry.walk()
                   if o.name.startswith("ivy."))


def split(module: Module) -> tuple[Counter[str], Counter[str]]:
    """(ops on activations, ops on parameters and constants only). An op is on
    activations when any operand depends on a user input."""
    args = module.args()
    live = {a for a, info in zip(module.entry.body.block.args, args) if info.param is None}
    acts: Counter[str] = Counter()
    weights: Counter[str] = Counter()
    for op in module.entry.walk():
        if not op.name.startswith("ivy."):
            continue
        name = op.name.removeprefix("ivy.")
        if any(v in live for v in op.operands):
            live.update(op.results)
            acts[name] += 1
        else:
            weights[name] += 1
    return acts, weights


def report_counts(name: str, form: str, module: Module) -> Module:
    timings: dict[str, float] = {}
    optimized = run_pipeline(module, "default", timings=timings)
    before, after = histogram(module), histogram(optimized)
    n0, n1 = sum(before.values()), sum(after.values())
    (a0, w0), (a1, w1) = split(module), split(optimized)
    change = f"{abs(100 * (n1 - n0) / n0):.0f} % {'fewer' if n1 <= n0 else 'more'}"
    print(f"\n## {name}, {form}: {n0} ops -> {n1} after `default` "
          f"({change}); on activations {sum(a0.values())} -> "
          f"{sum(a1.values())}, on parameters only {sum(w0.values())} -> {sum(w1.values())}")
    fired = [f"{op} {before[op]} -> {after[op]}" for op in COMPOSITES
             if before[op] or after[op]]
    print("composite ops: " + ", ".join(fired))
    print("| op | before | after (activations + parameters only) |\n|---|---|---|")
    for op in sorted(set(before) | set(after)):
        if before[op] != after[op]:
            print(f"| {op} | {before[op]} | {after[op]} ({a1[op]} + {w1[op]}) |")
    print("pipeline time: " + ", ".join(f"{k} {v * 1e3:.1f} ms" for k, v in timings.items()))
    return optimized


def _time(fn: Callable[[Any], Any], x: Any, reps: int) -> float:
    t0 = time.perf_counter()
    for _ in range(reps):
        fn(x)
    return (time.perf_counter() - t0) / reps


def report_latency(module: Module, x: np.ndarray, want: np.ndarray, rounds: int) -> None:
    """Both compilations against each other, interleaved; outputs checked against torch."""
    import torch

    print("| target | no passes | default | ratio |\n|---|---|---|---|")
    for target in ("torch", "numpy"):
        plain = ivy_ir.compile(module, target=target, passes="")
        tuned = ivy_ir.compile(module, target=target, passes="default")
        xs = plain.runtime.to_native(x)
        with torch.no_grad():
            for compiled in (plain, tuned):
                np.testing.assert_allclose(np.asarray(_np(compiled(xs))), want,
                                           rtol=1e-4, atol=1e-4)
                _time(compiled, xs, WARMUP)  # torch's first calls take up to ~100 ms
            reps = max(1, int(0.05 / max(_time(plain, xs, 1), 1e-6)))
            a, b = [], []
            for _ in range(rounds):
                a.append(_time(plain, xs, reps))
                b.append(_time(tuned, xs, reps))
        ma, mb = statistics.median(a), statistics.median(b)
        print(f"| {target} | {ma * 1e3:.3f} ms | {mb * 1e3:.3f} ms | {mb / ma:.3f} |")


def _np(y: Any) -> Any:
    return y.detach().numpy() if hasattr(y, "detach") else y


def main() -> None:
    import torch

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    print(f"default pipeline: {PRESETS['default']}; torch threads: {torch.get_num_threads()}, "
          f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}")
    for name, (make, forms) in MODELS.items():
        model, x = make()
        with torch.no_grad():
            want = model(torch.as_tensor(x)).numpy()
        for form in forms:
            module = ivy_ir.trace(exported(model, x, form), (x,))
            report_counts(name, form, module)
            report_latency(module, x, want, args.rounds)
    graph = Module(build_module())
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        run_pipeline(graph, "default")
        times.append(time.perf_counter() - t0)
    print(f"\ndefault pipeline on a {graph.op_count()}-op graph: "
          f"{statistics.median(times) * 1e3:.0f} ms (median of 5; goal < 500 ms)")


if __name__ == "__main__":
    main()
