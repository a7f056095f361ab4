"""NumPy kernels of the control-flow ops: plain Python `if`/`while`/`for`.

The emitter writes each region of an `ivy.cond`/`ivy.while_loop`/`ivy.scan` as a
nested function returning a tuple and passes it here, so the three ops share one
rule form on every target (`rules.CONTROL_CALLS`) and each target only says how its
framework runs a branch or a loop. Like every helper, these are copied into the
generated source and may use only `np`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

__all__ = ["run_cond", "run_scan", "run_while"]


def run_cond(pred: Any, then: Callable[..., tuple], orelse: Callable[..., tuple],
             inputs: Sequence[Any]) -> tuple:
    return then(*inputs) if pred else orelse(*inputs)


def run_while(cond: Callable[..., tuple], body: Callable[..., tuple],
              inputs: Sequence[Any]) -> tuple:
    carry = tuple(inputs)
    while cond(*carry)[0]:
        carry = tuple(body(*carry))
    return carry


def run_scan(body: Callable[..., tuple], inputs: Sequence[Any], num_carry: int, length: int,
             reverse: bool, unroll: int, ys_like: Sequence[tuple[tuple, Any]]) -> tuple:
    """`unroll` is a hint for compilers; an interpreter has nothing to unroll."""
    carry, xs = tuple(inputs[:num_carry]), inputs[num_carry:]
    ys: list[list[Any]] = [[] for _ in ys_like]
    for i in range(length - 1, -1, -1) if reverse else range(length):
        out = body(*carry, *(x[i, ...] for x in xs))  # `[i, ...]` keeps a 0-d slice an array
        carry = tuple(out[:num_carry])
        for acc, y in zip(ys, out[num_carry:]):
            acc.append(y)
    stacked = [np.stack(acc[::-1] if reverse else acc) if acc
               else np.zeros((0, *shape), dtype) for acc, (shape, dtype) in zip(ys, ys_like)]
    return (*carry, *stacked)
