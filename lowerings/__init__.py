"""Lowerings: ivy IR to target-native Python source, one table per target."""

from __future__ import annotations

import importlib
from typing import Any

from ivy_ir.compiled import Compiled
from ivy_ir.module import Module

from .emitter import LoweringError, Target, emit_source

TARGET_MODULES = {"numpy": "lowerings.numpy"}
TARGETS = tuple(TARGET_MODULES)


def get_target(name: str) -> Target:
    if name not in TARGET_MODULES:
        raise ValueError(f"unknown target '{name}'; available: {', '.join(TARGETS)}")
    module = importlib.import_module(TARGET_MODULES[name])
    return getattr(module, name.upper())


def lower(module: Module, target: str = "numpy", params: dict[str, Any] | None = None,
          retrace: Any = None) -> Compiled:
    """Generate, load and wrap the target function for `module` (left unchanged)."""
    from ivy_ir.decompositions import DECOMPOSITIONS
    from ivy_ir.passes.decompose import decompose_ops

    tgt = get_target(target)
    work = module.clone()
    needs = {n for n in DECOMPOSITIONS if n not in tgt.rules}
    decompose_ops(work.op, needs)
    source, namespace = emit_source(work, tgt)
    code = compile(source, f"<ivy_ir {target}>", "exec")
    exec(code, namespace)  # the source is ours: identifiers sanitised, strings repr'd
    values = dict(module.params if params is None else params)
    return Compiled(module, target, source, namespace["main"], values, retrace)


__all__ = ["TARGETS", "LoweringError", "Target", "get_target", "lower"]
