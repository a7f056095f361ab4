"""torch autograd behind the facade's gradient interface (see `autodiff.py`)."""

from __future__ import annotations

from typing import Any

import torch

from .autodiff import AuxFn, NoAutodiff, map_arrays


def _differentiable(x: Any) -> bool:
    return isinstance(x, torch.Tensor) and (x.is_floating_point() or x.is_complex())


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
        # `autograd.grad` never accumulates into `.grad`, so a leaf that already requires
        # grad (a variable) is differentiated as it is; any other float array becomes a
        # fresh leaf sharing its storage, so the caller's graph is left alone
        wanted = [_differentiable(x) for x in leaves]
        ws = [(x if x.requires_grad and x.is_leaf else x.detach().requires_grad_(True))
              if want else x for x, want in zip(leaves, wanted)]
        with torch.enable_grad():
            loss, aux = func(ws)
        sources = [w for w, want in zip(ws, wanted) if want]
        found = iter(torch.autograd.grad(loss, sources, allow_unused=True) if sources else ())
        grads: list[Any] = []
        for w, want in zip(ws, wanted):
            g = next(found) if want else None
            grads.append(torch.zeros_like(w) if want and g is None else g)
        return loss.detach(), map_arrays(torch.Tensor.detach, aux, (torch.Tensor,)), grads
