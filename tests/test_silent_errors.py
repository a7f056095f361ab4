"""Programs that used to give a wrong answer without a word: static arguments lost on
retrace, parameter names that merged, generated names a user could collide with,
results that shared memory with parameters, retraced variants that trained their own
copy of the weights, and torch exports racing in two threads."""

from __future__ import annotations

import contextlib
import threading
from typing import Any

import numpy as np
import pytest

import ivy
import ivy_ir

TARGETS = ["numpy", "jax", "torch", "tensorflow"]
RNG = np.random.default_rng(0)


def _numpy(value: Any) -> np.ndarray:
    return value.detach().numpy() if hasattr(value, "detach") else np.asarray(value)


# ---- static arguments ----

def scale(x, n=2):
    return ivy.multiply(x, float(n))


@pytest.mark.parametrize("target", TARGETS)
def test_static_arguments_survive_a_retrace(target):
    x = np.ones((2, 3), np.float32)
    c = ivy_ir.compile(scale, target=target, args=(x, 3))
    np.testing.assert_array_equal(_numpy(c(x)), np.full((2, 3), 3, np.float32))
    wider = np.ones((4, 3), np.float32)  # a new shape: traced again, still with n=3
    np.testing.assert_array_equal(_numpy(c(wider)), np.full((4, 3), 3, np.float32))


# ---- parameter names ----

def test_dotted_keys_that_collide_with_nested_ones_are_refused():
    w = np.eye(3, dtype=np.float32)
    with pytest.raises(ValueError, match=r"\['a.b'\] and \['a'\]\['b'\] both name the "
                                         r"parameter 'a.b'; rename one of them"):
        ivy_ir.compile(lambda p, x: x @ p["a.b"] + x @ p["a"]["b"], args=(w,),
                       params={"a.b": w, "a": {"b": 2 * w}})


def test_a_parameter_named_like_a_lifted_constant_keeps_its_value():
    big = np.arange(20, dtype=np.float32)   # closed over and large: lifted as a buffer
    p = {"const0": np.full(20, 2, np.float32)}
    x = np.ones(20, np.float32)
    c = ivy_ir.compile(lambda p, a: a * p["const0"] + big, args=(x,), params=p)
    np.testing.assert_array_equal(c(x), x * 2 + big)
    np.testing.assert_array_equal(c.params["const0"], p["const0"])


def test_module_targets_refuse_a_name_both_a_parameter_and_a_submodule():
    pytest.importorskip("torch")
    w = np.ones(3, np.float32)
    with pytest.raises(ValueError, match="a module cannot hold both a parameter and a "
                                         "submodule of one name"):
        ivy_ir.compile(lambda p, x: x + p["a"] + p["a.b"], target="torch", args=(w,),
                       params={"a": w, "a.b": w})


UNUSUAL = ["float", "eval", "type", "training", "forward", "name", "__class__", "", "0",
           "é", "ｗ", "w", "params", "main", "np", "torch", "F", "tf", "jnp", "_call",
           "_name", "self", "x", "v", "__ivy_hole_0__", "const", "device"]
"""Legal parameter keys that are methods or attributes of nn.Module/tf.Module, names of
generated code, empty, numeric, non-ASCII (`ｗ` is `w` once Python normalizes it)."""


@pytest.mark.parametrize("target", TARGETS)
def test_unusual_parameter_names_work_on_every_target(target):
    params = {k: RNG.standard_normal(3).astype(np.float32) for k in UNUSUAL}
    params["sub"] = {k: RNG.standard_normal(3).astype(np.float32) for k in UNUSUAL}

    def f(p, x):
        out = x
        for i, k in enumerate(UNUSUAL):
            out = out + p[k] * float(i + 1) + p["sub"][k] * float(-i)
        return out

    x = RNG.standard_normal(3).astype(np.float32)
    c = ivy_ir.compile(f, target=target, args=(x,), params=params)
    np.testing.assert_allclose(_numpy(c(x)), f(params, x), rtol=1e-5, atol=1e-5)
    names = {k for k in UNUSUAL} | {f"sub.{k}" for k in UNUSUAL}
    assert set(c.params) == names
    if target == "torch":
        assert set(c.module.state_dict()) == names
        assert len(list(c.module.parameters())) == len(names)
        owned = dict(c.module.named_parameters())
        assert all(owned[k] is c.params[k] for k in names)
        assert callable(c.module.float) and c.module.training is True  # still nn.Module's
    if target == "tensorflow":
        assert len(c.module.trainable_variables) == len(names)
        assert c.module.name == "compiled"
        assert c.module.w is c.params["w"]


