"""ATen's draws from torch's global generator, onto the registry's keyed random ops.

As for dropout in training mode (`torch_shape`), each op draws from the program's
random key (`ImportBuilder.rng_key`: a fresh key per compiled call, from the target's
own RNG): torch's distribution, not its stream, which no target reproduces. The
`.generator` overloads are left unmapped: a caller passing a seeded generator asks for
that generator's stream.
"""

from __future__ import annotations

from typing import Any

from xdsl.ir import SSAValue

from .common import Rule
from .torch_ctx import Ctx


def _draw(op: str) -> Rule:
    """rand/randn(size, dtype=...) and rand_like/randn_like(x, dtype=...): the shape and
    dtype are those torch recorded for the result."""
    def emit(c: Ctx, *args: Any, **kwargs: Any) -> SSAValue:
        out = c.out
        return c.emit(op, c.b.rng_key(), shape=list(c.out_sizes), dtype=out.dtype)
    return emit


def _randperm(c: Ctx, n: int, **kwargs: Any) -> SSAValue:
    """A uniformly random permutation of 0..n-1: the order of n uniform draws (ties, of
    probability ~0, keep their index order)."""
    u = c.emit("random_uniform", c.b.rng_key(), shape=[n], dtype="float64")
    return c.emit("argsort", u, axis=0)


RANDOM: dict[str, Rule] = {
    "rand.default": _draw("random_uniform"),
    "rand_like.default": _draw("random_uniform"),
    "randn.default": _draw("random_normal"),
    "randn_like.default": _draw("random_normal"),
    "randperm.default": _randperm,
}
