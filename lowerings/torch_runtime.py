"""The PyTorch runtime: parameters as `nn.Parameter`s owned by an `nn.Module`.

Parameters become `nn.Parameter`s (buffers stay tensors) owned by `compiled.module`,
whose submodules mirror the dotted names, so `state_dict()` keys match the source
model and the result trains with torch optimizers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from ivy_ir.dialect import TensorSpec, dtype_name

from .runtime import Runtime, nest


def to_tensor(value: np.ndarray) -> torch.Tensor:
    # torch cannot read ml_dtypes' bfloat16 arrays: reinterpret their bits
    if value.dtype.name == "bfloat16":
        return torch.from_numpy(value.view(np.uint16).copy()).view(torch.bfloat16)
    return torch.as_tensor(value)


class TorchRuntime(Runtime):
    name = "torch"
    options = frozenset({"torch_compile"})

    def params(self, values: dict[str, np.ndarray], trainable: dict[str, bool]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, value in values.items():
            t = to_tensor(np.array(value))
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
        return to_tensor(np.asarray(value))

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
