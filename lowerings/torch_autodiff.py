"""torch autograd behind the facade's gradient interface (see `autodiff.py`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch

from .autodiff import AuxFn, NoAutodiff


def _differentiable(x: Any) -> bool:
    return isinstance(x, torch.Tensor) and (x.is_floating_point() or x.is_complex())


def _detached(tree: Any) -> Any:
    if isinstance(tree, torch.Tensor):
        return tree.detach()
    if isinstance(tree, (tuple, list)):
        return type(tree)(_detached(t) for t in tree)
    if isinstance(tree, Mapping):
        return type(tree)((k, _detached(v)) for k, v in tree.items())
    return tree


class TorchAutodiff(NoAutodiff):
    def variable(self, x: Any) -> Any:
        """A leaf tensor that collects gradients (a fresh leaf sharing `x`'s storage)."""
        x = x if isinstance(x, torch.Tensor) else torch.as_tensor(x)
        return x.detach().requires_grad_(_differentiable(x))

    def is_variable(self, x: Any) -> bool:
        return isinstance(x, torch.Tensor) and x.requires_grad

    def stop_gradient(self, x: Any) -> Any:
        return x.detach() if isinstance(x, torch.Tensor) else x

    def value_and_grad(self, func: AuxFn, leaves: list[Any]) -> tuple[Any, Any, list[Any]]:
        # fresh leaves: gradients of this call only, never accumulated into `.grad`
        ws = [x.detach().requires_grad_(True) if _differentiable(x) else x for x in leaves]
        with torch.enable_grad():
            loss, aux = func(ws)
        wanted = [w for w in ws if _differentiable(w)]
        found = iter(torch.autograd.grad(loss, wanted, allow_unused=True) if wanted else ())
        grads = []
        for w in ws:
            if not _differentiable(w):
                grads.append(None)
                continue
            g = next(found)
            grads.append(torch.zeros_like(w) if g is None else g)
        return loss.detach(), _detached(aux), grads
