"""The functional API, generated from the registry: one Python function per op.

Called on `Tracer` values a function records its op; called on arrays or scalars it
runs eagerly through the NumPy lowering (so the facade holds no copy of op semantics).
Both paths share argument binding and dtype promotion: operands of one dtype group
are promoted to a common dtype, Python scalars adopt the dtype of their group, and an
integer operand of a float-only op becomes float32, as the Ivy/torch facades do.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from .dialect import SPECS, OpSpec
from .dialect.spec import GROUPED_CLASSES
from .dialect.types import CLASS_MEMBERS, FLOATS, dtype_name
from .tracer import Graph, Tracer

DEFAULT_FLOAT = "float32"
_DEFAULT_FOR_SCALAR = {bool: "bool", int: "int64", float: DEFAULT_FLOAT}


def _dtype_of(v: Any) -> str | None:
    if isinstance(v, Tracer):
        return v.dtype
    if isinstance(v, (np.ndarray, np.generic)):
        return dtype_name(v.dtype)
    return None


def _scalar_dtype(v: Any) -> str:
    if isinstance(v, (bool, int, float)):
        return _DEFAULT_FOR_SCALAR[type(v)]
    return dtype_name(np.asarray(v).dtype)


def _promote(dtypes: list[str]) -> str:
    floats = [d for d in dtypes if d in FLOATS]
    if floats:
        return str(np.result_type(*[np.dtype(d) for d in floats])) if "bfloat16" not in floats \
            else "bfloat16"
    return dtype_name(np.result_type(*[np.dtype(d) for d in dtypes]))


def _group_dtype(spec: OpSpec, operands: list[Any]) -> str | None:
    """The common dtype of the op's grouped operands, after promotion."""
    typed, scalars = [], []
    for arg, v in zip(spec.operands, operands):
        if arg.dtype_class not in GROUPED_CLASSES or v is None:
            continue
        for item in (v if arg.variadic else [v]):
            d = _dtype_of(item)
            (typed if d else scalars).append(d or _scalar_dtype(item))
    if not typed and not scalars:
        return None
    common = _promote(typed) if typed else _promote(scalars)
    if typed and any(s == "float32" for s in scalars) and common not in FLOATS:
        common = DEFAULT_FLOAT
    classes = {a.dtype_class for a in spec.operands if a.dtype_class in GROUPED_CLASSES}
    if common not in FLOATS and classes == {"float"}:
        common = DEFAULT_FLOAT
    return common


def bind(spec: OpSpec, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[list[Any], dict]:
    """Split a call into operands (in spec order) and attributes."""
    kwargs = dict(kwargs)
    operands: list[Any] = []
    pos = list(args)
    for arg in spec.operands:
        if pos:
            v = pos.pop(0)
        elif arg.name in kwargs:
            v = kwargs.pop(arg.name)
        elif arg.optional:
            v = None
        else:
            raise TypeError(f"ivy.{spec.name}() missing tensor argument '{arg.name}'")
        if arg.variadic:
            if not isinstance(v, (list, tuple)):
                raise TypeError(f"ivy.{spec.name}() takes '{arg.name}' as a list of arrays")
            v = list(v)
        operands.append(v)
    if pos:
        raise TypeError(f"ivy.{spec.name}() takes {len(spec.operands)} tensor argument(s); "
                        "attributes are keyword-only")
    return operands, kwargs


def _find_graph(operands: list[Any]) -> Graph | None:
    for v in operands:
        for item in (v if isinstance(v, list) else [v]):
            if isinstance(item, Tracer):
                return item.graph
    return None


def call(spec: OpSpec, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    operands, attrs = bind(spec, args, kwargs)
    common = _group_dtype(spec, operands)
    graph = _find_graph(operands)
    if graph is None:
        from .eager import run_eager

        arrays = [[_to_array(a.dtype_class, i, common) for i in v] if a.variadic
                  else _to_array(a.dtype_class, v, common)
                  for a, v in zip(spec.operands, operands)]
        return run_eager(spec, arrays, attrs)
    values = []
    for arg, v in zip(spec.operands, operands):
        items = v if arg.variadic else [v]
        lifted = [None if i is None else _lift(graph, arg.dtype_class, i, common)
                  for i in items]
        values.append(lifted if arg.variadic else lifted[0])
    results = [Tracer(r, graph) for r in graph.emit(spec.name, values, attrs)]
    return results if spec.variadic_results else results[0] if len(results) == 1 \
        else tuple(results)


def _lift(graph: Graph, cls: str, v: Any, common: str | None) -> Any:
    want = common if cls in GROUPED_CLASSES else None
    if isinstance(v, Tracer):
        if want and v.dtype != want:
            return graph.emit("astype", [v.value], {"dtype": want})[0]
        if cls == "mask" and v.dtype not in CLASS_MEMBERS["mask"]:
            return graph.emit("astype", [v.value], {"dtype": DEFAULT_FLOAT})[0]
        return v.value
    if want is None and not isinstance(v, np.ndarray):
        want = _scalar_dtype(v)
    return graph.lift(v, want)


def _to_array(cls: str, v: Any, common: str | None) -> Any:
    if v is None:
        return None
    arr = np.asarray(v)
    want = common if cls in GROUPED_CLASSES else None
    if want is None and not isinstance(v, (np.ndarray, np.generic)):
        want = _scalar_dtype(v)
    return arr.astype(want, copy=False) if want and dtype_name(arr.dtype) != want else arr


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
__all__ = sorted(FUNCTIONS)


def __getattr__(name: str) -> Any:
    # module attributes, not globals(): op names such as sum/any/min shadow builtins
    try:
        return FUNCTIONS[name]
    except KeyError:
        raise AttributeError(f"ivy has no function '{name}'") from None


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(FUNCTIONS))
