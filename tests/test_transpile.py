"""`ivy.transpile`, `ivy.unify`, `ivy.trace_graph`: what each target's user gets back
(an `nn.Module`, a `(params, apply)` pair, a Keras layer, an ivy function), checked
against the source model's outputs, parameter names and gradients, and keyword inputs
(`backbone(images=x)`) on every source."""

from __future__ import annotations

import numpy as np
import pytest

import ivy

torch = pytest.importorskip("torch")
jax = pytest.importorskip("jax")
tf = pytest.importorskip("tensorflow")
jnp = jax.numpy

X = np.random.default_rng(0).standard_normal((2, 3, 8, 8)).astype(np.float32)


class Net(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3)
        self.bn = torch.nn.BatchNorm2d(4)
        self.head = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.GELU(),
                                        torch.nn.Linear(8, 2))

    def forward(self, images, scale: float = 1.0):
        return self.head(self.bn(self.conv(images)).mean((2, 3))) * scale


@pytest.fixture(scope="module")
def net():
    torch.manual_seed(0)
    model = Net()
    with torch.no_grad():  # non-trivial statistics, so a dropped buffer shows
        model.bn.running_mean.uniform_(-1, 1)
        model.bn.running_var.uniform_(0.5, 2)
    return model.eval()


def _reference(net, x=X):
    return net(torch.from_numpy(x)).detach().numpy()


def _torch_grads(net, x=X):
    net.zero_grad()
    net(torch.from_numpy(x)).square().sum().backward()
    return {k: p.grad.numpy().copy() for k, p in net.named_parameters()}


def test_to_torch_is_an_nn_module_with_the_source_state_dict(net):
    module = ivy.transpile(net, source="torch", to="torch", args=(X,))
    assert isinstance(module, torch.nn.Module)
    assert list(module.state_dict()) == list(net.state_dict())
    np.testing.assert_allclose(module(images=torch.from_numpy(X)).detach().numpy(),
                               _reference(net), rtol=1e-5, atol=1e-6)
    # a source checkpoint loads into the result and changes what it computes
    twin = Net().eval()
    module.load_state_dict(twin.state_dict())
    np.testing.assert_allclose(module(torch.from_numpy(X)).detach().numpy(),
                               _reference(twin), rtol=1e-5, atol=1e-6)


def test_to_jax_is_a_params_apply_pair_shaped_like_the_source_tree(net):
    params, apply = ivy.transpile(net, source="torch", to="jax", args=(X,))
    assert set(params) == {"conv", "bn", "head"} and set(params["head"]) == {"0", "2"}
    # only what a gradient is taken for: batch-norm statistics are closed over
    assert set(params["bn"]) == {"weight", "bias"}
    x = jnp.asarray(X)
    np.testing.assert_allclose(np.asarray(jax.jit(apply)(params, images=x)), _reference(net),
                               rtol=1e-5, atol=1e-6)
    grads = jax.grad(lambda p: jnp.sum(apply(p, x) ** 2))(params)
    want = _torch_grads(net)
    for name, g in want.items():
        node = grads
        for part in name.split("."):
            node = node[part]
        np.testing.assert_allclose(np.asarray(node), g, rtol=1e-4, atol=1e-5, err_msg=name)
    batched = jax.vmap(lambda xi: apply(params, xi[None])[0])(x)
    np.testing.assert_allclose(np.asarray(batched), _reference(net), rtol=1e-5, atol=1e-6)


def test_to_tensorflow_is_a_keras_layer_trained_by_fit_and_gradient_tape(net):
    keras = pytest.importorskip("keras")
    layer = ivy.transpile(net, source="torch", to="tensorflow", args=(X,))
    assert isinstance(layer, keras.layers.Layer)
    trainable = [n for n, p in net.named_parameters()]
    assert [w.name for w in layer.trainable_weights] == trainable
    x = tf.constant(X)
    np.testing.assert_allclose(layer(x).numpy(), _reference(net), rtol=1e-5, atol=1e-6)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(layer(x) ** 2)
    grads = tape.gradient(loss, layer.trainable_weights)
    for name, g, want in zip(trainable, grads, _torch_grads(net).values()):
        np.testing.assert_allclose(g.numpy(), want, rtol=1e-4, atol=1e-5, err_msg=name)
    model = keras.Sequential([keras.Input((3, 8, 8)), layer])
    model.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse")
    target = np.zeros((2, 2), np.float32)
    before = float(model.evaluate(X, target, verbose=0))
    model.fit(X, target, epochs=5, batch_size=2, verbose=0)
    assert float(model.evaluate(X, target, verbose=0)) < before


