"""The canonical operand order of commutative ops, so `cse` sees `add(a, b)` and
`add(b, a)` as one op.

Order: values before constants (`add(x, 1)`, as MLIR writes it), block arguments by
index, then op results in block order. Block order needs positions, and xDSL ops carry
none (`is_before_in_block` walks the block), so `BlockOrder` numbers each block once and
keeps the numbers valid while the pass rewrites: rewrites only insert ops (before the
matched one) and erase ops, which never reorders the survivors, so a new op just takes
a number between its numbered neighbours.
"""

from __future__ import annotations

from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue

from ..dialect import COMMUTATIVE, IvyOp
from .canon_match import Emit, Replacement, Rule, is_constant_like, is_float


class BlockOrder:
    """Positions of ops in their blocks, numbered lazily, for one pass application."""

    def __init__(self) -> None:
        self._pos: dict[Operation, float] = {}
        self._numbered: set[Block] = set()

    def _number(self, block: Block) -> None:
        self._numbered.add(block)
        self._pos.update((op, float(i)) for i, op in enumerate(block.ops))

    def _neighbour(self, op: Operation, backward: bool) -> float | None:
        node = op.prev_op if backward else op.next_op
        while node is not None and node not in self._pos:
            node = node.prev_op if backward else node.next_op
        return None if node is None else self._pos[node]

    def position(self, op: Operation) -> float:
        block = op.parent_block()
        if block is not None and block not in self._numbered:
            self._number(block)
        if op not in self._pos:
            lo, hi = self._neighbour(op, backward=True), self._neighbour(op, backward=False)
            lo = lo if lo is not None else (hi if hi is not None else 0.0) - 1.0
            hi = hi if hi is not None else lo + 2.0
            mid = (lo + hi) / 2
            if not lo < mid < hi and block is not None:  # the gap is used up: renumber
                self._number(block)
                return self._pos[op]
            self._pos[op] = mid
        return self._pos[op]

    def precedes(self, a: SSAValue, b: SSAValue) -> bool:
        """`a` comes before `b` in the canonical order."""
        ca, cb = is_constant_like(a), is_constant_like(b)
        if ca != cb:
            return cb
        if isinstance(a, BlockArgument) or isinstance(b, BlockArgument):
            if isinstance(a, BlockArgument) and isinstance(b, BlockArgument):
                return a.block is b.block and a.index < b.index
            return isinstance(a, BlockArgument)
        assert isinstance(a, OpResult) and isinstance(b, OpResult)
        if a.op is b.op:
            return a.index < b.index
        if a.op.parent_block() is not b.op.parent_block():
            return False
        return self.position(a.op) < self.position(b.op)


def order_rules() -> dict[str, tuple[Rule, ...]]:
    """f(b, a) -> f(a, b) for every commutative f, with a fresh `BlockOrder`. Not for
    float maximum/minimum: on a tie of -0.0 and +0.0 they return one operand by
    position, so their operand order is observable."""
    order = BlockOrder()

    def rule(op: IvyOp, emit: Emit) -> Replacement:
        x, y = op.operands
        if not order.precedes(y, x) or (op.SPEC.name in ("maximum", "minimum")
                                        and is_float(x)):
            return None
        op.operands = (y, x)  # in place: same op, same result type, nothing to rebuild
        return list(op.results)

    return {name: (rule,) for name in COMMUTATIVE}
