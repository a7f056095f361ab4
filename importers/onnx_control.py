"""ONNX control flow (`If`, `Loop`, `Scan`) as ivy region ops.

The body of a control-flow node is a GRAPH attribute: `Ctx.subgraph` walks it with the
same operator table at the current insertion point, which `ivy_ir.core.control`
points into the region being recorded. Its inputs bind to the region's block
arguments; names of the enclosing graphs stay visible, and `close_over` turns the outer
SSA values a body reads into explicit operands. Mapping:
- `If` -> `ivy.cond` (a known condition inlines the chosen branch);
- `Loop` without scan outputs -> `ivy.while_loop` carrying (iteration, cond, values);
- `Loop` with scan outputs -> `ivy.scan` of `M` steps, which needs a known trip count
  and a loop that cannot stop early (no condition input, or a known true one, and a
  body whose condition output is known true): a stack of unknown length has no type;
- `Scan` (opset 9+) -> `ivy.scan`, scan axes moved to the front and reversed
  directions flipped around it, outputs moved and flipped back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.ir import SSAValue

from ivy_ir.core.control import emit_cond, emit_scan, emit_while

from .common import Rule, Unmapped
from .onnx_ctx import Ctx, Value
from .onnx_optional import form, leaves, rebuild


def _yielded(c: Ctx, values: Sequence[Value]) -> list[SSAValue]:
    """A body's results as values its region can yield (known arrays become constants
    made inside the region)."""
    return [c.b.constant(v) if isinstance(v, np.ndarray) else c.operand(v) for v in values]


def _scalar(c: Ctx, value: Any, dtype: str) -> Any:
    """A one-element condition or trip count as a 0-d value of `dtype`."""
    if c.spec(value).shape != ():
        value = c.emit("reshape", value, shape=[])
    return c.cast(value, dtype)


def _if(c: Ctx, cond: Any, then_branch: Any, else_branch: Any) -> list[Value]:
    """A traced condition is an `ivy.cond`; a branch output that is a sequence or an
    optional is yielded as its tensors, so both branches must give sequences of one
    length and optionals of one presence there, else the condition is needed at import
    (`NotKnown`: the ONNX backend then compiles per its value)."""
    known = c.known(cond)
    if known is not None:
        return c.subgraph(then_branch if bool(known.ravel()[0]) else else_branch, [])
    pred = c.operand(_scalar(c, cond, "bool"))
    where = c.b.graph.location
    results: list[list[Value]] = []

    def branch(graph: Any) -> Any:
        def body(_: list[SSAValue]) -> list[SSAValue]:
            try:
                values = c.subgraph(graph, [])
                results.append(values)
                if len(results) == 2 and [form(v) for v in results[0]] != [
                        form(v) for v in values]:
                    c.static(cond, "the condition (its branches give sequences of "
                             "different lengths or optionals of different presence)")
                return _yielded(c, [t for v in values for t in leaves(v)])
            finally:
                c.b.at(where)
        return body
    flat = iter(emit_cond(c.b.graph, pred, [], branch(then_branch), branch(else_branch)))
    return [rebuild(v, flat) for v in results[0]]


def _loop(c: Ctx, trip: Any = None, cond: Any = None, *initial: Any, body: Any) -> list[Value]:
    carried = len(initial)
    scans = len(body.output) - 1 - carried
    if scans < 0:
        raise Unmapped(f"its body has {len(body.output)} outputs, fewer than the condition "
                       f"and the {carried} carried values")
    if scans:
        return _counted(c, trip, cond, list(initial), body)
    return _while(c, trip, cond, list(initial), body)


def _while(c: Ctx, trip: Any, cond: Any, initial: list[Any], body: Any) -> list[Value]:
    """(iteration, cond, values) carried; the loop runs while cond (and iteration < M)."""
    start = [c.operand(np.asarray(0, np.int64)),
             c.operand(np.asarray(True) if cond is None else _scalar(c, cond, "bool")),
             *(c.operand(v) for v in initial)]
    limit = None if trip is None else _scalar(c, trip, "int64")
    where = c.b.graph.location

    def test(args: list[SSAValue]) -> list[SSAValue]:
        if limit is None:
            return [args[1]]
        return [c.operand(c.emit("logical_and", args[1], c.emit("less", args[0], limit)))]

    def step(args: list[SSAValue]) -> list[SSAValue]:
        try:
            outs = c.subgraph(body, args)
            nxt = c.emit("add", args[0], np.asarray(1, np.int64))
            return _yielded(c, [nxt, _scalar(c, outs[0], "bool"), *outs[1:]])
        finally:
            c.b.at(where)
    return emit_while(c.b.graph, start, test, step)[2:]


def _counted(c: Ctx, trip: Any, cond: Any, initial: list[Any], body: Any) -> list[Value]:
    """A loop with scan outputs as `ivy.scan` of exactly M steps: it needs a known M
    and a condition that stays known true, else the stacks' length is unknown."""
    if trip is None:
        raise Unmapped("a loop with scan outputs and no trip count")
    steps = c.ints(trip, "the trip count")[0]
    if cond is not None and not bool(np.ravel(c.static(cond, "the loop condition"))[0]):
        return list(initial)  # never runs: ONNX gives empty scan outputs we cannot type
    where = c.b.graph.location
    carry = [c.operand(np.asarray(0, np.int64)), *(c.operand(v) for v in initial)]

    def step(args: list[SSAValue]) -> list[SSAValue]:
        try:
            outs = c.subgraph(body, [args[0], np.asarray(True), *args[1:len(carry)]])
            go = c.known(outs[0])
            if go is None or not bool(go.ravel()[0]):
                raise Unmapped("a loop with scan outputs whose condition may turn false")
            nxt = c.emit("add", args[0], np.asarray(1, np.int64))
            return _yielded(c, [nxt, *outs[1:]])
        finally:
            c.b.at(where)
    results = emit_scan(c.b.graph, carry, [], step, length=steps)
    return results[1:]


