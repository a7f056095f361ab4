"""The `ivy` dialect: op classes generated from `ops.spec`, and op categories as sets.

The registry (`SPECS`, the categories, `OpSpec`) needs only the spec parser; the op
classes and the `Ivy` dialect need xDSL and load on first use of one of their names.
"""

from __future__ import annotations

import importlib
from typing import Any

from .registry import COMMUTATIVE, COMPOSITE, CONTROL, ELEMENTWISE, NONDIFF, REDUCTION, SPECS
from .spec import OpSpec

_LAZY = {"FusedOp": ".fused", "YieldOp": ".fused", "STRUCTURAL_OPS": ".fused",
         "OP_CLASSES": ".ops", "IvyOp": ".ops", "check_attrs": ".ops",
         "infer_types": ".ops", "DTYPES": ".types", "TensorSpec": ".types",
         "dtype_name": ".types"}

__all__ = ["COMMUTATIVE", "COMPOSITE", "CONTROL", "DTYPES", "ELEMENTWISE", "NONDIFF", "OP_CLASSES",
           "REDUCTION", "SPECS", "FusedOp", "Ivy", "IvyOp", "OpSpec", "TensorSpec", "YieldOp",
           "check_attrs", "dtype_name", "infer_types"]


def _dialect() -> Any:
    """The xDSL dialect: registry ops, then the structural ops of fused groups; its one
    type is the text element type `!ivy.string`."""
    fused = importlib.import_module(".fused", __name__)
    ops = importlib.import_module(".ops", __name__)
    types = importlib.import_module(".types", __name__)
    classes = [*ops.OP_CLASSES.values(), *fused.STRUCTURAL_OPS]
    return importlib.import_module("xdsl.ir").Dialect("ivy", classes, [types.StringType])


def __getattr__(name: str) -> Any:
    if name == "Ivy":
        value = _dialect()
    elif name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
    else:
        raise AttributeError(f"module 'ivy_ir.dialect' has no attribute '{name}'")
    globals()[name] = value
    return value
