"""ivy.Container, gradients through each framework's autodiff, ivy.Module (alone and as a
second base beside torch/TF/Keras classes), its converters, and compiling a module."""

from __future__ import annotations

import numpy as np
import pytest

import ivy
import ivy_ir
from ivy.container import Container

AUTODIFF = ["torch", "jax", "tensorflow"]


@pytest.fixture
def backend(request):
    ivy.set_backend(request.param)
    try:
        yield request.param
    finally:
        ivy.unset_backend()


class Dense(ivy.Module):
    """A layer written in the test, so these tests do not depend on ivy's layers."""

    def __init__(self, fan_in: int, fan_out: int, seed: int = 0):
        self.fan_in, self.fan_out, self.seed = fan_in, fan_out, seed
        ivy.Module.__init__(self)

    def _create_variables(self, dtype=None, device=None):
        rng = np.random.default_rng(self.seed)
        return {"w": ivy.asarray(rng.uniform(-0.5, 0.5, (self.fan_in, self.fan_out)),
                                 dtype=ivy.float32),
                "b": ivy.asarray(rng.uniform(-0.1, 0.1, (self.fan_out,)), dtype=ivy.float32)}

    def _forward(self, x):
        return ivy.matmul(x, self.v.w) + self.v.b


class FcModel(ivy.Module):
    def __init__(self):
        self.linear0 = Dense(3, 8, seed=1)
        self.linear2 = Dense(8, 1, seed=2)
        ivy.Module.__init__(self)

    def _forward(self, x):
        return ivy.sigmoid(self.linear2(ivy.relu(self.linear0(x))))


X = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 0.25]], dtype=np.float32)


# ---- Container ----
def test_container_access_and_key_chains():
    c = Container({"a": {"b": np.ones(2)}, "c": np.zeros(3)})
    assert isinstance(c.a, Container) and c.a.b is c["a/b"]
    c["x/y/z"] = 5.0
    c.d = {"e": 1.0}
    assert c.x.y.z == 5.0 and isinstance(c.d, Container) and "x/y/z" in c and "x/q" not in c
    assert c.key_chains() == ["a/b", "c", "x/y/z", "d/e"]
    seen = []
    doubled = c.map(lambda x, kc: seen.append(kc) or x * 2)
    assert seen == c.key_chains() and doubled["x/y/z"] == 10.0
    with pytest.raises(AttributeError, match="no key 'nope'"):
        _ = c.nope
    assert not hasattr(c, "nope") and getattr(c, "nope", 7) == 7
    with pytest.raises(KeyError, match="a/b/q"):
        c["a/b/q"]
    # a key named like a method leaves the method in place (the key is read by [])
    c["map"] = c["items"] = 3.0
    assert callable(c.map) and callable(c.items) and c["map"] == 3.0
    assert c.flatten()["map"] == 3.0 and type(c).__name__ == "Container"
    del c.d
    assert "d" not in c and not hasattr(c, "d")


def test_container_arithmetic_and_flatten():
    a = Container({"w": np.array([1.0, 2.0]), "sub": {"b": np.array(3.0)}})
    b = Container({"w": np.array([0.5, 0.5]), "sub": {"b": np.array(1.0)}})
    np.testing.assert_allclose((a - 0.1 * b)["w"], [0.95, 1.95])
    np.testing.assert_allclose((2 / a)["sub/b"], 2 / 3)
    np.testing.assert_allclose((-a + a ** 2)["w"], [0.0, 2.0])
    with pytest.raises(ValueError, match="different structure.*sub/c"):
        a + Container({"w": 1.0, "sub": {"c": 1.0}})
    flat = a.flatten()
    assert list(flat) == ["w", "sub/b"]
    back = Container.unflatten(flat)
    assert back.key_chains() == a.key_chains() and back.sub.b is a.sub.b
    plain = a.to_dict()
    assert type(plain) is dict and type(plain["sub"]) is dict


def test_container_to_numpy_from_variables():
    import torch
    c = Container({"w": torch.ones(2, requires_grad=True)})
    out = c.to_numpy()
    assert isinstance(out.w, np.ndarray) and out.w.tolist() == [1.0, 1.0]


