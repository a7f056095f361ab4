"""Canonicalization rules of the control-flow ops `cond`, `while_loop` and `scan`.

Rules of the usual `rule(op, emit)` form (see canon_match.py), one table row per op:

| op | rule | rewrite |
|---|---|---|
| cond | `pick_branch` | constant predicate: the branch it picks, inlined |
| cond | `same_branches` | identical branches: either one, inlined |
| while_loop | `skip_loop` | constantly false condition: the carry as it came in |
| scan | `unroll_short` | length 1: the body once; length 0: carry and empty ys |
| while_loop, scan | `hoist_invariants` | invariant body ops move before the loop |
| all three | `prune` | dead carries, ys, results, inputs dropped; echoes forwarded |

A loop invariant is a carry the body yields back unchanged ("pass-through"), and what
the body computes from such carries and constants. Hoisting copies the invariant ops
in front of the loop and carries their values through as new pass-through carries, so
the body reads them as block arguments (its regions stay isolated). A pass-through
carry's result is the operand itself, so `prune` forwards it; the carry then lives on
only while the body still reads it.

Inlined and hoisted ops are copies placed before the op; the op is replaced as a
whole, so the driver's rule of "nothing half done" holds here too.
"""

from __future__ import annotations

from xdsl.ir import BlockArgument, SSAValue

from ..dialect import IvyOp, TensorSpec
from .canon_match import Emit, Replacement, Rule, spec, splat
from .canon_regions import (
    NewCarry,
    carries,
    inline,
    layout,
    needed_args,
    pass_through,
    remake,
    threaded,
    yielded,
)

MAY_RAISE = frozenset({
    "floor_divide", "remainder",  # integer division by zero (torch raises)
    "take", "take_along_axis", "gather_nd", "scatter_nd", "scatter_add", "embedding",
    "cholesky", "inv", "solve", "qr", "svd", "eigh",  # singular or unconverged input
})
"""Ops that may raise on some values: not hoisted, as a loop that runs no step would
not have run them (every other registry op is pure and total)."""

EMPTY_RAISES = frozenset({"min", "max", "argmin", "argmax", "logsumexp"})
"""Reductions that raise on an empty operand: hoisted only when it is not empty."""

LAYOUT = frozenset({"permute_dims", "reshape", "expand_dims", "squeeze", "broadcast_to"})
"""Ops that only rearrange: they stay next to their users in the body, as hoisting
one gains nothing (a view in eager code, folded into its consumer by XLA) and loses
that folding across the loop boundary: a GRU's `x @ transpose(w).T`, its transpose
carried into the loop, ran 1.17x slower under XLA."""


# ---- cond ----

def pick_branch(op: IvyOp, emit: Emit) -> Replacement:
    """cond(true, ...) -> then(...); cond(false, ...) -> orelse(...)."""
    taken = splat(op.operands[0])
    if taken is None:
        return None
    return inline(op.regions[0 if bool(taken) else 1].block, threaded(op), emit)


def same_branches(op: IvyOp, emit: Emit) -> Replacement:
    """cond(p, then=f, orelse=f) -> f: the predicate does not matter."""
    then, orelse = op.regions
    if not then.is_structurally_equivalent(orelse):
        return None
    return inline(then.block, threaded(op), emit)


# ---- loops ----

def skip_loop(op: IvyOp, emit: Emit) -> Replacement:
    """while_loop(carry) with a condition yielding constant false -> carry."""
    (keep,) = yielded(op.regions[0].block)
    value = splat(keep)
    return None if value is None or bool(value) else list(op.operands)


def unroll_short(op: IvyOp, emit: Emit) -> Replacement:
    """scan of length 1 -> its body once: carry and `squeeze(x, 0)` in, ys stacked with
    `expand_dims(y, 0)`; length 0 -> the carry, and `zeros((0, ...))` for each y."""
    attrs, n = op.attr_values(), carries(op)
    operands = threaded(op)
    if attrs["length"] == 0:
        ys = [spec(r) for r in op.results[n:]]
        if any(None in y.shape for y in ys):
            return None
        return [*operands[:n], *(emit("zeros", shape=list(y.shape), dtype=y.dtype)
                                 for y in ys)]
    if attrs["length"] != 1:
        return None
    slices = [emit("squeeze", x, axis=[0]) for x in operands[n:]]
    out = inline(op.regions[0].block, [*operands[:n], *slices], emit)
    return [*out[:n], *(emit("expand_dims", y, axis=[0]) for y in out[n:])]


def _speculatable(op: IvyOp) -> bool:
    """Whether running `op` when its loop would not have is harmless."""
    if op.SPEC.regions or op.SPEC.name in MAY_RAISE:
        return False
    return op.SPEC.name not in EMPTY_RAISES or 0 not in TensorSpec.from_xdsl(
        op.operands[0].type).shape


