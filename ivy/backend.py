"""Backend selection, the facade's only global state (as in the Ivy papers).

Three ways to pick the framework a call runs on, as the 2021 paper has them:
- globally: `set_backend('torch')` (alias `set_framework`) rebinds every function of
  the `ivy` module to the torch namespace's own function, and `ivy.float32` to
  `torch.float32`; `unset_backend()` restores what was bound before. A call then costs
  the native call plus one frame;
- per call: `ivy.clip(x, 0, 1, f='torch')` (or `f=ivy.torch`, `backend=`);
- by inference: with nothing set, the backend-agnostic function reads the arguments'
  type names (no framework is imported to do so) and calls that backend's function;
  tracers of `ivy_ir` select the tracing functions. The choice is a function of the
  argument types alone, so each agnostic function remembers it per tuple of types.

`ivy.numpy`, `ivy.torch`, `ivy.jax`, `ivy.tensorflow` are the namespaces themselves;
each builds its functions (and imports its framework) on first use.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy

from .namespace import BackendNamespace, tracing_functions

NAMES = ("numpy", "jax", "torch", "tensorflow")
NAMESPACES: dict[str, BackendNamespace] = {n: BackendNamespace(n) for n in NAMES}
_ROOTS = {"numpy": "numpy", "torch": "torch", "jax": "jax", "jaxlib": "jax",
          "tensorflow": "tensorflow", "keras": "tensorflow", "ivy_ir": "ivy_ir"}


class _RootOf(dict):
    """type -> the framework its module belongs to (None: no framework's), by type
    name, filled on first sight of each type: one lookup per value after that."""

    def __missing__(self, kind: type) -> str | None:
        value = self[kind] = _ROOTS.get(kind.__module__.partition(".")[0])
        return value


_ROOT_OF = _RootOf()

_stack: list[str] = []
_facade: dict[str, Any] = {}
"""The `ivy` module's globals, and the backend-agnostic values they hold when no
backend is set (saved by `attach`)."""
_agnostic: dict[str, Any] = {}


def attach(module_globals: dict[str, Any], agnostic: dict[str, Any]) -> None:
    """Called once by `ivy/__init__.py`: the dict that global selection rebinds."""
    global _facade
    _facade = module_globals
    _agnostic.update(agnostic)


def available_backends() -> tuple[str, ...]:
    return NAMES


def _name(backend: str | types.ModuleType) -> str:
    if isinstance(backend, BackendNamespace):
        return backend.backend_name
    if isinstance(backend, str) and backend in NAMES:
        return backend
    raise ValueError(f"unknown backend {backend!r}; choose one of {', '.join(NAMES)} "
                     "(a name or a namespace such as ivy.torch)")


def set_backend(backend: str | types.ModuleType) -> None:
    """Run every `ivy` function on `backend`'s native arrays from now on."""
    name = _name(backend)
    _rebind(NAMESPACES[name].exports())
    _stack.append(name)


def unset_backend() -> None:
    """Go back to the backend set before (or to inference when none was)."""
    if _stack:
        _stack.pop()
    _rebind(NAMESPACES[_stack[-1]].exports() if _stack else _agnostic)


def current_backend() -> str:
    """The backend set globally, else 'numpy' (what calls on Python values run on)."""
    return _stack[-1] if _stack else "numpy"


def selected() -> str | None:
    """The backend set globally; None while calls infer theirs from the arguments."""
    return _stack[-1] if _stack else None


def get_backend(*args: Any, f: Any = None) -> BackendNamespace:
    """The namespace a call on `args` runs on: `f`, else the one set, else inferred."""
    if f is not None:
        return NAMESPACES[_name(f)]
    if _stack:
        return NAMESPACES[_stack[-1]]
    return NAMESPACES.get(infer(args) or "numpy", NAMESPACES["numpy"])


def _rebind(values: dict[str, Any]) -> None:
    for key in _agnostic:
        _facade[key] = values.get(key, _agnostic[key])


@contextmanager
def with_backend(backend: str | types.ModuleType) -> Iterator[None]:
    set_backend(backend)
    try:
        yield
    finally:
        unset_backend()


BackendNamespace.selector = staticmethod(with_backend)


def infer(values: Any) -> str | None:
    """The framework of the arrays among `values` by type name (None: none found);
    TypeError when two frameworks meet (NumPy is one: torch takes no NumPy operand).
    Tracers win over every array, which they take as a constant."""
    found: str | None = None
    for v in values:
        root = _ROOT_OF[type(v)]
        if root is None and isinstance(v, (list, tuple)) and v:
            root = infer(v)
        elif root == "numpy" and isinstance(v, numpy.generic):
            continue  # a NumPy scalar goes with any framework, as a Python scalar does
        if root is None or root == found or found == "ivy_ir":
            continue
        if found is None or root == "ivy_ir":
            found = root
        else:
            raise TypeError(f"arrays of two frameworks in one call ({found} and {root}); "
                            "convert one of them first (ivy.asarray, ivy.to_native)")
    return found


def pick(f: Any, values: tuple[Any, ...]) -> dict[str, Callable[..., Any]]:
    """The functions a backend-agnostic call runs: `f`'s, or those of the arrays'
    framework (the tracing functions for tracers), or NumPy's."""
    if f is not None:
        return NAMESPACES[_name(f)].functions
    root = infer(values)
    if root == "ivy_ir":
        return tracing_functions()
    return NAMESPACES[root or "numpy"].eager


def dispatch(cache: dict[Any, Callable[..., Any]], name: str, f: Any,
             values: tuple[Any, ...], key: Any = None) -> Callable[..., Any]:
    """`pick(f, values)[name]`, remembered in `cache` under the arguments' types when
    those alone decide it (no `f`, no list whose items would), so that the next call
    on the same types costs one dict lookup: the inference fast path. A list of
    arrays comes with `key`, its items' one type (`element_type`), or None."""
    chosen = pick(f, values)[name]
    if key is not None:
        cache[key] = chosen
    elif f is None and not any(isinstance(v, (list, tuple)) for v in values):
        types_ = tuple(map(type, values))
        cache[types_[0] if len(set(types_)) == 1 else types_] = chosen
    return chosen


def element_type(values: Any) -> type | None:
    """The one type of a list's (or tuple's) items, which then decides the backend as
    an array's own type does; None where items differ or nest (inference then looks
    at each). Not a list: its own type."""
    if type(values) is not list and type(values) is not tuple:
        return type(values)
    kinds = set(map(type, values))
    if len(kinds) != 1:
        return None
    (kind,) = kinds
    return None if kind is list or kind is tuple else kind
