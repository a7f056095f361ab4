"""TensorFlow control flow imported as region ops: `tf.cond`/autograph `if` and
`tf.switch_case` as `ivy.cond`, `tf.while_loop` as `ivy.while_loop`, and loops of a
static trip count (`tf.scan`, `tf.map_fn`, `tf.range` loops, Keras RNN layers) as
`ivy.scan`, with their TensorLists as scanned inputs and stacked outputs. Every target
matches TF / Keras, loops stay one body whatever the sequence length, and gradients
through an imported Keras LSTM match TF's own."""

from __future__ import annotations

import functools
import re

import jax
import jax.numpy as jnp
import keras
import numpy as np
import pytest
import tensorflow as tf
from zoo_common import TARGETS

import ivy_ir
from importers.tensorflow import DataDependentControlFlowError

rng = np.random.default_rng(5)
L = keras.layers


def _f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def _ops(module: ivy_ir.Module) -> list[str]:
    return re.findall(r"= ivy\.(\w+)", str(module))


def _np(x):
    return x.detach().numpy() if hasattr(x, "detach") else np.asarray(x)


def branch(x):
    return tf.cond(tf.reduce_sum(x) > 0, lambda: tf.sin(x) * 2.0, lambda: x - 1.0)


def autograph_if(x):
    y = x * 2.0
    if tf.reduce_sum(x) > 0:
        y = y + 1.0
    return y


def switch(i, x):
    return tf.switch_case(i, [lambda: x + 1.0, lambda: x * x, lambda: tf.cos(x)])


def newton_sqrt(a):
    def unsettled(x, previous):
        return tf.reduce_any(tf.abs(x - previous) > 1e-6)
    return tf.while_loop(unsettled, lambda x, _: ((x + a / x) / 2.0, x), (a, a + 1.0))[0]


W, U = _f32(6, 6) * 0.4, _f32(3, 6)


def scan_rnn(xs):
    def cell(h, x):
        return tf.tanh(tf.linalg.matvec(W, h) + tf.linalg.matvec(U, x, transpose_a=True))
    return tf.scan(cell, xs, initializer=tf.zeros(6))


def scan_reverse(xs):  # no initializer: the first element seeds the carry
    return tf.scan(lambda c, x: c * 0.5 + x, xs, reverse=True)


def mapped(xs):
    return tf.map_fn(lambda x: tf.sin(x) * 2.0, xs)


def range_loop(x):
    for i in tf.range(4):
        x = x * 0.5 + tf.cast(i, tf.float32)
    return x


def data_range(x):
    """A Python `for` over a range whose length depends on the data: a while loop."""
    for _ in tf.range(tf.shape(x)[0] + tf.cast(tf.reduce_sum(x) > 0, tf.int32)):
        x = x * 2.0
    return x


def early_stop(x):
    """A data-dependent trip count writing a TensorArray: lists carried densely."""
    def body(i, v, ta):
        return i + 1, v * 0.5, ta.write(i, v)
    out = tf.while_loop(lambda i, v, _: tf.logical_and(i < 4, tf.reduce_sum(v) > 0.1), body,
                        (tf.constant(0), x, tf.TensorArray(tf.float32, size=4)))
    return out[2].stack()


def _keras(body, steps: int = 5, features: int = 3) -> keras.Model:
    keras.utils.set_random_seed(7)
    x = keras.Input((steps, features))
    return keras.Model(x, body()(x))


def _masked(steps: int = 5) -> keras.Model:
    keras.utils.set_random_seed(7)
    x = keras.Input((steps, 3))
    return keras.Model(x, L.LSTM(4, return_sequences=True)(L.Masking(0.0)(x)))


LAYERS = {
    "lstm_seq": lambda: L.LSTM(4, return_sequences=True),
    "lstm_last": lambda: L.LSTM(4),
    "lstm_state": lambda: L.LSTM(4, return_state=True),
    "gru_seq": lambda: L.GRU(4, return_sequences=True),
    "gru_last": lambda: L.GRU(4),
    "simple_rnn": lambda: L.SimpleRNN(4),
    "bi_lstm": lambda: L.Bidirectional(L.LSTM(4, return_sequences=True)),
}
XS = _f32(2, 5, 3)
GAPPY = XS.copy()
GAPPY[0, 3:] = 0.0
GAPPY[1, :2] = 0.0


@functools.cache
def _program(name: str):
    """(callable, argument tuples, expected region ops) of each program."""
    if name in LAYERS:
        return _keras(LAYERS[name]), [(XS,)], {"scan": 2 if name == "bi_lstm" else 1}
    if name == "masked_lstm":
        return _masked(), [(GAPPY,)], {"scan": 1}
    if name == "mask_argument":
        layer = L.LSTM(4, return_sequences=True)
        mask = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]], bool)
        return (lambda x, m: layer(x, mask=m)), [(XS, mask)], {"scan": 1}
    x = _f32(4)
    return {
        "cond": (branch, [(np.abs(x),), (-np.abs(x),)], {"cond": 1}),
        "autograph_if": (autograph_if, [(np.abs(x),), (-np.abs(x),)], {"cond": 1}),
        "switch": (switch, [(np.int32(i), x) for i in (-1, 0, 1, 2, 5)], {"cond": 2}),
        "newton": (newton_sqrt, [(np.abs(x) * 5 + 0.1,)], {"while_loop": 1}),
        "scan_rnn": (scan_rnn, [(_f32(7, 3),)], {"scan": 1}),
        "scan_reverse": (scan_reverse, [(_f32(5, 2),)], {"scan": 1}),
        "map_fn": (mapped, [(_f32(5, 2),)], {"scan": 1}),
        "range_loop": (range_loop, [(x,)], {"scan": 1}),
        "data_range": (data_range, [(np.abs(x),), (-np.abs(x),)], {"while_loop": 1}),
        "early_stop": (early_stop, [(np.abs(x),), (x * 0.01,)], {"while_loop": 1}),
    }[name]


