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

from ivy_ir.core.module import Module
from ivy_ir.dialect import IvyOp, TensorSpec, dtype_name
from ivy_ir.dialect.dtypes import TEXT_NAMES
from ivy_ir.dialect.types import is_text, numpy_dtype

from .runtime import Runtime, copy_shared, host_array, nest
from .storage import carried, to_bytes
from .torch_autodiff import TorchAutodiff
from .torch_storage import CARRIED


def to_tensor(value: np.ndarray) -> torch.Tensor:
    # torch cannot read ml_dtypes' arrays (bfloat16, float8): reinterpret their bits;
    # those of dtypes torch lacks stay bytes (torch_storage.py)
    if value.dtype.name in CARRIED:
        return torch.from_numpy(to_bytes(value).copy())
    if value.dtype.type.__module__ == "ml_dtypes":
        bits = np.dtype(f"uint{value.dtype.itemsize * 8}")
        return torch.from_numpy(value.view(bits).copy()).view(getattr(torch, value.dtype.name))
    return torch.as_tensor(value)


class TorchRuntime(TorchAutodiff, Runtime):
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
        # a carried storage dtype comes as an ml_dtypes array (torch_storage.py), text as
        # a NumPy array of `str` (torch has no text tensor: those ops run on the host)
        return numpy_dtype(name) if name in CARRIED or name in TEXT_NAMES \
            else getattr(torch, name)

    def is_native(self, value: Any) -> bool:
        return isinstance(value, torch.Tensor)

    def to_native(self, value: Any) -> Any:
        array = host_array(value)
        if array.dtype.name in CARRIED or is_text(array.dtype):  # bytes or text
            return array
        # torch would share a read-only buffer (a JAX array's) and warn: copy it
        return to_tensor(array if array.flags.writeable else array.copy())

    def spec(self, value: Any) -> TensorSpec:
        return TensorSpec(tuple(value.shape), dtype_name(str(value.dtype).removeprefix("torch.")))

    def module(self, params: dict[str, Any], call: Callable[..., Any],
               aliases: dict[str, tuple[str, ...]] | None = None) -> Any:
        module = CompiledModule(params, call)
        for name, others in (aliases or {}).items():
            for other in others:  # the same tensor: state_dict() lists both, as torch's
                _register(module, nest({other: params[name]}), merge=True)
        return module

    def arrange(self, params: dict[str, Any], module: Module) -> dict[str, Any]:
        """A convolutional net's 4-d weights in torch's channels_last memory format, as
        `model.to(memory_format=torch.channels_last)` makes them: oneDNN then runs the
        convolutions on NHWC data, the activations keep that format through the net
        (values, names and gradients are the same; 5-15% faster on timm CNNs)."""
        if not any(isinstance(op, IvyOp) and op.SPEC.name == "conv" and len(op.x.type.shape) == 4
                   and op.attr_values()["layout"] == "channels_first"
                   for op in module.entry.walk()):
            return params
        return {k: _channels_last(v) if v.dim() == 4 and v.is_floating_point() else v
                for k, v in params.items()}

    def version(self, value: Any) -> Any:
        # in-place updates (optimizer steps, load_state_dict) bump a tensor's version;
        # `module.to(...)` may swap `.data` under the same tensor: its storage moves
        return id(value), value._version, value.data_ptr(), value.dtype

    def recording(self, values: list[Any]) -> bool:
        return torch.is_grad_enabled() and any(v.requires_grad for v in values)

    def lazy_module(self, lazy: Callable[..., Any]) -> Any:
        return LazyCompiledModule(lazy)

    def fresh_key(self) -> Any:
        return torch.randint(0, 2**31 - 1, (), dtype=torch.int32)

    def assign(self, params: dict[str, Any], name: str, value: Any) -> None:
        with torch.no_grad():  # in place: the module's buffer is the same tensor
            params[name].copy_(value)

    def own_outputs(self, fn: Callable[..., Any], module: Module) -> Callable[..., Any]:
        """Eager torch returns a new tensor per call; a hoisted constant or a buffer
        returned as it is would be shared by every call (`clone` keeps autograd)."""
        own = copy_shared(fn, module, VIEW_OPS, torch.Tensor.clone)
        return carried(own, module, CARRIED, torch.from_numpy,
                       lambda t: t.detach().cpu().numpy())


VIEW_OPS = frozenset({"reshape", "permute_dims", "expand_dims", "squeeze", "slice", "split",
                      "broadcast_to", "diagonal", "astype", "real", "imag", "conj",
                      "stop_gradient"})
"""Ops whose torch rule can return a view of its operand (or itself: `.to` of the
same dtype, `real` and `conj_physical` of a real tensor, `detach`)."""


def _channels_last(t: torch.Tensor) -> torch.Tensor:
    cl = t.detach().contiguous(memory_format=torch.channels_last)
    return torch.nn.Parameter(cl, t.requires_grad) if isinstance(t, torch.nn.Parameter) else cl


class CompiledModule(torch.nn.Module):
    """An `nn.Module` owning the compiled program's parameters under their dotted names;
    `forward` runs the compiled function on them."""

    def __init__(self, params: dict[str, Any], call: Callable[..., Any]):
        super().__init__()
        _register(self, nest(params))
        object.__setattr__(self, "_call", call)  # not a submodule: keep it out of state

    def forward(self, *inputs: Any, **keyword_inputs: Any) -> Any:
        return self._call(*inputs, **keyword_inputs)


class LazyCompiledModule(torch.nn.Module):
    """An `nn.Module` over a program compiled on its first call (`LazyCompiled`): its
    parameters and buffers appear then, under the source's names, as a torch lazy
    module's do (run one batch before building the optimizer). They are the tables of
    the first compiled entry's module, which every later signature's entry shares."""

    def __init__(self, lazy: Callable[..., Any]):
        super().__init__()
        object.__setattr__(self, "_lazy", lazy)

    def forward(self, *inputs: Any, **keyword_inputs: Any) -> Any:
        out = self._lazy(*inputs, **keyword_inputs)
        if not self._materialized():
            first = self._lazy.module
            self._parameters, self._buffers = first._parameters, first._buffers
            self._modules = first._modules
        return out

    def _materialized(self) -> bool:
        return bool(self._parameters or self._buffers or self._modules) or \
            self._lazy.cache_info().entries == 0


def _register(module: torch.nn.Module, tree: dict[str, Any], merge: bool = False) -> None:
    """Put the tree into the module's own tables. `register_parameter` refuses names
    that are attributes of `nn.Module` (`float`, `eval`, `training`, `forward`) or
    empty, yet they are legal source names: the tables take any string, and
    `parameters()`, `state_dict()`, `.to()` and optimizers read only the tables, so the
    names stay the source's while `module.float()` stays the method. `merge` adds to
    submodules already there (a tied weight's other name)."""
    for key, value in tree.items():
        if isinstance(value, dict):
            child = module._modules.get(key) if merge else None
            if child is None:
                child = module._modules[key] = torch.nn.Module()
            _register(child, value, merge)
        elif isinstance(value, torch.nn.Parameter):
            module._parameters[key] = value
        else:
            module._buffers[key] = value
