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

from ivy_ir.dialect import TensorSpec, dtype_name

from .runtime import Runtime, nest


class TensorFlowRuntime(Runtime):
    name = "tensorflow"
    options = frozenset({"jit_compile"})

    def params(self, values: dict[str, np.ndarray], trainable: dict[str, bool]) -> dict[str, Any]:
        return {k: tf.Variable(v, trainable=trainable.get(k, False),
                               name=re.sub(r"[^A-Za-z0-9_.\-/]", "_", k) or "param")
                for k, v in values.items()}

    def wrap(self, raw: Callable[..., Any], jit_compile: bool = False,
             **options: Any) -> Callable[..., Any]:
        return tf.function(raw, jit_compile=jit_compile, autograph=False)

    def native_dtype(self, name: str) -> Any:
        return tf.as_dtype(name)

    def is_native(self, value: Any) -> bool:
        return isinstance(value, (tf.Tensor, tf.Variable))

    def to_native(self, value: Any) -> Any:
        return tf.convert_to_tensor(np.asarray(value))

    def spec(self, value: Any) -> TensorSpec:
        return TensorSpec(tuple(value.shape), dtype_name(value.dtype.name))

    def module(self, params: dict[str, Any], call: Callable[..., Any]) -> Any:
        return CompiledModule(params, call)


class CompiledModule(tf.Module):
    """A `tf.Module` holding the compiled program's variables under their dotted names;
    calling it runs the compiled function."""

    def __init__(self, params: dict[str, Any], call: Callable[..., Any]):
        super().__init__(name="compiled")
        _attach(self, nest(params))
        self._call = call

    def __call__(self, *inputs: Any) -> Any:
        return self._call(*inputs)


def _module_name(key: str) -> str:
    """A valid `tf.Module` name for a tree key such as `0` (torch `nn.Sequential`)."""
    name = re.sub(r"\W", "_", key)
    return name if name[:1].isalpha() or name[:1] == "_" else f"m_{name}"


def _attach(module: tf.Module, tree: dict[str, Any]) -> None:
    for key, value in tree.items():
        if isinstance(value, dict):
            child = tf.Module(name=_module_name(key))
            _attach(child, value)
            value = child
        setattr(module, key, value)
