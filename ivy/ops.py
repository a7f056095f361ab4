"""`ivy.ops`: every op of the ivy dialect as a function, with the IR's own semantics.

Where `ivy.<fn>` is the Array API standard on a framework's arrays, `ivy.ops.<op>` is
the registry op itself: operands positional, attributes keyword-only as the spec line
declares them, one dtype per operand group (promoted like the tracer does). Called on
tracers it records the op; called on arrays or scalars it runs the op's reference
semantics (the NumPy rule, through `ivy_ir.core.evaluate`), so an eager result is what
a compiled program computes. The differential tests of every op use it.

The control-flow ops take functions for their regions, which no generated function
can pass on: they are `ivy.cond`, `ivy.while_loop` and `ivy.scan` (`control_flow.py`).
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from ivy_ir.core.evaluate import evaluate
from ivy_ir.core.tracer import bind, find_graph, group_dtype, record_bound, scalar_dtype
from ivy_ir.dialect import CONTROL, SPECS, OpSpec
from ivy_ir.dialect.spec import GROUPED_CLASSES
from ivy_ir.dialect.types import dtype_name


def _run_eager(spec: OpSpec, operands: list[Any], attrs: dict[str, Any],
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


def _call(spec: OpSpec, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    operands, attrs = bind(spec, args, kwargs)
    common = group_dtype(spec, operands)
    graph = find_graph(operands)
    if graph is None:
        return _run_eager(spec, operands, attrs, common)
    return record_bound(spec, graph, operands, attrs, common)


def _signature(spec: OpSpec) -> inspect.Signature:
    P = inspect.Parameter
    params = [P(a.name, P.POSITIONAL_OR_KEYWORD, default=None if a.optional else P.empty)
              for a in spec.operands]
    params += [P(a.name, P.KEYWORD_ONLY, default=P.empty if a.required else a.default)
               for a in spec.attrs]
    return inspect.Signature(params)


def _doc(spec: OpSpec) -> str:
    tags = ", ".join(sorted(spec.tags)) or "none"
    attrs = ", ".join(f"{a.name}: {a.kind}" for a in spec.attrs) or "none"
    return (f"ivy.{spec.name}: tensors ({', '.join(a.name for a in spec.operands) or 'none'}); "
            f"attributes ({attrs}); tags: {tags}. Declared in ivy_ir/dialect/ops.spec "
            f"line {spec.line}, which is the reference for its semantics.")


def _make(spec: OpSpec) -> Any:
    def op(*args: Any, **kwargs: Any) -> Any:
        return _call(spec, args, kwargs)
    op.__name__ = op.__qualname__ = spec.name
    op.__doc__ = _doc(spec)
    op.__signature__ = _signature(spec)  # type: ignore[attr-defined]
    return op


globals().update({name: _make(spec) for name, spec in SPECS.items() if name not in CONTROL})
