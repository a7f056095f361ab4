"""How the control-flow rules of `canonicalize` read and rebuild region ops.

The three region ops share one layout: every region's block takes the *threaded*
values first (a branch's inputs, a loop's carry; a scan body then takes one slice of
each scanned operand), and the threaded values are the op's last, variadic operand
group (after a `cond`'s predicate). Some regions' `ivy.yield` gives the op's results
(both branches of a `cond`, the body of a loop), and a loop's body yields its next
carry first. `LAYOUT` records the differences, so one `remake` serves every rule that
changes what an op threads, carries or returns.

Nothing here edits the op being rewritten: `remake` and `inline` work on copies (made
through the rule's `Emit`, so a rule that gives up leaves no trace), and bodies stay
isolated: a copied body sees only its own block arguments, an inlined or hoisted op
sees only values of the block it lands in.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue
from xdsl.transforms.dead_code_elimination import region_dce

from ..dialect import IvyOp, YieldOp
from .canon_match import Emit


@dataclass(frozen=True)
class Layout:
    """Where a region op keeps what: operands before the threaded ones, the regions
    whose yields are the results, and whether it carries (a loop: the carry is yielded
    back first, and each carry is also a result at its own position)."""

    leading: int
    result_regions: tuple[int, ...]
    loop: bool


LAYOUT = {
    "cond": Layout(leading=1, result_regions=(0, 1), loop=False),
    "while_loop": Layout(leading=0, result_regions=(1,), loop=True),
    "scan": Layout(leading=0, result_regions=(0,), loop=True),
}


def layout(op: IvyOp) -> Layout:
    return LAYOUT[op.SPEC.name]


def threaded(op: IvyOp) -> list[SSAValue]:
    """The operands the regions' block arguments stand for, in argument order."""
    return list(op.operands[layout(op).leading:])


def carries(op: IvyOp) -> int:
    """How many values a loop carries (0 for a `cond`)."""
    if op.SPEC.name == "scan":
        return op.attr_values()["num_carry"]
    return len(op.operands) if layout(op).loop else 0


def body(op: IvyOp) -> Block:
    """The block whose yield gives the results (a loop's body, a cond's `then`)."""
    return op.regions[layout(op).result_regions[0]].block


def yielded(block: Block) -> list[SSAValue]:
    last = block.last_op
    assert isinstance(last, YieldOp)
    return list(last.operands)


def pass_through(op: IvyOp) -> set[int]:
    """Carry positions the body yields back unchanged: loop invariants."""
    block = body(op)
    out = yielded(block)
    return {i for i in range(carries(op)) if out[i] is block.args[i]}


def needed_args(block: Block, values: Iterable[SSAValue]) -> set[int]:
    """Indices of the block arguments `values` depend on (through the ops of the block;
    a nested region op depends on its operands alone, its regions being isolated)."""
    args: set[int] = set()
    seen: set[Operation] = set()
    work = list(values)
    while work:
        value = work.pop()
        if isinstance(value, BlockArgument):
            if value.block is block:
                args.add(value.index)
            continue
        owner = value.owner
        if isinstance(owner, Operation) and owner not in seen:
            seen.add(owner)
            work.extend(owner.operands)
    return args


def inline(block: Block, args: Sequence[SSAValue], emit: Emit) -> list[SSAValue]:
    """Copies of the block's ops on `args` in place of its arguments (inserted before
    the op being rewritten); returns what the copy yields."""
    mapping: dict[SSAValue, SSAValue] = dict(zip(block.args, args))
    for inner in block.ops:
        if not isinstance(inner, YieldOp):
            emit.clone(inner, mapping)
    return [mapping[v] for v in yielded(block)]


@dataclass(frozen=True)
class NewCarry:
    """A value hoisted out of a loop, carried through unchanged: `outer` is its copy
    before the loop, `inner` the body values (by region index) it replaces."""

    outer: SSAValue
    inner: Mapping[int, SSAValue]


def remake(op: IvyOp, emit: Emit, drop_args: Iterable[int] = (),
           drop_results: Iterable[int] = (), new_carries: Sequence[NewCarry] = (),
           forward: Mapping[int, SSAValue] | None = None) -> list[SSAValue | None] | None:
    """A copy of `op` without the threaded values `drop_args` (block argument indices)
    and the results `drop_results` (for a loop, a dropped carry is both), and with
    `new_carries` carried after the existing carry; returns what replaces each old
    result: the new op's, the `forward`ed value, or None for a dropped one. None if a
    dropped argument is still used once the dropped results' code is gone."""
    lay, n, forward = layout(op), carries(op), forward or {}
    drop_args, drop_results = set(drop_args), set(drop_results)
    extra = len(new_carries)
    regions = []
    for r, region in enumerate(op.regions):
        mapping: dict[SSAValue, SSAValue] = {}
        copy = Region()
        region.clone_into(copy, value_mapper=mapping)
        block = copy.block
        args = [block.insert_arg(c.outer.type, n + k) for k, c in enumerate(new_carries)]
        for arg, carry in zip(args, new_carries):
            arg.name_hint = carry.outer.name_hint
            if r in carry.inner:
                mapping[carry.inner[r]].replace_all_uses_with(arg)
        if r in lay.result_regions:
            values = [v for i, v in enumerate(yielded(block)) if i not in drop_results]
            kept = n - sum(1 for i in drop_results if i < n)
            values[kept:kept] = args
            _set_yield(block, values)
        region_dce(copy)
        for j in sorted(drop_args, reverse=True):
            arg = block.args[j if j < n else j + extra]
            if arg.uses:
                return None
            block.erase_arg(arg)
        regions.append(copy)
    inputs = [v for j, v in enumerate(threaded(op)) if j not in drop_args]
    kept_carries = n - sum(1 for j in drop_args if j < n)
    inputs[kept_carries:kept_carries] = [c.outer for c in new_carries]
    attrs = op.attr_values()
    if "num_carry" in attrs:
        attrs["num_carry"] = kept_carries + extra
    new = emit.build(op.SPEC.name, *op.operand_groups()[:-1], inputs, regions=regions, **attrs)
    results = iter(new.results)
    out: list[SSAValue | None] = []
    for i in range(len(op.results)):
        if i == n:  # the hoisted carries' own results: nothing used them before
            for _ in range(extra):
                next(results)
        value = None if i in drop_results else next(results)
        out.append(forward.get(i, value))
    return out


def _set_yield(block: Block, values: Sequence[SSAValue]) -> None:
    last = block.last_op
    assert last is not None
    last.detach()
    last.erase()
    block.add_op(YieldOp(*values))


__all__ = ["LAYOUT", "Layout", "NewCarry", "body", "carries", "inline", "layout",
           "needed_args", "pass_through", "remake", "threaded", "yielded"]
