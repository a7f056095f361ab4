"""The facade functions on `ivy_ir` tracers: each call records its registry op.

This is the backend that `ivy_ir.trace`/`ivy_ir.compile` see: a call whose arguments
carry tracers comes here (from the backend-agnostic functions, or from a backend's
function that failed on a tracer), binds the standard signature, and records the op
through the core tracer, which promotes dtypes and infers types. Standard parameters
the op lacks are applied here (`dtype=` of a reduction casts first) or ignored when
they never change values (`device`, `copy`, `stable`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ivy_ir.core.graph import TracedSize, graph_of_sizes
from ivy_ir.core.tracer import Tracer, bind, find_graph, group_dtype, record_bound

from .catalogue import CATALOGUE, IGNORED_EXTRAS, FacadeFn
from .catalogue import bind as bind_call
from .composites import COMPOSITES
from .dtypes import dtype_name
from .results import TRACED_RESULTS

DATA_DEPENDENT = frozenset({"nonzero", "unique_all", "unique_counts", "unique_inverse",
                            "unique_values"})
"""Functions whose result shape depends on the data: eager only."""


def is_traced(values: Any) -> bool:
    """Whether a call's arguments carry a tracer, or a traced dynamic size (`ivy.ones((b,
    16))` with `b = x.shape[0]`), looking one level into lists."""
    for v in values:
        if isinstance(v, (Tracer, TracedSize)):
            return True
        if isinstance(v, (list, tuple)) and any(isinstance(i, (Tracer, TracedSize))
                                                for i in v):
            return True
    return False


def _set(value: Any, default: Any) -> bool:
    """Whether an extra parameter was given another value than its default (an array,
    traced or not, always counts: comparing it would be elementwise)."""
    return value is not default and (is_traced([value]) or hasattr(value, "shape")
                                     or value != default)


def record(fn: FacadeFn, bound: dict[str, Any]) -> Any:
    """Record `fn` called with `bound` (parameter name -> value) into the tracers' graph."""
    if fn.name in DATA_DEPENDENT:
        raise TypeError(f"ivy.{fn.name}: the shape of its result depends on the data, so "
                        "it runs eagerly only and cannot be traced or compiled")
    if fn.name in COMPOSITES:
        star = [bound[p.name] for p in fn.params if p.kind is p.VAR_POSITIONAL]
        named = {p.name: bound[p.name] for p in fn.params if p.kind is not p.VAR_POSITIONAL}
        return COMPOSITES[fn.name](*(star[0] if star else ()), **named)
    if fn.spec is None:
        raise TypeError(f"ivy.{fn.name} has no op in the ivy dialect yet, so it cannot be "
                        "traced or compiled; it runs eagerly on every backend")
    spec = fn.spec
    operands = [list(bound[p]) if a.variadic else bound[p]
                for a, p in zip(spec.operands, fn.operands)]
    for extra in fn.extras:
        value = bound[extra]
        if extra == "dtype" and value is not None:
            astype = CATALOGUE["astype"]
            operands[0] = record(astype, bind_call(astype, (operands[0], value), {}))
        elif extra not in IGNORED_EXTRAS and _set(value, fn.signature.parameters[extra].default):
            raise TypeError(f"ivy.{fn.name}: tracing does not support {extra}={value!r} yet")
    defaults = {a.name: a for a in spec.attrs}
    attrs = {attr: bound[param] for attr, param in fn.attrs
             if not (bound[param] is None and not defaults[attr].optional)}
    if "dtype" in attrs:  # any framework's dtype object (set_backend rebinds ivy.float32)
        attrs["dtype"] = dtype_name(attrs["dtype"]) or attrs["dtype"]
    operands, attrs = bind(spec, tuple(operands), attrs)
    graph = find_graph(operands) or graph_of_sizes(attrs.values())
    if graph is None:
        raise TypeError(f"ivy.{fn.name}: no traced argument")  # only reached by misuse
    out = record_bound(spec, graph, operands, attrs, group_dtype(spec, operands))
    named = TRACED_RESULTS.get(fn.name)
    return out if named is None else named(*out)


def function(fn: FacadeFn) -> Callable[..., Any]:
    def traced(*args: Any, **kwargs: Any) -> Any:
        return record(fn, bind_call(fn, args, kwargs))
    traced.__name__ = traced.__qualname__ = fn.name.rpartition(".")[2]
    traced.__signature__ = fn.signature  # type: ignore[attr-defined]
    return traced


FUNCTIONS: dict[str, Callable[..., Any]] = {name: function(fn)
                                            for name, fn in CATALOGUE.items()}
