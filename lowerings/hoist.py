"""Parameter work done once per parameter values, not once per call.

An imported model computes some values from its parameters alone: the recompose pass
folds each batch norm into its convolution's weights and bias, a linear layer's weight
gets transposed, a scale is squared. Lowered as it is, every call redoes that work:
for a ResNet-18 on torch, 16 ms of an 80 ms inference call rewrite all 11M weights.
`split` cuts such a program in two: `prepare(params)`, the ops that read only
parameters and constants, and the program proper, which reads their results as extra
buffer parameters (`HOISTED`). A target runtime that opts in (`Target.hoists`) keeps
`prepare`'s results while the parameters it read are unchanged (torch: the same tensors
at the same version, which in-place optimizer steps and `load_state_dict` bump) and
recomputes them whenever autodiff must see them (a call with gradients on), so training
is unchanged. A program that updates buffers or draws is left whole.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, FunctionType, StringAttr
from xdsl.ir import Block, Operation, SSAValue

from ivy_ir.core.module import Module
from ivy_ir.dialect import IvyOp, TensorSpec

HOISTED = "__hoisted"
"""Prefix of the buffer names under which the program reads `prepare`'s results."""

_KEPT = frozenset({"ivy.constant", "ivy.random_uniform", "ivy.random_normal"})
"""Ops never moved: constants cost nothing to read, draws must differ per call."""


@dataclass(frozen=True)
class Split:
    prepare: Module
    """`prepare(params) -> (values...)`: the parameter work."""
    main: Module
    """The program, reading value i of `prepare` as buffer `HOISTED{i}`."""
    reads: tuple[str, ...]
    """The parameters `prepare` reads: its results hold while these are unchanged."""

    @property
    def names(self) -> list[str]:
        """The buffers of `main` that `prepare`'s results are, in order."""
        return [f"{HOISTED}{i}" for i in range(len(self.prepare.outputs))]


def split(module: Module) -> Split | None:
    """`module` as parameter work plus the rest, or None when there is no such work
    (or the program has state: buffer updates, random draws)."""
    if module.updates or module.draws:
        return None
    block = module.entry.body.block
    fixed = {arg for arg, info in zip(block.args, module.args()) if info.param is not None}
    moved: list[Operation] = []
    for op in block.ops:
        if isinstance(op, IvyOp) and not op.regions and op.name not in _KEPT and \
                all(v in fixed for v in op.operands) and _static(op):
            fixed.update(op.results)
            moved.append(op)
        elif isinstance(op, IvyOp) and op.name == "ivy.constant":
            fixed.update(op.results)
    returned = set(block.last_op.operands)
    # a returned value stays in the program: a kept one would be one array shared by
    # every call's result
    moved = [op for op in moved if not returned.intersection(op.results)]
    inside = set(moved)
    boundary = [r for op in moved for r in op.results
                if any(use.operation not in inside for use in r.uses)]
    if not boundary:
        return None
    positions = {v: i for i, v in enumerate(block_values(block))}
    return Split(_prepare(module, [positions[v] for v in boundary]),
                 _program(module, [positions[v] for v in boundary]),
                 _reads(module, moved))


def _static(op: Operation) -> bool:
    """A result of a dynamic size depends on the inputs' sizes: not parameter work."""
    return all(None not in TensorSpec.from_xdsl(r.type).shape for r in op.results)


def block_values(block: Block) -> list[SSAValue]:
    """The block's values in a fixed order, so a clone's are found by position."""
    return [*block.args, *(r for op in block.ops for r in op.results)]


def _reads(module: Module, moved: list[Operation]) -> tuple[str, ...]:
    block = module.entry.body.block
    names = {arg: info.param for arg, info in zip(block.args, module.args())}
    used = dict.fromkeys(names[v] for op in moved for v in op.operands if v in names)
    return tuple(n for n in used if n is not None)


def _prepare(module: Module, boundary: list[int]) -> Module:
    prep = module.clone()
    fn = prep.entry
    block = fn.body.block
    values = block_values(block)
    outs = [values[i] for i in boundary]
    ret = block.last_op
    block.insert_op_before(func.ReturnOp(*outs), ret)
    block.erase_op(ret)
    fn.res_attrs = None
    prune(prep, keep_inputs=False)
    read = {a.param for a in prep.args()}
    return Module(prep.op, {k: v for k, v in module.params.items() if k in read},
                  returns_sequence=True)


def _program(module: Module, boundary: list[int]) -> Module:
    main = module.clone()
    block = main.entry.body.block
    values = block_values(block)
    attrs = arg_attrs(main.entry)
    for i, index in enumerate(boundary):
        value = values[index]
        arg = block.insert_arg(value.type, len(block.args))
        arg.name_hint = f"hoisted{i}"
        value.replace_all_uses_with(arg)
        attrs.append(DictionaryAttr({"ivy.buffer": StringAttr(f"{HOISTED}{i}")}))
    main.entry.arg_attrs = ArrayAttr(attrs)
    prune(main, keep_inputs=True)
    return Module(main.op, dict(module.params), module.returns_sequence)


def prune(module: Module, keep_inputs: bool) -> None:
    """Erase the ops nothing uses, then the arguments nothing reads (parameters, and
    the user's inputs unless `keep_inputs`), keeping the signature in step."""
    fn = module.entry
    block = fn.body.block
    for op in reversed(list(block.ops)):
        if op is not block.last_op and all(not r.uses for r in op.results):
            block.erase_op(op)
    infos = module.args()
    attrs = arg_attrs(fn)
    for arg, info in reversed(list(zip(block.args, infos))):
        if not arg.uses and (info.param is not None or not keep_inputs):
            del attrs[arg.index]
            block.erase_arg(arg)
    fn.arg_attrs = ArrayAttr(attrs)
    fn.function_type = FunctionType.from_lists([a.type for a in block.args],
                                               [v.type for v in block.last_op.operands])


def arg_attrs(fn: func.FuncOp) -> list[DictionaryAttr]:
    """One attribute dictionary per argument (a function written by hand has none)."""
    if fn.arg_attrs is None:
        return [DictionaryAttr({}) for _ in fn.body.block.args]
    return list(fn.arg_attrs.data)
