"""The tracer's type promotion, eagerly, for functions whose native call does not promote.

A backend's function rendered from a lowering rule assumes what the IR guarantees: the
operands of an op's dtype group share one dtype (the tracer promotes them before the op
is recorded). Called eagerly on mixed dtypes (`ivy.linear(float64 x, float32 w)`), the
native call may refuse them (torch's `F.linear`, TF's ops). The backend function's
failure path retries here: the grouped operands are cast to the dtype the tracer would
promote them to and the call is made once more, so the fast path pays nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy

from ivy_ir.core.tracer import group_dtype
from ivy_ir.dialect.spec import GROUPED_CLASSES

from .catalogue import FacadeFn
from .dtypes import dtype_name

_PYTHON = (bool, int, float, complex)


def promoted(fn: FacadeFn, bound: dict[str, Any],
             astype: Callable[[Any, str], Any]) -> dict[str, Any] | None:
    """`bound` with the op's grouped array operands cast to the dtype the tracer would
    give them (`group_dtype`: the IR's promotion, so eager and traced calls agree, an
    integer operand of a float-only op included); None when nothing changes."""
    if fn.spec is None:
        return None
    names: dict[str, str] = {}
    proxies: list[Any] = []
    for arg, param in zip(fn.spec.operands, fn.operands):
        value = bound.get(param)
        name = None if isinstance(value, _PYTHON) or arg.variadic else \
            dtype_name(getattr(value, "dtype", None))
        if name is not None and arg.dtype_class in GROUPED_CLASSES:
            names[param] = name
        proxies.append(_proxy(name) if name is not None else
                       value if isinstance(value, _PYTHON) else None)
    try:
        common = group_dtype(fn.spec, proxies)
    except TypeError:
        return None
    changed = {p for p, n in names.items() if n != common}
    if common is None or not changed:
        return None
    return {**bound, **{p: astype(bound[p], common) for p in changed}}


def _proxy(name: str) -> Any:
    """An empty NumPy array of dtype `name`, which `group_dtype` reads like an operand."""
    try:
        return numpy.empty(0, dtype=name)
    except TypeError:
        return None  # a dtype NumPy lacks (bfloat16): such an operand is not promoted


def call_bound(fn: FacadeFn, function: Callable[..., Any], bound: dict[str, Any]) -> Any:
    """`function` called with `bound` (parameter name -> value) as `fn`'s signature
    takes it: positional-only parameters by position."""
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for p in fn.params:
        if p.kind is p.VAR_POSITIONAL:
            args.extend(bound[p.name])
        elif p.kind is p.POSITIONAL_ONLY:
            args.append(bound[p.name])
        else:
            kwargs[p.name] = bound[p.name]
    return function(*args, **kwargs)
