"""Arrays a NumPy program closes over, met by traced values: `wte[ids]`, `np.take(wte, ids)`.

`ndarray.__getitem__`, the ndarray methods, and NumPy functions that dispatch on their
first argument only (`np.take(a, indices)`) convert a traced argument to a concrete
array, which no trace can give. So `capture` runs the program as a copy whose closed-over
arrays are `Captured` views: the globals its code (and its helpers' code) names, its
closure cells and default arguments, the attributes of a method's `self` (or of a
callable object), each also inside dicts, lists and tuples. A `Captured` array is the
same data, zero-copy, and computes eagerly as NumPy would; only where a traced array
meets it does it become part of the trace, lifted as every constant of the program is
(`Session.lift`: inline when small, one buffer parameter when large, so the table is a
parameter of the compiled program, never a value baked in at trace time).

The user's function, module globals and objects are left as they were: the copy has its
own globals dict, cells and shallow copy of `self`. What the copy cannot reach stays a
plain array: arrays read through other objects (`cfg.wte`), through helpers more than
`DEPTH` calls down, or made plain by `np.asarray(wte)`.
"""

from __future__ import annotations

import copy
import inspect
import types
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from .common import location_str
from .numpy_array import NpArray, numpy_user_location

DEPTH = 4
"""How many levels of helper functions `capture` follows (the importer's own wrapper of
the user's function is one)."""

TRACED_ARG_METHODS = ("take", "dot", "clip", "repeat", "searchsorted")
"""ndarray methods that take other arrays: with a traced one, the NumPy function of the
same name records the call (`wte.take(ids)` is `np.take(wte, ids)`)."""


def _traced_in(obj: Any, depth: int = 2) -> NpArray | None:
    """The first traced array in an argument (looking into lists, tuples and dicts)."""
    if isinstance(obj, NpArray):
        return obj
    if depth and isinstance(obj, (list, tuple, dict)):
        for item in obj.values() if isinstance(obj, dict) else obj:
            found = _traced_in(item, depth - 1)
            if found is not None:
                return found
    return None


class Captured(np.ndarray):
    """A closed-over array: an ndarray in every respect but one, that indexing it with a
    traced array, or passing a traced array to a NumPy function or method of it, is
    recorded (on the traced array's session) instead of failing to convert."""

    def __getitem__(self, key: Any) -> Any:
        traced = _traced_in(key, 1)
        if traced is None:
            try:
                return super().__getitem__(key)
            except IndexError as exc:  # NumPy's own, with the user's line in front
                raise IndexError(f"{location_str(numpy_user_location())}: {exc}") from None
        s = traced.session
        s.here()
        return s.handlers.get_item(s.array(self), key)

    def __array_function__(self, func: Any, types: Any, args: tuple[Any, ...],
                           kwargs: dict[str, Any]) -> Any:
        traced = _traced_in((args, kwargs), 3)
        if traced is None:
            return super().__array_function__(func, types, args, kwargs)
        return traced.session.handlers.function(traced.session, func, args, kwargs)

    def __array_wrap__(self, array: np.ndarray, context: Any = None,
                       return_scalar: bool = False) -> Any:
        # a reduction to one element is a NumPy scalar, as for a plain array, not 0-d
        out = super().__array_wrap__(array, context, return_scalar)
        return out[()] if return_scalar and isinstance(out, np.ndarray) and out.ndim == 0 \
            else out


def _traced_arg_method(name: str) -> Callable[..., Any]:
    plain, function = getattr(np.ndarray, name), getattr(np, name)

    def method(self: Captured, *args: Any, **kwargs: Any) -> Any:
        if _traced_in((args, kwargs)) is None:
            return plain(self, *args, **kwargs)
        return function(self, *args, **kwargs)
    method.__name__ = name
    return method


for _name in TRACED_ARG_METHODS:
    setattr(Captured, _name, _traced_arg_method(_name))


def _global_names(code: types.CodeType) -> Iterator[str]:
    """Names the code reads from its globals, nested code (lambdas, comprehensions) included."""
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _global_names(const)


