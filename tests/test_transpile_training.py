"""Training mode across frameworks: batch norm's running statistics update as the
source's do (`{ivy.update}` results written back by the compiled call, or returned by
JAX's `apply(..., mutable=True)`), and dropout draws a fresh mask per call from the
target's RNG idiom (torch's and TF's global generators, a JAX key argument)."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import ivy
import ivy_ir

torch = pytest.importorskip("torch")
jax = pytest.importorskip("jax")
tf = pytest.importorskip("tensorflow")

X = np.random.default_rng(0).standard_normal((4, 3, 6, 6)).astype(np.float32)
TARGETS = ("numpy", "jax", "torch", "tensorflow")


def _np(value):
    if hasattr(value, "detach"):
        return value.detach().numpy()
    return np.asarray(value)


def _bn_model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4, momentum=0.3),
                               torch.nn.ReLU())


@pytest.mark.parametrize("target", TARGETS)
def test_batch_norm_statistics_update_as_the_source_does(target):
    source = _bn_model().train()  # a model in training mode compiles as one
    compiled = ivy_ir.compile(copy.deepcopy(source), target=target, args=(X,))
    for step in range(3):
        x = X * (step + 1)  # other batches, other statistics
        np.testing.assert_allclose(_np(compiled(x)), _np(source(torch.from_numpy(x))),
                                   rtol=1e-5, atol=1e-5)
    for name in ("1.running_mean", "1.running_var", "1.num_batches_tracked"):
        np.testing.assert_allclose(_np(compiled.params[name]), _np(source.state_dict()[name]),
                                   rtol=1e-5, atol=1e-6, err_msg=name)


def test_transpile_training_flag_sets_the_mode_for_the_trace_only():
    model = _bn_model().eval()
    module = ivy.transpile(model, source="torch", to="torch", args=(X,), training=True)
    assert not model.training  # the source's own mode is restored
    before = module.state_dict()["1.running_mean"].clone()
    module(torch.from_numpy(X))
    assert not torch.equal(module.state_dict()["1.running_mean"], before)
    frozen = ivy.transpile(_bn_model().train(), source="torch", to="torch", args=(X,),
                           training=False)
    before = frozen.state_dict()["1.running_mean"].clone()
    frozen(torch.from_numpy(X))
    assert torch.equal(frozen.state_dict()["1.running_mean"], before)


def test_jax_apply_returns_the_new_statistics_when_mutable():
    source = _bn_model().train()
    pair = ivy.transpile(copy.deepcopy(source), source="torch", to="jax", args=(X,),
                         training=True)
    params, apply = pair
    buffers = pair.buffers
    step = jax.jit(lambda p, b, x: apply(p, x, buffers=b, mutable=True))
    for k in range(2):
        x = X * (k + 1)
        out, buffers = step(params, buffers, x)
        np.testing.assert_allclose(np.asarray(out), _np(source(torch.from_numpy(x))),
                                   rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(buffers["1"]["running_var"]),
                               _np(source[1].running_var), rtol=1e-5, atol=1e-6)


def _dropout_model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(8, 4000), torch.nn.Dropout(0.25))


@pytest.mark.parametrize("target", TARGETS)
def test_dropout_draws_a_fresh_mask_per_call_in_training_mode(target):
    model = _dropout_model()
    x = np.ones((2, 8), np.float32)
    fn = ivy.transpile(model, source="torch", to=target, args=(x,), training=True)
    call = (lambda v: fn[1](fn[0], v, rng=jax.random.key(len(calls)))) \
        if target == "jax" else fn
    calls: list[np.ndarray] = []
    for _ in range(2):
        calls.append(_np(call(x)))
    dense = _np(model[0](torch.from_numpy(x)))
    for got in calls:
        kept = got != 0
        assert abs(1 - kept.mean() - 0.25) < 0.02  # 8000 draws: 5 standard deviations
        # the linear layer runs on the target's own kernel: float32 summation order
        np.testing.assert_allclose(got[kept], dense[kept] / 0.75, rtol=1e-5, atol=1e-6)
    assert (calls[0] != calls[1]).any()


def test_dropout_follows_the_targets_own_seeding():
    model = _dropout_model()
    x = np.ones((2, 8), np.float32)
    module = ivy.transpile(model, source="torch", to="torch", args=(x,), training=True)
    torch.manual_seed(7)
    a = module(torch.from_numpy(x))
    torch.manual_seed(7)
    np.testing.assert_array_equal(_np(module(torch.from_numpy(x))), _np(a))


def test_jax_dropout_takes_a_key_and_refuses_to_run_without_one():
    params, apply = ivy.transpile(_dropout_model(), source="torch", to="jax",
                                  args=(np.ones((2, 8), np.float32),), training=True)
    x = jax.numpy.ones((2, 8))
    jitted = jax.jit(lambda p, x, k: apply(p, x, rng=k))
    one = np.asarray(jitted(params, x, jax.random.key(1)))
    np.testing.assert_array_equal(np.asarray(jitted(params, x, jax.random.key(1))), one)
    assert (np.asarray(jitted(params, x, jax.random.key(2))) != one).any()
    with pytest.raises(TypeError, match="draws random numbers.*rng=jax.random.key"):
        apply(params, x)


def test_keras_training_mode_updates_moving_statistics_and_drops():
    keras = pytest.importorskip("keras")
    model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(6),
                              keras.layers.BatchNormalization(momentum=0.5)])
    x = np.random.default_rng(1).standard_normal((8, 5)).astype(np.float32)
    fn = ivy.transpile(model, source="tensorflow", to="numpy", args=(x,), training=True)
    for k in range(2):
        np.testing.assert_allclose(fn(x * (k + 1)), model(x * (k + 1), training=True).numpy(),
                                   rtol=1e-4, atol=1e-5)
    bn = model.layers[1]
    names = [n for n in fn.params if n.endswith("moving_mean")]
    assert len(names) == 1
    np.testing.assert_allclose(fn.params[names[0]], bn.moving_mean.numpy(), rtol=1e-5,
                               atol=1e-6)
    drop = keras.Sequential([keras.Input((4000,)), keras.layers.Dropout(0.5)])
    ones = np.ones((1, 4000), np.float32)
    dropped = ivy.transpile(drop, source="tensorflow", to="torch", args=(ones,),
                            training=True)
    a, b = _np(dropped(ones)), _np(dropped(ones))
    assert abs((a == 0).mean() - 0.5) < 0.04 and set(np.unique(a)) == {0.0, 2.0}
    assert (a != b).any()


def test_training_flag_is_refused_where_the_source_has_its_own():
    with pytest.raises(ValueError, match="training= applies to torch, Keras and ivy"):
        ivy.transpile(lambda x: x * 2, source="numpy", to="numpy", args=(X,), training=True)


def test_training_flag_needs_example_arguments():
    with pytest.raises(ValueError, match="training= sets the mode for the trace"):
        ivy.transpile(_bn_model(), source="torch", to="jax", training=True)


def test_a_keras_layer_transpiled_in_training_mode_updates_its_statistics():
    source = _bn_model().train()
    layer = ivy.transpile(copy.deepcopy(source), source="torch", to="tensorflow", args=(X,),
                          training=True)
    for k in range(2):
        x = X * (k + 1)
        np.testing.assert_allclose(layer(tf.constant(x)).numpy(), _np(source(torch.from_numpy(x))),
                                   rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(_np(layer.compiled.params["1.running_mean"]),
                               _np(source[1].running_mean), rtol=1e-5, atol=1e-6)