@pytest.mark.parametrize("target", TARGETS)
def test_unusual_input_names(target):
    def f(é, a__ivy_hole_1__, ab, b, __ivy_hole_0__):
        return ivy.tanh(ivy.add(ivy.multiply(a__ivy_hole_1__, ab), b)) * é + __ivy_hole_0__

    xs = [RNG.standard_normal(4).astype(np.float32) for _ in range(5)]
    c = ivy_ir.compile(f, target=target, args=tuple(xs))
    want = np.tanh(xs[1] * xs[2] + xs[3]) * xs[0] + xs[4]
    np.testing.assert_allclose(_numpy(c(*xs)), want, rtol=1e-5, atol=1e-6)


def test_torch_fused_placeholders_never_meet_user_names():
    """Eager torch fuses elementwise chains through placeholder names: an input named
    like one must still be read as itself."""
    def f(a__ivy_hole_1__, ab, b):
        return ivy.exp(ivy.add(a__ivy_hole_1__, b)) * ab, ivy.tanh(ab * b + a__ivy_hole_1__)

    xs = [RNG.standard_normal(4).astype(np.float32) for _ in range(3)]
    c = ivy_ir.compile(f, target="torch", args=tuple(xs))
    assert ".add_(" in c.source or ".exp_(" in c.source  # the fused path ran
    got = [_numpy(v) for v in c(*xs)]
    np.testing.assert_allclose(got[0], np.exp(xs[0] + xs[2]) * xs[1], rtol=1e-5)
    np.testing.assert_allclose(got[1], np.tanh(xs[1] * xs[2] + xs[0]), rtol=1e-5)


# ---- eager results never share memory that outlives the call ----

@pytest.mark.parametrize("target", ["numpy", "torch"])
def test_results_do_not_alias_parameters_or_constants(target):
    w = np.arange(6, dtype=np.float32).reshape(2, 3)
    big = np.arange(20, dtype=np.float32)   # lifted as a buffer parameter
    x = np.ones((2, 3), np.float32)
    c = ivy_ir.compile(lambda p, a: (p["w"], ivy.permute_dims(p["w"], axes=[1, 0]),
                                     np.arange(4, dtype=np.float32), big, a + 1),
                       target=target, args=(x,), params={"w": w})
    with _no_grad(target):
        for out in c(x)[:4]:
            out[...] = -1
    np.testing.assert_array_equal(_numpy(c.params["w"]), w)
    again = [_numpy(v) for v in c(x)]
    np.testing.assert_array_equal(again[0], w)
    np.testing.assert_array_equal(again[1], w.T)
    np.testing.assert_array_equal(again[2], np.arange(4, dtype=np.float32))
    np.testing.assert_array_equal(again[3], big)
    single = ivy_ir.compile(lambda p, a: p["w"], target=target, args=(x,), params={"w": w})
    with _no_grad(target):
        single(x)[0, 0] = 100
    assert _numpy(single.params["w"])[0, 0] == 0


def _no_grad(target: str) -> Any:
    """Writing into a result that requires grad needs torch's no_grad."""
    if target == "torch":
        import torch
        return torch.no_grad()
    return contextlib.nullcontext()


def test_torch_results_that_are_parameters_still_carry_gradients():
    torch = pytest.importorskip("torch")
    w = np.arange(6, dtype=np.float32).reshape(2, 3)
    c = ivy_ir.compile(lambda p, a: ivy.permute_dims(p["w"], axes=[1, 0]), target="torch",
                       args=(w,), params={"w": w})
    c(torch.tensor(w)).sum().backward()
    np.testing.assert_array_equal(c.params["w"].grad.numpy(), np.ones((2, 3), np.float32))


# ---- retraced variants train the one set of parameters ----

P = {"w": RNG.standard_normal((3, 2)).astype(np.float32),
     "b": RNG.standard_normal(2).astype(np.float32)}
X8 = RNG.standard_normal((8, 3)).astype(np.float32)
Y8 = RNG.standard_normal((8, 2)).astype(np.float32)


def net(p, x):
    return ivy.tanh(ivy.add(ivy.matmul(x, p["w"]), p["b"]))


