"""The compiled object on framework targets: native parameters, modules, apply,
boundary conversion of NumPy inputs, retracing, options."""

from __future__ import annotations

import numpy as np
import pytest

import ivy
import ivy_ir


def model(p, x):
    return ivy.tanh(ivy.linear(x, p["fc"]["weight"], p["fc"]["bias"])) * p["scale"]


@pytest.fixture
def params():
    rng = np.random.default_rng(0)
    return {"fc": {"weight": rng.standard_normal((4, 3)).astype(np.float32),
                   "bias": rng.standard_normal(4).astype(np.float32)},
            "scale": np.float32(2.0) * np.ones(4, np.float32)}


@pytest.fixture
def x():
    return np.random.default_rng(1).standard_normal((5, 3)).astype(np.float32)


def _want(params, x):
    return np.tanh(x @ params["fc"]["weight"].T + params["fc"]["bias"]) * params["scale"]


def test_torch_params_module_and_devices(params, x):
    import torch

    c = ivy_ir.compile(model, target="torch", args=(x,), params=params)
    assert all(isinstance(v, torch.nn.Parameter) for v in c.params.values())
    assert sorted(c.module.state_dict()) == ["fc.bias", "fc.weight", "scale"]
    assert c.module.fc.weight is c.params["fc.weight"]
    y = c(x)  # NumPy in: converted once at the boundary
    assert isinstance(y, torch.Tensor)
    np.testing.assert_allclose(y.detach().numpy(), _want(params, x), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(c.module(torch.from_numpy(x)).detach().numpy(),
                               y.detach().numpy())
    c.module(torch.from_numpy(x)).sum().backward()
    assert c.params["fc.weight"].grad is not None


def test_torch_rejects_unknown_options(x):
    with pytest.raises(TypeError, match="takes no option.*jit_compile.*accepts: torch_compile"):
        ivy_ir.compile(lambda a: ivy.exp(a), target="torch", args=(x,), jit_compile=True)


def test_jax_params_are_a_pytree_and_apply_is_pure(params, x):
    import jax
    import jax.numpy as jnp

    c = ivy_ir.compile(model, target="jax", args=(x,), params=params)
    assert set(c.params) == {"fc.weight", "fc.bias", "scale"}
    assert all(isinstance(v, jax.Array) for v in c.params.values())
    np.testing.assert_allclose(np.asarray(c(x)), _want(params, x), rtol=1e-5, atol=1e-6)
    grads = jax.grad(lambda p: jnp.sum(c.apply(p, jnp.asarray(x))))(c.params)
    assert set(grads) == set(c.params) and grads["fc.weight"].shape == (4, 3)
    assert c.module is None


def test_tensorflow_variables_and_module(params, x):
    import tensorflow as tf

    c = ivy_ir.compile(model, target="tensorflow", args=(x,), params=params)
    assert all(isinstance(v, tf.Variable) and v.trainable for v in c.params.values())
    assert len(c.module.trainable_variables) == 3
    assert c.module.fc.weight is c.params["fc.weight"]
    np.testing.assert_allclose(c(x).numpy(), _want(params, x), rtol=1e-5, atol=1e-6)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(c.module(tf.constant(x)))
    grads = tape.gradient(loss, c.module.trainable_variables)
    assert all(g is not None for g in grads)


@pytest.mark.parametrize("target", ["numpy", "jax", "torch", "tensorflow"])
def test_native_inputs_of_other_shapes_retrace(target, x):
    c = ivy_ir.compile(lambda a: ivy.sum(ivy.exp(a), axis=[0]), target=target, args=(x,))
    bigger = np.ones((7, 2), np.float64)
    native = c.runtime.to_native(bigger)
    out = c(native)
    got = out.numpy() if hasattr(out, "numpy") else np.asarray(out)
    np.testing.assert_allclose(got, np.full(2, 7 * np.e))
    assert str(got.dtype) == "float64"


def test_buffers_are_not_trainable(x):
    import torch

    big = np.arange(32, dtype=np.float32).reshape(1, 32)  # closed over: a buffer

    def f(a):
        return ivy.matmul(a[:, :1], big)

    c = ivy_ir.compile(f, target="torch", args=(x,))
    (name,) = c.params
    assert not isinstance(c.params[name], torch.nn.Parameter)
    assert name in dict(c.module.named_buffers())


def test_buffers_argument_marks_statistics_non_trainable():
    import torch

    x = np.random.default_rng(3).standard_normal((2, 3, 4, 4)).astype(np.float32)
    stats = {"bn": {"mean": np.full(3, 0.5, np.float32), "var": np.full(3, 2.0, np.float32)}}
    weights = {"bn": {"weight": np.full(3, 3.0, np.float32)}}

    def f(p, a):
        return ivy.batch_norm(a, p["bn"]["mean"], p["bn"]["var"], p["bn"]["weight"])

    c = ivy_ir.compile(f, target="torch", args=(x,), params=weights, buffers=stats)
    assert "F.batch_norm(" in c.source  # the fused kernel, as the statistics are buffers
    assert sorted(dict(c.module.named_buffers())) == ["bn.mean", "bn.var"]
    assert [n for n, _ in c.module.named_parameters()] == ["bn.weight"]
    want = (x - 0.5) / np.sqrt(2.0 + 1e-5) * 3.0
    np.testing.assert_allclose(c(x).detach().numpy(), want, rtol=1e-5, atol=1e-6)
    assert isinstance(c.params["bn.weight"], torch.nn.Parameter)


def test_unsupported_dtype_is_refused_at_compile_time():
    from lowerings import LoweringError

    a = np.eye(3, dtype=np.float16)
    with pytest.raises(LoweringError, match=r"(?s)jax target cannot run.*ivy\.cholesky in "
                                            r"float16 at tests/test_targets_api\.py:\d+:\d+ "
                                            r"\(ops\.spec line \d+\)"):
        ivy_ir.compile(lambda m: ivy.cholesky(m), target="jax", args=(a,))
    c = ivy_ir.compile(lambda m: ivy.cholesky(m), target="torch", args=(a,))  # torch upcasts
    assert str(c(a).dtype) == "torch.float16"


@pytest.mark.parametrize("target", ["numpy", "jax", "torch", "tensorflow"])
@pytest.mark.parametrize("layout", ["channels_first", "channels_last"])
def test_adaptive_pool_even_and_uneven_windows(target, layout):
    x = np.random.default_rng(4).standard_normal((2, 3, 8, 6)).astype(np.float32)
    if layout == "channels_last":
        x = np.ascontiguousarray(np.moveaxis(x, 1, -1))
    ref = ivy_ir.compile(lambda a: ivy.adaptive_avg_pool(a, output_size=[3, 3], layout=layout),
                         "numpy", args=(x,))(x)  # 8 -> 3: uneven windows
    for size in ([4, 2], [3, 3]):
        c = ivy_ir.compile(lambda a, s=size: ivy.adaptive_avg_pool(a, output_size=s,
                                                                   layout=layout),
                           target, args=(x,))
        got = c(x)
        got = got.numpy() if hasattr(got, "numpy") else np.asarray(got)
        if size == [4, 2]:  # even windows: a mean over 2x3 blocks
            spatial = (1, 2) if layout == "channels_last" else (2, 3)
            blocks = x.reshape(x.shape[:spatial[0]] + (4, 2, 2, 3) + x.shape[spatial[1] + 1:])
            want = blocks.mean(axis=(spatial[0] + 1, spatial[0] + 3))
        else:
            want = ref
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def _block(a, w):
    h = ivy.conv(a, w, strides=[1, 1], padding=[1, 1, 1, 1], dilations=[1, 1])
    return ivy.softmax(ivy.gelu(ivy.max_pool(h, kernel=[2, 2], strides=[2, 2],
                                             padding=[0, 0, 0, 0])), axis=1)


@pytest.mark.parametrize("target,options", [("tensorflow", {"jit_compile": True}),
                                            ("torch", {"torch_compile": True})])
def test_framework_compilers(target, options):
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 3, 8, 8)).astype(np.float32)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    want = ivy_ir.compile(_block, "numpy", args=(x, w))(x, w)
    c = ivy_ir.compile(_block, target, args=(x, w), **options)
    got = c(x, w)
    got = got.numpy() if hasattr(got, "numpy") else np.asarray(got)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_backend_selects_the_default_target(x):
    with ivy.with_backend("torch"):
        assert ivy.current_backend() == "torch"
        c = ivy.compile(lambda a: ivy.exp(a), args=(x,))
        assert c.target == "torch" and "torch.exp(" in c.source
    assert ivy.current_backend() == "numpy"
    with pytest.raises(ValueError, match="unknown backend 'mxnet'"):
        ivy.set_backend("mxnet")


