"""torch loops and branches: `nn.LSTM`/`nn.GRU`/`nn.RNN` imported as one
`ivy.lstm`/`ivy.gru`/`ivy.rnn` each (torch's own kernel on the torch target, one
`ivy.scan` per layer and direction elsewhere: the IR does not grow with the sequence
length), `torch.cond`, `torch.while_loop` and `torch._higher_order_ops.scan` with their
bodies walked into the region ops `ivy.cond`, `ivy.while_loop` and `ivy.scan`; every
target matches torch, and gradients through the compiled layers on torch and JAX match
torch's autograd on the module."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import torch
from torch import nn
from torch._higher_order_ops.scan import scan
from zoo_common import TARGETS

import ivy_ir
from ivy_ir.core.decompose import decompose_ops
from ivy_ir.core.errors import UnsupportedOpsError

rng = np.random.default_rng(5)


def _f32(*shape: int) -> torch.Tensor:
    return torch.as_tensor(rng.standard_normal(shape).astype(np.float32))


def _flat(value) -> list[torch.Tensor]:
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _flat(v)]
    return [value]


def _numpy(x) -> np.ndarray:
    return x.detach().numpy() if hasattr(x, "detach") else np.asarray(x)


def _check_targets(model: nn.Module, args: tuple) -> ivy_ir.Module:
    """Import once; every target's outputs match torch running the model."""
    with torch.no_grad():
        want = [t.numpy() for t in _flat(model(*args))]
    module = ivy_ir.trace(model, args)
    inputs = [t.numpy() for t in _flat(args)]
    for target in TARGETS:
        got = _flat(ivy_ir.compile(module, target=target)(*inputs))
        assert len(got) == len(want), target
        for g, w in zip(got, want):
            np.testing.assert_allclose(_numpy(g), w, rtol=1e-4, atol=1e-5, err_msg=target)
    return module


def _seeded(make):
    torch.manual_seed(0)
    return make().eval()


# ---- recurrent layers ----

RECURRENT = {
    # name: (module, example arguments for a sequence of length T); the op is the name's
    # first word
    "lstm": (lambda: nn.LSTM(8, 16, num_layers=2, bidirectional=True, batch_first=True),
             lambda t: (_f32(3, t, 8),)),
    "lstm_h0_c0": (lambda: nn.LSTM(8, 16, num_layers=2, bidirectional=True, batch_first=True),
                   lambda t: (_f32(3, t, 8), (_f32(4, 3, 16), _f32(4, 3, 16)))),
    "lstm_proj": (lambda: nn.LSTM(8, 16, proj_size=5), lambda t: (_f32(t, 3, 8),)),
    "gru": (lambda: nn.GRU(8, 16, num_layers=2), lambda t: (_f32(t, 3, 8),)),
    "rnn_tanh": (lambda: nn.RNN(8, 16, batch_first=True), lambda t: (_f32(2, t, 8),
                                                                     _f32(1, 2, 16))),
    "rnn_relu_unbatched": (lambda: nn.RNN(8, 16, nonlinearity="relu", bias=False,
                                          bidirectional=True), lambda t: (_f32(t, 8),)),
}


@pytest.mark.parametrize("name", RECURRENT)
def test_recurrent_layer_on_every_target(name):
    make, inputs = RECURRENT[name]
    module = _check_targets(_seeded(make), inputs(6))
    assert str(module).count(f"= ivy.{name.split('_')[0]} ") == 1
    assert ivy_ir.trace(_seeded(make), inputs(50)).op_count() == module.op_count()


def test_lstm_is_one_op_that_expands_to_a_scan_per_layer_and_direction():
    make, inputs = RECURRENT["lstm"]
    module = ivy_ir.trace(_seeded(make), inputs(5))
    text = str(module)
    assert text.count("= ivy.lstm ") == 1 and "ivy.scan" not in text
    names = {a.param for a in module.args() if a.param}
    assert "weight_hh_l1_reverse" in names and "bias_ih_l0" in names
    expanded = module.op.clone()
    decompose_ops(expanded, {"lstm"})
    assert str(expanded).count("= ivy.scan ") == 4 and "ivy.lstm" not in str(expanded)
    assert "torch.lstm(" in ivy_ir.compile(module, target="torch").source


def test_dropout_between_layers_in_training_is_refused():
    torch.manual_seed(0)
    lstm = nn.LSTM(4, 4, num_layers=2, dropout=0.5).train()
    with pytest.raises(UnsupportedOpsError, match="dropout"):
        ivy_ir.trace(lstm, (_f32(5, 2, 4),))


