"""`jax.random` programs with the key as an input: bit-identical to JAX on the JAX
target, and the same samples on the others (integer, bool and bit outputs exactly;
floats to the last bits of `erfinv`, which each framework rounds its own way).

The threefry hash itself is checked on every target against the Random123
known-answer vectors (Salmon et al., 2011), which JAX also reproduces.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import ivy_ir
from ivy_ir import UnsupportedOpsError

TARGETS = ["numpy", "torch", "tensorflow"]
KEY = jax.random.PRNGKey(42)
X = jnp.arange(12, dtype=jnp.float32).reshape(3, 4)

DRAWS = {
    "normal": lambda k: jax.random.normal(k, (3, 4)),
    "uniform": lambda k: jax.random.uniform(k, (200,), minval=-2.0, maxval=3.0),
    "split": lambda k: jax.random.split(k, 3),
    "fold_in": lambda k: jax.random.fold_in(k, 7),
    "bits_uint8": lambda k: jax.random.bits(k, (5,), jnp.uint8),
    "randint": lambda k: jax.random.randint(k, (7,), -5, 10),
    "dropout": lambda k: jnp.where(jax.random.bernoulli(k, 0.8, X.shape), X / 0.8, 0),
    "split_then_draw": lambda k: [jax.random.normal(s, (2,)) for s in jax.random.split(k)],
    "vmap_over_keys": lambda k: jax.vmap(lambda s: jax.random.uniform(s, (2,)))(
        jax.random.split(k, 3)),
    "seed_inside": lambda k: jax.random.bits(jax.random.fold_in(jax.random.key(3), k[1]), (4,)),
    "permutation": lambda k: jax.random.permutation(k, X, axis=1),
    "categorical": lambda k: jax.random.categorical(k, jnp.log(jnp.array([0.2, 0.3, 0.5])),
                                                    shape=(6,)),
    "gumbel": lambda k: jax.random.gumbel(k, (4,)),
    "truncated_normal": lambda k: jax.random.truncated_normal(k, -1.0, 1.0, (5,)),
    "bfloat16_normal": lambda k: jax.random.normal(k, (4,), jnp.bfloat16),
    # key arrays carried through lax control flow (as words across the region boundary)
    "split_in_fori_loop": lambda k: jax.lax.fori_loop(
        0, 5, lambda i, c: (jax.random.split(c[0])[0],
                            c[1] + jax.random.normal(jax.random.split(c[0])[1], (3,))),
        (k, jnp.zeros(3)))[1],
    "scan_over_keys": lambda k: jax.lax.scan(
        lambda c, s: (c + 1, jax.random.normal(s, (2,))), 0.0, jax.random.split(k, 4))[1],
    "binomial": lambda k: jax.random.binomial(k, 10, 0.3, (4,)),
}
EVERY_TARGET = ["normal", "split", "bits_uint8", "randint", "dropout", "vmap_over_keys",
                "permutation", "seed_inside", "split_in_fori_loop"]
"""The draws also run on every other target (the rest on JAX and NumPy, to keep CI short)."""


def _leaves(out):
    return [np.asarray(o) for o in jax.tree_util.tree_leaves(out)]


@pytest.mark.parametrize("name", list(DRAWS))
def test_jax_target_gives_jax_bits(name):
    fn = DRAWS[name]
    c = ivy_ir.compile(fn, target="jax", args=(KEY,))
    other = jax.random.PRNGKey(7)  # a new key value: nothing about the key was baked in
    for key in (KEY, other):
        want, got = _leaves(jax.jit(fn)(key)), _leaves(c(key))
        assert [w.dtype for w in want] == [g.dtype for g in got]
        for w, g in zip(want, got):
            np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", list(DRAWS))
def test_other_targets_give_the_same_samples(name, target):
    if target != "numpy" and name not in EVERY_TARGET:
        pytest.skip("run on JAX and NumPy only")
    fn = DRAWS[name]
    c = ivy_ir.compile(fn, target=target, args=(KEY,))
    for w, g in zip(_leaves(fn(KEY)), _leaves(c(np.asarray(KEY)))):
        g = np.asarray(g)
        assert g.dtype == w.dtype
        if w.dtype.kind in "fV" or w.dtype.name == "bfloat16":
            np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64),
                                       rtol=4e-6, atol=1e-6)
        else:
            np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("target", ["numpy", "jax", "torch", "tensorflow", "onnx"])
def test_threefry_known_answers(target):
    words = np.array([[0, 0, 0, 0], [2**32 - 1] * 4,
                      [0x13198A2E, 0x03707344, 0x243F6A88, 0x85A308D3]], dtype=np.uint32).T
    want = np.array([[0x6B200159, 0x99BA4EFE], [0x1CB996FC, 0xBB002BE7],
                     [0xC4923A9C, 0x483DF7A0]], dtype=np.uint32).T
    text = """func.func @main(%k0: tensor<3xui32>, %k1: tensor<3xui32>, %x0: tensor<3xui32>,
                              %x1: tensor<3xui32>) -> (tensor<3xui32>, tensor<3xui32>) {
      %y0, %y1 = ivy.threefry2x32 %k0, %k1, %x0, %x1 : (tensor<3xui32>, tensor<3xui32>,
          tensor<3xui32>, tensor<3xui32>) -> (tensor<3xui32>, tensor<3xui32>)
      func.return %y0, %y1 : tensor<3xui32>, tensor<3xui32>
    }"""
    got = ivy_ir.compile(text, target=target)(*words)
    np.testing.assert_array_equal(np.stack([np.asarray(g) for g in got]), want)


def test_a_typed_key_is_an_input_as_its_key_data():
    fn = lambda key, x: x + jax.random.normal(key, x.shape)  # noqa: E731
    key = jax.random.key(5)
    c = ivy_ir.compile(fn, target="jax", args=(key, X))
    assert c.ir_module.inputs[0].shape == (2,)
    new = jax.random.key(6)
    np.testing.assert_array_equal(c(new, X), jax.jit(fn)(new, X))
    np.testing.assert_array_equal(c(jax.random.key_data(new), X), jax.jit(fn)(new, X))
    # under the caller's jit too (the key arrives traced)
    np.testing.assert_array_equal(jax.jit(c)(new, X), jax.jit(fn)(new, X))
    t = ivy_ir.compile(fn, target="torch", args=(key, X))
    np.testing.assert_allclose(t(new, X).numpy(), fn(new, X), rtol=4e-6)


def test_a_typed_key_result_comes_back_as_its_key_data():
    fn = lambda k: jax.random.split(jax.random.wrap_key_data(k), 3)  # noqa: E731
    for target in ("jax", "numpy"):
        c = ivy_ir.compile(fn, target=target, args=(KEY,))
        np.testing.assert_array_equal(np.asarray(c(KEY)), jax.random.key_data(fn(KEY)))


def test_flax_dropout_in_training_mode():
    import flax.linen as nn

    class Net(nn.Module):
        @nn.compact
        def __call__(self, x, train: bool):
            x = nn.Dense(8)(x)
            x = nn.Dropout(0.5, deterministic=not train)(x)
            return nn.Dense(2)(x)

    net = Net()
    variables = net.init(jax.random.PRNGKey(0), X, train=False)

    def train_step(params, x, key):
        return net.apply(params, x, train=True, rngs={"dropout": key})

    c = ivy_ir.compile(train_step, target="jax", args=(X, KEY), params=variables)
    for key in (KEY, jax.random.PRNGKey(1)):
        want = jax.jit(train_step)(variables, X, key)
        # the same mask; the two Dense layers may round in another order
        np.testing.assert_allclose(c(X, key), want, rtol=1e-6, atol=1e-6)
        assert not np.allclose(want, net.apply(variables, X, train=False))

    def drop(x, key):
        return nn.Dropout(0.5, deterministic=False).apply({}, x, rngs={"dropout": key})

    d = ivy_ir.compile(drop, target="jax", args=(X, KEY))
    for key in (KEY, jax.random.PRNGKey(1)):  # the mask bit for bit (x / 0.5 is exact)
        np.testing.assert_array_equal(d(X, key), drop(X, key))
        assert not np.array_equal(drop(X, key), 2 * X)  # some values were dropped
    t = ivy_ir.compile(train_step, target="torch", args=(X, KEY), params=variables)
    np.testing.assert_allclose(t(X, np.asarray(KEY)).detach().numpy(),
                               train_step(variables, X, KEY), rtol=1e-5, atol=1e-6)


def test_another_prng_is_reported_by_name():
    key = jax.random.key(0, impl="rbg")
    with pytest.raises(UnsupportedOpsError, match="random_bits"):
        ivy_ir.compile(lambda k: jax.random.normal(k, (2,)), target="numpy", args=(key,))
