"""The `ivy` facade: the Array API standard on every framework's own arrays.

`ivy.<fn>` follows the Python Array API standard (2024.12) with the Ivy papers' names
as aliases. With a backend set (`ivy.set_backend('torch')`), every function is the
torch namespace's own (`ivy.torch`), generated from the torch lowering's rules, and
takes and returns `torch.Tensor`s; with none set, a call runs on the framework of its
arguments (NumPy for Python values), and inside `ivy_ir.trace`/`ivy_ir.compile` it
records ops. Importing `ivy` loads no ML framework; setting a backend loads that one.
"""

from __future__ import annotations

import types as _types
from typing import Any

import ivy_ir as _ivy_ir

from . import agnostic as _agnostic
from . import backend as _backend
from .backend import (
    NAMESPACES as _NAMESPACES,
)
from .backend import (
    available_backends,
    current_backend,
    get_backend,
    set_backend,
    unset_backend,
    with_backend,
)
from .dtypes import DTYPE_OBJECTS as _DTYPES
from .namespace import ALIASES as _ALIASES
from .namespace import CONSTANTS as _CONSTANTS
from .namespace import VERSION as __array_api_version__
from .namespace import _dtype_functions, _Info

numpy, jax, torch, tensorflow = (_NAMESPACES[n] for n in ("numpy", "jax", "torch",
                                                           "tensorflow"))
set_framework, unset_framework, get_framework = set_backend, unset_backend, get_backend


def compile(fn: Any, *, args: tuple[Any, ...] = (), target: str | None = None,
            **options: Any) -> Any:
    """Compile a facade function for `target` (default: the current backend)."""
    return _ivy_ir.compile(fn, target=target or current_backend(), args=args, **options)


compile_fn = compile


def trace_graph(fn: Any, *, args: tuple[Any, ...] = (), **options: Any) -> Any:
    """Trace a facade function into an `ivy_ir.Module` (its IR graph)."""
    return _ivy_ir.trace(fn, args=args, source="ivy", **options)


def _agnostic_values() -> dict[str, Any]:
    funcs = _agnostic.FUNCTIONS
    out: dict[str, Any] = {k: v for k, v in funcs.items() if "." not in k}
    for ext in ("linalg", "fft"):
        sub = _types.ModuleType(f"ivy.{ext}")
        sub.__dict__.update({k.partition(".")[2]: v for k, v in funcs.items()
                             if k.startswith(ext + ".")})
        out[ext] = sub
    out.update({alias: funcs[target] for alias, target in _ALIASES.items()})
    out.update(_DTYPES)
    out.update(_CONSTANTS)
    out.update(_dtype_functions(dict(_DTYPES)))
    out["__array_namespace_info__"] = lambda: _Info(dict(_DTYPES))
    return out


globals().update(_agnostic_values())
_backend.attach(globals(), _agnostic_values())

__all__ = ["__array_api_version__", "available_backends", "compile", "compile_fn",
           "current_backend", "get_backend", "get_framework", "jax", "numpy", "set_backend",
           "set_framework", "tensorflow", "torch", "trace_graph", "unset_backend",
           "unset_framework", "with_backend",
           *sorted(k for k in _agnostic_values() if not k.startswith("_"))]
