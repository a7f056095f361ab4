"""The functional API, generated from the registry: one Python function per op.

Called on `Tracer` values (inside `ivy_ir.trace`/`ivy_ir.compile`) a function records
its op through the core tracer; called on arrays or scalars it runs eagerly
(`eager.py`). Both paths share the core's argument binding and dtype promotion, and
the facade holds no copy of op semantics.
"""

from __future__ import annotations

import inspect
from typing import Any

from ivy_ir.core.tracer import bind, find_graph, group_dtype, record_bound
from ivy_ir.dialect import SPECS, OpSpec

from .eager import run_eager


def call(spec: OpSpec, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    operands, attrs = bind(spec, args, kwargs)
    common = group_dtype(spec, operands)
    graph = find_graph(operands)
    if graph is None:
        return run_eager(spec, operands, attrs, common)
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
        return call(spec, args, kwargs)
    op.__name__ = op.__qualname__ = spec.name
    op.__doc__ = _doc(spec)
    op.__signature__ = _signature(spec)  # type: ignore[attr-defined]
    return op


FUNCTIONS: dict[str, Any] = {name: _make(spec) for name, spec in SPECS.items()}
