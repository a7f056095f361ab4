"""The JAX target: `jax.numpy`/`jax.lax` code under `jax.jit`, so XLA runs it on CPU,
GPU or TPU.

JAX computes in 32 bits unless `jax_enable_x64` is set; ivy IR has explicit dtypes, so
using this target turns x64 on (generated code spells every dtype, and the results
then have exactly the IR's dtypes). Parameters are a flat dict of arrays keyed by
dotted name (a pytree): `jax.grad(lambda p: loss(c.apply(p, x)))(c.params)` works.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from ivy_ir.dialect import TensorSpec, dtype_name
from ivy_ir.dialect.types import numpy_dtype

from .emitter import Rule, Target
from .runtime import Runtime

jax.config.update("jax_enable_x64", True)

UNARY = {
    "abs": "jnp.abs", "negative": "jnp.negative", "sign": "jnp.sign", "sqrt": "jnp.sqrt",
    "rsqrt": "lax.rsqrt", "square": "jnp.square", "reciprocal": "jnp.reciprocal",
    "exp": "jnp.exp", "expm1": "jnp.expm1", "log": "jnp.log", "log1p": "jnp.log1p",
    "log2": "jnp.log2", "log10": "jnp.log10", "sin": "jnp.sin", "cos": "jnp.cos",
    "tan": "jnp.tan", "asin": "jnp.arcsin", "acos": "jnp.arccos", "atan": "jnp.arctan",
    "sinh": "jnp.sinh", "cosh": "jnp.cosh", "tanh": "jnp.tanh", "asinh": "jnp.arcsinh",
    "acosh": "jnp.arccosh", "atanh": "jnp.arctanh", "erf": "jax.scipy.special.erf",
    "floor": "jnp.floor", "ceil": "jnp.ceil", "round": "jnp.round", "trunc": "jnp.trunc",
    "isnan": "jnp.isnan", "isinf": "jnp.isinf", "isfinite": "jnp.isfinite",
    "logical_not": "jnp.logical_not", "bitwise_invert": "jnp.invert",
}
BINARY = {
    "add": "jnp.add", "subtract": "jnp.subtract", "multiply": "jnp.multiply",
    "divide": "jnp.divide", "floor_divide": "jnp.floor_divide", "remainder": "jnp.remainder",
    "pow": "jnp.power", "maximum": "jnp.maximum", "minimum": "jnp.minimum",
    "atan2": "jnp.arctan2", "equal": "jnp.equal", "not_equal": "jnp.not_equal",
    "less": "jnp.less", "less_equal": "jnp.less_equal", "greater": "jnp.greater",
    "greater_equal": "jnp.greater_equal", "logical_and": "jnp.logical_and",
    "logical_or": "jnp.logical_or", "logical_xor": "jnp.logical_xor",
    "bitwise_and": "jnp.bitwise_and", "bitwise_or": "jnp.bitwise_or",
    "bitwise_xor": "jnp.bitwise_xor", "bitwise_left_shift": "jnp.left_shift",
    "bitwise_right_shift": "jnp.right_shift",
}

JAX_RULES: dict[str, Rule] = {
    **{k: f"{v}({{x}})" for k, v in UNARY.items()},
    **{k: f"{v}({{x}}, {{y}})" for k, v in BINARY.items()},
}


def _dtype(name: str) -> str:
    return f"jnp.{name}"


class JaxRuntime(Runtime):
    name = "jax"

    def params(self, values: dict[str, np.ndarray], trainable: dict[str, bool]) -> dict[str, Any]:
        return {k: jnp.asarray(v) for k, v in values.items()}

    def wrap(self, raw: Callable[..., Any], **options: Any) -> Callable[..., Any]:
        return jax.jit(raw)

    def native_dtype(self, name: str) -> Any:
        return numpy_dtype(name)

    def is_native(self, value: Any) -> bool:
        return isinstance(value, jax.Array)

    def to_native(self, value: Any) -> Any:
        return jnp.asarray(value)

    def spec(self, value: Any) -> TensorSpec:
        return TensorSpec(tuple(value.shape), dtype_name(value.dtype))


TARGET = Target(name="jax", rules=JAX_RULES, dtype=_dtype, array="jnp.asarray",
                imports="import jax\nimport jax.numpy as jnp\nfrom jax import lax\n")
RUNTIME = JaxRuntime()