def test_container_is_a_jax_pytree():
    import jax
    import jax.numpy as jnp
    c = Container({"a": {"b": jnp.array([1.0, 2.0])}, "c": jnp.array(3.0)})
    g = jax.grad(lambda t: jnp.sum(t.a.b ** 2) * t.c)(c)
    assert isinstance(g, Container) and isinstance(g.a, Container)
    np.testing.assert_allclose(g["a/b"], [6.0, 12.0])
    np.testing.assert_allclose(g.c, 5.0)
    mapped = jax.tree_util.tree_map(lambda x: x + 1, c)
    assert isinstance(mapped, Container) and float(mapped.c) == 4.0
    assert jax.jit(lambda t: t.c * 2)(c) == 6.0


def test_container_is_a_tf_nest_structure():
    import tensorflow as tf
    c = Container({"a": {"b": tf.constant([1.0, 2.0])}, "c": tf.Variable(3.0)})
    mapped = tf.nest.map_structure(lambda x: x * 2, c)
    assert isinstance(mapped, Container) and mapped["a/b"].numpy().tolist() == [2.0, 4.0]
    with tf.GradientTape() as tape:
        tape.watch(c.a.b)
        loss = tf.reduce_sum(c.a.b ** 2) * c.c
    g = tape.gradient(loss, c)
    assert isinstance(g, Container) and g["a/b"].numpy().tolist() == [6.0, 12.0]


# ---- gradients ----
def _loss(xs):
    loss = ivy.sum(xs.a * xs.b) + ivy.mean(xs.c ** 2)
    return loss, xs.a * 2


@pytest.mark.parametrize("backend", AUTODIFF, indirect=True)
def test_execute_with_gradients_matches_analytic(backend):
    a, b, c = np.array([1.0, 2.0]), np.array([3.0, -1.0]), np.array([0.5, 1.5, -2.0])
    xs = Container({"a": ivy.asarray(a, dtype=ivy.float32), "b": ivy.asarray(b, dtype=ivy.float32),
                    "c": ivy.asarray(c, dtype=ivy.float32),
                    "unused": ivy.ones((2,)), "count": ivy.asarray([1, 2])})
    loss, grads, extra = ivy.execute_with_gradients(_loss, xs)
    np.testing.assert_allclose(ivy.to_numpy(loss), a @ b + np.mean(c ** 2), rtol=1e-6)
    np.testing.assert_allclose(ivy.to_numpy(grads.a), b)
    np.testing.assert_allclose(ivy.to_numpy(grads.b), a)
    np.testing.assert_allclose(ivy.to_numpy(grads.c), 2 * c / 3, rtol=1e-6)
    np.testing.assert_array_equal(ivy.to_numpy(grads.unused), [0.0, 0.0])
    assert grads.count is None
    np.testing.assert_allclose(ivy.to_numpy(extra), 2 * a)
    assert not ivy.is_variable(extra) or backend == "jax"
    if backend == "torch":
        assert not loss.requires_grad and xs.a.grad is None  # nothing accumulates


@pytest.mark.parametrize("backend", AUTODIFF, indirect=True)
def test_execute_with_gradients_single_array_and_loss_shape(backend):
    x = ivy.asarray([1.0, -2.0], dtype=ivy.float32)
    loss, g = ivy.execute_with_gradients(lambda x: ivy.reshape(ivy.sum(x * x), (1,)), x)
    assert tuple(loss.shape) == ()
    np.testing.assert_allclose(ivy.to_numpy(g), [2.0, -4.0])
    with pytest.raises(ValueError, match=r"loss of one element.*shape \(2,\)"):
        ivy.execute_with_gradients(lambda x: x * x, x)


def test_torch_variables_are_differentiated_in_the_callers_container():
    """Variables need no fresh leaves: the loss sees the caller's own container (so a
    module called with `v=model.v` swaps nothing); plain tensors get fresh leaves in a
    new container, and the caller's tensors stay out of the graph."""
    import torch
    x = torch.tensor([[1.0, 2.0]])
    with ivy.with_backend("torch"):
        model, seen = Dense(2, 1), []

        def loss_fn(v):
            seen.append(v)
            return ivy.sum(model(x, v=v))
        _, grads = ivy.execute_with_gradients(loss_fn, model.v)
        assert seen[-1] is model.v
        np.testing.assert_allclose(grads.w.numpy(), [[1.0], [2.0]])
        plain = Container(w=model.v.w.detach(), b=model.v.b.detach())
        _, grads = ivy.execute_with_gradients(loss_fn, plain)
        assert seen[-1] is not plain and not plain.w.requires_grad
        np.testing.assert_allclose(grads.b.numpy(), [1.0])
        assert model.v.w.grad is None


