"""The PyTorch target: plain `torch` code, optionally under `torch.compile`.

Parameters become `nn.Parameter`s (buffers stay tensors) owned by `compiled.module`, an
`nn.Module` whose submodules mirror the dotted names, so `state_dict()` keys match the
source model and the result trains with torch optimizers. The generated code runs on
the device of its inputs; hoisted constants are created on the CPU and moved to the
inputs' device by the rules that need it (0-d constants mix with any device).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from ivy_ir.dialect import TensorSpec, dtype_name

from .emitter import Rule, Target
from .runtime import Runtime, nest

UNARY = {
    "abs": "torch.abs", "negative": "torch.negative", "sign": "torch.sign",
    "sqrt": "torch.sqrt", "rsqrt": "torch.rsqrt", "square": "torch.square",
    "reciprocal": "torch.reciprocal", "exp": "torch.exp", "expm1": "torch.expm1",
    "log": "torch.log", "log1p": "torch.log1p", "log2": "torch.log2", "log10": "torch.log10",
    "sin": "torch.sin", "cos": "torch.cos", "tan": "torch.tan", "asin": "torch.asin",
    "acos": "torch.acos", "atan": "torch.atan", "sinh": "torch.sinh", "cosh": "torch.cosh",
    "tanh": "torch.tanh", "asinh": "torch.asinh", "acosh": "torch.acosh",
    "atanh": "torch.atanh", "erf": "torch.erf", "floor": "torch.floor", "ceil": "torch.ceil",
    "round": "torch.round", "trunc": "torch.trunc", "isnan": "torch.isnan",
    "isinf": "torch.isinf", "isfinite": "torch.isfinite", "logical_not": "torch.logical_not",
    "bitwise_invert": "torch.bitwise_not",
}
BINARY = {
    "add": "torch.add", "subtract": "torch.subtract", "multiply": "torch.multiply",
    "divide": "torch.divide", "maximum": "torch.maximum", "minimum": "torch.minimum",
    "atan2": "torch.atan2", "equal": "torch.eq", "not_equal": "torch.ne", "less": "torch.lt",
    "less_equal": "torch.le", "greater": "torch.gt", "greater_equal": "torch.ge",
    "logical_and": "torch.logical_and", "logical_or": "torch.logical_or",
    "logical_xor": "torch.logical_xor", "bitwise_and": "torch.bitwise_and",
    "bitwise_or": "torch.bitwise_or", "bitwise_xor": "torch.bitwise_xor",
    "bitwise_left_shift": "torch.bitwise_left_shift",
    "bitwise_right_shift": "torch.bitwise_right_shift",
}

TORCH_RULES: dict[str, Rule] = {
    **{k: f"{v}({{x}})" for k, v in UNARY.items()},
    **{k: f"{v}({{x}}, {{y}})" for k, v in BINARY.items()},
}


def _dtype(name: str) -> str:
    return f"torch.{name}"


class TorchRuntime(Runtime):
    name = "torch"
    options = frozenset({"torch_compile"})

    def params(self, values: dict[str, np.ndarray], trainable: dict[str, bool]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, value in values.items():
            t = torch.as_tensor(np.array(value))
            grad = trainable.get(name, False) and (t.is_floating_point() or t.is_complex())
            out[name] = torch.nn.Parameter(t, requires_grad=True) if grad else t
        return out

    def wrap(self, raw: Callable[..., Any], torch_compile: bool = False,
             **options: Any) -> Callable[..., Any]:
        return torch.compile(raw) if torch_compile else raw

    def native_dtype(self, name: str) -> Any:
        return getattr(torch, name)

    def is_native(self, value: Any) -> bool:
        return isinstance(value, torch.Tensor)

    def to_native(self, value: Any) -> Any:
        return torch.as_tensor(np.asarray(value))

    def spec(self, value: Any) -> TensorSpec:
        return TensorSpec(tuple(value.shape), dtype_name(str(value.dtype).removeprefix("torch.")))

    def module(self, params: dict[str, Any], call: Callable[..., Any]) -> Any:
        return CompiledModule(params, call)


class CompiledModule(torch.nn.Module):
    """An `nn.Module` owning the compiled program's parameters under their dotted names;
    `forward` runs the compiled function on them."""

    def __init__(self, params: dict[str, Any], call: Callable[..., Any]):
        super().__init__()
        _register(self, nest(params))
        object.__setattr__(self, "_call", call)  # not a submodule: keep it out of state

    def forward(self, *inputs: Any) -> Any:
        return self._call(*inputs)


def _register(module: torch.nn.Module, tree: dict[str, Any]) -> None:
    for key, value in tree.items():
        if isinstance(value, dict):
            child = torch.nn.Module()
            module.add_module(key, child)
            _register(child, value)
        elif isinstance(value, torch.nn.Parameter):
            module.register_parameter(key, value)
        else:
            module.register_buffer(key, value)


TARGET = Target(name="torch", rules=TORCH_RULES, dtype=_dtype, array="torch.tensor",
                imports="import torch\nimport torch.nn.functional as F\n")
RUNTIME = TorchRuntime()