def _loss(outs, weights, square, total=lambda v: v.sum()):
    """A loss reading every output (the sequence and the final states), one squared."""
    seq, h, *cell = outs
    return total(seq * weights) + total(square(h)) + sum(total(c) for c in cell)


def _close(got: dict, want: dict) -> None:
    assert got.keys() == want.keys()
    for k in want:
        np.testing.assert_allclose(np.asarray(got[k]), want[k], rtol=1e-4, atol=1e-5,
                                   err_msg=k)


@pytest.mark.parametrize("name", ["lstm", "gru", "rnn_tanh"])
def test_gradients_on_torch_jax_and_tensorflow_match_torch_autograd(name):
    make, inputs = RECURRENT[name]
    model = _seeded(make)
    args = inputs(6)
    weights = _f32(*_flat(model(*args))[0].shape)
    xs = [a.clone().requires_grad_(True) for a in _flat(args)]
    _loss(_flat(model(*xs)), weights, torch.square).backward()
    want_x = [x.grad.numpy() for x in xs]
    want = {k: p.grad.numpy() for k, p in model.named_parameters()}

    c = ivy_ir.compile(model, target="torch", args=args)
    xs = [a.clone().requires_grad_(True) for a in _flat(args)]
    _loss(c.module(*xs), weights, torch.square).backward()
    _close({i: x.grad.numpy() for i, x in enumerate(xs)}, dict(enumerate(want_x)))
    _close({k: p.grad.numpy() for k, p in c.params.items()}, want)

    j = ivy_ir.compile(model, target="jax", args=args)

    def loss(params, *xs):
        return _loss(j.apply(params, *xs), jnp.asarray(weights.numpy()), jnp.square)
    grads = jax.grad(loss, argnums=tuple(range(len(xs) + 1)))(
        j.params, *(jnp.asarray(a.numpy()) for a in _flat(args)))
    _close(dict(enumerate(np.asarray(g) for g in grads[1:])), dict(enumerate(want_x)))
    _close(grads[0], want)

    import tensorflow as tf

    t = ivy_ir.compile(model, target="tensorflow", args=args)
    params = {k: tf.Variable(v) for k, v in t.params.items()}
    xs = [tf.constant(a.numpy()) for a in _flat(args)]
    with tf.GradientTape() as tape:
        tape.watch(xs)
        out = _loss(t.apply(params, *xs), tf.constant(weights.numpy()), tf.square,
                    tf.reduce_sum)
    gx, gp = tape.gradient(out, (xs, params))
    _close({i: g.numpy() for i, g in enumerate(gx)}, dict(enumerate(want_x)))
    _close({k: g.numpy() for k, g in gp.items()}, want)


# ---- torch.cond, torch.while_loop, scan ----

class Branch(nn.Module):
    """A data-dependent branch reading a parameter in one arm."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(_f32(4, 4))

    def forward(self, x):
        return torch.cond(x.sum() > 0, lambda v: torch.sin(v) @ self.w,
                          lambda v: torch.cos(v) + 1, (x,))


class KnownBranch(nn.Module):
    def forward(self, x):
        return torch.cond(torch.tensor(False), torch.sin, torch.cos, (x,))


class Doubling(nn.Module):
    """Doubles until the values are large: the trip count depends on the data."""

    def forward(self, i, x):
        return torch.while_loop(lambda i, v: v.abs().sum() < 100,
                                lambda i, v: (i + 1, v * 2 + 0.5), (i, x))


class Cumulative(nn.Module):
    """A reversed scan along axis 1 with a parameter in its body."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(_f32(4, 4) / 2)

    def forward(self, x):
        def step(carry, xt):
            carry = torch.tanh(carry + xt @ self.w)
            return carry, carry.sin()
        return scan(step, torch.zeros(3, 4), x, dim=1, reverse=True)


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_data_dependent_cond_on_every_target(sign):
    x = torch.as_tensor(np.abs(rng.standard_normal((3, 4))).astype(np.float32)) * sign
    module = _check_targets(_seeded(Branch), (x,))
    assert str(module).count("ivy.cond") == 1


def test_known_predicate_inlines_the_branch():
    module = _check_targets(KnownBranch(), (_f32(3, 4),))
    assert "ivy.cond" not in str(module) and "ivy.cos" in str(module)


def test_while_loop_on_every_target():
    module = _check_targets(Doubling(), (torch.tensor(0), _f32(3, 4) / 10))
    assert str(module).count("ivy.while_loop") == 1


def test_scan_on_every_target():
    module = _check_targets(_seeded(Cumulative), (_f32(3, 5, 4),))
    assert str(module).count("ivy.scan") == 1