def test_tensorflow_gradients_of_variables_and_tensors():
    """Trainable variables are watched as they are read, a non-trainable variable and a
    plain tensor because they are leaves: each gets its gradient."""
    import tensorflow as tf
    xs = Container(a=tf.Variable([1.0, 2.0]), b=tf.Variable([3.0, -1.0], trainable=False),
                   c=tf.constant([0.5, 1.5, -2.0]))
    with ivy.with_backend("tensorflow"):
        _, grads, _ = ivy.execute_with_gradients(_loss, xs)
    np.testing.assert_allclose(grads.a.numpy(), [3.0, -1.0])
    np.testing.assert_allclose(grads.b.numpy(), [1.0, 2.0])
    np.testing.assert_allclose(grads.c.numpy(), np.array([0.5, 1.5, -2.0]) * 2 / 3, rtol=1e-6)


def test_execute_with_gradients_numpy_has_no_autodiff():
    with pytest.raises(TypeError, match="numpy backend has no autodiff"):
        ivy.execute_with_gradients(lambda x: ivy.sum(x), Container(a=np.ones(2)))


@pytest.mark.parametrize("backend", AUTODIFF, indirect=True)
def test_variable_and_stop_gradient(backend):
    x = ivy.variable(ivy.asarray([1.0, 2.0], dtype=ivy.float32))
    assert ivy.is_variable(x)
    assert not ivy.is_variable(ivy.asarray([1, 2]))
    loss, g = ivy.execute_with_gradients(lambda x: ivy.sum(ivy.stop_gradient(x) * x), x)
    np.testing.assert_allclose(ivy.to_numpy(g), [1.0, 2.0])  # not 2x: one factor is cut
    if backend == "torch":
        assert x.requires_grad and x.is_leaf
    if backend == "tensorflow":
        import tensorflow as tf
        assert isinstance(x, tf.Variable)


# ---- Module ----
def test_module_variables_discovered_and_distributed():
    class Stack(ivy.Module):
        def __init__(self):
            self.blocks = [Dense(2, 2, seed=i) for i in range(3)]
            self.head = Dense(2, 1)
            ivy.Module.__init__(self)

        def _forward(self, x):
            for block in self.blocks:
                x = block(x)
            return self.head(x)

    m = Stack()
    assert m.v.key_chains() == ["blocks/0/w", "blocks/0/b", "blocks/1/w", "blocks/1/b",
                                "blocks/2/w", "blocks/2/b", "head/w", "head/b"]
    assert m.v["blocks/1/w"] is m.blocks[1].v.w
    x = np.ones((1, 2), dtype=np.float32)
    zeros = m.v.map(lambda w, kc: np.zeros_like(w))
    before = m(x)
    np.testing.assert_array_equal(m(x, v=zeros), [[0.0]])  # the given variables, this call
    np.testing.assert_array_equal(m(x), before)  # and the module's own again afterwards
    m.v = zeros
    assert m.head.v.w is zeros["head/w"]  # setting v hands each submodule its part
    assert m.eval() is m and not m.blocks[2].training and m.train().head.training


def test_module_without_init_says_so():
    class Forgot(ivy.Module):
        def __init__(self):
            self.linear = Dense(1, 1)

    with pytest.raises(AttributeError, match=r"call ivy.Module.__init__\(self\)"):
        _ = Forgot().v


@pytest.mark.parametrize("backend", AUTODIFF, indirect=True)
def test_paper_training_loop_on_each_backend(backend):
    model = FcModel()
    x_in = ivy.asarray([1.0, 2.0, 3.0], dtype=ivy.float32)

    def loss_fn(v):
        return ivy.mean(model(x_in, v=v))
    losses = []
    for _ in range(20):
        loss, grads = ivy.execute_with_gradients(loss_fn, model.v)
        model.v = model.v - 0.5 * grads
        losses.append(float(ivy.to_numpy(loss)))
    assert losses[-1] < losses[0] - 0.05


def test_tf_module_as_second_base():
    import tensorflow as tf

    class TfFcModel(tf.Module, FcModel):
        def __init__(self):
            tf.Module.__init__(self)
            FcModel.__init__(self)

        def __call__(self, x):
            return self._forward(x)

    with ivy.tensorflow.use:
        model = TfFcModel()
        assert len(model.trainable_variables) == 4
        x = tf.constant(X)
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(model(x))
        grads = tape.gradient(loss, model.trainable_variables)
        assert all(g is not None for g in grads)


