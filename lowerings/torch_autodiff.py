"""torch autograd behind the facade's gradient interface (see `autodiff.py`)."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

import torch

from .autodiff import AuxFn, NoAutodiff, map_arrays


def _differentiable(x: Any) -> bool:
    return isinstance(x, torch.Tensor) and (x.is_floating_point() or x.is_complex())


def _or_zeros(gradient: Any, leaf: Any) -> Any:
    """A leaf the loss does not depend on gets zeros, not autograd's None."""
    return torch.zeros_like(leaf) if gradient is None else gradient


class TorchAutodiff(NoAutodiff):
    def variable(self, x: Any) -> Any:
        """A leaf tensor that collects gradients (a fresh leaf sharing `x`'s storage)."""
        x = x if isinstance(x, torch.Tensor) else torch.as_tensor(x)
        return x.detach().requires_grad_(_differentiable(x))

    def is_variable(self, x: Any) -> bool:
        return isinstance(x, torch.Tensor) and x.requires_grad

    def stop_gradient(self, x: Any) -> Any:
        return x.detach() if isinstance(x, torch.Tensor) else x

    def unrecorded(self, values: list[Any]) -> tuple[AbstractContextManager[Any], bool]:
        return torch.no_grad(), False

    def value_and_grad(self, func: AuxFn, leaves: list[Any]) -> tuple[Any, Any, list[Any]]:
        # `autograd.grad` never accumulates into `.grad`, so a leaf that already requires
        # grad (a variable, always of a float or complex dtype) is differentiated as it
        # is; any other float array becomes a fresh leaf sharing its storage, so the
        # caller's graph is left alone
        every = all(isinstance(x, torch.Tensor) and x.requires_grad and x.is_leaf
                    for x in leaves)
        if every:  # the training loop's case, tested in one pass
            ws, wanted = leaves, [True] * len(leaves)
        else:
            wanted = [_differentiable(x) for x in leaves]
            ws = [(x if x.requires_grad and x.is_leaf else x.detach().requires_grad_(True))
                  if want else x for x, want in zip(leaves, wanted)]
            every = all(wanted)
        if torch.is_grad_enabled():  # entering `enable_grad` costs more than asking
            loss, aux = func(ws)
        else:
            with torch.enable_grad():
                loss, aux = func(ws)
        sources = ws if every else [w for w, want in zip(ws, wanted) if want]
        found = torch.autograd.grad(loss, sources, allow_unused=True) if sources else ()
        grads: list[Any] = list(found)
        if not every or any(g is None for g in grads):
            pending = iter(found)
            grads = [_or_zeros(next(pending), w) if want else None
                     for w, want in zip(ws, wanted)]
        aux = map_arrays(torch.Tensor.detach, aux, (torch.Tensor,)) if aux else aux
        return loss.detach(), aux, grads
