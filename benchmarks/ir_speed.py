"""How fast is ivy IR itself? Build, verify, print and parse a 500-op module, and
lower it to NumPy source (emit, load: the part of every compile that is ours).

Run as a script (`.venv/bin/python benchmarks/ir_speed.py`): site-packages holds an
unrelated top-level `benchmarks` package, so this file is never imported. The module
mixes the op kinds real programs have (elementwise chains, matmuls, reductions,
reshapes) and every figure is the median of several runs, in milliseconds.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Region

import ivy_ir
from ivy_ir.dialect import OP_CLASSES, TensorSpec

N_OPS = 500
RUNS = 7


def build_module(n_ops: int = N_OPS) -> ModuleOp:
    """A chain of 10-op blocks over a 64x64 float32 value (plus one weight)."""
    t = TensorSpec((64, 64), "float32").to_xdsl()
    block = Block(arg_types=[t, t])
    x, w = block.args
    ops: list[Any] = []

    def add(name: str, *operands: Any, **attrs: Any) -> Any:
        op = OP_CLASSES[name].build(*operands, **attrs)
        ops.append(op)
        return op.results[0]

    while len(ops) < n_ops:
        h = add("matmul", x, w)
        h = add("add", h, x)
        h = add("tanh", h)
        h = add("multiply", h, h)
        s = add("sum", h, axis=[1], keepdims=True)
        h = add("subtract", h, s)
        h = add("reshape", h, shape=[32, 128])
        h = add("exp", h)
        h = add("reshape", h, shape=[64, 64])
        x = add("relu", h)
    block.add_ops([*ops, func.ReturnOp(x)])
    fn = func.FuncOp("main", ([t, t], [x.type]), Region(block))
    return ModuleOp([fn])


def median_ms(fn: Callable[[], Any], runs: int = RUNS) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def main() -> None:
    module = build_module()
    text = str(module)
    n = sum(1 for _ in module.walk()) - 3  # minus module, func, return
    ir = ivy_ir.parse(text)
    rows = [
        ("build", median_ms(build_module)),
        ("verify", median_ms(module.verify)),
        ("print", median_ms(lambda: str(module))),
        ("parse+verify", median_ms(lambda: ivy_ir.parse(text))),
    ]
    lower = median_ms(lambda: ivy_ir.lower(ir, "numpy"))
    print(f"ivy IR speed: {n} ivy ops, {len(text.splitlines())} lines, "
          f"median of {RUNS} runs")
    print(f"{'step':<14}{'ms':>10}{'us/op':>10}")
    for step, ms in rows:
        print(f"{step:<14}{ms:>10.1f}{ms * 1e3 / n:>10.1f}")
    total = sum(ms for _, ms in rows)
    print(f"{'total':<14}{total:>10.1f}{total * 1e3 / n:>10.1f}")
    print(f"{'lower (numpy)':<14}{lower:>10.1f}{lower * 1e3 / n:>10.1f}")


if __name__ == "__main__":
    main()
