"""`fuse-elementwise`: outline chains and DAGs of elementwise ops into `ivy.fused`.

A group is a set of elementwise registry ops of one block that is *convex*: no path
leaves the group and comes back into it (a -> matmul -> b with a, b elementwise can
not be one group, or the fused op would need its own result). Its operands are the
values the group reads from outside, its results the member values used outside.
Groups grow greedily in block order: each elementwise op joins the groups of its
elementwise producers when the union stays convex. Groups of one op stay unfused.

Convexity is checked with bitsets over the block: `anc[o]` holds every op `o`
depends on and `desc[o]` every op depending on `o`; a set M is convex exactly when
no op outside M is both an ancestor and a descendant of M, i.e.
`(anc(M) & desc(M)) & ~M == 0`, and both sides are unions over members, so a merge
is a few integer operations.

The rewrite is exact: the body holds the very same ops (moved, with their locations),
so every target computes what it computed before; lowerings decide how to emit a group
(`lowerings/emitter.py`). Eager lowerings run the pass themselves (see
`Target.fuse_elementwise`), so it is not part of the target-independent `default`
pipeline.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass

from ..dialect import ELEMENTWISE, FusedOp, IvyOp, YieldOp


@dataclass(eq=False)
class _Group:
    """A growing group: its members, their bitmask, and the union of their
    ancestor and descendant bitmasks."""

    members: set[Operation]
    mask: int
    anc: int
    desc: int


def _fusible(op: Operation) -> bool:
    return isinstance(op, IvyOp) and op.SPEC.name in ELEMENTWISE


def _bitsets(block: Block, ops: list[Operation]) -> tuple[dict[Operation, int],
                                                          dict[Operation, int]]:
    """Transitive ancestors and descendants of each op of `block`, as bitmasks."""
    pos = {op: i for i, op in enumerate(ops)}
    anc: dict[Operation, int] = {}
    for op in ops:
        bits = 0
        for value in _operands_of(op):
            owner = value.owner
            if isinstance(owner, Operation) and owner in pos:
                bits |= anc[owner] | 1 << pos[owner]
        anc[op] = bits
    desc: dict[Operation, int] = {}
    for op in reversed(ops):
        bits = 0
        for result in op.results:
            for use in result.uses:
                user = block.find_ancestor_op_in_block(use.operation)
                if user is not None and user is not op:
                    bits |= desc[user] | 1 << pos[user]
        desc[op] = bits
    return anc, desc


def _operands_of(op: Operation) -> list[SSAValue]:
    """Operands of `op` and of every op nested in it (a nested use is a dependency)."""
    return [v for inner in op.walk() for v in inner.operands]


def find_groups(block: Block) -> list[list[Operation]]:
    """The groups of two or more elementwise ops of `block`, members in block order."""
    ops = list(block.ops)
    pos = {op: i for i, op in enumerate(ops)}
    anc, desc = _bitsets(block, ops)
    group_of: dict[Operation, _Group] = {}
    for op in ops:
        if not _fusible(op):
            continue
        group = group_of[op] = _Group({op}, 1 << pos[op], anc[op], desc[op])
        producers = [v.owner for v in op.operands]
        candidates = list(dict.fromkeys(group_of[p] for p in producers
                                        if isinstance(p, Operation) and p in group_of))
        for other in candidates:
            if other is group or (group.anc | other.anc) & (group.desc | other.desc) & ~(
                    group.mask | other.mask):
                continue  # a path would leave the union and come back
            group = _merge(group, other, group_of)
    unique = {id(g): g for g in group_of.values()}.values()
    groups = [sorted(g.members, key=pos.__getitem__) for g in unique if len(g.members) > 1]
    groups.sort(key=lambda g: pos[g[0]])
    return _break_cycles(ops, groups)


def _merge(a: _Group, b: _Group, group_of: dict[Operation, _Group]) -> _Group:
    """The union of two groups, built by moving the smaller into the larger."""
    big, small = (a, b) if len(a.members) >= len(b.members) else (b, a)
    big.members |= small.members
    big.mask |= small.mask
    big.anc |= small.anc
    big.desc |= small.desc
    for member in small.members:
        group_of[member] = big
    return big


def _break_cycles(ops: list[Operation], groups: list[list[Operation]]) -> list[list[Operation]]:
    """Drop groups until the graph with every group contracted to one node is acyclic.

    Each group is convex on its own, but two groups can still depend on each other
    (a in G2 feeds p in G1 through some op, q in G1 feeds b in G2 through another):
    outlining both would make each fused op need the other's result. Such pairs are
    rare; the later group of each cycle stays unfused.
    """
    while True:
        cycle = _cyclic_groups(ops, groups)
        if not cycle:
            return groups
        groups = [g for i, g in enumerate(groups) if i != max(cycle)]


def _cyclic_groups(ops: list[Operation], groups: list[list[Operation]]) -> set[int]:
    """Indices of the groups of one cycle of the contracted graph (empty if none)."""
    node = {op: i for i, g in enumerate(groups) for op in g}
    for op in ops:
        node.setdefault(op, len(groups) + len(node))
    succ: dict[int, set[int]] = {}
    for op in ops:
        for value in _operands_of(op):
            owner = value.owner
            if isinstance(owner, Operation) and owner in node and node[owner] != node[op]:
                succ.setdefault(node[owner], set()).add(node[op])
    colour: dict[int, int] = {}  # 1: on the DFS stack, 2: done
    for start in set(node.values()):
        if start in colour:
            continue
        stack = [(start, iter(succ.get(start, ())))]
        path = [start]
        colour[start] = 1
        while stack:
            current, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                path.pop()
                colour[current] = 2
            elif colour.get(child) == 1:
                loop = path[path.index(child):]
                return {n for n in loop if n < len(groups)}
            elif child not in colour:
                colour[child] = 1
                path.append(child)
                stack.append((child, iter(succ.get(child, ()))))
    return set()


def fuse_block(block: Block) -> int:
    """Outline every group of `block`; returns the number of `ivy.fused` ops made.

    The block is re-laid in one topological order of the graph with each group
    contracted, taking ready ops by their old position (a group at its last member's),
    so ops keep their order except for users of a member that sat between members:
    they move after the group's `ivy.fused`."""
    groups = find_groups(block)
    if not groups:
        return 0
    ops = list(block.ops)
    pos = {op: i for i, op in enumerate(ops)}
    node = {op: op for op in ops}
    for members in groups:
        for op in members:
            node[op] = members[-1]
    succ: dict[Operation, list[Operation]] = {}
    indegree = dict.fromkeys(set(node.values()), 0)
    for op in ops:
        for value in _operands_of(op):
            owner = value.owner
            if isinstance(owner, Operation) and owner in node and node[owner] is not node[op]:
                succ.setdefault(node[owner], []).append(node[op])
                indegree[node[op]] += 1
    ready = [(pos[n], n) for n, d in indegree.items() if d == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        _, n = heapq.heappop(ready)
        order.append(n)
        for s in succ.get(n, ()):
            indegree[s] -= 1
            if indegree[s] == 0:
                heapq.heappush(ready, (pos[s], s))
    assert len(order) == len(indegree), "find_groups left a cycle between groups"
    group_of = {members[-1]: members for members in groups}
    for op in ops:
        op.detach()
    made = 0
    for n in order:
        if n not in group_of:
            block.add_op(n)
            continue
        fused = _outline(group_of[n])
        if fused is None:  # a dead group: its ops stay as they are, for dce
            for op in group_of[n]:
                block.add_op(op)
        else:
            block.add_op(fused)
            made += 1
    return made


def _outline(members: list[Operation]) -> FusedOp | None:
    """An `ivy.fused` holding the (detached) `members`: operands are the values they
    read from outside, results the member values used outside (None if there is none)."""
    inside = set(members)
    inputs = list(dict.fromkeys(v for op in members for v in op.operands
                                if v.owner not in inside))
    outputs = [r for op in members for r in op.results
               if any(u.operation not in inside for u in r.uses)]
    if not outputs:
        return None
    body = Block(arg_types=[v.type for v in inputs])
    for arg, value in zip(body.args, inputs):
        arg.name_hint = value.name_hint
    fused = FusedOp(inputs, [r.type for r in outputs], Region(body))
    fused.location = members[-1].location
    for new, old in zip(fused.results, outputs):
        new.name_hint = old.name_hint
        old.replace_uses_with_if(new, lambda use: use.operation not in inside)
    mapping = dict(zip(inputs, body.args))
    for op in members:
        body.add_op(op)
        op.operands = [mapping.get(v, v) for v in op.operands]
    body.add_op(YieldOp(*outputs))
    return fused


def fuse_elementwise(module: ModuleOp) -> int:
    """Outline every group of every block (bodies of `ivy.fused` excepted); returns
    the number of `ivy.fused` ops made."""
    blocks = [b for op in module.walk() if not isinstance(op, FusedOp)
              for r in op.regions for b in r.blocks]
    return sum(fuse_block(block) for block in blocks)


@dataclass(frozen=True)
class FuseElementwisePass(ModulePass):
    name = "fuse-elementwise"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        fuse_elementwise(op)


__all__ = ["FuseElementwisePass", "find_groups", "fuse_block", "fuse_elementwise"]
