"""What the default pass pipeline buys on imported real architectures.

Two models written in PyTorch (a `torch.nn.TransformerEncoderLayer` as it ships, and a
small ResNet-style CNN with BatchNorm), imported with the torch importer. For each:
op counts before and after the default pipeline, which ops the pipeline created or
removed (the recompositions that fired show up as new composite ops), and the latency
of the torch-eager and numpy targets compiled with `passes=""` vs the default
pipeline, interleaved in one process (ratio = with / without; < 1 is a gain). Last, the
pipeline's own time on a 500-op graph (goal < 0.5 s). Run from the repository root:

    .venv/bin/python benchmarks/passes.py [--rounds 15]
"""

from __future__ import annotations

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

from ir_speed import build_module  # noqa: E402

import ivy_ir  # noqa: E402
from ivy_ir.module import Module  # noqa: E402
from ivy_ir.passes import PRESETS, run_pipeline  # noqa: E402


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


def histogram(module: Module) -> Counter[str]:
    return Counter(o.name.removeprefix("ivy.") for o in module.entry.walk()
                   if o.name.startswith("ivy."))


def report_counts(name: str, module: Module) -> Module:
    timings: dict[str, float] = {}
    optimized = run_pipeline(module, "default", timings=timings)
    before, after = histogram(module), histogram(optimized)
    n0, n1 = sum(before.values()), sum(after.values())
    print(f"\n## {name}: {n0} ops -> {n1} after `default` ({100 * (n0 - n1) / n0:.0f} % fewer)")
    print("| op | before | after |\n|---|---|---|")
    for op in sorted(set(before) | set(after)):
        if before[op] != after[op]:
            print(f"| {op} | {before[op]} | {after[op]} |")
    print("pipeline time: " + ", ".join(f"{k} {v * 1e3:.1f} ms" for k, v in timings.items()))
    return optimized


def _time(fn: Callable[[Any], Any], x: Any, reps: int) -> float:
    t0 = time.perf_counter()
    for _ in range(reps):
        fn(x)
    return (time.perf_counter() - t0) / reps


def report_latency(module: Module, x: np.ndarray, rounds: int) -> None:
    import torch

    print("| target | no passes | default | ratio |\n|---|---|---|---|")
    for target in ("torch", "numpy"):
        plain = ivy_ir.compile(module, target=target, passes="")
        tuned = ivy_ir.compile(module, target=target, passes="default")
        xs = plain.runtime.to_native(x)
        with torch.no_grad():
            np.testing.assert_allclose(np.asarray(_np(tuned(xs))), np.asarray(_np(plain(xs))),
                                       rtol=1e-4, atol=1e-4)
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
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    print(f"default pipeline: {PRESETS['default']}")
    for name, make in (("TransformerEncoderLayer", transformer), ("ResNet-style CNN", resnet)):
        model, x = make()
        module = ivy_ir.trace(model, (x,))
        report_counts(name, module)
        report_latency(module, x, args.rounds)
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
