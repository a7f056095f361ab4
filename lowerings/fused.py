"""An `ivy.fused` group as nested expressions with in-place methods (eager torch).

Op by op, an eager framework allocates every intermediate and keeps it alive as long
as a local names it. Here a body value used once, by one body op, is inlined into its
user's expression (as an AST, so precedence and parentheses come out right), so it is
freed as soon as it is consumed, and an op whose operand is such a fresh intermediate
updates it in place (`torch.multiply(x, y).add_(c)`): one allocation for a whole
chain. Named values (used twice, yielded, or ending a long expression) take over the
names of dead ones (`v = f(v)`), as the statement emitter does outside groups.

In-place is autograd-safe by construction: the overwritten tensor is used by nothing
else (one use, not yielded), was made here by an op with an in-place form or one of
`Target.fresh_ops` (so it is a fresh tensor, never an input, parameter or view), and
that op does not keep its result for the backward pass (`Target.saves_result`: exp,
tanh, relu, ...). The in-place op's own backward needs are met by autograd (it keeps
what it needs). The statement emitter applies the same test to ops outside groups.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable
from dataclasses import dataclass, field

from xdsl.ir import SSAValue

from ivy_ir.dialect import COMMUTATIVE, FusedOp, IvyOp, YieldOp

from .emission import Emission, assign, name, op_expr
from .target import Target

MAX_INLINE = 8
"""Most ops inlined into one statement; a longer chain is split for readability."""


@dataclass(eq=False)
class _Node:
    """One body value: its expression, with a placeholder name per operand."""

    value: SSAValue
    template: ast.expr
    holes: dict[str, SSAValue]
    size: int = 1
    named: bool = True
    refs: set[SSAValue] = field(default_factory=set)
    """Named values its statement reads (set once inlining is decided)."""


def emit_expressions(fused: FusedOp, em: Emission) -> list[ast.stmt]:
    """Statements computing `fused`'s results; binds their names in `em.names.of`."""
    text: dict[SSAValue, str] = {a: em.names.of[v] for a, v in zip(fused.block.args,
                                                                     fused.inputs)}
    yielded = set(fused.yielded())
    nodes: dict[SSAValue, _Node] = {}
    for op in fused.block.ops:
        if isinstance(op, YieldOp):
            continue
        assert isinstance(op, IvyOp)
        result = op.results[0]
        if op.SPEC.name == "constant":
            text[result] = em.constant(op.attr_values()["value"])
            continue
        node = _in_place(op, nodes, yielded, em) or _call(op, em)
        nodes[result] = node
        for hole, operand in node.holes.items():
            inner = nodes.get(operand)
            if inner is None:
                continue
            if (operand not in yielded and operand.has_one_use()
                    and _count(node.template, hole) == 1
                    and node.size + inner.size <= MAX_INLINE):
                inner.named = False
                node.size += inner.size
    return _write(fused, nodes, text, em)


def _holes(op: IvyOp, em: Emission) -> dict[str, SSAValue]:
    """Give each operand of `op` a placeholder name (in `em.names.of`). Placeholders
    start with `__`, which `Names.fresh` never gives a value (it writes `v_` before a
    leading `__`), so no input or parameter name can be taken for one; only whole
    `Name` nodes are replaced, never text (`a__ivy_hole_1__` stays itself)."""
    holes = {}
    for i, v in enumerate(dict.fromkeys(op.operands)):
        holes[f"__ivy_hole_{i}__"] = v
        em.names.of[v] = f"__ivy_hole_{i}__"
    return holes


def _call(op: IvyOp, em: Emission) -> _Node:
    holes = _holes(op, em)
    return _Node(op.results[0], op_expr(op, em), holes)


def _in_place(op: IvyOp, nodes: dict[SSAValue, _Node], yielded: set[SSAValue],
              em: Emission) -> _Node | None:
    """`t.add_(y)` when an operand `t` may be overwritten (see the module docstring)."""
    k = overwritable_operand(op, em.target, lambda t: t in nodes and t not in yielded)
    if k is None:
        return None
    holes = _holes(op, em)
    return _Node(op.results[0], in_place_call(op, k, em), holes)