class _Capture:
    """One `capture` run: each array, container and function is copied once, so an
    array read under two names stays one constant of the trace."""

    def __init__(self) -> None:
        self.memo: dict[int, Any] = {}
        self.keep: list[Any] = []  # the originals, so that no id in `memo` is reused

    def value(self, v: Any, depth: int) -> Any:
        """`v` with its arrays captured; `v` itself when it holds none."""
        if id(v) in self.memo:
            return self.memo[id(v)]
        if type(v) is np.ndarray:
            out: Any = v.view(Captured)
        elif isinstance(v, dict) and depth:
            items = {k: self.value(x, depth - 1) for k, x in v.items()}
            out = items if any(items[k] is not x for k, x in v.items()) else v
        elif type(v) in (list, tuple) and depth:
            items_seq = [self.value(x, depth - 1) for x in v]
            changed = any(a is not b for a, b in zip(items_seq, v))
            out = type(v)(items_seq) if changed else v
        elif isinstance(v, types.FunctionType) and depth:
            out = self.function(v, depth - 1)
        elif isinstance(v, types.MethodType) and depth:
            out = self.method(v, depth - 1)
        else:
            return v
        self.memo[id(v)] = out
        self.keep.append(v)
        return out

    def function(self, f: types.FunctionType, depth: int) -> types.FunctionType:
        """A copy of `f` reading captured globals, cells and defaults (`f` if none)."""
        if (f.__module__ or "").split(".")[0] == "numpy":
            return f
        self.memo[id(f)] = f  # a recursive function calls the original
        self.keep.append(f)
        names = set(_global_names(f.__code__)) & set(f.__globals__)
        new_globals = {n: self.value(f.__globals__[n], depth) for n in names}
        new_globals = {n: v for n, v in new_globals.items() if v is not f.__globals__[n]}
        cells = f.__closure__ or ()
        new_cells = tuple(self.cell(c, depth) for c in cells)
        defaults = self.value(f.__defaults__, 1) if f.__defaults__ else f.__defaults__
        kwdefaults = self.value(f.__kwdefaults__, 1) if f.__kwdefaults__ else f.__kwdefaults__
        if not new_globals and all(a is b for a, b in zip(new_cells, cells)) and \
                defaults is f.__defaults__ and kwdefaults is f.__kwdefaults__:
            return f
        g = types.FunctionType(f.__code__, {**f.__globals__, **new_globals} if new_globals
                               else f.__globals__, f.__name__, defaults, new_cells or None)
        g.__kwdefaults__, g.__qualname__ = kwdefaults, f.__qualname__
        g.__dict__.update(f.__dict__)
        self.memo[id(f)] = g
        return g

    def cell(self, c: types.CellType, depth: int) -> types.CellType:
        try:
            v = c.cell_contents
        except ValueError:  # a closure variable not assigned yet
            return c
        new = self.value(v, depth)
        return c if new is v else types.CellType(new)

    def method(self, m: types.MethodType, depth: int) -> Any:
        """`m` bound to a copy of its object whose array attributes are captured."""
        func = m.__func__
        new_func = self.function(func, depth) if isinstance(func, types.FunctionType) else func
        owner = self.instance(m.__self__, depth)
        if new_func is func and owner is m.__self__:
            return m
        return types.MethodType(new_func, owner)

    def instance(self, obj: Any, depth: int) -> Any:
        """A shallow copy of `obj` with its array attributes captured (`obj` if none)."""
        state = getattr(obj, "__dict__", None)
        if not isinstance(state, dict) or isinstance(obj, (type, types.ModuleType)):
            return obj
        changed = {k: v for k, x in state.items() if (v := self.value(x, depth)) is not x}
        if not changed:
            return obj
        try:
            twin = copy.copy(obj)
        except Exception:  # its own __copy__ or __reduce__ may raise anything
            return obj  # not copyable: its arrays stay plain, as without `capture`
        vars(twin).update(changed)
        return twin


def capture(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn` (a function, bound method or callable object) as a copy whose closed-over
    arrays are `Captured`; `fn` itself when it closes over none."""
    run = _Capture()
    if isinstance(fn, types.FunctionType):
        return run.function(fn, DEPTH)
    if isinstance(fn, types.MethodType):
        return run.method(fn, DEPTH)
    call = inspect.getattr_static(type(fn), "__call__", None)
    if isinstance(call, types.FunctionType):
        bound = types.MethodType(call, fn)
        captured = run.method(bound, DEPTH)
        return fn if captured is bound else captured
    return fn
