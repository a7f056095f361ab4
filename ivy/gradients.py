"""Gradients through each framework's own autodiff: `variable`, `stop_gradient`,
`execute_with_gradients`, as the 2021 paper's training code and drone planner use them.

The facade adds no differentiation of its own: the backend (the one set, else the one
the arrays belong to) is asked for its autodiff (`lowerings.autodiff`): torch autograd,
`jax.value_and_grad`, `tf.GradientTape`. `Container`s are flattened to leaves at this
boundary, so every framework sees a plain list and gives gradients of the same shape.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from functools import cache
from typing import Any

import lowerings
from ivy_ir.core.tracer import record
from ivy_ir.dialect import SPECS

from . import backend
from .agnostic import FUNCTIONS
from .container import Container, leaf_values, rebuilt


def autodiff_of(values: list[Any], what: str = "gradients") -> Any:
    """The runtime (autodiff included) of the backend that `values` run on; a clear
    TypeError for tracers, whatever backend is set (`what` names the caller)."""
    found = backend.infer(values)
    if found == "ivy_ir":
        raise TypeError(_TRACED.get(what, _TRACED["gradients"]).format(what=what))
    return _runtime(backend.selected() or found or "numpy")


_TRACED = {
    "gradients": "{what} of traced values: ivy_ir.compile the loss function and "
                 "differentiate its result with the target framework instead",
    "optimizer steps": "{what} of traced values: an optimizer updates weights in place, "
                       "eagerly; compile the model or the loss and step the compiled "
                       "program's parameters with the target framework's gradients",
}


def eager_only(values: list[Any], what: str) -> None:
    """A clear TypeError where `values` are traced: `what` keeps state outside the
    program (a layer's running statistics, dropout masks drawn from its own NumPy
    generator), which a compiled program would drop or freeze into constants."""
    if backend.infer(values) == "ivy_ir":
        raise TypeError(f"{what} cannot be traced: it updates the layer's own state, "
                        "which a compiled program would freeze. Compile modules in eval "
                        "mode (model.eval()): batch norm then reads its running "
                        "statistics and dropout is the identity")


@cache
def _runtime(name: str) -> Any:
    """`lowerings.get_runtime`, without its module lookup on every optimizer leaf."""
    return lowerings.get_runtime(name)


def variable(x: Any) -> Any:
    """`x` as something the backend tracks gradients for (a `requires_grad` leaf in
    torch, a `tf.Variable`; JAX differentiates arguments, so its arrays are as they are)."""
    return autodiff_of([x]).variable(x)


def is_variable(x: Any) -> bool:
    return autodiff_of([x]).is_variable(x)


def stop_gradient(x: Any) -> Any:
    """`x` with no gradient flowing back through it; traced, the registry op of that
    name, which each target lowers to its own (`lax.stop_gradient`, `detach`, ...)."""
    if backend.infer([x]) == "ivy_ir":
        return record(SPECS["stop_gradient"], (x,), {})
    return autodiff_of([x]).stop_gradient(x)


def execute_with_gradients(func: Callable[[Any], Any], xs: Any) -> tuple[Any, ...]:
    """`(loss, grads, *extra)` for `func(xs)` returning `loss` or `(loss, *extra)`.

    `xs` is a Container (or any mapping, or one array); `grads` has its structure, with
    zeros where the loss does not depend on a leaf and None for leaves that cannot have
    a gradient (integer arrays). The loss and the extra outputs come back cut from the
    graph. A loss of one element (shape (1,) too) is what can be differentiated."""
    leaves = leaf_values(xs)

    def call(values: list[Any]) -> tuple[Any, tuple[Any, ...]]:
        # variables are differentiated as they are: then `func` gets the caller's own
        # container, and a module called with `v=model.v` swaps nothing in
        same = isinstance(xs, Container) and all(map(operator.is_, values, leaves))
        out = func(xs if same else rebuilt(xs, values))
        loss, extra = (out[0], tuple(out[1:])) if isinstance(out, tuple) else (out, ())
        return _scalar(loss), extra
    loss, extra, grads = autodiff_of(leaves).value_and_grad(call, leaves)
    return (loss, rebuilt(xs, grads), *extra)


def _scalar(loss: Any) -> Any:
    shape = tuple(getattr(loss, "shape", ()))
    if math.prod(shape) != 1:
        raise ValueError(f"execute_with_gradients: func must return a loss of one element "
                         f"(first, when it returns a tuple); got shape {shape}. Reduce it "
                         "first, e.g. with ivy.mean")
    if not shape:
        return loss
    return FUNCTIONS["reshape"](loss, ())


def updated(runtime: Any, old: Any, new: Any, cut: bool = True) -> Any:
    """The value an optimizer step leaves in place of `old`: `new` cut from the graph
    (`cut`: computed where the framework may have recorded it; see `unrecorded`), and
    a variable again where `old` was one. A `tf.Variable` is assigned in place, as
    TensorFlow trains (a new variable per step would leave the old ones tracked).
    `runtime` is `autodiff_of` the weights, resolved once per step by the caller."""
    if runtime.name == "tensorflow" and runtime.is_variable(old):
        old.assign(new)
        return old
    new = runtime.stop_gradient(new) if cut else new
    return runtime.variable(new) if runtime.is_variable(old) else new
