"""ivy_ir: any array program in, any framework out, through one typed IR.

Importing this package loads no ML framework, and not even the IR machinery (xDSL):
the public names load their modules on first use, so that `import ivy` (the facade,
which only needs the registry) stays fast. Targets and importers import their
frameworks lazily when used.
"""

from __future__ import annotations

import importlib
from typing import Any

from .core.errors import IRError, TraceError, UnsupportedOpsError

_LAZY = {"compile": ".api", "list_ops": ".api", "lower": ".api", "parse": ".api",
         "trace": ".api", "Compiled": ".compiled", "LazyCompiled": ".lazy",
         "Module": ".core.module",
         "ParseLimits": ".core.ir_text", "parse_limits": ".core.ir_text"}

__all__ = ["Compiled", "IRError", "LazyCompiled", "Module", "ParseLimits", "TraceError",
           "UnsupportedOpsError", "compile", "list_ops", "lower", "parse", "parse_limits",
           "trace"]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'ivy_ir' has no attribute '{name}'")
    value = getattr(importlib.import_module(_LAZY[name], __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
