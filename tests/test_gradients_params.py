"""Gradients of parameters: a facade MLP traced with `params=`, differentiated with each
autodiff target's own machinery (jax.grad over `c.apply`, torch autograd through
`c.module`, `tf.GradientTape` over `c.module`'s variables), against central finite
differences of the NumPy-target program, and one SGD step that lowers the loss."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from grad_cases import EPS, TARGETS, close

import ivy
import ivy_ir


def mlp(p: dict[str, Any], x: Any) -> Any:
    h = ivy.gelu(ivy.linear(x, p["fc1"]["weight"], p["fc1"]["bias"]))
    h = ivy.layer_norm(h, p["ln"]["weight"], p["ln"]["bias"])
    return ivy.linear(h, p["fc2"]["weight"], p["fc2"]["bias"])


def _mlp_data() -> tuple[dict[str, Any], np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    params = {"fc1": {"weight": rng.standard_normal((6, 4)) / 2, "bias": rng.standard_normal(6)},
              "ln": {"weight": 1 + rng.standard_normal(6) / 4, "bias": rng.standard_normal(6)},
              "fc2": {"weight": rng.standard_normal((3, 6)) / 2, "bias": rng.standard_normal(3)}}
    return params, rng.standard_normal((5, 4)), rng.standard_normal((5, 3))


def _mse(out: Any, target: Any, total: Any) -> Any:
    return total((out - target) ** 2) / 15.0


def _param_grads(target: str, c: Any, x: np.ndarray, y: np.ndarray
                 ) -> tuple[float, dict[str, np.ndarray], Any]:
    """(loss, gradients by dotted name, a function doing one SGD step and returning the
    new loss)."""
    lr = 0.1
    if target == "jax":
        import jax
        import jax.numpy as jnp

        def f(p: dict[str, Any]) -> Any:
            return _mse(c.apply(p, jnp.asarray(x)), jnp.asarray(y), jnp.sum)

        # the loss is the user's own JAX code: float64 there is the user's choice (x64)
        with jax.enable_x64(True):
            value, grads = jax.value_and_grad(f)(c.params)

        def step() -> float:
            with jax.enable_x64(True):
                return float(f({k: v - lr * grads[k] for k, v in c.params.items()}))
        return float(value), {k: np.asarray(g) for k, g in grads.items()}, step
    if target == "torch":
        import torch

        assert all(isinstance(p, torch.nn.Parameter) for p in c.params.values())
        assert {id(p) for p in c.module.parameters()} == {id(p) for p in c.params.values()}
        opt = torch.optim.SGD(c.module.parameters(), lr=lr)
        opt.zero_grad()
        value = _mse(c.module(torch.as_tensor(x)), torch.as_tensor(y), torch.sum)
        value.backward()
        assert all(p.grad is not None for p in c.params.values())
        grads = {k: p.grad.numpy().copy() for k, p in c.params.items()}

        def step() -> float:
            opt.step()
            with torch.no_grad():
                return float(_mse(c.module(torch.as_tensor(x)), torch.as_tensor(y), torch.sum))
        return float(value.detach()), grads, step
    import tensorflow as tf

    variables = c.module.trainable_variables
    assert {id(v) for v in variables} == {id(v) for v in c.params.values()}
    with tf.GradientTape() as tape:
        value = _mse(c.module(tf.constant(x)), tf.constant(y), tf.reduce_sum)
    grads = tape.gradient(value, variables)
    names = {id(v): k for k, v in c.params.items()}

    def step() -> float:
        tf.keras.optimizers.SGD(learning_rate=lr).apply_gradients(zip(grads, variables))
        return float(_mse(c.module(tf.constant(x)), tf.constant(y), tf.reduce_sum))
    return float(value), {names[id(v)]: g.numpy() for v, g in zip(variables, grads)}, step


@pytest.fixture(scope="module")
def mlp_reference() -> tuple[float, dict[str, np.ndarray]]:
    params, x, y = _mlp_data()
    ref = ivy_ir.compile(mlp, "numpy", args=(x,), params=params)
    flat = {k: np.asarray(v, np.float64) for k, v in ref.params.items()}

    def f(**p: Any) -> float:
        return float(_mse(ref.apply(p, x), y, np.sum))
    grads = {}
    for k, v in flat.items():
        g = np.zeros(v.shape)
        for cell in np.ndindex(v.shape):
            h = EPS * max(1.0, abs(v[cell]))
            vp, vm = v.copy(), v.copy()
            vp[cell] += h
            vm[cell] -= h
            g[cell] = (f(**{**flat, k: vp}) - f(**{**flat, k: vm})) / (vp[cell] - vm[cell])
        grads[k] = g
    return f(**flat), grads


@pytest.mark.parametrize("target", TARGETS)
def test_parameter_gradients_and_sgd_step(target: str, mlp_reference: Any) -> None:
    params, x, y = _mlp_data()
    c = ivy_ir.compile(mlp, target, args=(x,), params=params)
    assert set(c.params) == {"fc1.weight", "fc1.bias", "ln.weight", "ln.bias",
                             "fc2.weight", "fc2.bias"}
    want_value, want = mlp_reference
    value, grads, step = _param_grads(target, c, x, y)
    assert set(grads) == set(want)
    problems = [f"d/d {k} vs finite differences: {bad}" for k in want
                if (bad := close(grads[k], want[k], "fd", want_value))]
    if abs(value - want_value) > 1e-10 * abs(want_value):
        problems.append(f"loss {value!r} != NumPy target's {want_value!r}")
    new_value = step()
    if not new_value < value:
        problems.append(f"one SGD step did not reduce the loss: {value} -> {new_value}")
    assert not problems, f"{target}:\n" + "\n".join(problems)


def test_parameter_gradients_agree_across_targets() -> None:
    params, x, y = _mlp_data()
    grads = {t: _param_grads(t, ivy_ir.compile(mlp, t, args=(x,), params=params), x, y)[1]
             for t in TARGETS}
    for t in TARGETS[1:]:
        for k, g in grads[TARGETS[0]].items():
            bad = close(grads[t][k], g, "cross", 0.0)
            assert bad is None, f"{t} vs {TARGETS[0]}, d/d {k}: {bad}"
