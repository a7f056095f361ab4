"""Eager execution of facade calls on arrays: the reference semantics of the op.

Arrays and Python scalars are converted to NumPy in the op's promoted dtype and the op
runs through the reference evaluator (`ivy_ir.core.evaluate`), the same rules the NumPy
lowering emits, so an eager result is what a compiled NumPy program computes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ivy_ir.core.evaluate import evaluate
from ivy_ir.core.tracer import scalar_dtype
from ivy_ir.dialect import OpSpec
from ivy_ir.dialect.spec import GROUPED_CLASSES
from ivy_ir.dialect.types import dtype_name


def run_eager(spec: OpSpec, operands: list[Any], attrs: dict[str, Any],
              common: str | None) -> Any:
    """`spec`'s op on the bound operands, promoted to `common` where grouped."""
    arrays = [[_to_array(a.dtype_class, i, common) for i in v] if a.variadic
              else _to_array(a.dtype_class, v, common)
              for a, v in zip(spec.operands, operands)]
    return evaluate(spec, arrays, attrs)


def _to_array(cls: str, v: Any, common: str | None) -> Any:
    if v is None:
        return None
    arr = np.asarray(v)
    want = common if cls in GROUPED_CLASSES else None
    if want is None and not isinstance(v, (np.ndarray, np.generic)):
        want = scalar_dtype(v)
    return arr.astype(want, copy=False) if want and dtype_name(arr.dtype) != want else arr
