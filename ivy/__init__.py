"""The `ivy` facade: a framework-agnostic functional API generated from the registry.

`ivy.add`, `ivy.matmul`, `ivy.layer_norm`, ... run eagerly on NumPy arrays (the
reference semantics: the NumPy lowering's rules) and record ops when called inside
`ivy.trace_graph`/`ivy.compile`. Importing `ivy` loads no ML framework. The current
backend is the facade's one piece of global state: the default target of
`ivy.compile`; eager calls execute on NumPy.
"""

from __future__ import annotations

from typing import Any

import ivy_ir as _ivy_ir
from ivy_ir.dialect.types import DTYPES as _DTYPES

from .backend import current_backend, set_backend, unset_backend, with_backend
from .functional import FUNCTIONS as _FUNCTIONS

bool = "bool"  # dtype names, as ivy.float32 etc.
int8, int16, int32, int64, uint8 = "int8", "int16", "int32", "int64", "uint8"
float16, bfloat16, float32, float64 = "float16", "bfloat16", "float32", "float64"
assert set(_DTYPES) == {bool, int8, int16, int32, int64, uint8, float16, bfloat16, float32,
                        float64}


def compile(fn: Any, *, args: tuple[Any, ...] = (), target: str | None = None,
            **options: Any) -> Any:
    """Compile a facade function for `target` (default: the current backend)."""
    return _ivy_ir.compile(fn, target=target or current_backend(), args=args, **options)


def trace_graph(fn: Any, *, args: tuple[Any, ...] = (), **options: Any) -> Any:
    """Trace a facade function into an `ivy_ir.Module` (its IR graph)."""
    return _ivy_ir.trace(fn, args=args, **options)


def __getattr__(name: str) -> Any:
    # module attributes, not globals(): op names such as sum/any/min shadow builtins
    try:
        return _FUNCTIONS[name]
    except KeyError:
        raise AttributeError(f"ivy has no function '{name}'") from None


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_FUNCTIONS))


__all__ = ["compile", "current_backend", "set_backend", "trace_graph", "unset_backend",
           "with_backend", *_FUNCTIONS]
