"""The TensorFlow target: `tf` code under `tf.function` (`jit_compile=True` for XLA).

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

from .emitter import Rule, Target
from .runtime import Runtime, nest

UNARY = {
    "abs": "tf.math.abs", "negative": "tf.math.negative", "sign": "tf.math.sign",
    "sqrt": "tf.math.sqrt", "rsqrt": "tf.math.rsqrt", "square": "tf.math.square",
    "reciprocal": "tf.math.reciprocal", "exp": "tf.math.exp", "expm1": "tf.math.expm1",
    "log": "tf.math.log", "log1p": "tf.math.log1p", "sin": "tf.math.sin",
    "cos": "tf.math.cos", "tan": "tf.math.tan", "asin": "tf.math.asin",
    "acos": "tf.math.acos", "atan": "tf.math.atan", "sinh": "tf.math.sinh",
    "cosh": "tf.math.cosh", "tanh": "tf.math.tanh", "asinh": "tf.math.asinh",
    "acosh": "tf.math.acosh", "atanh": "tf.math.atanh", "erf": "tf.math.erf",
    "floor": "tf.math.floor", "ceil": "tf.math.ceil", "round": "tf.math.round",
    "isnan": "tf.math.is_nan", "isinf": "tf.math.is_inf", "isfinite": "tf.math.is_finite",
    "logical_not": "tf.math.logical_not", "bitwise_invert": "tf.bitwise.invert",
}
BINARY = {
    "add": "tf.math.add", "subtract": "tf.math.subtract", "multiply": "tf.math.multiply",
    "divide": "tf.math.divide", "maximum": "tf.math.maximum", "minimum": "tf.math.minimum",
    "atan2": "tf.math.atan2", "equal": "tf.math.equal", "not_equal": "tf.math.not_equal",
    "less": "tf.math.less", "less_equal": "tf.math.less_equal", "greater": "tf.math.greater",
    "greater_equal": "tf.math.greater_equal", "logical_and": "tf.math.logical_and",
    "logical_or": "tf.math.logical_or", "logical_xor": "tf.math.logical_xor",
    "bitwise_and": "tf.bitwise.bitwise_and", "bitwise_or": "tf.bitwise.bitwise_or",
    "bitwise_xor": "tf.bitwise.bitwise_xor", "bitwise_left_shift": "tf.bitwise.left_shift",
    "bitwise_right_shift": "tf.bitwise.right_shift",
}

TF_RULES: dict[str, Rule] = {
    **{k: f"{v}({{x}})" for k, v in UNARY.items()},
    **{k: f"{v}({{x}}, {{y}})" for k, v in BINARY.items()},
}


def _dtype(name: str) -> str:
    return f"tf.{name}"


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


def _attach(module: tf.Module, tree: dict[str, Any]) -> None:
    for key, value in tree.items():
        if isinstance(value, dict):
            child = tf.Module(name=re.sub(r"\W", "_", key) or "m")
            _attach(child, value)
            value = child
        setattr(module, key, value)


TARGET = Target(name="tensorflow", rules=TF_RULES, dtype=_dtype, array="tf.constant",
                imports="import tensorflow as tf\n")
RUNTIME = TensorFlowRuntime()
