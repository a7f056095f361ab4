"""Cutting gradients: JAX's `lax.stop_gradient`, torch's `detach`, TensorFlow's
`tf.stop_gradient` and `ivy.stop_gradient` import as the registry op `stop_gradient`,
so a compiled program differentiated on any target gives the source's gradients. (They
imported as the identity before, and a straight-through estimator trained with the
compiled program got gradients the source never computes.)

Each source writes the same VQ-VAE style loss: a straight-through quantization (the
forward value is the codebook entry, the gradient goes to the encoder output) plus the
codebook and commitment terms, each of which cuts one side. The gradients of the
compiled program on every autodiff target must equal the source's own. Also here: torch
`no_grad` blocks inside a forward, the recompositions that look through a cut, and the
warning for the custom gradient rules the IR cannot carry.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from target_grads import GRAD

import ivy_ir

RNG = np.random.default_rng(7)
Z = RNG.standard_normal((4, 3)).astype(np.float32)
E = RNG.standard_normal((4, 3)).astype(np.float32)
W = RNG.standard_normal((4, 3)).astype(np.float32)
TARGETS = ["jax", "torch", "tensorflow"]


def _vq_loss(sg: Any, total: Any, z: Any, e: Any, w: Any) -> Any:
    quantized = z + sg(e - z)
    commitment = total((z - sg(e)) ** 2)
    codebook = total((sg(z) - e) ** 2)
    return total(quantized * w) + 0.25 * commitment + codebook


def _jax() -> tuple[Any, list[np.ndarray]]:
    import jax
    import jax.numpy as jnp

    def f(z, e):
        return _vq_loss(jax.lax.stop_gradient, jnp.sum, z, e, jnp.asarray(W))
    return f, [np.asarray(g) for g in jax.grad(f, argnums=(0, 1))(Z, E)]


def _torch() -> tuple[Any, list[np.ndarray]]:
    import torch

    def f(z, e):
        return _vq_loss(torch.Tensor.detach, torch.sum, z, e, torch.from_numpy(W))
    z, e = torch.tensor(Z, requires_grad=True), torch.tensor(E, requires_grad=True)
    f(z, e).backward()
    return f, [z.grad.numpy(), e.grad.numpy()]


def _tensorflow() -> tuple[Any, list[np.ndarray]]:
    import tensorflow as tf

    def f(z, e):
        return _vq_loss(tf.stop_gradient, tf.reduce_sum, z, e, tf.constant(W))
    z, e = tf.constant(Z), tf.constant(E)
    with tf.GradientTape() as tape:
        tape.watch([z, e])
        loss = f(z, e)
    return f, [g.numpy() for g in tape.gradient(loss, [z, e])]


def _ivy() -> tuple[Any, list[np.ndarray]]:
    import torch

    import ivy

    def f(z, e):
        return _vq_loss(ivy.stop_gradient, ivy.sum, z, e, ivy.asarray(W))
    z, e = torch.tensor(Z, requires_grad=True), torch.tensor(E, requires_grad=True)
    with ivy.torch.use:
        f(z, e).backward()
    return f, [z.grad.numpy(), e.grad.numpy()]


SOURCES = {"jax": _jax, "torch": _torch, "tensorflow": _tensorflow, "ivy": _ivy}


@pytest.fixture(scope="module", params=sorted(SOURCES))
def source(request: Any) -> tuple[str, Any, list[np.ndarray]]:
    fn, grads = SOURCES[request.param]()
    return request.param, fn, grads


@pytest.mark.parametrize("target", TARGETS)
def test_compiled_gradients_are_the_sources(source: tuple[str, Any, list[np.ndarray]],
                                            target: str) -> None:
    name, fn, want = source
    c = ivy_ir.compile(fn, target=target, args=(Z, E))
    assert c.ir.count("ivy.stop_gradient") == 3, c.ir
    got = GRAD[target](c, [Z, E], [0, 1], lambda out, total, const: total(out))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6)
    # the source's own: dz = w + 0.5 (z - e), de = 2 (e - z); uncut, dz would be 2.5 (z - e)
    np.testing.assert_allclose(want[0], W + 0.5 * (Z - E), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(want[1], 2 * (E - Z), rtol=1e-5, atol=1e-6)


def test_numpy_and_onnx_compute_the_value() -> None:
    fn, _ = _jax()
    want = float(_vq_loss(lambda v: v, np.sum, Z, E, W))
    assert float(ivy_ir.compile(fn, target="numpy", args=(Z, E))(Z, E)) == pytest.approx(
        want, rel=1e-6)
    onnx_model = ivy_ir.compile(fn, target="onnx", args=(Z, E))
    import onnxruntime as ort
    sess = ort.InferenceSession(onnx_model.model.SerializeToString())
    feeds = dict(zip([i.name for i in sess.get_inputs()], (Z, E)))
    assert float(sess.run(None, feeds)[0]) == pytest.approx(want, rel=1e-6)


def test_moments_layer_norm_recomposes_with_tensorflows_gradients() -> None:
    """`tf.nn.moments` cuts the mean inside the variance; the cut changes no gradient
    (d var / d mean is 0 at the mean), so `recompose` still makes one layer_norm, whose
    gradients on every target are TensorFlow's."""
    import tensorflow as tf

    x = RNG.standard_normal((3, 8)).astype(np.float32)
    w = RNG.standard_normal((3, 8)).astype(np.float32)

    def norm(x):
        mean, var = tf.nn.moments(x, axes=[-1], keepdims=True)
        return tf.reduce_sum(tf.nn.batch_normalization(x, mean, var, None, None, 1e-5) * w)
    xt = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        loss = norm(xt)
    want = tape.gradient(loss, xt).numpy()
    for target in TARGETS:
        c = ivy_ir.compile(norm, target=target, args=(x,))
        assert "ivy.layer_norm" in c.ir and "ivy.stop_gradient" not in c.ir, c.ir
        got = GRAD[target](c, [x], [0], lambda out, total, const: total(out))
        np.testing.assert_allclose(got[0], want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_jax_softmax_still_recomposes_through_its_cut_max(op: str) -> None:
    """JAX subtracts `stop_gradient(max(x))`, which changes no gradient of a softmax."""
    import jax
    import jax.numpy as jnp

    f = getattr(jax.nn, op)
    x = RNG.standard_normal((3, 5)).astype(np.float32)
    w = jnp.asarray(RNG.standard_normal((3, 5)).astype(np.float32))
    c = ivy_ir.compile(f, target="jax", args=(x,))
    assert f"ivy.{op} " in c.ir and "ivy.stop_gradient" not in c.ir, c.ir
    got = jax.grad(lambda v: jnp.sum(c(v) * w))(x)
    want = jax.grad(lambda v: jnp.sum(f(v) * w))(x)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("target", TARGETS)
def test_torch_no_grad_block_in_forward(target: str) -> None:
    """A `with torch.no_grad():` block inside `forward` (an EMA teacher's targets):
    torch.export wraps it in `wrap_with_set_grad_enabled`, whose results the import
    cuts; refused before."""
    import torch

    class Student(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.student = torch.nn.Linear(3, 3)
            self.teacher = torch.nn.Linear(3, 3)

        def forward(self, z):
            with torch.no_grad():
                target = torch.tanh(self.teacher(z))
                hits = torch.arange(4)  # not a float: nothing to cut
            return ((self.student(z) - target) ** 2 * z).sum() + hits.sum()

    model = Student()
    z = torch.tensor(Z, requires_grad=True)
    model(z).backward()
    c = ivy_ir.compile(model, target=target, args=(Z,))
    assert c.ir.count("ivy.stop_gradient") == 1, c.ir
    got = GRAD[target](c, [Z], [0], lambda out, total, const: total(out))
    np.testing.assert_allclose(got[0], z.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_a_user_custom_vjp_rule_is_reported_not_dropped_silently() -> None:
    """The IR has no custom-gradient op: a gradient reversal written with
    `jax.custom_vjp` compiles to its forward (the identity), and says so, pointing at
    the user's compile call."""
    import warnings

    import jax
    import jax.numpy as jnp

    from ivy_ir.core.errors import CustomGradientWarning

    @jax.custom_vjp
    def reverse_gradient(x):
        return x

    reverse_gradient.defvjp(lambda x: (x, None), lambda _, g: (-g,))

    def f(x):
        return jnp.sum(reverse_gradient(x) * x) + jnp.sum(jax.nn.softplus(x))

    with pytest.warns(CustomGradientWarning, match="custom_vjp rule of reverse_gradient at "
                      r".*test_stop_gradient\.py:\d+ is not carried") as caught:
        ivy_ir.compile(f, target="numpy", args=(Z,))
    assert [w.filename for w in caught] == [__file__]  # softplus's own custom_jvp: silent
    with warnings.catch_warnings():
        warnings.simplefilter("error", CustomGradientWarning)
        ivy_ir.compile(lambda x: jnp.sum(jax.nn.softplus(x)), target="numpy", args=(Z,))


def test_a_tf_custom_gradient_is_reported_not_dropped_silently() -> None:
    """`tf.custom_gradient` marks its IdentityN with the rule; the import says it drops it."""
    import tensorflow as tf

    from ivy_ir.core.errors import CustomGradientWarning

    @tf.custom_gradient
    def reverse_gradient(x):
        return tf.identity(x), lambda g: -g

    def f(x):
        return tf.reduce_sum(reverse_gradient(x) * x)

    with pytest.warns(CustomGradientWarning, match=r"tf.custom_gradient rule at "
                      r".*test_stop_gradient\.py:\d+ is not carried") as caught:
        c = ivy_ir.compile(f, target="numpy", args=(Z,))
    assert [w.filename for w in caught] == [__file__]
    assert float(c(Z)) == pytest.approx(float(np.sum(Z * Z)), rel=1e-6)