def _move(c: Ctx, x: Any, src: int, dst: int) -> Any:
    """`x` with axis `src` moved to position `dst`."""
    rank = c.rank(x)
    src, dst = src % rank, dst % rank
    if src == dst:
        return x
    order = [a for a in range(rank) if a != src]
    order.insert(dst, src)
    return c.emit("permute_dims", x, axes=order)


def _scan(c: Ctx, *inputs: Any, body: Any, num_scan_inputs: int,
          scan_input_axes: list[int] | None = None,
          scan_input_directions: list[int] | None = None,
          scan_output_axes: list[int] | None = None,
          scan_output_directions: list[int] | None = None) -> list[Value]:
    if c.opset < 9:
        raise Unmapped("Scan before opset 9 (batched, with sequence_lens)")
    n_state = len(inputs) - num_scan_inputs
    n_out = len(body.output) - n_state
    in_axes = scan_input_axes or [0] * num_scan_inputs
    in_dirs = scan_input_directions or [0] * num_scan_inputs
    out_axes = scan_output_axes or [0] * n_out
    out_dirs = scan_output_directions or [0] * n_out
    xs = []
    for x, axis, reverse in zip(inputs[n_state:], in_axes, in_dirs):
        x = _move(c, x, axis, 0)
        xs.append(c.operand(c.emit("flip", x, axis=[0]) if reverse else x))
    length = c.spec(xs[0]).shape[0] if xs else None
    if length is None:
        raise Unmapped("a Scan of dynamic length")
    where = c.b.graph.location

    def step(args: list[SSAValue]) -> list[SSAValue]:
        try:
            return _yielded(c, c.subgraph(body, args))
        finally:
            c.b.at(where)
    results = emit_scan(c.b.graph, [c.operand(v) for v in inputs[:n_state]], xs, step,
                        length=length)
    stacked = []
    for y, axis, reverse in zip(results[n_state:], out_axes, out_dirs):
        y = c.emit("flip", y, axis=[0]) if reverse else y
        stacked.append(_move(c, y, 0, axis))
    return results[:n_state] + stacked


TABLE: dict[str, Rule] = {"If": _if, "Loop": _loop, "Scan": _scan}
"""ONNX op_type -> rule for control flow."""
