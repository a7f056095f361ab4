"""Flax NNX modules import through `nnx.split`: parameters train, and the state a call
changes (an `nnx.Dropout` stream's counter, training-mode `nnx.BatchNorm` statistics)
is written back after every call, so the compiled program draws the same masks and
keeps the same statistics as the module, call after call."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest

import ivy_ir

nnx = pytest.importorskip("flax.nnx")
X = jnp.arange(8.0, dtype=jnp.float32).reshape(2, 4) / 8


class Net(nnx.Module):
    def __init__(self, rngs):
        self.linear = nnx.Linear(4, 3, rngs=rngs)
        self.dropout = nnx.Dropout(0.5, rngs=rngs)
        self.norm = nnx.BatchNorm(3, rngs=rngs)

    def __call__(self, x):
        return self.norm(self.dropout(self.linear(x)))


def _host(v):
    return np.asarray(v.detach() if hasattr(v, "detach") else v)


@pytest.mark.parametrize("target", ["jax", "numpy", "torch", "tensorflow"])
def test_training_mode_matches_the_module_call_after_call(target):
    net = Net(nnx.Rngs(0))
    twin = nnx.clone(net)
    c = ivy_ir.compile(net, target=target, args=(X,))
    masks = set()
    for _ in range(3):
        want, got = np.asarray(twin(X)), _host(c(X))
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
        masks.add(tuple((want == 0).ravel()))
    assert len(masks) > 1  # the stream advanced: each call drew its own mask
    # the module handed in is untouched: its twin ran 3 steps, it ran none
    assert int(net.dropout.rngs.count[...]) == 0
    assert int(twin.dropout.rngs.count[...]) == 3


def test_parameters_train_and_the_state_is_buffers():
    c = ivy_ir.compile(Net(nnx.Rngs(0)), target="jax", args=(X,))
    args = [a for a in c.ir_module.args() if a.param is not None]
    assert {a.param for a in args if a.trainable} == {"linear.kernel", "linear.bias",
                                                      "norm.scale", "norm.bias"}
    assert {a.param for a in args if not a.trainable} == {
        "norm.mean", "norm.var", "dropout.rngs.count", "dropout.rngs.key"}
    assert sorted(c.ir_module.updates) == ["dropout.rngs.count", "norm.mean", "norm.var"]
    key = c.ir_module.params["dropout.rngs.key"]
    assert key.dtype == np.uint32 and key.shape == (2,)  # the typed key's data


def test_eval_mode_has_no_updates():
    net = Net(nnx.Rngs(0))
    net.eval()
    c = ivy_ir.compile(net, target="numpy", args=(X,))
    np.testing.assert_allclose(c(X), net(X), rtol=1e-5, atol=1e-6)
    assert not c.ir_module.updates
