"""Registry ops a backend has no direct call for, compiled through the IR once per
argument signature (as `jax.jit` does), then called natively.

A backend function lands here when its target's rule depends on types or values
(`pad`, `solve`), or when the op is a composite the target decomposes
(`scaled_dot_product_attention`). The first call with a new signature (operand shapes
and dtypes, non-array arguments) traces the one op and lowers it with the target's
rules; later calls with that signature reuse the compiled function, whose inputs and
outputs are the framework's own arrays (autograd flows through it).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ivy_ir import api
from ivy_ir.dialect.types import is_text, numpy_dtype

from .catalogue import CATALOGUE, FacadeFn
from .dtypes import dtype_name
from .tracing import record

_SCALARS = (bool, int, float, complex)


def _frozen(v: Any) -> Any:
    if isinstance(v, (list, tuple)):
        return tuple(_frozen(i) for i in v)
    return v


def _is_array(v: Any) -> bool:
    return hasattr(v, "shape") and hasattr(v, "dtype") and not isinstance(v, type)


class OneOpCache:
    """Compiled one-op programs of one backend, keyed by call signature."""

    def __init__(self, backend: str):
        self.backend = backend
        self.compiled: dict[Any, Any] = {}

    def call(self, name: str, bound: dict[str, Any]) -> Any:
        fn = CATALOGUE[name]
        if not any(count is not None for _, count in _slots(fn, bound)):
            # only Python scalars where arrays go (`random_uniform(3, shape=...)`): the
            # program needs one input to trace, so they become 0-d arrays
            bound = {p: np.asarray(v) if p in fn.arrays and isinstance(v, _SCALARS) else v
                     for p, v in bound.items()}
        arrays: list[Any] = []
        key: list[Any] = [name]
        for p, count in _slots(fn, bound):
            v = bound[p]
            if count is None:
                key.append((p, _frozen(v)))
            else:
                items = [v] if count == 0 else list(v)
                arrays.extend(items)
                key.append((p, count, tuple(_spec(i) for i in items)))
        sig = tuple(key)
        compiled = self.compiled.get(sig)
        if compiled is None:
            compiled = self.compiled[sig] = self._compile(fn, bound, arrays)
        return compiled(*arrays)

    def _compile(self, fn: FacadeFn, bound: dict[str, Any], arrays: list[Any]) -> Any:
        examples = [_example(a) for a in arrays]

        def program(*xs: Any) -> Any:
            it = iter(xs)
            call = {p: bound[p] if count is None else next(it) if count == 0
                    else [next(it) for _ in range(count)] for p, count in _slots(fn, bound)}
            return record(fn, call)
        return api.compile(program, target=self.backend, args=tuple(examples), source="ivy")


def _slots(fn: FacadeFn, bound: dict[str, Any]) -> list[tuple[str, int | None]]:
    """Each parameter with how it holds arrays: None (a static value), 0 (one array) or
    the length of its list of arrays."""
    out: list[tuple[str, int | None]] = []
    for p, v in bound.items():
        if p in fn.arrays and isinstance(v, (list, tuple)) and any(map(_is_array, v)):
            out.append((p, len(v)))
        else:
            out.append((p, 0 if p in fn.arrays and _is_array(v) else None))
    return out


def _spec(a: Any) -> tuple[Any, ...]:
    return tuple(a.shape), dtype_name(a.dtype)


def _example(a: Any) -> np.ndarray:
    """A NumPy stand-in for `a` to trace with: its shape and dtype (text as `str`s, which
    an object array of zeros would not be)."""
    name = dtype_name(a.dtype)
    if name == "string" or isinstance(a, np.ndarray) and is_text(a.dtype):
        return np.full(tuple(a.shape), "", dtype=object)
    return np.zeros(tuple(a.shape), numpy_dtype(name))
