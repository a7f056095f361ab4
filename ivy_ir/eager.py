"""Eager execution of single facade ops on NumPy arrays.

An eager call compiles a one-op function through the NumPy lowering (cached by op,
operand types and attributes), so eager results are the reference semantics by
construction.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Region

from .dialect import OP_CLASSES, OpSpec, TensorSpec, check_attrs
from .module import Module


def run_eager(spec: OpSpec, operands: list[Any], attrs: dict[str, Any]) -> Any:
    if spec.name == "constant":
        return np.array(attrs["value"])
    types = tuple(None if v is None else tuple(TensorSpec.of(i) for i in v)
                  if isinstance(v, list) else TensorSpec.of(v) for v in operands)
    attrs = check_attrs(spec, attrs)
    # normalised attribute values are hashable (only constants carry arrays)
    key = (spec.name, types, tuple((k, v) for k, v in attrs.items() if v is not None))
    fn = _build(key)
    flat = [i for v in operands if v is not None for i in (v if isinstance(v, list) else [v])]
    out = fn(*flat)
    if spec.variadic_results:
        return list(out)
    return out


@functools.lru_cache(maxsize=4096)
def _build(key: tuple[Any, ...]) -> Any:
    from lowerings import lower

    name, types, attrs = key
    flat = [t.to_xdsl() for g in types if g is not None
            for t in (g if isinstance(g, tuple) else (g,))]
    block = Block(arg_types=flat)
    it = iter(block.args)
    groups = [None if g is None else [next(it) for _ in g] if isinstance(g, tuple)
              else next(it) for g in types]
    op = OP_CLASSES[name].build(*groups, **dict(attrs))
    block.add_ops([op, func.ReturnOp(*op.results)])
    fn = func.FuncOp("main", (flat, [r.type for r in op.results]), Region(block))
    module = Module(ModuleOp([fn]), returns_sequence=op.SPEC.variadic_results)
    raw = lower(module, target="numpy").raw
    return functools.partial(raw, {})
