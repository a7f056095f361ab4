"""Dynamic dims through JAX's shape polymorphism: `ivy_ir.compile(f, args=...,
dynamic=...)` stages `f` on abstract inputs whose named dims are `jax.export` symbolic
dims, so `jax.make_jaxpr` traces it once for every size (and refuses code that needs a
concrete size, as `jax.export` does). In the jaxpr, sizes that depend on those dims are
JAX dimension expressions (`2*batch`, `floordiv(batch*seq, 2)`) in the avals and in
shape params (`reshape.new_sizes`, `broadcast_in_dim.shape`); they become IR sizes
(`SymDim`) under the same names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import jax
from jax import export

from ivy_ir.dialect import TensorSpec
from ivy_ir.dialect.symbolic import SymDim

from .dynamic import size_from_text


def symbolic_avals(specs: Sequence[TensorSpec], wanted: Mapping[tuple[int, int], str]
                   ) -> list[Any]:
    """Abstract inputs (one per spec) with a symbolic dim at each wanted (input, axis)."""
    names = list(dict.fromkeys(wanted.values()))
    symbols = dict(zip(names, export.symbolic_shape(", ".join(names)))) if names else {}
    return [jax.ShapeDtypeStruct(tuple(symbols[wanted[(i, a)]] if (i, a) in wanted else d
                                       for a, d in enumerate(s.shape)), s.dtype)
            for i, s in enumerate(specs)]


def is_static(shape: Sequence[Any]) -> bool:
    return all(isinstance(d, int) for d in shape)


def ir_size(d: Any) -> int | SymDim:
    """An IR size for a jaxpr size (an int or a dimension expression)."""
    if not export.is_symbolic_dim(d):
        return d
    return size_from_text(str(d))


def sized_params(params: Mapping[str, Any]) -> Mapping[str, Any]:
    """An equation's params with the dimension expressions of its size tuples as IR
    sizes (the params themselves when all sizes are ints)."""
    def dynamic(v: Any) -> bool:
        return isinstance(v, tuple) and any(export.is_symbolic_dim(d) for d in v)
    if not any(dynamic(v) for v in params.values()):
        return params
    return {k: tuple(ir_size(d) for d in v) if dynamic(v) else v for k, v in params.items()}
