"""`ivy.Module`: a trainable model written once against the functional API.

A module's variables live in one `Container`, `v`, keyed by attribute name: its own
(made by `_create_variables`, which layers override) and each submodule's `v` under the
attribute holding it (`v.linear0.w`; a list of submodules under `name/<index>`).
Setting `v` hands each submodule its part, so there is one source of truth however the
container was replaced: an optimizer step (`model.v = optimizer.step(model.v, grads)`),
a call with given variables (`model(x, v=v)`, which is how gradients are taken), or a
framework subclass swapping in its own parameters (the 2021 paper's `TorchFcModel`,
which registers `v` as `nn.Parameter`s and sets `self.v` to them).

Nothing here overrides `__setattr__` or `__getattr__`, so the class mixes with
`torch.nn.Module`, `tf.Module` and `keras.layers.Layer` as a second base: their
attribute hooks end in `object.__setattr__`, which honours the `v` property.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from typing import Any

from . import converters, gradients
from .container import Container

_V = "_ivy_module_v"
"""Where the variables sit in the instance dict (written directly, so a framework
base's `__setattr__` never sees, wraps or tracks the container twice)."""
_TRAINING = "_ivy_module_training"


class Module:
    """Subclasses set their submodules, then call `Module.__init__(self)`."""

    def __init__(self, dtype: Any = None, device: Any = None):
        own = Container(self._create_variables(dtype=dtype, device=device) or {})
        v = own.map(lambda x, kc: gradients.variable(x))
        for name, sub in self._submodules():
            v[name] = sub.v
        self.v = v

    # ---- what subclasses define ----
    def _create_variables(self, *, dtype: Any = None, device: Any = None) -> dict[str, Any]:
        """This module's own variables (not its submodules'): name -> array."""
        return {}

    def _forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} defines no _forward")

    # ---- variables ----
    @property
    def v(self) -> Container:
        try:
            return self.__dict__[_V]
        except KeyError:
            raise AttributeError(f"{type(self).__name__}.v: call ivy.Module.__init__(self) "
                                 "after setting the submodules, to create the variables") \
                from None

    @v.setter
    def v(self, value: Any) -> None:
        value = value if isinstance(value, Container) else Container(value)
        self.__dict__[_V] = value
        for name, sub in self._submodules():
            if name in value:
                sub.v = value[name]

    def _submodules(self) -> Iterator[tuple[str, Module]]:
        """(key chain, submodule) for every attribute holding a Module or a list of them,
        in the order they were set; then those torch keeps in its `_modules` table (an
        ivy layer that is also an `nn.Module` is stored there, not as an attribute)."""
        attributes = {**self.__dict__, **self.__dict__.get("_modules", {})}
        for name, value in list(attributes.items()):
            if name in (_V, _TRAINING):
                continue
            if isinstance(value, Module):
                yield name, value
            elif isinstance(value, (list, tuple)) and value and \
                    all(isinstance(m, Module) for m in value):
                yield from ((f"{name}/{i}", m) for i, m in enumerate(value))

    def _modules(self) -> list[Module]:
        """This module and all below it."""
        out: list[Module] = [self]
        for _, sub in self._submodules():
            out += sub._modules()
        return out

    # ---- calling ----
    def __call__(self, *args: Any, v: Any = None, **kwargs: Any) -> Any:
        """`_forward` on this module's variables, or on `v` for this call only."""
        if v is None or v is self.__dict__.get(_V):
            return self._forward(*args, **kwargs)
        saved = self.v
        self.v = v
        try:
            return self._forward(*args, **kwargs)
        finally:
            self.v = saved

    @property
    def training(self) -> bool:
        """Training mode (dropout drops, batch norm updates its statistics). Setting it
        sets every submodule's too, so a framework base's own `train()`/`eval()` (torch
        sets `self.training` and recurses only into its own children) reaches them."""
        return self.__dict__.get(_TRAINING, True)

    @training.setter
    def training(self, mode: bool) -> None:
        self.__dict__[_TRAINING] = bool(mode)
        for _, sub in self._submodules():
            sub.training = mode

    def train(self, mode: bool = True) -> Module:
        self.training = mode
        return self

    def eval(self) -> Module:
        return Module.train(self, False)

    # ---- handing the model to a framework's own trainers ----
    def __ivy_program__(self) -> tuple[Any, dict[str, Any], dict[str, Any]]:
        """How `ivy_ir.trace`/`compile` take this module: `apply(params, *args)` with
        the variables as the parameter tree (IR parameters named by key chain, '/'
        read as '.')."""
        def apply(params: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
            saved = [(m, dict(m.__dict__)) for m in self._modules()]
            try:
                return self(*args, v=Container(params), **kwargs)
            finally:  # a trace leaves no tracer behind (batch norm's statistics)
                for module, state in saved:
                    module.__dict__.clear()
                    module.__dict__.update(state)
        apply.__signature__ = _apply_signature(self._forward)  # type: ignore[attr-defined]
        return apply, self.v.to_numpy().to_dict(), {}


    def to_torch_module(self) -> Any:
        """An `nn.Module` owning a copy of `v` as `nn.Parameter`s (named by the key
        chains, '/' read as '.'), whose forward runs this module on them with torch."""
        return converters.to_torch_module(self)

    def to_keras_layer(self) -> Any:
        """A `keras.layers.Layer` owning a copy of `v` as weights (TensorFlow backend)."""
        return converters.to_keras_layer(self)

    def to_jax(self) -> tuple[dict[str, Any], Any]:
        """`(params, apply)`: `v` as a nested dict of JAX arrays and `apply(params,
        *args)`, the module as a pure function for `jax.jit`/`jax.grad`/optax."""
        return converters.to_jax(self)


def _apply_signature(forward: Any) -> inspect.Signature:
    """`(params, <forward's parameters>)`: the traced inputs take forward's names."""
    params = [inspect.Parameter("params", inspect.Parameter.POSITIONAL_ONLY)]
    params += list(inspect.signature(forward).parameters.values())
    return inspect.Signature(params)
