"""The control-flow family of the program generator: `cond`, `scan` and `while_loop`
around random sub-programs.

Each body is itself a small random program (`sub_program`: a few steps of the
ordinary families) over the region's block arguments, recorded by the same
`ivy_ir.core.control` helpers the facade and the importers use. A body sees only its
block arguments: a new input it draws is a value from outside, which `close_over`
turns into an explicit operand (a pass-through carry of a loop: what loop-invariant
code motion hoists). What a body must yield with a fixed type (a loop's next carry, the
`orelse` branch's results) is `fit` from what it computed: a value of that type if
there is one (often the argument itself: a pass-through carry), else a reduction of
some value broadcast to the type.

Loops stay short (a scan over a leading axis of at most 4, a while loop of at most 3
steps, counted by an int32 carry), so a rounding difference a pass is allowed cannot
grow much through the iterations.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

import ivy.ops as F
from ivy_ir.core.control import emit_cond, emit_scan, emit_while
from ivy_ir.core.tracer import Tracer
from ivy_ir.dialect import TensorSpec

if TYPE_CHECKING:
    from program_gen import Builder

MAX_LENGTH, MAX_TRIPS = 4, 3


def fit(b: Builder, pool: list[Tracer], want: TensorSpec, arg: Tracer | None = None
        ) -> Tracer:
    """A value of type `want` from `pool`: one computed there, now and then the block
    argument `arg` itself (a pass-through carry), else the sum of one, broadcast."""
    same = [v for v in pool if v.spec == want and v is not arg]
    if same and b.chance(0.8):
        return b.pick(same)
    if arg is not None and b.chance(0.3):
        return arg
    v = pool[-1] if b.chance(0.5) else b.pick(pool)
    total = F.astype(F.sum(b.cast_to(v, "num")), dtype=want.dtype)
    return F.broadcast_to(total, shape=list(want.shape)) if want.shape else total


def sub_program(b: Builder, args: list[Tracer]) -> list[Tracer]:
    """A region body: 1-2 ordinary steps over the block arguments alone (as the pool),
    recorded wherever the graph records now; returns the pool they grew."""
    saved, b.pool = b.pool, list(args)
    b.depth += 1
    try:
        for _ in range(b.integer(1, 2)):
            b.step()
        return b.pool
    finally:
        b.pool = saved
        b.depth -= 1


def _tracers(b: Builder, values: list[Any]) -> list[Tracer]:
    return [Tracer(v, b.graph) for v in values]


def _predicate(b: Builder, x: Tracer) -> Tracer:
    """A 0-d bool: a comparison of a reduction of `x`, now and then a constant."""
    if b.chance(0.15):
        return b.literal(np.array(b.chance(0.5)))
    return F.greater(F.sum(b.cast_to(x, "num")), b.pick((0, 1, -1)))


def cond(b: Builder) -> Tracer:
    x = b.operand()
    inputs = list(dict.fromkeys([x, *b.subset(b.pool[-3:])]))
    pred = _predicate(b, x)
    then_types: list[TensorSpec] = []

    def then(args: list[Any]) -> list[Any]:
        pool = sub_program(b, _tracers(b, args))
        outs = [pool[-1], *b.subset(pool[:-1])[:1]]
        then_types.extend(o.spec for o in outs)
        return [o.value for o in outs]

    def orelse(args: list[Any]) -> list[Any]:
        pool = sub_program(b, _tracers(b, args))
        return [fit(b, pool, t).value for t in then_types]

    results = emit_cond(b.graph, pred.value, [v.value for v in inputs], then, orelse)
    b.families.add("control:cond")
    return _keep(b, results)


def scan(b: Builder) -> Tracer | None:
    stacked = [v for v in b.pool if v.ndim and v.shape[0] <= MAX_LENGTH]
    if not stacked:
        return None
    first = b.pick(stacked)
    length = first.shape[0]
    xs = list(dict.fromkeys([first, *b.subset(v for v in stacked if v.shape[0] == length)]))
    carry = b.subset(b.pool[-3:])[:2]
    n = len(carry)

    def step(args: list[Any]) -> list[Any]:
        tracers = _tracers(b, args)
        pool = sub_program(b, tracers)
        new = [fit(b, pool, c.spec, c) for c in tracers[:n]]
        ys = [pool[-1]] if not new or b.chance(0.7) else []
        return [v.value for v in new + ys]

    results = emit_scan(b.graph, [c.value for c in carry], [x.value for x in xs], step, length,
                        reverse=b.chance(0.3), unroll=b.pick((1, 1, 2)))
    b.families.add("control:scan")
    return _keep(b, results)


def while_loop(b: Builder) -> Tracer:
    carry = list(dict.fromkeys([b.operand(), *b.subset(b.pool[-3:])[:1]]))
    trips = b.integer(0, MAX_TRIPS)
    start = b.literal(np.array(0, dtype="int32"))

    def keep_going(args: list[Any]) -> list[Any]:
        count, *values = _tracers(b, args)
        go = F.less(count, b.literal(np.array(trips, dtype="int32")))
        if b.chance(0.3):  # and a condition on the data, which may end the loop early
            go = F.logical_and(go, _predicate(b, b.pick(values)))
        return [go.value]

    def step(args: list[Any]) -> list[Any]:
        count, *values = _tracers(b, args)
        pool = sub_program(b, values)
        new = [fit(b, pool, v.spec, v) for v in values]
        return [F.add(count, b.literal(np.array(1, dtype="int32"))).value,
                *(v.value for v in new)]

    results = emit_while(b.graph, [start.value, *(v.value for v in carry)], keep_going, step)
    b.families.add("control:while_loop")
    return _keep(b, results[1:])


def _keep(b: Builder, results: list[Any]) -> Tracer:
    """The first result as the step's value; the others join the pool too."""
    tracers = _tracers(b, results)
    b.pool.extend(tracers[1:])
    return tracers[0]


KINDS = {"cond": cond, "scan": scan, "while_loop": while_loop}


MAX_DEPTH = 2
"""Control flow nests: a body may hold one more control-flow op, whose bodies may not."""


def control(b: Builder) -> Tracer | None:
    """One control-flow op around sub-programs."""
    if b.depth >= MAX_DEPTH:
        return None
    return KINDS[b.pick(KINDS)](b)
