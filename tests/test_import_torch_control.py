"""torch loops and branches imported as region ops: `nn.LSTM`/`nn.GRU`/`nn.RNN` as one
`ivy.scan` per layer and direction (the IR does not grow with the sequence length),
`torch.cond`, `torch.while_loop` and `torch._higher_order_ops.scan` with their bodies
walked into `ivy.cond`, `ivy.while_loop` and `ivy.scan`; every target matches torch,
and gradients through a compiled LSTM match torch's autograd on the module."""

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
    # name: (module, example arguments for a sequence of length T)
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
    assert "ivy.scan" in str(module)
    assert ivy_ir.trace(_seeded(make), inputs(50)).op_count() == module.op_count()


def test_lstm_scans_once_per_layer_and_direction():
    make, inputs = RECURRENT["lstm"]
    module = ivy_ir.trace(_seeded(make), inputs(5))
    assert str(module).count("ivy.scan") == 4
    names = {a.param for a in module.args() if a.param}
    assert "weight_hh_l1_reverse" in names and "bias_ih_l0" in names


def test_dropout_between_layers_in_training_is_refused():
    torch.manual_seed(0)
    lstm = nn.LSTM(4, 4, num_layers=2, dropout=0.5).train()
    with pytest.raises(UnsupportedOpsError, match="dropout"):
        ivy_ir.trace(lstm, (_f32(5, 2, 4),))


def _loss(out, weights):
    """A loss reading every output: the sequence output and both final states."""
    seq, (h, c) = out
    return (seq * weights).sum() + (h ** 2).sum() + c.sum()


def _torch_grads(lstm: nn.LSTM, x: torch.Tensor, weights: torch.Tensor):
    x = x.clone().requires_grad_(True)
    _loss(lstm(x), weights).backward()
    return x.grad.numpy(), {k: p.grad.numpy() for k, p in lstm.named_parameters()}


def _close(got: dict, want: dict) -> None:
    assert got.keys() == want.keys()
    for k in want:
        np.testing.assert_allclose(np.asarray(got[k]), want[k], rtol=1e-4, atol=1e-5,
                                   err_msg=k)


def test_lstm_gradients_on_torch_and_jax():
    lstm = _seeded(RECURRENT["lstm"][0])
    x, weights = _f32(3, 6, 8), _f32(3, 6, 32)
    want_x, want = _torch_grads(lstm, x, weights)

    c = ivy_ir.compile(lstm, target="torch", args=(x,))
    xt = x.clone().requires_grad_(True)
    seq, h, cell = c.module(xt)
    _loss((seq, (h, cell)), weights).backward()
    np.testing.assert_allclose(xt.grad.numpy(), want_x, rtol=1e-4, atol=1e-5)
    _close({k: p.grad.numpy() for k, p in c.params.items()}, want)

    j = ivy_ir.compile(lstm, target="jax", args=(x,))

    def loss(params, xs):
        seq, h, cell = j.apply(params, xs)
        return _loss((seq, (h, cell)), jnp.asarray(weights.numpy()))
    grads, grad_x = jax.grad(loss, argnums=(0, 1))(j.params, jnp.asarray(x.numpy()))
    np.testing.assert_allclose(np.asarray(grad_x), want_x, rtol=1e-4, atol=1e-5)
    _close(grads, want)


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
