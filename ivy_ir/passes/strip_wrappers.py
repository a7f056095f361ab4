"""`strip-wrappers`: remove the identity ops importers leave around real computation.

Framework programs are full of calls that do not change values: `x.contiguous()`,
`x.clone()`, `x.to(x.dtype)`, `jnp.asarray(x)`, `tf.identity(x)`, a `view` back to the
shape a tensor already has, a transpose and its inverse around a layout-agnostic op,
`x * 1`. Importers map each faithfully, so the IR carries `astype` to the same dtype,
`reshape` to the same shape, identity `permute_dims`, round trips and neutral
constants. This pass removes exactly those and nothing that computes, so IR dumps read
like the program the user meant; `canonicalize` runs the same rules (the shared
`WRAPPER_RULES` table) along with its algebra and folding. Ops left without uses are
dropped as the walk goes.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker

from .canonicalize import WRAPPER_RULES, IvyRewrites


@dataclass(frozen=True)
class StripWrappersPass(ModulePass):
    name = "strip-wrappers"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        applier = GreedyRewritePatternApplier([IvyRewrites(WRAPPER_RULES)])
        PatternRewriteWalker(applier).rewrite_module(op)
