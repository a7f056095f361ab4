"""A whole library, transpiled lazily: `transpile_library(kornia, source="torch", to="jax")`.

Transpiling every function of a library up front would trace hundreds of programs for
argument shapes nobody has given yet, and most would never be called. The proxy
instead stands in for the library's namespace and compiles nothing until a function
is called: each public function is an `ivy_ir.compile` of its own without example
arguments (`ivy_ir.LazyCompiled`), so, as under `jax.jit`, it is traced on its first
call, again for each new argument signature (array shapes and dtypes, and the values
of the other arguments), and otherwise runs the cached target-native program. The
results are the target's own arrays and functions, so they compose with its
transforms: `jax.jit` around a function calling several transpiled ones, `jax.grad`
through them.

What an attribute of the proxy is:
- a submodule of the same library: a proxy of it (`proxy.filters`);
- a function (wherever it was defined): the function, transpiled lazily;
- a plain Python constant (a number, a string, None): the value itself;
- anything else: an `AttributeError` saying why. A class is not one program until it
  is instantiated: its instances (a `torch.nn.Module`) are transpiled on their own,
  with `ivy.transpile(instance, ...)`. A function taking `*args` or `**kwargs` is
  refused too: those values would key the cache as one opaque tuple. A tensor constant
  or another library's module has no place in a program of the target.
Names starting with an underscore are not part of the proxy.

Arguments are bound to the function's signature, with its defaults, before the cache
is consulted: `box_blur(x, (3, 3))` and `box_blur(x, kernel_size=(3, 3))` are one
entry, and a default (`border_type="reflect"`) is part of the key as if written out.
"""

from __future__ import annotations

import functools
import inspect
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import ivy_ir

if TYPE_CHECKING:
    from ivy_ir.lazy import CacheInfo

_CONSTANTS = (bool, int, float, complex, str, bytes, type(None))
"""Values handed back as they are: they hold no array of the source framework."""

_VARIADIC = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)


@dataclass
class _Library:
    """What every proxy of one transpiled library shares, so that one module or one
    function reached by two paths (`kornia.geometry.resize` re-exporting
    `kornia.geometry.transform.resize`) is transpiled once."""

    root: str
    source: str
    to: str
    options: dict[str, Any]
    modules: dict[str, LibraryProxy] = field(default_factory=dict)
    functions: dict[Callable[..., Any], TranspiledFunction] = field(default_factory=dict)

    def proxy(self, module: types.ModuleType) -> LibraryProxy:
        if module.__name__ not in self.modules:
            self.modules[module.__name__] = LibraryProxy(module, self)
        return self.modules[module.__name__]

    def function(self, fn: Callable[..., Any]) -> TranspiledFunction:
        if fn not in self.functions:
            self.functions[fn] = TranspiledFunction(fn, self.source, self.to, self.options)
        return self.functions[fn]

    def owns(self, value: Any) -> bool:
        """Whether `value` is this library's own module."""
        return isinstance(value, types.ModuleType) and (
            value.__name__ == self.root or value.__name__.startswith(self.root + "."))

    def refusal(self, where: str, value: Any) -> str | None:
        """Why the attribute `where` holding `value` (not a module of the library nor a
        constant) is not transpiled, or None for a function that is."""
        if inspect.isfunction(value):
            parameters = inspect.signature(value).parameters.values()
            variadic = [p.name for p in parameters if p.kind in _VARIADIC]
            if not variadic:
                return None
            # their values would reach the cache key as one opaque tuple or dict
            return (f"{where} takes *{variadic[0]}, and a function with variadic "
                    "parameters is not transpiled lazily: compile it with "
                    "ivy_ir.compile(fn, args=...) instead")
        if isinstance(value, type):
            return (f"{where} is a class, and only functions are transpiled with their "
                    f"library: transpile an instance of it on its own, "
                    f"ivy.transpile({where}(...), source='{self.source}', to='{self.to}')")
        kind = type(value)
        return (f"{where} is a {kind.__module__}.{kind.__qualname__}, neither a function "
                f"nor a submodule of {self.root}: only those are transpiled")


class TranspiledFunction:
    """One library function, compiled for the target on its first call per argument
    signature. It keeps the original's `__name__`, `__doc__` and signature
    (`__wrapped__`), and `cache_info()` reports its hits, misses and entries."""

    def __init__(self, fn: Callable[..., Any], source: str, to: str,
                 options: dict[str, Any]):
        self._signature = inspect.signature(fn)
        functools.update_wrapper(self, fn)
        self._compiled = ivy_ir.compile(_positional(fn, self._signature), target=to,
                                        source=source, **options)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise TypeError(f"{self.__name__}(): {exc}") from None
        bound.apply_defaults()
        return self._compiled(*bound.arguments.values())

    def cache_info(self) -> CacheInfo:
        return self._compiled.cache_info()

    def __repr__(self) -> str:
        info = self.cache_info()
        return (f"<transpiled function {self.__module__}.{self.__qualname__} "
                f"entries={info.entries}>")


def _positional(fn: Callable[..., Any], signature: inspect.Signature) -> Callable[..., Any]:
    """`fn` taking every parameter by position, all required. The proxy binds each call
    (defaults applied) and passes every value positionally, so keyword-only parameters
    (kornia's `device=`, `dtype=`) become positions too, and the compile stays lazy even
    for a function whose parameters all have defaults."""
    def positional(*values: Any) -> Any:
        bound = inspect.BoundArguments(signature, dict(zip(signature.parameters, values)))
        return fn(*bound.args, **bound.kwargs)

    functools.update_wrapper(positional, fn)  # traced locations point at `fn`'s lines
    positional.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[inspect.Parameter(p.name, inspect.Parameter.POSITIONAL_OR_KEYWORD)
                    for p in signature.parameters.values()])
    return positional


class LibraryProxy:
    """A library's namespace whose functions run on another framework (see the module
    docstring for what each kind of attribute becomes). Made by `transpile_library`."""

    def __init__(self, module: types.ModuleType, library: _Library):
        self._module = module
        self._library = library

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            value = getattr(self._module, name)
        except AttributeError:
            raise AttributeError(f"module '{self._module.__name__}' has no attribute "
                                 f"'{name}'") from None
        library = self._library
        if library.owns(value):
            return library.proxy(value)
        if isinstance(value, _CONSTANTS):
            return value
        refusal = library.refusal(f"{self._module.__name__}.{name}", value)
        if refusal is not None:
            raise AttributeError(refusal)
        return library.function(value)

    def __dir__(self) -> list[str]:
        """The public names whose attribute access succeeds: submodules, functions and
        plain constants."""
        library, prefix = self._library, self._module.__name__
        return sorted(
            name for name, value in vars(self._module).items()
            if not name.startswith("_") and (
                library.owns(value) or isinstance(value, _CONSTANTS)
                or library.refusal(f"{prefix}.{name}", value) is None))

    def __repr__(self) -> str:
        return (f"<transpiled library {self._module.__name__} "
                f"source={self._library.source} to={self._library.to}>")


def transpile_library(module: types.ModuleType, source: str, to: str,
                      **compile_options: Any) -> LibraryProxy:
    """`module`'s namespace with every function transpiled from `source` to `to` on
    demand: traced on the first call per argument signature, then called natively.
    `compile_options` (`passes=`, target options) go to each `ivy_ir.compile`."""
    if not isinstance(module, types.ModuleType):
        raise TypeError(f"transpile_library takes a module, not a {type(module).__qualname__}")
    root = module.__name__.partition(".")[0]
    return _Library(root, source, to, dict(compile_options)).proxy(module)
