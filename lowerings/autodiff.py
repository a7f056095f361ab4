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

from collections.abc import Callable
from typing import Any

AuxFn = Callable[[list[Any]], tuple[Any, Any]]


class NoAutodiff:
    """NumPy: arrays with no gradient machinery at all."""

    name = "numpy"

    def variable(self, x: Any) -> Any:
        return x

    def is_variable(self, x: Any) -> bool:
        return False

    def stop_gradient(self, x: Any) -> Any:
        return x

    def value_and_grad(self, func: AuxFn, leaves: list[Any]) -> tuple[Any, Any, list[Any]]:
        raise TypeError(f"the {self.name} backend has no autodiff, so it cannot compute "
                        "gradients; set a backend that has (ivy.set_backend('torch'), "
                        "'jax' or 'tensorflow') or pass that framework's arrays")

    def register_mapping(self, cls: type) -> None:
        """Teach the framework's tree utilities a mapping type (JAX only needs it)."""
