"""JAX control flow imported as region ops: `lax.cond`/`lax.switch` as `ivy.cond`,
`lax.while_loop` (and `fori_loop` with traced bounds) as `ivy.while_loop`, `lax.scan`
(and `fori_loop` with static bounds) as `ivy.scan`; every target matches JAX itself,
loops stay one body whatever their trip count, and gradients flow through a scan."""

from __future__ import annotations

import functools
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import torch
from jax import lax
from zoo_common import TARGETS

import ivy_ir

rng = np.random.default_rng(11)


def _f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def _ops(module: ivy_ir.Module) -> list[str]:
    return re.findall(r"= ivy\.(\w+)", str(module))


def branch(p, x):
    return lax.cond(p > 0, lambda v: jnp.sin(v) * 2, lambda v: v - 1, x)


def switch(i, x):
    return lax.switch(i, [lambda v: v + 1, lambda v: v * v, jnp.cos], x)


TOL = jnp.full((3,), 1e-6, jnp.float32)


def newton_sqrt(a):
    def unsettled(state):
        x, previous = state
        return jnp.any(jnp.abs(x - previous) > TOL)

    def step(state):
        x, _ = state
        return (x + a / x) / 2, x
    return lax.while_loop(unsettled, step, (a, a + 1))[0]


def fori_dynamic(n, x):
    return lax.fori_loop(0, n, lambda i, acc: acc * 0.9 + jnp.cos(acc) * i, x)


def fori_static(x):
    return lax.fori_loop(1, 6, lambda i, acc: acc * 0.9 + jnp.cos(acc) * i, x)


W, U, B = _f32(6, 6) * 0.4, _f32(6, 3), _f32(6)


def rnn(xs, h):
    def cell(h, x):
        h = jnp.tanh(W @ h + U @ x + B)
        return h, h
    return lax.scan(cell, h, xs)


def reverse_scan(xs):
    return lax.scan(lambda c, x: (c * 0.5 + x, c * x), jnp.ones(xs.shape[1:]), xs, reverse=True)


PROGRAMS = {
    "cond": (branch, [(np.float32(p), _f32(4)) for p in (-1, 1)]),
    "switch": (switch, [(np.int32(i), _f32(4)) for i in (-1, 0, 1, 2, 5)]),
    "while_newton": (newton_sqrt, [(np.abs(_f32(3)) * 5 + 0.1,)]),
    "fori_dynamic": (fori_dynamic, [(np.int32(n), _f32(3)) for n in (0, 4)]),
    "fori_static": (fori_static, [(_f32(3),)]),
    "scan_rnn": (rnn, [(_f32(7, 3), _f32(6))]),
    "scan_reverse": (reverse_scan, [(_f32(5, 2),)]),
    "scan_empty": (reverse_scan, [(np.zeros((0, 2), np.float32),)]),
}
STRUCTURE = {"cond": {"cond": 1}, "switch": {"cond": 2}, "while_newton": {"while_loop": 1},
             "fori_dynamic": {"while_loop": 1}, "fori_static": {"scan": 1},
             "scan_rnn": {"scan": 1}, "scan_reverse": {"scan": 1}, "scan_empty": {"scan": 0}}
"""Region ops each program imports to (a scan of no steps needs no loop)."""


@functools.cache
def _module(name: str) -> ivy_ir.Module:
    fn, cases = PROGRAMS[name]
    return ivy_ir.trace(fn, cases[0])


@pytest.mark.parametrize("name", PROGRAMS)
def test_control_flow_imports_as_region_ops(name):
    ops = _ops(_module(name))
    for op, count in STRUCTURE[name].items():
        assert ops.count(op) == count, (op, ops)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", PROGRAMS)
def test_control_flow_matches_jax(name, target):
    fn, cases = PROGRAMS[name]
    compiled = ivy_ir.compile(_module(name), target=target)
    for args in cases:
        got, want = compiled(*args), fn(*map(jnp.asarray, args))
        for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
            g = g.detach() if isinstance(g, torch.Tensor) else g
            assert np.shape(g) == np.shape(w)
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-5, atol=1e-5)


def test_a_long_scan_stays_one_body():
    def running(xs):
        return lax.scan(lambda c, x: (jnp.sin(c) + x, c.sum()), jnp.zeros(3), xs)
    short, long = (ivy_ir.trace(running, (np.zeros((n, 3), np.float32),)) for n in (10, 1000))
    assert _ops(long).count("scan") == 1 and _ops(long).count("sin") == 1
    assert len(_ops(short)) == len(_ops(long))
    assert "length = 1000" in str(long)


