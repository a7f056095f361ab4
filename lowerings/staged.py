"""Programs with ops whose result sizes depend on the data, cut into stages.

A compiler that needs every size before it runs (`jax.jit`) cannot take `argwhere`,
`unique` or `non_max_suppression`, whose sizes it learns only from the values. Rather
than run the whole program op by op for one such op, `split` cuts it at those ops: the
runs of ordinary ops between them become programs of their own, compiled as usual (and
again per new input shape, as `jit` does), and each data-shaped op runs alone, eagerly.
A detector's backbone stays one compiled program; only its box selection runs op by op.

Each stage reads the values it needs by their position in the whole program and writes
its results back by position (`run`). Programs that update buffers, draw random
numbers or name dynamic dims are not cut (their whole program runs op by op).

The same cut serves values a framework has no arrays of: JAX and torch hold no text, so
the ops that read or make text (an ONNX tokenizer's `StringNormalizer`, `LabelEncoder`)
form host stages that run through the NumPy lowering, and the numbers they hand on go
back into the framework's stages.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr
from xdsl.ir import Block, Operation, SSAValue

from ivy_ir.core.module import DIMS, Module
from ivy_ir.dialect import IvyOp

from .hoist import arg_attrs, block_values, prune

Kind = Literal["compiled", "eager", "host"]
"""How a stage runs: a run of ordinary ops compiled as one program; one data-shaped op
run op by op; or a run of ops on values the framework cannot hold, through NumPy."""


@dataclass(frozen=True)
class Stage:
    module: Module
    """The stage as a program: `(params, *inputs) -> [outputs]`."""
    kind: Kind
    reads: tuple[int, ...]
    """The positions (in the whole program's values) of the stage's inputs, in order."""
    writes: tuple[int, ...]
    """The positions of its outputs."""


def data_shaped(op: Operation) -> bool:
    """Whether `op` is, or holds in its regions, an op whose sizes depend on data."""
    return any(isinstance(o, IvyOp) and o.SPEC.has("data_shaped") for o in op.walk())


def split(module: Module, kind_of: Callable[[Operation], Kind]
          ) -> tuple[list[Stage], tuple[int, ...]] | None:
    """The stages of `module`, each top-level op's kind given by `kind_of`, and the
    positions of its results; None where it is not cut (every op compiled; buffer
    updates, draws or named dynamic dims)."""
    block = module.entry.body.block
    if module.updates or module.draws or any(DIMS in a.data for a in arg_attrs(module.entry)):
        return None
    groups: list[tuple[Kind, list[Operation]]] = []
    for op in list(block.ops)[:-1]:
        kind = kind_of(op)
        if groups and kind != "eager" and groups[-1][0] == kind:
            groups[-1][1].append(op)
        else:
            groups.append((kind, [op]))
    if all(kind == "compiled" for kind, _ in groups):
        return None
    positions = {v: i for i, v in enumerate(block_values(block))}
    returned = tuple(positions[v] for v in block.last_op.operands)
    stages = []
    for k, (kind, ops) in enumerate(groups):
        later = {o for _, rest in groups[k + 1:] for o in rest}
        writes = [r for op in ops for r in op.results
                  if r in block.last_op.operands
                  or any(_top(use.operation, block) in later for use in r.uses)]
        if writes:
            stages.append(_stage(module, kind, ops, writes, positions))
    return stages, returned


def run(stages: Sequence[tuple[Stage, Callable[..., Any]]], returned: tuple[int, ...],
        inputs: tuple[int, ...], single: bool) -> Callable[..., Any]:
    """The whole program as `(params, *inputs)`: each stage's function called on the
    values it reads, in order."""
    def program(params: Any, *args: Any) -> Any:
        env = dict(zip(inputs, args))
        for stage, fn in stages:
            env.update(zip(stage.writes, fn(params, *(env[p] for p in stage.reads))))
        outs = [env[p] for p in returned]
        return outs[0] if single else tuple(outs)
    return program


def _top(op: Operation, block: Block) -> Operation:
    """The op of `block` that holds `op` (itself, or the region op it is nested in)."""
    while op.parent_block() is not block:
        op = op.parent_op()
    return op


def _stage(module: Module, kind: Kind, ops: list[Operation], writes: list[SSAValue],
           positions: dict[SSAValue, int]) -> Stage:
    """The program of one stage: the whole program returning `writes`, with the values
    it reads from earlier stages as inputs, pruned."""
    inside = {o for op in ops for o in op.walk()}
    block = module.entry.body.block
    reads = [v for v in dict.fromkeys(v for op in inside for v in op.operands)
             if isinstance(v.owner, Operation) and v.owner not in inside
             and _top(v.owner, block) not in inside]
    clone = module.clone()
    cblock = clone.entry.body.block
    cvalues = dict(enumerate(block_values(cblock)))  # a clone's values by the same positions
    attrs = arg_attrs(clone.entry)
    source = {arg: i for i, arg in enumerate(cblock.args)}
    for v in reads:
        arg = cblock.insert_arg(v.type, len(cblock.args))
        arg.name_hint = v.name_hint
        cvalues[positions[v]].replace_all_uses_with(arg)
        attrs.append(DictionaryAttr({}))
        source[arg] = positions[v]
    clone.entry.arg_attrs = ArrayAttr(attrs)
    ret = cblock.last_op
    cblock.insert_op_before(func.ReturnOp(*(cvalues[positions[w]] for w in writes)), ret)
    cblock.erase_op(ret)
    clone.entry.res_attrs = None
    prune(clone, keep_inputs=False)
    stage = Module(clone.op, {k: v for k, v in module.params.items()
                              if k in {a.param for a in clone.args()}}, returns_sequence=True)
    reads_at = tuple(source[arg] for arg, info in zip(cblock.args, stage.args())
                     if info.param is None)
    return Stage(stage, kind, reads_at, tuple(positions[w] for w in writes))