def test_keras_layer_as_second_base():
    import keras
    import tensorflow as tf

    class KerasFcModel(keras.layers.Layer, FcModel):
        def __init__(self):
            keras.layers.Layer.__init__(self)
            FcModel.__init__(self)
            self.v = self.v.map(lambda x, kc: self.add_weight(
                shape=x.shape, initializer=keras.initializers.Constant(ivy.to_numpy(x)),
                name=kc.replace("/", "_")))

        def call(self, x):
            return self._forward(x)

    with ivy.tensorflow.use:
        layer = KerasFcModel()
        assert len(layer.trainable_weights) == 4
        x = tf.constant(X)
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(layer(x))
        grads = tape.gradient(loss, layer.trainable_weights)
        assert all(g is not None for g in grads)
        np.testing.assert_allclose(layer(x).numpy(), FcModel()(X), rtol=1e-5)


# ---- converters ----
def test_to_torch_module_trains_like_the_ivy_update():
    import torch
    model = FcModel()
    torch_module = model.to_torch_module()
    assert sorted(n for n, _ in torch_module.named_parameters()) == \
        ["linear0.b", "linear0.w", "linear2.b", "linear2.w"]
    x = torch.tensor(X)
    np.testing.assert_allclose(torch_module(x).detach().numpy(), model(X), rtol=1e-6)
    sgd = torch.optim.SGD(torch_module.parameters(), lr=0.1)
    torch.mean(torch_module(x)).backward()
    sgd.step()
    with ivy.torch.use:
        v = model.v.map(lambda w, kc: ivy.asarray(w))
        _, grads = ivy.execute_with_gradients(lambda v: ivy.mean(model(x, v=v)), v)
        expected = (v - 0.1 * grads).to_numpy()
    for name, p in torch_module.named_parameters():
        np.testing.assert_allclose(p.detach().numpy(), expected[name.replace(".", "/")],
                                   rtol=1e-5, atol=1e-7)


def test_to_jax_pair_works_with_jit_and_grad():
    import jax
    import jax.numpy as jnp
    model = FcModel()
    params, apply = model.to_jax()
    assert type(params) is dict and set(params) == {"linear0", "linear2"}
    np.testing.assert_allclose(jax.jit(apply)(params, jnp.asarray(X)), model(X), rtol=1e-6)
    g = jax.grad(lambda p: jnp.mean(apply(p, jnp.asarray(X))))(params)
    with ivy.jax.use:
        _, grads = ivy.execute_with_gradients(lambda v: ivy.mean(model(jnp.asarray(X), v=v)),
                                              Container(params))
    np.testing.assert_allclose(g["linear0"]["w"], grads["linear0/w"], rtol=1e-5)


def test_to_keras_layer_fits():
    import keras
    model = FcModel()
    layer = model.to_keras_layer()
    np.testing.assert_allclose(np.asarray(layer(X)), model(X), rtol=1e-5)
    assert len(layer.trainable_weights) == 4
    net = keras.Sequential([keras.Input((3,)), layer])
    net.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    before = [w.numpy().copy() for w in layer.trainable_weights]
    net.fit(X, np.zeros((2, 1), np.float32), epochs=1, verbose=0)
    assert any(not np.allclose(a, w.numpy()) for a, w in zip(before, layer.trainable_weights))


# ---- compiling a module ----
@pytest.mark.parametrize("target", ["numpy", "torch", "jax", "tensorflow"])
def test_compile_module_variables_are_parameters(target):
    model = FcModel()
    compiled = ivy_ir.compile(model, target=target, args=(X,))
    np.testing.assert_allclose(ivy.to_numpy(compiled(X)), model(X), rtol=1e-5)
    assert sorted(compiled.params) == ["linear0.b", "linear0.w", "linear2.b",
                                                 "linear2.w"]