def test_a_loop_on_known_values_alone_folds():
    def f(x):
        powers = lax.fori_loop(0, 5, lambda i, p: p.at[i].set(2.0 ** i), jnp.zeros(5))
        return x * powers
    module = ivy_ir.trace(f, (_f32(5),))
    assert _ops(module) == ["constant", "multiply"]


def rnn_loss(params, xs, h):
    def cell(h, x):
        h = jnp.tanh(params["W"] @ h + params["U"] @ x + params["b"])
        return h, h
    last, hs = lax.scan(cell, h, xs)
    return last, hs


PARAMS = {"W": W, "U": U, "b": B}
XS, H0 = _f32(7, 3), _f32(6)


def _source_grads() -> dict[str, np.ndarray]:
    def loss(p):
        last, hs = rnn_loss(p, jnp.asarray(XS), jnp.asarray(H0))
        return jnp.sum(last ** 2) + jnp.sum(hs * jnp.arange(6.0))
    grads = jax.grad(loss)(jax.tree_util.tree_map(jnp.asarray, PARAMS))
    return {k: np.asarray(v) for k, v in grads.items()}


def test_jax_grad_through_an_imported_scan():
    c = ivy_ir.compile(rnn_loss, target="jax", args=(XS, H0), params=PARAMS)
    assert _ops(c.ir_module).count("scan") == 1

    def loss(p):
        last, hs = c.apply(p, XS, H0)
        return jnp.sum(last ** 2) + jnp.sum(hs * jnp.arange(6.0))
    got = jax.grad(loss)(jax.tree_util.tree_map(jnp.asarray, c.trainable_params))
    for k, want in _source_grads().items():
        np.testing.assert_allclose(np.asarray(got[k]), want, rtol=1e-4, atol=1e-6)


def test_torch_backprop_through_an_imported_scan():
    c = ivy_ir.compile(rnn_loss, target="torch", args=(XS, H0), params=PARAMS)
    params = {k: torch.tensor(v, requires_grad=True) for k, v in PARAMS.items()}
    last, hs = c.apply(params, torch.as_tensor(XS), torch.as_tensor(H0))
    (torch.sum(last ** 2) + torch.sum(hs * torch.arange(6.0))).backward()
    for k, want in _source_grads().items():
        np.testing.assert_allclose(params[k].grad.numpy(), want, rtol=1e-4, atol=1e-6)


def test_tensorflow_gradient_through_an_imported_scan():
    import tensorflow as tf

    c = ivy_ir.compile(rnn_loss, target="tensorflow", args=(XS, H0), params=PARAMS)
    params = {k: tf.Variable(v) for k, v in PARAMS.items()}
    with tf.GradientTape() as tape:
        last, hs = c.apply(params, tf.constant(XS), tf.constant(H0))
        loss = tf.reduce_sum(last ** 2) + tf.reduce_sum(hs * tf.range(6.0))
    got = tape.gradient(loss, params)
    for k, want in _source_grads().items():
        np.testing.assert_allclose(got[k].numpy(), want, rtol=1e-4, atol=1e-6)


def test_flax_rnn_of_lstm_cells_is_one_scan_on_every_target():
    import flax.linen as nn

    model = nn.RNN(nn.LSTMCell(16))
    x = _f32(2, 7, 8)
    variables = model.init(jax.random.key(0), x)
    want = np.asarray(model.apply(variables, x))
    module = ivy_ir.trace(model, (x,), params=variables)
    assert _ops(module).count("scan") == 1
    for target in TARGETS:
        got = ivy_ir.compile(module, target=target)(x)
        got = got.detach() if isinstance(got, torch.Tensor) else got
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-6)

    c = ivy_ir.compile(module, target="jax")

    def loss(apply, p):
        return jnp.sum(jnp.tanh(apply(p, x)) * jnp.linspace(-1.0, 1.0, 16))
    got = jax.grad(lambda p: loss(lambda q, v: c.apply(q, v), p))(c.trainable_params)
    source = jax.grad(lambda p: loss(lambda q, v: model.apply(q, v), p))(variables)
    flat = {".".join(str(getattr(k, "key", k)) for k in path): v
            for path, v in jax.tree_util.tree_leaves_with_path(source)}
    assert set(flat) == set(got)
    for name, want_grad in flat.items():
        np.testing.assert_allclose(np.asarray(got[name]), np.asarray(want_grad),
                                   rtol=1e-4, atol=1e-6)
