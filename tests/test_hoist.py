"""Parameter work done once (`lowerings/hoist.py`): ops that read only parameters (a
batch norm folded into its convolution) run in `prepare`, whose results a call keeps
while the parameters are unchanged; any change to them, and any call autodiff records,
sees fresh values. Also the torch target's channels_last convolution weights, and the
JAX target's convolution weights permuted to XLA's kernel layout as parameter work."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import ivy_ir
from lowerings import hoist

torch = pytest.importorskip("torch")
jax = pytest.importorskip("jax")

X = np.random.default_rng(0).standard_normal((2, 3, 10, 10)).astype(np.float32)


def _net():
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3), torch.nn.BatchNorm2d(8),
                              torch.nn.ReLU(), torch.nn.Conv2d(8, 4, 3),
                              torch.nn.BatchNorm2d(4))
    with torch.no_grad():
        for bn in (net[1], net[4]):
            bn.running_mean.uniform_(-1, 1)
            bn.running_var.uniform_(0.5, 2)
    return net.eval()


def _eager(net, x=X):
    with torch.no_grad():
        return net(torch.from_numpy(x)).numpy()


def test_the_split_moves_only_parameter_work():
    module = ivy_ir.compile(_net(), target="numpy", args=(X,)).ir_module
    parts = hoist.split(module)
    assert parts is not None
    prepare = str(parts.prepare)
    assert "ivy.conv" not in prepare and "ivy.rsqrt" in prepare  # the folds, not the convs
    main = str(parts.main)
    assert main.count("ivy.conv") == 2 and "ivy.rsqrt" not in main
    assert main.count('ivy.buffer = "__hoisted') == len(parts.names) == 4  # w, b per conv
    assert set(parts.reads) == {"0.weight", "0.bias", "1.weight", "1.bias", "1.running_mean",
                                "1.running_var", "3.weight", "3.bias", "4.weight", "4.bias",
                                "4.running_mean", "4.running_var"}


def test_a_program_with_state_or_nothing_to_move_stays_whole():
    train = ivy_ir.trace(_net().train(), (X,))
    assert train.updates and hoist.split(train) is None
    plain = ivy_ir.trace(lambda x: torch.relu(x) * 2, (X,))
    assert hoist.split(plain) is None


def test_torch_keeps_the_work_until_the_parameters_change():
    net = _net()
    c = ivy_ir.compile(copy.deepcopy(net), target="torch", args=(X,))
    assert "def prepare(params)" in c.source
    x = torch.from_numpy(X)
    with torch.no_grad():
        np.testing.assert_allclose(c(x).numpy(), _eager(net), rtol=1e-5, atol=1e-5)
        # an in-place change of a parameter (what optimizers and load_state_dict do)
        c.module.state_dict()["1.running_var"].mul_(4)
        net[1].running_var.mul_(4)
        np.testing.assert_allclose(c(x).numpy(), _eager(net), rtol=1e-5, atol=1e-5)
        other = _net()
        other[0].weight.mul_(-1)
        c.module.load_state_dict(other.state_dict())
        np.testing.assert_allclose(c(x).numpy(), _eager(other), rtol=1e-5, atol=1e-5)


def test_torch_data_swaps_are_seen():
    """`module.to(...)` and `.half()` assign each parameter's `.data`: new storage under
    the same tensor, which need not bump its version."""
    net = _net()
    c = ivy_ir.compile(copy.deepcopy(net), target="torch", args=(X,))
    with torch.no_grad():
        c(torch.from_numpy(X))
        c.params["0.weight"].data = -c.params["0.weight"].data
        net[0].weight.data = -net[0].weight.data
        np.testing.assert_allclose(c(torch.from_numpy(X)).numpy(), _eager(net), rtol=1e-5,
                                   atol=1e-5)


def test_torch_gradients_flow_through_the_parameter_work():
    net = _net()
    c = ivy_ir.compile(copy.deepcopy(net), target="torch", args=(X,))
    with torch.no_grad():
        c(torch.from_numpy(X))  # fills the kept values
    c(torch.from_numpy(X)).square().sum().backward()
    net(torch.from_numpy(X)).square().sum().backward()
    for name, p in net.named_parameters():
        np.testing.assert_allclose(c.params[name].grad.numpy(), p.grad.numpy(), rtol=1e-4,
                                   atol=1e-4, err_msg=name)


def test_jax_keeps_the_work_per_parameter_arrays_and_grad_sees_through():
    net = _net()
    c = ivy_ir.compile(net, target="jax", args=(X,))
    x = jax.numpy.asarray(X)
    np.testing.assert_allclose(np.asarray(c(x)), _eager(net), rtol=1e-5, atol=1e-5)
    c.params = {**c.params, "0.weight": -c.params["0.weight"]}
    flipped = copy.deepcopy(net)
    with torch.no_grad():
        flipped[0].weight.mul_(-1)
    np.testing.assert_allclose(np.asarray(c(x)), _eager(flipped), rtol=1e-5, atol=1e-5)
    grads = jax.grad(lambda p: jax.numpy.sum(c.apply(p, x) ** 2))(c.trainable_params)
    assert float(jax.numpy.abs(grads["1.weight"]).sum()) > 0  # reaches the folded norm


def test_torch_convolution_weights_are_channels_last():
    c = ivy_ir.compile(_net(), target="torch", args=(X,))
    assert c.params["0.weight"].is_contiguous(memory_format=torch.channels_last)
    assert isinstance(c.params["0.weight"], torch.nn.Parameter)
    assert c.params["1.weight"].dim() == 1  # other parameters as they were


def test_jax_permutes_convolution_weights_once_not_per_call():
    c = ivy_ir.compile(_net(), target="jax", args=(X,))
    main, prepare = c.source.split("# parameter work")
    assert main.count("dimension_numbers=('NHWC', 'HWIO', 'NHWC')") == 2
    assert "(2, 3, 1, 0)" not in main and prepare.count("(2, 3, 1, 0)") == 2


@pytest.mark.parametrize("lazy", [False, True])
def test_jax_first_call_inside_jit_keeps_concrete_parameter_work(lazy):
    # the kept `prepare` results are computed outside the caller's trace: kept as
    # tracers, they would leak into the next call
    net = _net()
    c = ivy_ir.compile(net, target="jax") if lazy else ivy_ir.compile(net, target="jax",
                                                                       args=(X,))
    x = jax.numpy.asarray(X)
    first = jax.jit(lambda a: c(a))(x)
    np.testing.assert_allclose(np.asarray(first), _eager(net), rtol=1e-5, atol=1e-5)
    again = jax.jit(lambda a: 2 * c(a))(x)
    np.testing.assert_allclose(np.asarray(again), 2 * _eager(net), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(c(x)), _eager(net), rtol=1e-5, atol=1e-5)