def test_compiled_module_trains_natively_and_retraces():
    import torch
    model = FcModel()
    compiled = ivy_ir.compile(model, target="torch", args=(X,))
    names = sorted(n for n, _ in compiled.module.named_parameters())
    assert names == ["linear0.b", "linear0.w", "linear2.b", "linear2.w"]
    sgd = torch.optim.SGD(compiled.module.parameters(), lr=0.1)
    x = torch.tensor(X)
    torch.mean(compiled(x)).backward()
    sgd.step()
    with ivy.torch.use:
        v = model.v.map(lambda w, kc: ivy.asarray(w))
        _, grads = ivy.execute_with_gradients(lambda v: ivy.mean(model(x, v=v)), v)
        expected = (v - 0.1 * grads).to_numpy()
    for name, p in compiled.module.named_parameters():
        np.testing.assert_allclose(p.detach().numpy(), expected[name.replace(".", "/")],
                                   rtol=1e-5, atol=1e-7)
    bigger = np.ones((5, 3), np.float32)  # a new batch size retraces on the same parameters
    np.testing.assert_allclose(compiled(bigger).detach().numpy(),
                               model(bigger, v=expected), rtol=1e-5)


def test_compiling_a_module_with_batch_norm_needs_eval_mode_and_changes_nothing():
    class Net(ivy.Module):
        def __init__(self):
            self.conv = ivy.Conv2D(3, 4, 3, 1, "SAME", seed=0)
            self.bn = ivy.BatchNorm2D(4)
            self.drop = ivy.Dropout(0.5, seed=0)
            ivy.Module.__init__(self)

        def _forward(self, x):
            return self.drop(ivy.relu(self.bn(self.conv(x))))

    model = Net()
    x = np.random.default_rng(0).random((2, 5, 5, 3), dtype=np.float32)
    stats = model.bn.stats
    with pytest.raises(TypeError, match="batch norm's running statistics in training mode "
                                        "cannot be traced.*model.eval"):
        ivy_ir.compile(model, target="torch", args=(x,))
    assert model.bn.stats is stats  # the failed trace left the module as it was
    with pytest.raises(TypeError, match="dropout in training mode cannot be traced"):
        ivy_ir.compile(model.drop, target="torch", args=(x,))  # a mask would be frozen
    opt = ivy.SGD(0.1)
    with pytest.raises(TypeError, match="optimizer steps of traced values"):
        ivy_ir.compile(lambda w: opt.step(ivy.Container(a=w), ivy.Container(a=w))["a"],
                       target="numpy", args=(x,))
    compiled = ivy_ir.compile(model.eval(), target="torch", args=(x,))
    np.testing.assert_allclose(ivy.to_numpy(compiled(x)), model(x), rtol=1e-5, atol=1e-6)
    assert sorted(compiled.params) == ["bn.b", "bn.w", "conv.b", "conv.w"]


def test_ivy_layers_that_are_also_torch_modules_are_discovered():
    import torch

    class TorchDense(torch.nn.Module, Dense):
        def __init__(self, fan_in, fan_out):
            torch.nn.Module.__init__(self)
            Dense.__init__(self, fan_in, fan_out)

        def forward(self, x):
            return self._forward(x)

    class Net(torch.nn.Module, ivy.Module):
        def __init__(self):
            torch.nn.Module.__init__(self)
            self.hidden = TorchDense(3, 4)  # torch files it under _modules
            self.head = Dense(4, 1)
            ivy.Module.__init__(self)

        def _forward(self, x):
            return self.head(ivy.relu(self.hidden(x)))

    with ivy.torch.use:
        net = Net()
        assert sorted(net.v.key_chains()) == ["head/b", "head/w", "hidden/b", "hidden/w"]
        zeros = net.v.map(lambda w, kc: w * 0)
        out = ivy.Module.__call__(net, ivy.asarray(X), v=zeros)
        np.testing.assert_array_equal(ivy.to_numpy(out), np.zeros((2, 1)))
        assert net.hidden.v.w is not zeros["hidden/w"]  # restored after the call


def test_empty_sub_containers_survive_gradients_and_optimizer_steps():
    with ivy.torch.use:
        v = Container(w=ivy.asarray([1.0, 2.0], dtype=ivy.float32), stats=Container())
        loss, grads = ivy.execute_with_gradients(lambda t: ivy.sum(t.w * t.w) + len(t.stats), v)
        assert grads.key_chains() == ["w"] and isinstance(grads.stats, Container)
        new = ivy.SGD(0.5).step(v, grads)
    assert isinstance(new.stats, Container) and not new.stats
    np.testing.assert_allclose(ivy.to_numpy(new.w), [0.0, 0.0])
