"""Calls of a program whose arguments or results are structured (a KV cache): the
importer's `CallTree` (`Module.tree`) flattens the call into the program's inputs and
builds the caller's structure from its results.

A call whose structure or input types differ from the traced ones (a `DynamicCache`
one token longer, the first step's empty cache) runs a program traced for it, kept per
signature and sharing this one's parameters, as retracing for other shapes does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .dialect import TensorSpec

Compiled = Any
"""`ivy_ir.compiled.Compiled`, which imports this module."""


def call(c: Compiled, args: tuple[Any, ...], kwargs: dict[str, Any],
         run: Callable[[Compiled, list[Any]], Any]) -> Any:
    """`run(program, flat inputs)` on the program for this call, its flat results in
    the caller's structure."""
    tree = c.ir_module.tree
    assert tree is not None
    leaves = tree.flatten(args, kwargs)
    specs = None if leaves is None else tuple(_spec(c, x) for x in leaves)
    if specs is None or len(specs) != len(c._inputs) or \
            any(s.dtype != w.dtype or s.shape != w.shape for s, w in zip(specs, c._inputs)):
        c = _variant(c, args, kwargs, specs)
        tree = c.ir_module.tree
        assert tree is not None
        leaves = tree.flatten(args, kwargs)
    return tree.unflatten(run(c, leaves), args, kwargs)


def _variant(c: Compiled, args: tuple[Any, ...], kwargs: dict[str, Any],
             specs: tuple[TensorSpec, ...] | None) -> Compiled:
    if c._retrace is None:
        raise TypeError(f"the call's inputs ({_shown(specs)}) are not the compiled "
                        f"program's ({_shown(tuple(c._inputs))})")
    key = ("structured", _signature(args, kwargs) if specs is None else specs)
    variant = c._variants.get(key)
    if variant is None:
        assert c.ir_module.tree is not None
        variant = c._variants[key] = c._retrace(c.ir_module.tree.examples(args, kwargs))
        variant._adopt(c)
    return variant


def _spec(c: Compiled, value: Any) -> TensorSpec:
    if c.runtime.is_native(value):
        return c.runtime.spec(value)
    return TensorSpec.of(np.asarray(value))


def _signature(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """A hashable key of a call's structure and array types (a new structure)."""
    def key(v: Any) -> Any:
        if hasattr(v, "shape") and hasattr(v, "dtype"):
            return ("array", tuple(v.shape), str(v.dtype))
        if isinstance(v, (tuple, list)):
            return (type(v).__name__, *map(key, v))
        if isinstance(v, dict):
            return ("dict", *((k, key(x)) for k, x in v.items()))
        layers = getattr(v, "layers", None)
        if isinstance(layers, list):  # a cache object
            return (type(v).__name__, *(key(getattr(x, "keys", None)) for x in layers))
        return ("static", repr(v))
    return key(args), key(kwargs)


def _shown(specs: tuple[TensorSpec, ...] | None) -> str:
    return "another structure" if specs is None else ", ".join(map(str, specs))
