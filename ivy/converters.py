"""`Module.to_torch_module()`, `to_keras_layer()`, `to_jax()`: an ivy model handed to a
framework's own trainers.

Each converter copies `v` into the framework's trainable objects (through the same
runtime that owns a compiled program's parameters, `lowerings.get_runtime`) and runs
the ivy module on them with that backend set for the call, so the framework's autodiff
sees only its own operations.
"""

from __future__ import annotations

from typing import Any

import lowerings

from .agnostic import FUNCTIONS
from .backend import NAMESPACES, with_backend
from .container import SEPARATOR, Container


def _host_values(module: Any) -> dict[str, Any]:
    """`v` as NumPy arrays keyed by key chain."""
    return {kc: FUNCTIONS["to_numpy"](x) for kc, x in module.v.flatten().items()}


def to_torch_module(module: Any) -> Any:
    runtime = lowerings.get_runtime("torch")
    values = {kc.replace(SEPARATOR, "."): x for kc, x in _host_values(module).items()}
    params = runtime.params(values, dict.fromkeys(values, True))
    chains = {name: name.replace(".", SEPARATOR) for name in params}

    def forward(*inputs: Any, **kwargs: Any) -> Any:
        v = Container.unflatten({chains[k]: p for k, p in params.items()})
        with with_backend("torch"):
            return module(*inputs, v=v, **kwargs)
    return runtime.module(params, forward)


def to_keras_layer(module: Any) -> Any:
    runtime = lowerings.get_runtime("tensorflow")

    def call(flat: dict[str, Any], *inputs: Any, **kwargs: Any) -> Any:
        with with_backend("tensorflow"):
            return module(*inputs, v=Container.unflatten(flat), **kwargs)
    return runtime.keras_layer(_host_values(module), call, name=type(module).__name__)


def to_jax(module: Any) -> tuple[dict[str, Any], Any]:
    jax_array = NAMESPACES["jax"].asarray
    params = Container.unflatten({kc: jax_array(x) for kc, x in
                                  _host_values(module).items()}).to_dict()

    def apply(params: Any, *args: Any, **kwargs: Any) -> Any:
        with with_backend("jax"):
            return module(*args, v=Container(params), **kwargs)
    return params, apply
