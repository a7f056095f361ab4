"""`decompose`: expand composite ops into their registered decompositions.

Lowerings run the same expansion for the composite ops their target has no fused
kernel for; with no option it expands every composite op.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from ..core.decompose import decompose_ops
from ..dialect import COMPOSITE


@dataclass(frozen=True)
class DecomposePass(ModulePass):
    name = "decompose"

    ops: str = ""  # comma-separated op names; empty means every composite op

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        names = {n.strip() for n in self.ops.split(",") if n.strip()} or set(COMPOSITE)
        decompose_ops(op, names)
