"""`canonicalize`: simplify ivy IR to one canonical form, in one greedy walk.

The rules are tables `op name -> rules` (canon_shape.py, canon_algebra.py,
canon_fold.py), and one pattern, `IvyRewrites`, applies a table: it looks up the
matched op's name, tries its rules in order and replaces the op by the first answer.
`strip-wrappers` is the same pattern over a subset of the same tables, so the two passes
share every rule and differ only in which rows they run:

| table | `strip-wrappers` | `canonicalize` |
|---|---|---|
| identities (`astype` to the same dtype, identity `permute_dims`, ...) | yes | yes |
| round trips (`permute_dims` then its inverse, `reshape`s back, ...) | yes | yes |
| neutral constants (`x * 1`, `x + (-0.0)`, `x - 0`, `x / 1`) | yes | yes |
| compositions (`reshape` of `reshape`, lossless `astype` chains, ...) | | yes |
| algebra (`-(-x)`, `x ** 2`, `x * 0` on ints, `x - x` on ints, ...) | | yes |
| constant folding, default attributes, commutative operand order | | yes |
| control flow (branch folding, short scans, loop invariants, dead carries) | | yes |

The walk enters the bodies of control-flow ops, and every rule works there as in a
function: a body is isolated from above, so the producer a rule reads and the ops it
emits (before the matched op) are the body's own. The control-flow ops' own rows
(`canon_control.py`) inline, hoist and prune regions; constant folding never evaluates
a region op.

The pass also runs xDSL's own canonicalization patterns and folders (for the `func`
and `builtin` ops around the ivy ones) in the same walk, then region DCE, so it keeps
the name and the behaviour of xDSL's `canonicalize` and adds the ivy rules.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.transforms.canonicalize import CanonicalizationRewritePattern
from xdsl.transforms.dead_code_elimination import region_dce

from ..dialect import IvyOp
from ..dialect.attrs import AttrError
from ..dialect.infer import InferError
from .canon_algebra import ALGEBRA_RULES, NEUTRAL_RULES
from .canon_control import REGION_RULES
from .canon_fold import FOLD_LIMIT, drop_defaults, folder
from .canon_match import Emit, Rule, merge
from .canon_order import order_rules
from .canon_shape import COMPOSE_RULES, IDENTITY_RULES, ROUND_TRIP_RULES

WRAPPER_RULES = merge(IDENTITY_RULES, ROUND_TRIP_RULES, NEUTRAL_RULES)
"""What `strip-wrappers` removes: ops that hand their input back unchanged."""

CANONICAL_RULES = merge(WRAPPER_RULES, COMPOSE_RULES, ALGEBRA_RULES, REGION_RULES)
"""Everything `canonicalize` does op by op, but for the operand order of commutative
ops (which keeps block positions per run) and the rules of every op (constant folding
and default attributes, tried first)."""


@dataclass(frozen=True)
class IvyRewrites(RewritePattern):
    """Applies a rule table to ivy ops: the first rule that answers replaces the op.

    The replacement ops a rule built are inserted only when the answer has exactly the
    op's result types; otherwise (or when building them failed type inference) the rule
    does not apply, so no rule can change a result type or leave a partial rewrite. A
    rule that changed the op in place (operand order) answers with the op's results. A
    rule that drops results (dead values of a control-flow op) answers None for them,
    which only a result without uses accepts."""

    rules: Mapping[str, Sequence[Rule]]
    every_op: Sequence[Rule] = field(default=())

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, IvyOp):
            return
        for rule in (*self.every_op, *self.rules.get(op.SPEC.name, ())):
            emit = Emit(op)
            try:
                got = rule(op, emit)
            except (InferError, AttrError):
                got = None
            values = [got] if isinstance(got, SSAValue) else list(got or [])
            if values == list(op.results):  # the rule changed the op in place
                rewriter.notify_op_modified(op)
                return
            if got is None or not _fits(values, op.results):
                emit.discard()
                continue
            rewriter.replace(op, emit.ops, values)
            return


def _fits(values: Sequence[SSAValue | None], results: Sequence[SSAValue]) -> bool:
    """Each result gets a value of its own type, or None where it has no uses."""
    return len(values) == len(results) and all(
        not r.uses if v is None else v.type == r.type for v, r in zip(values, results))


def canonicalize_patterns(fold_limit: int = FOLD_LIMIT) -> list[RewritePattern]:
    every_op = (folder(fold_limit), drop_defaults) if fold_limit > 0 else (drop_defaults,)
    rules = merge(CANONICAL_RULES, order_rules())
    return [CanonicalizationRewritePattern(), IvyRewrites(rules, every_op)]


@dataclass(frozen=True)
class CanonicalizePass(ModulePass):
    """xDSL's canonicalize plus the ivy rules; `fold-limit` caps folded results (in
    elements; 0 turns constant folding off)."""

    name = "canonicalize"

    fold_limit: int = FOLD_LIMIT

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        applier = GreedyRewritePatternApplier(canonicalize_patterns(self.fold_limit), ctx=ctx,
                                              folding_enabled=True)
        PatternRewriteWalker(applier, post_walk_func=region_dce).rewrite_module(op)