NAMES = ["cond", "autograph_if", "switch", "newton", "scan_rnn", "scan_reverse", "map_fn",
         "range_loop", "data_range", "early_stop", *LAYERS, "masked_lstm", "mask_argument"]


@functools.cache
def _module(name: str) -> ivy_ir.Module:
    fn, cases, _ = _program(name)
    return ivy_ir.trace(fn, cases[0], source="tensorflow")


@pytest.mark.parametrize("name", NAMES)
def test_control_flow_imports_as_region_ops(name):
    ops = _ops(_module(name))
    for op, count in _program(name)[2].items():
        assert ops.count(op) == count, (op, ops)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", NAMES)
def test_control_flow_matches_tensorflow(name, target):
    fn, cases, _ = _program(name)
    compiled = ivy_ir.compile(_module(name), target=target)
    for args in cases:
        want = tf.nest.flatten(tf.function(fn)(*map(tf.constant, args)))
        got = compiled(*args)
        got = list(got) if isinstance(got, (list, tuple)) else [got]
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert np.shape(_np(g)) == tuple(w.shape)
            np.testing.assert_allclose(_np(g), w.numpy(), rtol=1e-4, atol=1e-5)


def test_a_longer_sequence_is_the_same_loop():
    short, long = (ivy_ir.trace(_keras(LAYERS["lstm_seq"], steps), (_f32(2, steps, 3),))
                   for steps in (5, 50))
    assert _ops(long).count("scan") == 1 and "while_loop" not in _ops(long)
    assert len(_ops(short)) == len(_ops(long))
    assert "length = 50" in str(long)


def growing(x):
    def body(i, v):
        return i + 1, tf.concat([v, v[:1]], 0)
    return tf.while_loop(lambda i, v: i < 3, body, (tf.constant(0), x),
                         shape_invariants=(tf.TensorShape([]), tf.TensorShape([None])))[1]


def test_a_loop_that_cannot_be_imported_says_why_and_where():
    with pytest.raises(DataDependentControlFlowError) as info:
        ivy_ir.trace(growing, (_f32(3),))
    msg = str(info.value)
    assert "StatelessWhile (ivy.scan: region 'body' yields the carry as" in msg
    line = growing.__code__.co_firstlineno + 3
    assert f"data-dependent control flow at tests/test_import_tf_control.py:{line}" in msg


def _loss(out):
    return tf.reduce_sum(out * tf.range(1.0, 5.0)) + tf.reduce_sum(out ** 2)


@functools.cache
def _tf_grads():
    """TF's gradients of the loss through the Keras LSTM, by input and weight path."""
    model = _keras(LAYERS["lstm_seq"])
    x = tf.constant(XS)
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = _loss(model(x))
    grads = tape.gradient(loss, [x, *model.trainable_variables])
    names = ["x", *(v.path for v in model.trainable_variables)]
    return model, {k: g.numpy() for k, g in zip(names, grads)}


def _close(got: dict, want: dict) -> None:
    assert set(got) == set(want)
    for k, w in want.items():
        np.testing.assert_allclose(np.asarray(got[k]), w, rtol=1e-4,
                                   atol=1e-4 * np.abs(w).max(), err_msg=k)


def test_tensorflow_gradients_through_a_compiled_lstm():
    model, want = _tf_grads()
    c = ivy_ir.compile(model, target="tensorflow", args=(XS,))
    x = tf.constant(XS)
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = _loss(c(x))
    names = ["x", *c.params]
    grads = tape.gradient(loss, [x, *c.params.values()])
    _close(dict(zip(names, grads)), want)


def test_jax_gradients_through_a_compiled_lstm():
    model, want = _tf_grads()
    c = ivy_ir.compile(model, target="jax", args=(XS,))

    def loss(params, x):
        out = c.apply(params, x)
        return jnp.sum(out * jnp.arange(1.0, 5.0)) + jnp.sum(out ** 2)
    params = jax.tree_util.tree_map(jnp.asarray, c.trainable_params)
    by_params, by_x = jax.grad(loss, argnums=(0, 1))(params, jnp.asarray(XS))
    _close({"x": by_x, **by_params}, want)


def test_torch_gradients_through_a_compiled_lstm():
    import torch

    model, want = _tf_grads()
    c = ivy_ir.compile(model, target="torch", args=(XS,))
    x = torch.tensor(XS, requires_grad=True)
    out = c(x)
    (torch.sum(out * torch.arange(1.0, 5.0)) + torch.sum(out ** 2)).backward()
    _close({"x": x.grad.numpy(), **{k: p.grad.numpy() for k, p in c.params.items()}}, want)
