"""The `ivy` facade: the Array API standard on every framework's own arrays.

`ivy.<fn>` follows the Python Array API standard (2024.12) with the Ivy papers' names
as aliases. With a backend set (`ivy.set_backend('torch')`), every function is the
torch namespace's own (`ivy.torch`), generated from the torch lowering's rules, and
takes and returns `torch.Tensor`s; with none set, a call runs on the framework of its
arguments (NumPy for Python values), and inside `ivy_ir.trace`/`ivy_ir.compile` it
records ops. Importing `ivy` loads no ML framework, and builds its functions on the
first use of a name (`ivy/facade.py`); setting a backend loads that framework only.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any


def _load() -> dict[str, Any]:
    module_globals = globals()
    if "set_backend" not in module_globals:
        importlib.import_module(".facade", __name__).install(module_globals)
    return module_globals


def __getattr__(name: str) -> Any:
    if name.startswith("__") and name not in ("__array_namespace_info__",
                                              "__array_api_version__", "__all__"):
        raise AttributeError(name)
    if (Path(__file__).parent / f"{name}.py").exists():
        raise AttributeError(name)  # a submodule being imported (`from . import native`)
    try:
        return _load()[name]
    except KeyError:
        raise AttributeError(f"module 'ivy' has no attribute '{name}'") from None


def __dir__() -> list[str]:
    return sorted(_load())