@pytest.mark.parametrize("target", ["numpy", "jax", "torch", "tensorflow"])
def test_attention_float_mask_of_another_dtype_keeps_q_dtype(target):
    rng = np.random.default_rng(8)
    q = rng.standard_normal((2, 5, 4)).astype(np.float32)
    mask = rng.standard_normal((5, 5))  # float64: adds in q's dtype

    def f(a, m):
        return ivy.scaled_dot_product_attention(a, a, a, m, causal=True)

    scores = q @ q.transpose(0, 2, 1) / 2.0 + mask.astype(np.float32)
    scores = np.where(np.tril(np.ones((5, 5), bool)), scores, -np.inf)
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    want = (weights / weights.sum(-1, keepdims=True)) @ q
    got = ivy_ir.compile(f, target, args=(q, mask))(q, mask)
    got = got.numpy() if hasattr(got, "numpy") else np.asarray(got)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_tensorflow_params_with_numeric_path_parts():
    """torch `nn.Sequential` and JAX param lists name weights `layers.0.w`."""
    p = {"layers": {"0": {"w": np.full((3, 3), 2, np.float32)}}}
    x = np.ones((2, 3), np.float32)
    c = ivy_ir.compile(lambda p, x: x @ p["layers"]["0"]["w"], target="tensorflow",
                       args=(x,), params=p)
    np.testing.assert_array_equal(c(x).numpy(), np.full((2, 3), 6, np.float32))
    assert list(c.params) == ["layers.0.w"]


