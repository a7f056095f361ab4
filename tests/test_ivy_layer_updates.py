"""One training step per layer: the ivy layer's gradients (on the reference's backend)
through an ivy optimizer give the weights that the reference framework's own layer,
autodiff and optimizer give: torch.optim.Adam, optax.adam, Keras SGD."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import flax.linen as fnn
import keras
import numpy as np
import optax
import pytest
import tensorflow as tf
import torch
from test_ivy_layers import (
    CONV_K,
    CONV_T,
    LINEAR,
    SAME,
    T,
    assert_close,
    get,
    host,
    run_flax,
    run_ivy,
    run_keras,
    run_torch,
)
from test_ivy_layers_more import H, first, torch_recurrent

import ivy
from ivy.container import Container
from ivy.layers import Linear
from ivy.layers_conv import Conv2D
from ivy.layers_norm import LayerNorm
from ivy.layers_recurrent import GRU, LSTM

LR = 0.05


def ivy_step(backend: str, make: Callable[[], ivy.Module], mapping: dict[str, Any],
             values: dict[str, np.ndarray], x: np.ndarray, optimizer: ivy.Optimizer,
             pick: Callable[[Any], Any] = SAME) -> dict[str, np.ndarray]:
    """The layer's weights after one step of `optimizer` on sum(output * probe)."""
    weights = {kc: how(values) for kc, how in mapping.items()}
    _, _, grads = run_ivy(backend, make, weights, x, pick)
    with ivy.with_backend(backend):
        v = Container.unflatten({kc: ivy.variable(ivy.asarray(w)) for kc, w in weights.items()})
        g = Container.unflatten({kc: ivy.asarray(d) for kc, d in grads.items()})
        return {kc: ivy.to_numpy(w) for kc, w in optimizer.step(v, g).flatten().items()}


def check_step(got: dict[str, np.ndarray], mapping: dict[str, Any],
               new_reference: dict[str, np.ndarray]) -> None:
    assert set(got) == set(mapping)
    for kc, how in mapping.items():
        assert_close(got[kc], how(new_reference))


TORCH_CASES = {
    "linear": (lambda: Linear(5, 3), lambda: torch.nn.Linear(5, 3), LINEAR, (4, 5)),
    "conv2d": (lambda: Conv2D(3, 4, 3, 1, 1, data_format="channels_first"),
               lambda: torch.nn.Conv2d(3, 4, 3, padding=1), CONV_T, (2, 3, 6, 6)),
    "layer_norm": (lambda: LayerNorm(5), lambda: torch.nn.LayerNorm(5), CONV_T, (3, 5)),
    "lstm": (lambda: LSTM(5, H, 2), lambda: torch.nn.LSTM(5, H, num_layers=2, batch_first=True),
             torch_recurrent(2), (3, 6, 5)),
    "gru": (lambda: GRU(5, H), lambda: torch.nn.GRU(5, H, batch_first=True),
            torch_recurrent(1), (3, 6, 5)),
}
RECURRENT = {"lstm", "gru"}
"""Layers returning (sequence, state): the loss reads the sequence."""


@pytest.mark.parametrize("case", list(TORCH_CASES))
def test_adam_step_matches_torch(case: str) -> None:
    make, make_ref, mapping, shape = TORCH_CASES[case]
    x, ref = host(*shape), make_ref()
    with torch.no_grad():
        for p in ref.parameters():  # away from the initial ones/zeros of a norm layer
            p.add_(torch.tensor(host(*p.shape, seed=3)) * 0.1)
    recurrent = case in RECURRENT
    _, shared = run_torch(ref, x, (lambda t: ref(t)[0]) if recurrent else None)
    values = {n: v.copy() for n, v in shared.items()}  # views of the parameters: copy
    torch.optim.Adam(ref.parameters(), lr=LR, eps=1e-8).step()
    new = {n: p.detach().numpy() for n, p in ref.named_parameters()}
    got = ivy_step("torch", make, mapping, values, x, ivy.Adam(LR, epsilon=1e-8),
                   first if recurrent else SAME)
    check_step(got, mapping, new)


FLAX_CASES = {
    "linear": (lambda: Linear(5, 3), fnn.Dense(3), {"w": get("kernel", T), "b": get("bias")},
               (4, 5)),
    "conv2d": (lambda: Conv2D(3, 4, 3, 1, "SAME"), fnn.Conv(4, (3, 3)), CONV_K, (2, 6, 6, 3)),
    "layer_norm": (lambda: LayerNorm(5, eps=1e-6), fnn.LayerNorm(epsilon=1e-6),
                   {"w": get("scale"), "b": get("bias")}, (3, 5)),
}


@pytest.mark.parametrize("case", list(FLAX_CASES))
def test_adam_step_matches_optax(case: str) -> None:
    make, module, mapping, shape = FLAX_CASES[case]
    x = host(*shape)
    (_, _, grads), values = run_flax(module, x)
    tx = optax.adam(LR, eps=1e-8)
    updates, _ = tx.update(grads, tx.init(values), values)
    new = {k: np.asarray(v) for k, v in optax.apply_updates(values, updates).items()}
    got = ivy_step("jax", make, mapping, values, x, ivy.Adam(LR, epsilon=1e-8))
    check_step(got, mapping, new)


KERAS_CASES = {
    "linear": (lambda: Linear(5, 3), lambda: keras.layers.Dense(3),
               {"w": get("kernel", T), "b": get("bias")}, (4, 5)),
    "conv2d": (lambda: Conv2D(3, 4, 3, 1, "SAME"), lambda: keras.layers.Conv2D(4, 3, 1, "same"),
               CONV_K, (2, 6, 6, 3)),
    "layer_norm": (lambda: LayerNorm(5, eps=1e-3), lambda: keras.layers.LayerNormalization(),
                   {"w": get("gamma"), "b": get("beta")}, (3, 5)),
}


@pytest.mark.parametrize("case", list(KERAS_CASES))
def test_sgd_step_matches_keras(case: str) -> None:
    make, make_ref, mapping, shape = KERAS_CASES[case]
    x, layer = host(*shape), make_ref()
    (_, _, grads), values = run_keras(layer, x)
    trainable = [w for w in layer.weights if w.trainable]
    keras.optimizers.SGD(LR).apply_gradients(
        [(tf.constant(grads[w.name]), w) for w in trainable])
    new = {w.name: w.numpy() for w in layer.weights}
    got = ivy_step("tensorflow", make, mapping, values, x, ivy.SGD(LR))
    check_step(got, mapping, new)