def overwritable_operand(op: IvyOp, target: Target, fresh: Callable[[SSAValue], bool]
                         ) -> int | None:
    """The operand `op` may compute into with its in-place method: used by `op` alone,
    once, of the result's type, made by an op whose result is a fresh tensor that its
    backward does not keep (`fresh` says the value was made here, not passed in)."""
    method = target.inplace_methods.get(op.SPEC.name)
    if method is None or target.widens(op):  # a widened op runs out of place, cast back
        return None
    operands = list(op.operands)
    order = [0, 1] if len(operands) == 2 and op.SPEC.name in COMMUTATIVE else [0]
    makers = target.inplace_methods.keys() | target.fresh_ops
    for k in order:
        t = operands[k]
        maker = t.owner
        if (t.has_one_use() and operands.count(t) == 1 and t.type == op.results[0].type
                and isinstance(maker, IvyOp) and maker.SPEC.name in makers
                and maker.SPEC.name not in target.saves_result and fresh(t)):
            return k
    return None


def in_place_call(op: IvyOp, k: int, em: Emission) -> ast.Call:
    """`t.method(*others)` for operand `k` of `op`, by the names in `em.names.of`."""
    operands = list(op.operands)
    others = operands[:k] + operands[k + 1:]
    names = em.names.of
    return ast.Call(ast.Attribute(name(names[operands[k]]),
                                  em.target.inplace_methods[op.SPEC.name], ast.Load()),
                    [name(names[o]) for o in others], [])


def _write(fused: FusedOp, nodes: dict[SSAValue, _Node], text: dict[SSAValue, str],
           em: Emission) -> list[ast.stmt]:
    """Bind each named value to its expanded expression, reusing the names of named
    values no later statement reads."""
    named = [n for n in nodes.values() if n.named]
    for node in named:
        node.refs = _refs(node, nodes)
    last_ref = {v: i for i, n in enumerate(named) for v in n.refs}
    yielded = set(fused.yielded())
    free: list[str] = []
    statements: list[ast.stmt] = []
    for i, node in enumerate(named):
        expr = _expand(node, nodes, text)
        free += [text[v] for v in node.refs if last_ref[v] == i and v not in yielded]
        keep = node.value in yielded or not free
        target = em.names.fresh(node.value.name_hint) if keep else free.pop(0)
        statements.append(assign([target], expr))
        text[node.value] = target
    for result, value in zip(fused.results, fused.yielded()):
        em.names.of[result] = text[value]
    return statements


def _refs(node: _Node, nodes: dict[SSAValue, _Node]) -> set[SSAValue]:
    """The named body values `node`'s statement reads (through inlined operands)."""
    out: set[SSAValue] = set()
    for operand in node.holes.values():
        inner = nodes.get(operand)
        if inner is not None:
            out |= {operand} if inner.named else _refs(inner, nodes)
    return out


def _expand(node: _Node, nodes: dict[SSAValue, _Node], text: dict[SSAValue, str]) -> ast.expr:
    """The node's expression with its operands filled in: inlined ones as their own
    expanded expressions, the others by name."""
    fill: dict[str, ast.expr] = {}
    for hole, operand in node.holes.items():
        inner = nodes.get(operand)
        fill[hole] = _expand(inner, nodes, text) if inner is not None and not inner.named \
            else name(text[operand])
    return _Fill(fill).visit(copy.deepcopy(node.template))


class _Fill(ast.NodeTransformer):
    """Replaces placeholder names by expressions."""

    def __init__(self, fill: dict[str, ast.expr]):
        self.fill = fill

    def visit_Name(self, node: ast.Name) -> ast.expr:  # noqa: N802 (the visitor's name)
        return self.fill.get(node.id, node)


def _count(tree: ast.expr, hole: str) -> int:
    """How often `tree` reads the placeholder `hole`."""
    return sum(isinstance(n, ast.Name) and n.id == hole for n in ast.walk(tree))


__all__ = ["MAX_INLINE", "emit_expressions"]
