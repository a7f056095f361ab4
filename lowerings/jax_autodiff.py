"""JAX's `value_and_grad` behind the facade's gradient interface (see `autodiff.py`)."""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from typing import Any

import jax
import jax.numpy as jnp

from .autodiff import AuxFn, NoAutodiff


def _differentiable(x: Any) -> bool:
    return isinstance(x, jax.Array) and jnp.issubdtype(x.dtype, jnp.inexact)


class JaxAutodiff(NoAutodiff):
    def variable(self, x: Any) -> Any:
        """JAX differentiates function arguments, not marked arrays: the array itself."""
        return x if isinstance(x, jax.Array) else jnp.asarray(x)

    def is_variable(self, x: Any) -> bool:
        return _differentiable(x)

    def stop_gradient(self, x: Any) -> Any:
        return jax.lax.stop_gradient(x)

    def recording(self, values: list[Any]) -> bool:
        """Only a transformation being traced (`jax.grad` around the step, or over
        `c.params`) sees these values: then they are tracers."""
        return any(isinstance(x, jax.core.Tracer) for x in values)

    def unrecorded(self, values: list[Any]) -> tuple[AbstractContextManager[Any], bool]:
        """Concrete arrays outside a transformation need no cut (each would be an eager
        dispatch)."""
        return nullcontext(), self.recording(values)

    def value_and_grad(self, func: AuxFn, leaves: list[Any]) -> tuple[Any, Any, list[Any]]:
        where = [i for i, x in enumerate(leaves) if _differentiable(x)]

        def of_differentiable(ws: list[Any]) -> tuple[Any, Any]:
            full = list(leaves)
            for i, w in zip(where, ws):
                full[i] = w
            return func(full)
        (loss, aux), found = jax.value_and_grad(of_differentiable, has_aux=True)(
            [leaves[i] for i in where])
        grads: list[Any] = [None] * len(leaves)
        for i, g in zip(where, found):
            grads[i] = g
        return loss, aux, grads

    def register_mapping(self, cls: type) -> None:
        def flatten(tree: Any) -> tuple[Any, Any]:
            keys = tuple(tree)
            return [(jax.tree_util.DictKey(k), tree[k]) for k in keys], keys

        try:
            jax.tree_util.register_pytree_with_keys(
                cls, flatten, lambda keys, children: cls(zip(keys, children)))
        except ValueError:
            pass  # registered already (JAX's registry is per process)
