"""PyTorch kernels of the control-flow ops: Python control flow over tensors.

Eager torch has no graph to put a loop in: a Python `if`/`while`/`for` over tensors
is how hand-written torch code loops, and autograd records through it, so gradients
flow through every branch taken and every step. The regions arrive as functions
returning tuples (see `ivy_ir/core/reference_control.py`).

Under `torch.compile` (the `torch_compile=True` option) a branch or a loop on tensor
data would break dynamo's graph, so there the kernels hand `cond` and `while_loop` to
torch's own higher-order ops, `torch.cond` and `torch.while_loop`, which dynamo
captures whole (their bodies may not return an input itself, so such outputs are
copied); a scan has a static length, which dynamo unrolls.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch

__all__ = ["run_cond", "run_scan", "run_while", "unaliased"]


def run_cond(pred: Any, then: Callable[..., tuple], orelse: Callable[..., tuple],
             inputs: Sequence[Any]) -> tuple:
    if torch.compiler.is_compiling():
        return tuple(torch.cond(pred, lambda *a: unaliased(then, a),
                                lambda *a: unaliased(orelse, a), tuple(inputs)))
    return then(*inputs) if bool(pred) else orelse(*inputs)


def run_while(cond: Callable[..., tuple], body: Callable[..., tuple],
              inputs: Sequence[Any]) -> tuple:
    if torch.compiler.is_compiling():
        return tuple(torch.while_loop(lambda *c: cond(*c)[0], lambda *c: unaliased(body, c),
                                      tuple(inputs)))
    carry = tuple(inputs)
    while bool(cond(*carry)[0]):
        carry = tuple(body(*carry))
    return carry


def unaliased(region: Callable[..., tuple], args: tuple) -> tuple:
    """The region's outputs, each one that is an argument itself copied."""
    return tuple(o.clone() if any(o is a for a in args) else o for o in region(*args))


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
