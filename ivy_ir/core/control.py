"""Building control-flow ops from bodies written as Python callables.

Every producer of IR (the facade tracer, the JAX, torch and TensorFlow importers)
meets a branch or a loop as a body it can *run* on placeholder values: a traced
Python function, a sub-jaxpr, a sub-graph. `emit_cond`, `emit_while` and `emit_scan`
take such bodies as callables from block arguments to the values they yield, record
each into its own region through the caller's `Graph`, and emit the op.

Bodies may read values from outside (a closure's weights, a parameter, a constant the
importer made earlier): the regions of ivy control-flow ops are isolated from above,
so `close_over` turns each such outside value into an explicit operand bound to a new
block argument. A branch gets it as one more input; a loop carries it through
unchanged (the body yields it back), and the op's extra results are dropped. Loop-
invariant code motion and dead-carry removal in `canonicalize` then tidy what a
producer could not know.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from ..dialect import OP_CLASSES, TensorSpec, YieldOp
from .graph import Graph
from .locations import user_location

Body = Callable[[list[SSAValue]], Sequence[SSAValue]]
"""Records a region's ops (through the graph) from its block arguments; returns the
values it yields."""


def record(graph: Graph, arg_types: Sequence[TensorSpec], body: Body) -> Block:
    """A block with `arg_types` arguments holding what `body` records, ending in a
    yield of what it returns."""
    block = Block(arg_types=[t.to_xdsl() for t in arg_types])
    with graph.inside(block):
        outs = list(body(list(block.args)))
        block.add_op(YieldOp(*outs))
    return block


def close_over(blocks: Sequence[Block], at: int | None = None) -> list[SSAValue]:
    """Give every value the blocks use but do not define a block argument of its own
    (inserted at position `at` of each block's arguments, at the end by default),
    rewiring the uses inside; returns those outside values, in argument order."""
    outside: dict[SSAValue, None] = {}
    for block in blocks:
        inner = _defined_in(block)
        for op in block.walk():
            outside.update((v, None) for v in op.operands if v not in inner)
    where = len(blocks[0].args) if at is None else at
    for block in blocks:
        for k, value in enumerate(outside):
            arg = block.insert_arg(value.type, where + k)
            arg.name_hint = value.name_hint
            for use in list(value.uses):
                if _within(use.operation, block):
                    use.operation.operands[use.index] = arg
    return list(outside)


def emit_cond(graph: Graph, pred: SSAValue, inputs: Sequence[SSAValue], then: Body,
              orelse: Body) -> list[SSAValue]:
    loc = _location(graph)
    types = [_spec(v) for v in inputs]
    blocks = [record(graph, types, then), record(graph, types, orelse)]
    extra = close_over(blocks)
    return _insert(loc, graph, "cond", [pred, [*inputs, *extra]], blocks)


def emit_while(graph: Graph, inputs: Sequence[SSAValue], cond: Body, body: Body
               ) -> list[SSAValue]:
    loc = _location(graph)
    types = [_spec(v) for v in inputs]
    blocks = [record(graph, types, cond), record(graph, types, body)]
    extra = close_over(blocks)
    _carry_through(blocks[1], len(inputs), len(extra))
    return _insert(loc, graph, "while_loop", [[*inputs, *extra]], blocks)[:len(inputs)]


def emit_scan(graph: Graph, carry: Sequence[SSAValue], xs: Sequence[SSAValue], body: Body,
              length: int, reverse: bool = False, unroll: int = 1) -> list[SSAValue]:
    """Results: the final carry, then the stacked per-step outputs."""
    loc, n = _location(graph), len(carry)
    types = [_spec(v) for v in carry] + [_spec(x).with_(shape=_spec(x).shape[1:]) for x in xs]
    block = record(graph, types, body)
    extra = close_over([block], at=n)
    _carry_through(block, n, len(extra))
    out = _insert(loc, graph, "scan", [[*carry, *extra, *xs]], [block], num_carry=n + len(extra),
                  length=length, reverse=reverse, unroll=unroll)
    return out[:n] + out[n + len(extra):]


def _carry_through(block: Block, at: int, count: int) -> None:
    """Make the body yield its arguments `at..at+count` back unchanged, at `at`."""
    if count:
        last = block.last_op
        assert isinstance(last, YieldOp)
        values = list(last.operands)
        values[at:at] = block.args[at:at + count]
        last.detach()
        last.erase()
        block.add_op(YieldOp(*values))


def _location(graph: Graph) -> Attribute:
    """Where the op is recorded from: taken before its bodies move the graph's location."""
    return graph.location or user_location()


def _insert(loc: Attribute, graph: Graph, name: str, operands: list, blocks: list[Block],
            **attrs: object) -> list[SSAValue]:
    op = OP_CLASSES[name].build(*operands, location=loc,
                                regions=[Region(b) for b in blocks], **attrs)
    graph.builder.insert(op)
    return list(op.results)


def _defined_in(block: Block) -> set[SSAValue]:
    values: set[SSAValue] = set(block.args)
    for op in block.walk():
        values.update(op.results)
        for region in op.regions:
            for inner in region.blocks:
                values.update(inner.args)
    return values


def _within(op: Operation, block: Block) -> bool:
    parent = op.parent_block()
    while parent is not None:
        if parent is block:
            return True
        owner = parent.parent_op()
        parent = owner.parent_block() if owner is not None else None
    return False


def _spec(value: SSAValue) -> TensorSpec:
    return TensorSpec.from_xdsl(value.type)


__all__ = ["Body", "close_over", "emit_cond", "emit_scan", "emit_while", "record"]