def _reference_steps(lr: float) -> dict[str, np.ndarray]:
    """SGD on batches of 8 then 5 in float64 NumPy: the loss is sum((tanh(xW+b)-y)^2)."""
    w, b = P["w"].astype(np.float64), P["b"].astype(np.float64)
    for n in (8, 5):
        x, y = X8[:n].astype(np.float64), Y8[:n].astype(np.float64)
        h = np.tanh(x @ w + b)
        g = 2 * (h - y) * (1 - h ** 2)
        w, b = w - lr * x.T @ g, b - lr * g.sum(0)
    return {"w": w, "b": b}


def test_torch_module_trains_through_a_last_partial_batch():
    torch = pytest.importorskip("torch")
    c = ivy_ir.compile(net, target="torch", args=(X8,), params=P)
    opt = torch.optim.SGD(c.module.parameters(), lr=0.1)
    assert {id(p) for p in opt.param_groups[0]["params"]} == {id(v) for v in c.params.values()}
    for n in (8, 5):
        opt.zero_grad()
        loss = ((c.module(torch.tensor(X8[:n])) - torch.tensor(Y8[:n])) ** 2).sum()
        loss.backward()
        assert c.module.w.grad is not None and float(c.module.w.grad.abs().sum()) > 0
        opt.step()
    want = _reference_steps(0.1)
    for k in ("w", "b"):
        np.testing.assert_allclose(c.params[k].detach().numpy(), want[k], rtol=1e-4, atol=1e-5)
        assert c.module.get_parameter(k) is c.params[k]


def test_tensorflow_variables_train_through_a_last_partial_batch():
    tf = pytest.importorskip("tensorflow")
    c = ivy_ir.compile(net, target="tensorflow", args=(X8,), params=P)
    for n in (8, 5):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum((c.module(tf.constant(X8[:n])) - Y8[:n]) ** 2)
        grads = tape.gradient(loss, c.module.trainable_variables)
        assert all(g is not None for g in grads)
        for v, g in zip(c.module.trainable_variables, grads):
            v.assign_sub(0.1 * g)
    want = _reference_steps(0.1)
    for k in ("w", "b"):
        np.testing.assert_allclose(c.params[k].numpy(), want[k], rtol=1e-4, atol=1e-5)


def test_jax_params_tree_reaches_every_input_shape():
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    c = ivy_ir.compile(net, target="jax", args=(X8,), params=P)

    def loss(p, x, y):
        return jnp.sum((c.apply(p, x) - y) ** 2)

    for n in (8, 5):
        grads = jax.grad(loss)(c.params, jnp.asarray(X8[:n]), jnp.asarray(Y8[:n]))
        c.params = {k: v - 0.1 * grads[k] for k, v in c.params.items()}
        np.testing.assert_allclose(np.asarray(c(X8[:n])),
                                   net({k: np.asarray(v) for k, v in c.params.items()},
                                       X8[:n]), rtol=1e-5, atol=1e-6)
    want = _reference_steps(0.1)
    for k in ("w", "b"):
        np.testing.assert_allclose(np.asarray(c.params[k]), want[k], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("target", TARGETS)
def test_a_variant_keeps_its_own_shape_dependent_constants(target):
    """A large array built from the input's shape is lifted per trace: sharing the
    parent's parameters must not share that buffer."""
    def f(p, a):
        return ivy.matmul(a, p["w"]) + np.full((a.shape[0], 4), float(a.shape[0]), np.float32)

    p = {"w": np.ones((3, 4), np.float32)}
    c = ivy_ir.compile(f, target=target, args=(np.ones((8, 3), np.float32),), params=p)
    for n in (8, 5, 6, 5):
        x = np.ones((n, 3), np.float32)
        np.testing.assert_array_equal(_numpy(c(x)), np.full((n, 4), 3 + n, np.float32))


# ---- threads ----

def test_torch_models_compile_from_two_threads_at_once():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    models = [torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(),
                                  torch.nn.Linear(8, 2)) for _ in range(3)]
    x = torch.randn(3, 4)
    results: dict[int, Any] = {}

    def work(i: int) -> None:
        try:
            results[i] = _numpy(ivy_ir.compile(models[i], args=(x,))(x.numpy()))
        except Exception as exc:  # noqa: BLE001 (reported by the assertion below)
            results[i] = exc

    threads = [threading.Thread(target=work, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i, model in enumerate(models):
        assert not isinstance(results[i], Exception), results[i]
        np.testing.assert_allclose(results[i], model(x).detach().numpy(), rtol=1e-5,
                                   atol=1e-6)