def test_sgd_steps_in_the_target_track_the_source(net):
    """Twenty SGD steps on JAX follow twenty on torch (losses within 1e-3)."""
    source = Net().eval()
    source.load_state_dict(net.state_dict())
    params, apply = ivy.transpile(source, source="torch", to="jax", args=(X,))
    opt = torch.optim.SGD(source.parameters(), lr=0.01)
    x = jnp.asarray(X)
    step = jax.jit(jax.value_and_grad(lambda p: jnp.mean(apply(p, x) ** 2)))
    for _ in range(20):
        opt.zero_grad()
        want = source(torch.from_numpy(X)).square().mean()
        want.backward()
        opt.step()
        loss, grads = step(params)
        params = jax.tree_util.tree_map(lambda p, g: p - 0.01 * g, params, grads)
        assert abs(float(loss) - float(want)) < 1e-3 * max(1.0, float(want))


def test_keyword_inputs_work_on_every_source_and_target():
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    sources = {
        "jax": lambda images, scale=2.0: jnp.sin(images) * scale,
        "tensorflow": lambda images, scale=2.0: tf.sin(images) * scale,
        "numpy": lambda images, scale=2.0: np.sin(images) * scale,
        "ivy": lambda images, scale=2.0: ivy.sin(images) * scale,
        "torch": lambda images, scale=2.0: torch.sin(images) * scale,
    }
    for source, fn in sources.items():
        for to in ("numpy", "jax"):
            out = ivy.transpile(fn, source=source, to=to, kwargs={"images": x, "scale": 3.0})
            got = out(images=2 * x)  # an input, not a constant baked in at trace time
            np.testing.assert_allclose(np.asarray(got), np.sin(2 * x) * 3, rtol=1e-6,
                                       err_msg=f"{source} -> {to}")


def test_a_compiled_call_names_unknown_and_missing_keyword_inputs():
    out = ivy.transpile(lambda images, mask: images * mask, source="numpy", to="numpy",
                        kwargs={"images": X, "mask": X})
    with pytest.raises(TypeError, match="unexpected keyword argument 'imgs'.*images, mask"):
        out(imgs=X)
    with pytest.raises(TypeError, match="missing input.*mask"):
        out(images=X)


def test_lazy_transpile_compiles_per_signature():
    fn = ivy.transpile(lambda x, k: torch.nn.functional.avg_pool2d(x, k), source="torch",
                       to="jax")
    out = fn(jnp.asarray(X), 2)
    np.testing.assert_allclose(np.asarray(out), X.reshape(2, 3, 4, 2, 4, 2).mean((3, 5)),
                               rtol=1e-6)
    fn(jnp.asarray(X), 2)
    fn(jnp.asarray(X), 4)
    assert fn.cache_info() == (1, 2, 2)


