"""JAX kernels of the control-flow ops: `lax.cond`, `lax.while_loop`, `lax.scan`.

The regions arrive as functions of positional arrays returning tuples (see
`ivy_ir/core/reference_control.py`); lax wants one carry pytree, so these adapt the
calling convention and nothing else: the loops stay loops in the jaxpr (no
unrolling), jit-compiled, and `cond`/`scan` are differentiable as JAX makes them.
`while_loop` is forward-only under reverse-mode autodiff, as in JAX itself.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from jax import lax

__all__ = ["run_cond", "run_scan", "run_while"]


def run_cond(pred: Any, then: Callable[..., tuple], orelse: Callable[..., tuple],
             inputs: Sequence[Any]) -> tuple:
    return tuple(lax.cond(pred, then, orelse, *inputs))


def run_while(cond: Callable[..., tuple], body: Callable[..., tuple],
              inputs: Sequence[Any]) -> tuple:
    return tuple(lax.while_loop(lambda c: cond(*c)[0], lambda c: tuple(body(*c)),
                                tuple(inputs)))


def run_scan(body: Callable[..., tuple], inputs: Sequence[Any], num_carry: int, length: int,
             reverse: bool, unroll: int, ys_like: Sequence[tuple[tuple, Any]]) -> tuple:
    def step(carry: tuple, xs: tuple) -> tuple[tuple, tuple]:
        out = body(*carry, *xs)
        return tuple(out[:num_carry]), tuple(out[num_carry:])
    carry, ys = lax.scan(step, tuple(inputs[:num_carry]), tuple(inputs[num_carry:]),
                         length=length, reverse=reverse, unroll=unroll)
    return (*carry, *ys)
