"""The reference evaluator: run one registry op on NumPy arrays.

Constant folding, the importers' static values and the facade's eager calls all need an
op's value now, not a program; they get it from the same rule table the NumPy lowering
emits (`reference.py`), so folding can never disagree with a NumPy run. A call builds
the one-op program once per op, operand types and attributes (composite ops expanded
into their decomposition) and caches it as a small Python function.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Region, SSAValue

from ..dialect import OP_CLASSES, IvyOp, OpSpec, TensorSpec, check_attrs
from .decompose import DECOMPOSITIONS, decompose_ops
from .reference import REFERENCE
from .rules import expression


def evaluate(spec: OpSpec, operands: list[Any], attrs: dict[str, Any]) -> Any:
    """`spec`'s op on NumPy arrays (None for an absent optional operand, a list for a
    variadic one): an array, or a tuple/list of them for a multi-result op."""
    if spec.name == "constant":
        return np.array(attrs["value"])
    types = tuple(None if v is None else tuple(TensorSpec.of(i) for i in v)
                  if isinstance(v, list) else TensorSpec.of(v) for v in operands)
    attrs = check_attrs(spec, attrs)
    # normalised attribute values are hashable (only constants carry arrays)
    key = (spec.name, types, tuple((k, v) for k, v in attrs.items() if v is not None))
    flat = [i for v in operands if v is not None for i in (v if isinstance(v, list) else [v])]
    out = _program(key)(*flat)
    return list(out) if spec.variadic_results else out


@functools.lru_cache(maxsize=4096)
def _program(key: tuple[Any, ...]) -> Callable[..., Any]:
    name, types, attrs = key
    flat = [t.to_xdsl() for g in types if g is not None
            for t in (g if isinstance(g, tuple) else (g,))]
    block = Block(arg_types=flat)
    it = iter(block.args)
    groups = [None if g is None else [next(it) for _ in g] if isinstance(g, tuple)
              else next(it) for g in types]
    op = OP_CLASSES[name].build(*groups, **dict(attrs))
    block.add_ops([op, func.ReturnOp(*op.results)])
    module = ModuleOp([func.FuncOp("main", (flat, [r.type for r in op.results]),
                                   Region(block))])
    decompose_ops(module, {n for n in DECOMPOSITIONS if n not in REFERENCE.rules})
    return _compile(block, many=op.SPEC.variadic_results or len(op.results) > 1)


def _compile(block: Block, many: bool) -> Callable[..., Any]:
    """One Python function computing the block, each op its reference expression."""
    names: dict[SSAValue, str] = {a: f"a{i}" for i, a in enumerate(block.args)}
    env: dict[str, Any] = {"np": np, "math": math, **REFERENCE.helpers}
    lines = []
    for op in block.ops:
        if isinstance(op, func.ReturnOp):
            outs = ", ".join(names[v] for v in op.operands)
            lines.append(f"return ({outs},)" if many else f"return {outs}")
            continue
        assert isinstance(op, IvyOp)
        results = [f"v{len(names) + i}" for i in range(len(op.results))]
        if op.SPEC.name == "constant":
            env[results[0]] = op.attr_values()["value"]
        else:
            lhs = ", ".join(results) + ("," if op.SPEC.variadic_results else "")
            lines.append(f"{lhs} = {expression(op, REFERENCE, names.__getitem__)}")
        names.update(zip(op.results, results))
    args = ", ".join(names[a] for a in block.args)
    source = f"def reference({args}):\n" + "".join(f"    {line}\n" for line in lines)
    exec(compile(source, "<ivy_ir reference>", "exec"), env)  # our own rules, no IR text
    return env["reference"]
