"""Importers: programs of other frameworks into the ivy dialect.

Each source module (`torch`, `jax`, `tensorflow`, `numpy`, `onnx`) exposes
`import_program(fn, args, kwargs, params, buffers) -> ivy_ir.Module`: a mapping table
from the framework's ops onto registry ops plus one walker over the framework's own
graph. `detect_source` picks the importer from the object and its example arguments
without importing any framework that the user has not imported already.
"""

from __future__ import annotations

import dis
import importlib
import inspect
import os
import types
from collections.abc import Callable
from typing import Any

SOURCES = ("ivy", "numpy", "torch", "jax", "tensorflow", "onnx")
"""Source names accepted by `ivy_ir.compile(source=...)`."""

_MODULE_ROOTS = {"torch": "torch", "jax": "jax", "jaxlib": "jax", "flax": "jax", "haiku": "jax",
                 "tensorflow": "tensorflow", "keras": "tensorflow", "tf_keras": "tensorflow",
                 "numpy": "numpy", "ivy": "ivy", "ivy_ir": "ivy"}


def _root(obj: Any) -> str | None:
    mod = obj.__name__ if isinstance(obj, types.ModuleType) else getattr(obj, "__module__", None)
    if not isinstance(mod, str):
        mod = type(obj).__module__
    return _MODULE_ROOTS.get(mod.split(".")[0])


def _leaves(tree: Any) -> list[Any]:
    if isinstance(tree, dict):
        return [x for v in tree.values() for x in _leaves(v)]
    if isinstance(tree, (list, tuple)):
        return [x for v in tree for x in _leaves(v)]
    return [tree]


def _framework_of_value(v: Any) -> str | None:
    for cls in type(v).__mro__:
        root = _MODULE_ROOTS.get(cls.__module__.split(".")[0])
        if root in ("torch", "jax", "tensorflow"):
            return root
    return None


def _referenced_frameworks(fn: Callable[..., Any], depth: int = 3,
                           seen: set[int] | None = None) -> list[str]:
    """Frameworks whose modules or functions the function's code names (globals, closure
    cells and argument defaults), in order of first mention; then those that the plain Python
    functions it names name in turn (`depth` levels down), so a closure calling a
    helper written with `ivy` counts as `ivy` code. Code that indexes and closes over a
    NumPy array (a global, a cell, a default, an attribute of a method's `self`) counts
    as NumPy: only the NumPy importer can index such a table by traced ids (`wte[ids]`),
    while arithmetic alone on closed-over arrays stays facade code. A callable
    object's code is its `__call__`."""
    if not inspect.isroutine(fn) and \
            isinstance(inspect.getattr_static(type(fn), "__call__", None), types.FunctionType):
        fn = fn.__call__
    attrs = getattr(fn.__self__, "__dict__", {}) if inspect.ismethod(fn) else {}
    fn = getattr(fn, "__func__", fn)
    code = getattr(fn, "__code__", None)
    seen = set() if seen is None else seen
    if code is None or id(fn) in seen:
        return []
    seen.add(id(fn))
    names = list(code.co_names)
    scope = dict(getattr(fn, "__globals__", {}))
    cells = dict(zip(code.co_freevars, (c.cell_contents for c in fn.__closure__ or ()
                                         if _filled(c))))
    scope.update(cells)
    found: list[str] = []
    helpers = []
    # a default binds a model like a closure cell does (`lambda v, x, m=model: ...`)
    defaults = [*(getattr(fn, "__defaults__", None) or ()),
                *(getattr(fn, "__kwdefaults__", None) or {}).values()]
    for value in [scope.get(name) for name in list(names) + list(cells)] + defaults:
        if isinstance(value, types.ModuleType) or callable(value):
            root = _root(value) or _wrapper_root(value)
            if root and root not in found:
                found.append(root)
            elif root is None and isinstance(value, types.FunctionType):
                helpers.append(value)
    closed = [*(scope.get(n) for n in names + list(cells)), *defaults,
              *(attrs[n] for n in names if n in attrs)]
    if "numpy" not in found and _indexes(code) and \
            any(_root(type(v)) == "numpy" for v in closed):
        found.append("numpy")
    for helper in helpers if depth > 0 else ():
        found += [r for r in _referenced_frameworks(helper, depth - 1, seen) if r not in found]
    return found


def _indexes(code: types.CodeType) -> bool:
    """Whether the code (or a lambda or comprehension in it) subscripts or `.take`s
    (`BINARY_SUBSCR`; from Python 3.14 a `BINARY_OP` shown as `[]`)."""
    return any(i.opname == "BINARY_SUBSCR" or i.argrepr == "[]" or i.argval == "take"
               for i in dis.get_instructions(code)) or \
        any(_indexes(c) for c in code.co_consts if isinstance(c, types.CodeType))


def _wrapper_root(value: Any) -> str | None:
    """The framework of a callable object that wraps a user function and keeps its
    `__module__` (`jax.jit`, `jax.custom_jvp`/`custom_vjp`, a model instance): its
    type tells, where the name would say the user's module."""
    if isinstance(value, (type, types.FunctionType, types.MethodType, types.ModuleType)):
        return None
    return _framework_of_value(value)


def _filled(cell: Any) -> bool:
    try:
        return cell.cell_contents is not cell
    except ValueError:
        return False


def is_onnx_model(obj: Any) -> bool:
    """Whether `obj` is an ONNX model: a `ModelProto`, a path ending `.onnx`, or
    serialized bytes (told apart without importing onnx)."""
    if isinstance(obj, (bytes, bytearray, memoryview)):
        return True
    if isinstance(obj, (str, os.PathLike)):
        return os.fspath(obj).lower().endswith(".onnx")
    return type(obj).__module__.split(".")[0] == "onnx" and type(obj).__name__ == "ModelProto"


def detect_source(fn: Any, args: tuple[Any, ...] = (), params: Any = None) -> str:
    """Which importer handles `fn` called on `args` (and `params`)."""
    if is_onnx_model(fn):
        return "onnx"
    if inspect.isclass(fn):
        raise TypeError(f"got the class {fn.__name__}; pass an instance (a model) or a function")
    for base in type(fn).__mro__:
        root = _MODULE_ROOTS.get(base.__module__.split(".")[0])
        if root in ("torch", "jax", "tensorflow"):
            return root
    if hasattr(fn, "__ivy_program__"):
        return "ivy"  # an `ivy.Module`: its variables are the parameters
    if callable(fn) and _root(fn) in ("torch", "jax", "tensorflow", "numpy", "ivy"):
        return _root(fn)  # a framework's own function, e.g. jax.nn.gelu
    found = _referenced_frameworks(fn)
    given = next((r for v in _leaves(list(args)) + _leaves(params)
                  if (r := _framework_of_value(v))), None)
    if "ivy" in found and given not in found:
        return "ivy"  # facade code runs on any framework's arrays: they say nothing
    if given:
        return given  # the arrays' framework, also where the code names it beside ivy
    for preferred in ("torch", "jax", "tensorflow", "numpy"):
        if preferred in found:
            return preferred
    return "ivy"


def importer(source: str) -> Any:
    """The importer module of `source` (imports its framework)."""
    if source not in SOURCES or source == "ivy":
        raise ValueError(f"unknown source '{source}'; available: {', '.join(SOURCES)}")
    return importlib.import_module(f"importers.{source}")