@pytest.mark.parametrize("target", ["numpy", "jax", "torch", "tensorflow"])
def test_attention_rows_with_every_key_masked_give_zeros_and_finite_gradients(target):
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((2, 3, 4)) for _ in range(3))
    mask = np.ones((3, 3), bool)
    mask[1] = False
    c = ivy_ir.compile(lambda q, k, v, m: ivy.scaled_dot_product_attention(q, k, v, m),
                       target=target, args=(q, k, v, mask))
    out = c(q, k, v, mask)
    out = np.asarray(out.detach() if hasattr(out, "detach") else out)
    assert (out[:, 1] == 0).all() and np.isfinite(out).all()
    if target == "jax":
        import jax
        grad = jax.grad(lambda q: c(q, k, v, mask).sum())(q)
    elif target == "torch":
        import torch
        qt = torch.tensor(q, requires_grad=True)
        c(qt, torch.tensor(k), torch.tensor(v), torch.tensor(mask)).sum().backward()
        grad = qt.grad
    elif target == "tensorflow":
        import tensorflow as tf
        qt = tf.Variable(q)
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(c(qt, k, v, mask))
        grad = tape.gradient(y, qt)
    else:
        return
    grad = np.asarray(grad)
    assert np.isfinite(grad).all() and (grad[:, 1] == 0).all()


def test_trainable_params_leave_out_buffers_so_jax_grad_takes_them():
    """`jax.grad` refuses a tree with an integer leaf (batch norm's
    `num_batches_tracked`); `trainable_params` is the tree to differentiate, and
    `apply` fills in the buffers it leaves out."""
    import jax
    import jax.numpy as jnp
    import torch

    model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4)).eval()
    x = np.random.default_rng(4).standard_normal((2, 3, 6, 6)).astype(np.float32)
    c = ivy_ir.compile(model, target="jax", args=(x,))
    assert sorted(c.trainable_params) == ["0.bias", "0.weight", "1.bias", "1.weight"]
    assert sorted(c.buffers) == ["1.num_batches_tracked", "1.running_mean", "1.running_var"]
    np.testing.assert_allclose(c.apply(c.trainable_params, x), c(x), rtol=1e-6)
    grads = jax.grad(lambda p: jnp.sum(c.apply(p, x) ** 2))(c.trainable_params)
    (model(torch.tensor(x)) ** 2).sum().backward()
    for name, p in model.named_parameters():
        np.testing.assert_allclose(grads[name], p.grad.numpy(), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("rows", [(1,), (3, 5)])
def test_jax_linear_contracts_the_weight_without_transposing_it(rows):
    """On JAX `linear` is one `dot_general` over the weight's input axis: XLA's CPU
    backend copies a transposed weight per call (`x @ w.T`), 14x slower for one row."""
    rng = np.random.default_rng(0)
    w = rng.normal(size=(4, 6)).astype(np.float32)
    b = rng.normal(size=4).astype(np.float32)
    x = rng.normal(size=(*rows, 6)).astype(np.float32)
    c = ivy_ir.compile(lambda x: ivy.linear(x, w, b), target="jax", args=(x,))
    assert "dot_general" in c.source and ".T" not in c.source
    np.testing.assert_allclose(np.asarray(c(x)), x @ w.T + b, rtol=1e-5, atol=1e-6)