def test_haiku_backbone_to_torch_as_the_paper_writes_it():
    """The 2023 paper: a Haiku `hk.Transformed` with `params_v` and keyword inputs,
    transpiled to torch and called as `backbone(images=x)` inside an `nn.Module`."""
    hk = pytest.importorskip("haiku")

    def forward(images):
        return hk.nets.MLP([16, 4])(images.reshape(images.shape[0], -1))
    transformed = hk.transform(forward)
    x = X[:, :, :4, :4].copy()
    params = transformed.init(jax.random.PRNGKey(0), images=jnp.asarray(x))
    backbone = ivy.transpile(transformed, source="jax", to="torch", params_v=params,
                             kwargs={"images": x})

    class Classifier(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.backbone = backbone
            self.fc = torch.nn.Linear(4, 2)

        def forward(self, x):
            return self.fc(self.backbone(images=x))
    model = Classifier()
    want = np.asarray(transformed.apply(params, None, images=jnp.asarray(x)))
    np.testing.assert_allclose(backbone(images=torch.from_numpy(x)).detach().numpy(), want,
                               rtol=1e-5, atol=1e-6)
    model(torch.from_numpy(x)).sum().backward()
    assert sorted(n for n, _ in model.named_parameters()) == [
        "backbone.mlp/~/linear_0.b", "backbone.mlp/~/linear_0.w", "backbone.mlp/~/linear_1.b",
        "backbone.mlp/~/linear_1.w", "fc.bias", "fc.weight"]
    backbone.zero_grad()
    backbone(images=torch.from_numpy(x)).sum().backward()
    want_grads = jax.grad(lambda p: transformed.apply(p, None, images=jnp.asarray(x)).sum())(
        params)
    for name, p in backbone.named_parameters():
        module, leaf = name.rsplit(".", 1)
        np.testing.assert_allclose(p.grad.numpy(), np.asarray(want_grads[module][leaf]),
                                   rtol=1e-5, atol=1e-6, err_msg=name)


def test_unify_runs_any_framework_code_under_every_backend(net):
    unified = ivy.unify(net, source="torch", args=(X,))
    assert "ivy.conv" in str(unified)
    for backend in ("numpy", "torch", "jax", "tensorflow"):
        with ivy.with_backend(backend):
            got = ivy.to_numpy(unified(ivy.asarray(X)))
        np.testing.assert_allclose(got, _reference(net), rtol=1e-5, atol=1e-6, err_msg=backend)
    with ivy.with_backend("torch"):  # another batch size retraces on that backend
        got = ivy.to_numpy(unified(ivy.asarray(X[:1])))
    np.testing.assert_allclose(got, _reference(net, X[:1]), rtol=1e-5, atol=1e-6)


def test_trace_graph_is_a_callable_graph_in_the_source_framework(net):
    graph = ivy.trace_graph(net, args=(X,))
    assert graph.target == "torch" and "ivy.conv" in graph.ir
    np.testing.assert_allclose(graph(torch.from_numpy(X)).detach().numpy(), _reference(net),
                               rtol=1e-5, atol=1e-6)
    facade = ivy.trace_graph(lambda a: ivy.exp(a) * 2, args=(X,))
    assert "ivy.exp" in str(facade)
    with ivy.with_backend("jax"):
        np.testing.assert_allclose(np.asarray(facade(jnp.asarray(X))), np.exp(X) * 2,
                                   rtol=1e-6)


def test_transpile_refuses_an_unknown_target():
    with pytest.raises(ValueError, match="to='mxnet' is not one of"):
        ivy.transpile(lambda x: x, to="mxnet", args=(X,))


def test_lazy_transpile_to_torch_is_a_lazy_module_named_as_the_source(net):
    module = ivy.transpile(net, source="torch", to="torch")
    assert isinstance(module, torch.nn.Module) and list(module.parameters()) == []
    np.testing.assert_allclose(module(torch.from_numpy(X)).detach().numpy(), _reference(net),
                               rtol=1e-5, atol=1e-6)
    assert list(module.state_dict()) == list(net.state_dict())
    # one set of parameters for every signature: a step through another batch size
    # changes what the first signature computes
    opt = torch.optim.SGD(module.parameters(), lr=0.1)
    module(torch.from_numpy(X[:1])).sum().backward()
    opt.step()
    assert not np.allclose(module(torch.from_numpy(X)).detach().numpy(), _reference(net))


def test_tied_weights_stay_one_parameter_under_the_sources_names():
    """GPT-2 style: the head's weight is the embedding's. torch.export lifts both names
    and routes every use through one; the import keeps one parameter (the gradient of
    both uses lands on it) and the torch module lists both names, as the source does."""
    class Tied(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = torch.nn.Embedding(10, 4)
            self.head = torch.nn.Linear(4, 10, bias=False)
            self.head.weight = self.emb.weight

        def forward(self, ids):
            return self.head(self.emb(ids))
    torch.manual_seed(0)
    source, ids = Tied(), np.array([[1, 2, 3, 2]])
    module = ivy.transpile(source, source="torch", to="torch", args=(ids,))
    assert list(module.state_dict()) == ["emb.weight", "head.weight"]
    assert [n for n, _ in module.named_parameters()] == ["emb.weight"]
    assert module.emb.weight is module.head.weight
    params, apply = ivy.transpile(source, source="torch", to="jax", args=(ids,))
    assert list(params) == ["emb"]
    grad = jax.grad(lambda p: jnp.sum(apply(p, jnp.asarray(ids)) ** 2))(params)
    source(torch.from_numpy(ids)).square().sum().backward()
    np.testing.assert_allclose(np.asarray(grad["emb"]["weight"]), source.emb.weight.grad.numpy(),
                               rtol=1e-5, atol=1e-6)


def test_the_jax_pair_trains_with_optax(net):
    optax = pytest.importorskip("optax")
    params, apply = ivy.transpile(net, source="torch", to="jax", args=(X,))
    x, target = jnp.asarray(X), jnp.zeros((2, 2))
    loss = jax.jit(lambda p: jnp.mean((apply(p, x) - target) ** 2))
    opt = optax.adam(1e-2)
    state = opt.init(params)
    start = float(loss(params))
    for _ in range(10):
        updates, state = opt.update(jax.grad(loss)(params), state, params)
        params = optax.apply_updates(params, updates)
    assert float(loss(params)) < 0.5 * start


def test_lazy_transpile_to_jax_is_flax_init_and_apply(net):
    pair = ivy.transpile(net, source="torch", to="jax")
    with pytest.raises(AttributeError, match="not compiled yet"):
        pair.buffers  # noqa: B018 (the property raises)
    params = pair.init(jnp.asarray(X))
    assert sorted(lowerings_flat(params)) == sorted(k for k, _ in net.named_parameters())
    apply = jax.jit(pair.apply)
    np.testing.assert_allclose(np.asarray(apply(params, jnp.asarray(X))), _reference(net),
                               rtol=1e-5, atol=1e-6)
    # another batch size under jit compiles its own entry on the same parameters
    np.testing.assert_allclose(np.asarray(apply(params, jnp.asarray(X[:1]))),
                               _reference(net, X[:1]), rtol=1e-5, atol=1e-6)
    grads = jax.grad(lambda p: jnp.square(pair.apply(p, jnp.asarray(X))).sum())(params)
    want = _torch_grads(net)
    for name, g in lowerings_flat(grads).items():
        np.testing.assert_allclose(np.asarray(g), want[name], rtol=1e-4, atol=1e-5)
    assert sorted(lowerings_flat(pair.buffers)) == sorted(k for k, _ in net.named_buffers())


def test_lazy_transpile_to_tensorflow_is_a_keras_layer_built_on_its_first_call(net):
    keras = pytest.importorskip("keras")
    layer = ivy.transpile(net, source="torch", to="tensorflow")
    assert isinstance(layer, keras.layers.Layer) and layer.weights == []
    np.testing.assert_allclose(layer(tf.constant(X)).numpy(), _reference(net),
                               rtol=1e-5, atol=1e-6)
    assert sorted(w.name for w in layer.trainable_weights) == \
        sorted(k for k, _ in net.named_parameters())
    # in a functional model: the first call is symbolic (unknown batch size)
    inputs = keras.Input(X.shape[1:])
    model = keras.Model(inputs, ivy.transpile(net, source="torch", to="tensorflow")(inputs))
    np.testing.assert_allclose(model(X).numpy(), _reference(net), rtol=1e-5, atol=1e-6)
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    before = [w.numpy().copy() for w in model.trainable_weights]
    model.fit(X, np.zeros((2, 2), np.float32), epochs=1, verbose=0)
    assert any(not np.allclose(b, w.numpy()) for b, w in zip(before, model.trainable_weights))


def lowerings_flat(tree, prefix=""):
    """A nested parameter dict as {dotted name: leaf}."""
    out = {}
    for k, v in tree.items():
        if isinstance(v, dict):
            out.update(lowerings_flat(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out
