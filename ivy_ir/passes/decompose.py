"""`decompose`: expand composite ops into their registered decompositions.

Lowerings run it for the composite ops their target has no fused kernel for; with
no option it expands every composite op.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from ..dialect import COMPOSITE, IvyOp
from ..tracer import Graph, Tracer


def decompose_ops(module: ModuleOp, names: frozenset[str] | set[str] = COMPOSITE) -> None:
    from ..decompositions import DECOMPOSITIONS

    todo = [op for op in module.walk() if isinstance(op, IvyOp) and op.SPEC.name in names]
    for op in todo:
        block = op.parent_block()
        assert block is not None
        graph = Graph(block, before=op, location=op.location, allow_params=False)
        args = [None if g is None else [Tracer(v, graph) for v in g] if isinstance(g, list)
                else Tracer(g, graph) for g in op.operand_groups()]
        out = DECOMPOSITIONS[op.SPEC.name](*args, **op.attr_values())
        outs = out if isinstance(out, (list, tuple)) else [out]
        for old, new in zip(op.results, outs):
            if new.value.type != old.type:
                raise TypeError(f"the decomposition of ivy.{op.SPEC.name} gives {new.value.type}"
                                f" where the op gives {old.type}")
            old.replace_all_uses_with(new.value)
        op.detach()
        op.erase()
    # the expansions may themselves use composite ops (silu uses sigmoid)
    if any(isinstance(o, IvyOp) and o.SPEC.name in names for o in module.walk()):
        decompose_ops(module, names)


@dataclass(frozen=True)
class DecomposePass(ModulePass):
    name = "decompose"

    ops: str = ""  # comma-separated op names; empty means every composite op

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        names = {n.strip() for n in self.ops.split(",") if n.strip()} or set(COMPOSITE)
        decompose_ops(op, names)
