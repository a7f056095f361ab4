"""Gradients of a loss of a compiled program's outputs, through each autodiff target's
own machinery (`jax.grad` over `compiled.apply`, torch autograd, `tf.GradientTape`).

`loss(outs, total, const)` is written once for every framework: `total` is the
framework's sum and `const(w, like)` a constant `w` in the dtype of `like`; None stands
for a loss of nothing (zero gradients). `diff` lists the positions of `flat` (the
program's inputs) to differentiate.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

LossFn = Callable[[Any, Any, Any], Any]


def grad_jax(c: Any, flat: list[Any], diff: list[int], loss: LossFn) -> list[np.ndarray]:
    import jax
    import jax.numpy as jnp

    def f(*d: Any) -> Any:
        args = list(xs)
        for i, v in zip(diff, d):
            args[i] = v
        out = loss(c.apply(c.params, *args), jnp.sum, lambda w, t: jnp.asarray(w, t.dtype))
        return jnp.zeros((), "float64") if out is None else out

    # this loss around the program is the user's own float64 JAX code: it needs x64
    with jax.enable_x64(True):
        xs = [jnp.asarray(a) for a in flat]
        grads = jax.grad(f, argnums=tuple(range(len(diff))))(*[xs[i] for i in diff])
    return [np.asarray(g) for g in grads]


def grad_torch(c: Any, flat: list[Any], diff: list[int], loss: LossFn) -> list[np.ndarray]:
    import torch

    xs = [torch.as_tensor(np.array(a)) for a in flat]
    for i in diff:
        xs[i].requires_grad_(True)
    out = loss(c(*xs), torch.sum, lambda w, t: torch.as_tensor(w, dtype=t.dtype))
    if out is None or not any(xs[i].numel() for i in diff):
        return [np.zeros(flat[i].shape, flat[i].dtype) for i in diff]
    assert out.requires_grad, "torch: the loss is detached from the inputs (no grad_fn)"
    grads = torch.autograd.grad(out, [xs[i] for i in diff], allow_unused=True)
    return [np.zeros(flat[i].shape, flat[i].dtype) if g is None else g.detach().numpy()
            for i, g in zip(diff, grads)]


def grad_tf(c: Any, flat: list[Any], diff: list[int], loss: LossFn) -> list[np.ndarray]:
    import tensorflow as tf

    xs = [tf.constant(a) for a in flat]
    with tf.GradientTape() as tape:
        for i in diff:
            tape.watch(xs[i])
        out = loss(c(*xs), tf.reduce_sum, lambda w, t: tf.constant(w, dtype=t.dtype))
    if out is None:
        return [np.zeros(flat[i].shape, flat[i].dtype) for i in diff]
    grads = tape.gradient(out, [xs[i] for i in diff],
                          unconnected_gradients=tf.UnconnectedGradients.ZERO)
    return [tf.convert_to_tensor(g).numpy() for g in grads]  # IndexedSlices too


GRAD = {"jax": grad_jax, "torch": grad_torch, "tensorflow": grad_tf}
