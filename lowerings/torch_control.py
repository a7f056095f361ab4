"""PyTorch kernels of the control-flow ops: Python control flow over tensors.

Eager torch has no graph to put a loop in: a Python `if`/`while`/`for` over tensors
is how hand-written torch code loops, and autograd records through it, so gradients
flow through every branch taken and every step. The regions arrive as functions
returning tuples (see `ivy_ir/core/reference_control.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch

__all__ = ["run_cond", "run_scan", "run_while"]


def run_cond(pred: Any, then: Callable[..., tuple], orelse: Callable[..., tuple],
             inputs: Sequence[Any]) -> tuple:
    return then(*inputs) if bool(pred) else orelse(*inputs)


def run_while(cond: Callable[..., tuple], body: Callable[..., tuple],
              inputs: Sequence[Any]) -> tuple:
    carry = tuple(inputs)
    while bool(cond(*carry)[0]):
        carry = tuple(body(*carry))
    return carry


def run_scan(body: Callable[..., tuple], inputs: Sequence[Any], num_carry: int, length: int,
             reverse: bool, unroll: int, ys_like: Sequence[tuple[tuple, Any]]) -> tuple:
    """`unroll` is a hint for compilers; eager torch has nothing to unroll."""
    carry, xs = tuple(inputs[:num_carry]), inputs[num_carry:]
    ys: list[list[Any]] = [[] for _ in ys_like]
    for i in range(length - 1, -1, -1) if reverse else range(length):
        out = body(*carry, *(x[i] for x in xs))
        carry = tuple(out[:num_carry])
        for acc, y in zip(ys, out[num_carry:]):
            acc.append(y)
    device = inputs[0].device if len(inputs) else None
    stacked = [torch.stack(acc[::-1] if reverse else acc) if acc
               else torch.zeros((0, *shape), dtype=dtype, device=device)
               for acc, (shape, dtype) in zip(ys, ys_like)]
    return (*carry, *stacked)
