"""Each framework's own autodiff, behind one interface for the `ivy` facade's
`variable`, `stop_gradient` and `execute_with_gradients` (and its module converters).

The facade flattens its `Container`s to a list of leaves before it calls here, so these
functions see lists only; `value_and_grad(func, leaves)` calls `func(leaves)`, which
returns `(loss, aux)`, and gives back `(loss, aux, grads)` with the loss and aux cut
from the graph (as the Ivy papers' `execute_with_gradients` returns them) and one
gradient per leaf: zeros for a leaf the loss does not depend on, None for a leaf that
cannot have one (an integer array).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from typing import Any

AuxFn = Callable[[list[Any]], tuple[Any, Any]]


def map_arrays(fn: Callable[[Any], Any], tree: Any, array_types: tuple[type, ...]) -> Any:
    """`fn` applied to every array in nested tuples, lists and mappings (a Container
    among them), each rebuilt as its own type: how extra outputs are cut from the graph."""
    if isinstance(tree, array_types):
        return fn(tree)
    if isinstance(tree, (tuple, list)):
        return type(tree)(map_arrays(fn, t, array_types) for t in tree)
    if isinstance(tree, Mapping):
        return type(tree)((k, map_arrays(fn, v, array_types)) for k, v in tree.items())
    return tree


class NoAutodiff:
    """NumPy: arrays with no gradient machinery at all."""

    name = "numpy"

    def variable(self, x: Any) -> Any:
        return x

    def is_variable(self, x: Any) -> bool:
        return False

    def stop_gradient(self, x: Any) -> Any:
        return x

    def unrecorded(self, values: list[Any]) -> tuple[AbstractContextManager[Any], bool]:
        """A context in which ops on `values` leave no autodiff history, and whether the
        values must still be cut one by one (`stop_gradient`) inside it: how an
        optimizer step runs its update without a cut per leaf where nothing records."""
        return nullcontext(), False

    def value_and_grad(self, func: AuxFn, leaves: list[Any]) -> tuple[Any, Any, list[Any]]:
        raise TypeError(f"the {self.name} backend has no autodiff, so it cannot compute "
                        "gradients; set a backend that has (ivy.set_backend('torch'), "
                        "'jax' or 'tensorflow') or pass that framework's arrays")

    def register_mapping(self, cls: type) -> None:
        """Teach the framework's tree utilities a mapping type (JAX only needs it)."""