def hoist_invariants(op: IvyOp, emit: Emit) -> Replacement:
    """Loop-invariant code motion: the body ops whose operands are all invariant run
    once before the loop; each of their values the rest of the body reads becomes a
    new pass-through carry. Constants move only along with an op that uses them."""
    invariant = pass_through(op)
    if not invariant:
        return None
    mapping: dict[SSAValue, SSAValue] = {}
    new_carries: list[NewCarry] = []
    for r, region in enumerate(op.regions):
        block = region.block
        known = {block.args[i] for i in invariant}
        mapping.update((block.args[i], threaded(op)[i]) for i in invariant)
        hoisted: list[IvyOp] = []
        for inner in block.ops:
            if isinstance(inner, IvyOp) and _speculatable(inner) and \
                    all(v in known for v in inner.operands):
                hoisted.append(inner)
                known.update(inner.results)
        members = set(hoisted)
        crossing = [res for h in hoisted if h.operands for res in h.results
                    if any(u.operation not in members for u in res.uses)]
        crossing = list(dict.fromkeys(v for v in map(_under_layout, crossing)
                                      if isinstance(v.owner, IvyOp) and v.owner in members
                                      and v.owner.SPEC.name != "constant"))
        for h in _slice(hoisted, crossing):
            emit.clone(h, mapping)
        new_carries += [NewCarry(mapping[v], {r: v}) for v in crossing]
    return remake(op, emit, new_carries=new_carries) if new_carries else None


def _under_layout(value: SSAValue) -> SSAValue:
    """The value a chain of `LAYOUT` ops rearranges (`value` itself if none does)."""
    while isinstance(value.owner, IvyOp) and value.owner.SPEC.name in LAYOUT:
        value = value.owner.operands[0]
    return value


def _slice(ops: list[IvyOp], values: list[SSAValue]) -> list[IvyOp]:
    """The ops of `ops` (in order) that `values` depend on."""
    members, need = set(ops), {v.owner for v in values}
    for o in reversed(ops):
        if o in need:
            need.update(v.owner for v in o.operands if v.owner in members)
    return [o for o in ops if o in need]


def prune(op: IvyOp, emit: Emit) -> Replacement:
    """Drop what nothing needs: results without uses (a branch's yield, a scan's ys), a
    loop's carries that no used result, no condition and no needed carry depends on,
    and inputs (a branch's, a scan's xs) no remaining yield reads. Results that are
    an operand for sure (a pass-through carry, a branch input both branches yield)
    are replaced by that operand."""
    n, lay = carries(op), layout(op)
    forward = _echoes(op)
    used = {i for i, r in enumerate(op.results) if r.uses and i not in forward}
    if not used:  # nothing but echoes: they replace the op, dead code otherwise
        return [forward.get(i) for i in range(len(op.results))] if forward else None
    live = {i for i in used if i < n}
    if op.SPEC.name == "while_loop":
        live |= needed_args(op.regions[0].block, yielded(op.regions[0].block))
    others = used - set(range(n))
    while True:
        need: set[int] = set()
        for r in lay.result_regions:
            out = yielded(op.regions[r].block)
            need |= needed_args(op.regions[r].block, [out[i] for i in live | others])
        grown = live | {j for j in need if j < n}
        if grown == live:
            break
        live = grown
    if lay.loop:
        need |= live  # the carry's own arguments, when only its yield reads them
    dead_results = set(range(len(op.results))) - live - others
    dead_args = set(range(len(threaded(op)))) - need
    if not (forward or dead_results or dead_args):
        return None
    return remake(op, emit, drop_args=dead_args, drop_results=dead_results, forward=forward)


def _echoes(op: IvyOp) -> dict[int, SSAValue]:
    """Used results that are one of the op's operands whatever runs: a loop's
    pass-through carries, and a result both branches yield as the same input."""
    operands = threaded(op)
    if layout(op).loop:
        found = {i: operands[i] for i in pass_through(op)}
    else:
        then, orelse = (r.block for r in op.regions)
        found = {i: operands[a.index] for i, (a, b) in enumerate(zip(yielded(then),
                                                                      yielded(orelse)))
                 if isinstance(a, BlockArgument) and isinstance(b, BlockArgument)
                 and a.block is then and b.block is orelse and a.index == b.index}
    return {i: v for i, v in found.items() if op.results[i].uses}


REGION_RULES: dict[str, tuple[Rule, ...]] = {
    "cond": (pick_branch, same_branches, prune),
    "while_loop": (skip_loop, hoist_invariants, prune),
    "scan": (unroll_short, hoist_invariants, prune),
}
"""The control-flow rows of `canonicalize`'s table (tried in order, first match wins)."""

__all__ = ["REGION_RULES"]
