"""The TensorFlow runtime: parameters as `tf.Variable`s, `tf.function` wrapping.

Parameters become `tf.Variable`s (trainable or not as in the IR) held by
`compiled.module`, a `tf.Module` whose submodules mirror the dotted names, so the
result trains with `tf.GradientTape` and Keras optimizers.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import tensorflow as tf

from ivy_ir.core.module import Module
from ivy_ir.core.rules import LoweringError
from ivy_ir.dialect import TensorSpec, dtype_name
from ivy_ir.dialect.types import numpy_dtype

from .runtime import Runtime, host_array, nest
from .storage import to_bytes
from .tensorflow_autodiff import TensorFlowAutodiff
from .tensorflow_storage import CARRIED, carried


class TensorFlowRuntime(TensorFlowAutodiff, Runtime):
    name = "tensorflow"
    options = frozenset({"jit_compile"})

    def params(self, values: dict[str, np.ndarray], trainable: dict[str, bool]) -> dict[str, Any]:
        return {k: tf.Variable(to_bytes(v) if dtype_name(v.dtype) in CARRIED else v,
                               trainable=trainable.get(k, False),
                               name=re.sub(r"[^A-Za-z0-9_.\-/]", "_", k) or "param")
                for k, v in values.items()}

    def wrap(self, raw: Callable[..., Any], jit_compile: bool = False,
             data_shaped: bool = False, **options: Any) -> Callable[..., Any]:
        if jit_compile and data_shaped:
            raise LoweringError("jit_compile=True: XLA needs every size when it compiles, "
                                "and this program has ops whose result sizes depend on the "
                                "data (argwhere, unique, non_max_suppression, text splits); "
                                "compile it without jit_compile")
        return tf.function(raw, jit_compile=jit_compile, autograph=False)

    def native_dtype(self, name: str) -> Any:
        # a carried storage dtype comes as an ml_dtypes array (tensorflow_storage.py)
        return numpy_dtype(name) if name in CARRIED else tf.as_dtype(name)

    def is_native(self, value: Any) -> bool:
        return isinstance(value, (tf.Tensor, tf.Variable))

    def to_native(self, value: Any) -> Any:
        array = host_array(value)
        return array if dtype_name(array.dtype) in CARRIED else tf.convert_to_tensor(array)

    def own_outputs(self, fn: Callable[..., Any], module: Module) -> Callable[..., Any]:
        return carried(fn, module)

    def spec(self, value: Any) -> TensorSpec:
        return TensorSpec(tuple(value.shape), dtype_name(value.dtype.name))

    def module(self, params: dict[str, Any], call: Callable[..., Any],
               aliases: dict[str, tuple[str, ...]] | None = None) -> Any:
        return CompiledModule(params, call)  # a variable is tracked once, by one name

    def fresh_key(self) -> Any:
        return tf.random.uniform((), 0, 2**31 - 1, dtype=tf.int32)

    def assign(self, params: dict[str, Any], name: str, value: Any) -> None:
        params[name].assign(value)

    def keras_layer(self, values: dict[str, np.ndarray], call: Callable[..., Any],
                    name: str) -> Any:
        """A Keras layer owning `values` as trainable weights; calling it runs
        `call({key: weight value}, *inputs)`. Keras must run on TensorFlow here."""
        return _keras_layer_class(_keras())(values, call, name=name)

    def lazy_keras_layer(self, materialize: Callable[..., Any], name: str) -> Any:
        """A Keras layer whose weights and call come from `materialize(inputs,
        keyword_inputs) -> (values, call)` on its first call."""
        return _keras_layer_class(_keras())(None, None, name=name, materialize=materialize)


class CompiledModule(tf.Module):
    """A `tf.Module` holding the compiled program's variables under their dotted names;
    calling it runs the compiled function."""

    def __init__(self, params: dict[str, Any], call: Callable[..., Any]):
        super().__init__(name="compiled")
        self._call = call
        _attach(self, nest(params))

    def __call__(self, *inputs: Any, **keyword_inputs: Any) -> Any:
        return self._call(*inputs, **keyword_inputs)


def _module_name(key: str) -> str:
    """A valid `tf.Module` name for a tree key such as `0` (torch `nn.Sequential`)."""
    name = re.sub(r"\W", "_", key)
    return name if name[:1].isalpha() or name[:1] == "_" else f"m_{name}"


def _attach(module: tf.Module, tree: dict[str, Any]) -> None:
    """Set the tree as attributes (tracked, so `trainable_variables` and checkpoints
    see them). A key that is already an attribute of the module (`name`, `variables`,
    `__class__`, our `_call`) or starts with `_` (tf.Module's own state) is held under
    `_ivy_param_<n>` instead: the variable stays in `c.params` under its source name and
    in `module.variables`, and never replaces what tf.Module needs."""
    taken = set(dir(module))
    hidden = 0
    for key, value in tree.items():
        if isinstance(value, dict):
            child = tf.Module(name=_module_name(key))
            _attach(child, value)
            value = child
        attr = key
        if key.startswith("_") or key in taken:
            attr, hidden = f"_ivy_param_{hidden}", hidden + 1
        setattr(module, attr, value)


def _keras() -> Any:
    import keras  # only Keras users need it; TF imports it lazily too
    if keras.backend.backend() != "tensorflow":
        raise RuntimeError(f"to_keras_layer needs Keras on its TensorFlow backend; "
                           f"this Keras runs on {keras.backend.backend()} "
                           "(set KERAS_BACKEND=tensorflow before importing keras)")
    return keras


def _keras_layer_class(keras: Any) -> type:
    class IvyLayer(keras.layers.Layer):
        """The weights under their source names (dots kept; '/' and what else Keras
        refuses in a name read as '_'). A lazy layer (`materialize`) creates them on
        its first call, before Keras builds it, from what that call compiles."""

        def __init__(self, values: dict[str, np.ndarray] | None,
                     call: Callable[..., Any] | None, name: str,
                     materialize: Callable[..., Any] | None = None):
            super().__init__(name=name)
            self._ivy_materialize = materialize
            self._ivy_call: Callable[..., Any] | None = None
            self._ivy_keys: list[str] = []
            self._ivy_weights: list[Any] = []
            if call is not None:
                self._ivy_own(values or {}, call)

        def _ivy_own(self, values: dict[str, np.ndarray], call: Callable[..., Any]) -> None:
            self._ivy_call = call
            self._ivy_keys = list(values)
            for key, value in values.items():
                weight = self.add_weight(shape=value.shape, dtype=str(value.dtype),
                                         initializer="zeros", trainable=True,
                                         name=re.sub(r"[^\w.-]", "_", key))
                weight.assign(value)
                self._ivy_weights.append(weight)

        def __call__(self, *inputs: Any, **kwargs: Any) -> Any:
            if self._ivy_call is None:
                self._ivy_own(*self._ivy_materialize(inputs, kwargs))
            return super().__call__(*inputs, **kwargs)

        def call(self, *inputs: Any, **kwargs: Any) -> Any:
            flat = {k: w.value for k, w in zip(self._ivy_keys, self._ivy_weights)}
            return self._ivy_call(flat, *inputs, **kwargs)
    return IvyLayer
