"""Everything the `ivy` module holds, installed on first use (see `ivy/__init__.py`):
backend selection, the four backend namespaces, the backend-agnostic functions and
dtype objects (which `set_backend` rebinds), the stateful classes, the functional control
flow (which follows the backend set by itself), and the routes into `ivy_ir`."""

from __future__ import annotations

from typing import Any

import ivy_ir as _ivy_ir

from . import agnostic as _agnostic
from . import backend as _backend
from .backend import (
    NAMESPACES,
    available_backends,
    current_backend,
    get_backend,
    set_backend,
    unset_backend,
    with_backend,
)
from .control_flow import EXPORTS as CONTROL_FLOW
from .dtypes import DTYPE_OBJECTS as _DTYPES
from .namespace import VERSION, namespace_values
from .stateful import EXPORTS
from .transpiler import trace_graph, transpile, unify


def compile(fn: Any, *, args: tuple[Any, ...] = (), target: str | None = None,
            **options: Any) -> Any:
    """Compile a facade function for `target` (default: the current backend)."""
    return _ivy_ir.compile(fn, target=target or current_backend(), args=args, **options)


def install(module_globals: dict[str, Any]) -> None:
    """Fill the `ivy` module, then the backend-agnostic values, which `set_backend`
    rebinds in that same dict."""
    module_globals.update(
        available_backends=available_backends, current_backend=current_backend,
        set_backend=set_backend, unset_backend=unset_backend, get_backend=get_backend,
        with_backend=with_backend, set_framework=set_backend, unset_framework=unset_backend,
        get_framework=get_backend, compile=compile, compile_fn=compile,
        trace_graph=trace_graph, transpile=transpile, unify=unify,
        __array_api_version__=VERSION, **NAMESPACES)
    agnostic = namespace_values("ivy", _agnostic.FUNCTIONS, dict(_DTYPES))
    del agnostic["__functions__"]  # inference dispatches to backends, never to these
    module_globals.update(agnostic)
    module_globals.update(EXPORTS)
    module_globals.update(CONTROL_FLOW)
    module_globals["__all__"] = sorted(k for k in module_globals if not k.startswith("_"))
    _backend.attach(module_globals, agnostic)
