"""The stateful layers (ivy/layers*.py) against each framework's own layer.

Each check copies a reference layer's parameters into the ivy layer, runs both on the
same input and compares the output and the gradients of sum(output * probe) with
respect to the input and every weight: ivy's through `ivy.execute_with_gradients` on
the reference's backend (torch autograd, `jax.value_and_grad`, `tf.GradientTape`), the
reference's through its framework's own autodiff. This file holds the helpers and
the dense, convolution, pooling and normalization layers; test_ivy_layers_more.py
reuses the helpers for the rest (recurrent, attention, embedding, dropout, sequential,
activations) and the initializers.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import flax.linen as fnn
import jax
import keras
import numpy as np
import pytest
import tensorflow as tf
import torch

import ivy
from ivy.container import Container
from ivy.layers import Linear
from ivy.layers_conv import (
    AvgPool2D,
    Conv1D,
    Conv2D,
    Conv2DTranspose,
    Conv3D,
    DepthwiseConv2D,
    MaxPool2D,
)
from ivy.layers_norm import BatchNorm2D, LayerNorm

Result = tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]
"""(output, d loss / d input, {weight name: d loss / d weight}) as host arrays."""
Weights = dict[str, np.ndarray]
Getter = Callable[[Weights], np.ndarray]
Mapping = dict[str, Getter | tuple[Getter, Getter]]
"""ivy key chain -> how its value is made from the reference's weights by name, and
its expected gradient from theirs: one function when it serves both (a transpose or
a reshape moves values and gradients alike), else a (value, gradient) pair."""



def SAME(a: np.ndarray) -> np.ndarray:
    return a


def T(a: np.ndarray) -> np.ndarray:
    return a.T


def get(name: str, f: Callable[[np.ndarray], np.ndarray] = SAME) -> Getter:
    return lambda weights: f(weights[name])


def host(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def probe(shape: Any) -> np.ndarray:
    """The fixed weights of the scalar loss sum(output * probe), so that every output
    entry reaches the gradients with its own weight."""
    return host(*(int(d) for d in shape), seed=99)


def npy(x: Any) -> np.ndarray:
    return x.detach().numpy() if isinstance(x, torch.Tensor) else np.asarray(x)


def assert_close(actual: Any, expected: Any, rtol: float = 1e-5) -> None:
    actual, expected = npy(actual), npy(expected)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    scale = max(1.0, float(np.abs(expected).max(initial=0.0)))
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=rtol * scale)


def load(layer: ivy.Module, values: dict[str, Any]) -> None:
    """Replace the layer's variables by `values`, which must name exactly its key
    chains with its shapes (so the documented layout is what is tested)."""
    current = layer.v.flatten()
    assert set(values) == set(current), (sorted(values), sorted(current))
    for kc, value in values.items():
        assert tuple(current[kc].shape) == np.shape(value), (kc, current[kc].shape)
    layer.v = Container.unflatten({kc: ivy.variable(ivy.asarray(np.asarray(v, np.float32)))
                                   for kc, v in values.items()})


def run_ivy(backend: str, make: Callable[[], ivy.Module], weights: dict[str, Any],
            x: np.ndarray, pick: Callable[[Any], Any] = SAME, **call: Any) -> Result:
    with ivy.with_backend(backend):
        layer = make()
        load(layer, weights)
        call = {k: ivy.asarray(a) if isinstance(a, np.ndarray) else a for k, a in call.items()}

        def loss(c: Container) -> tuple[Any, Any]:
            out = pick(layer(c.x, v=c.get("v"), **call))  # no "v" when it is empty
            return ivy.sum(out * ivy.asarray(probe(out.shape))), out
        _, grads, out = ivy.execute_with_gradients(loss, Container(x=ivy.asarray(x),
                                                                   v=layer.v))
        return npy(out), npy(grads.x), {kc: npy(g) for kc, g in
                                        grads.get("v", Container()).flatten().items()}


def run_torch(module: torch.nn.Module, x: np.ndarray,
              forward: Callable[[Any], Any] | None = None) -> tuple[Result, dict]:
    module.zero_grad(set_to_none=True)  # each call's own gradients, not a running sum
    xt = torch.tensor(x, requires_grad=True)
    out = (forward or module)(xt)
    (out * torch.tensor(probe(out.shape))).sum().backward()
    params = dict(module.named_parameters())
    return ((npy(out), npy(xt.grad), {n: npy(p.grad) for n, p in params.items()}),
            {n: npy(p) for n, p in params.items()})


def run_keras(layer: keras.layers.Layer, x: np.ndarray, **call: Any) -> tuple[Result, dict]:
    xt = tf.constant(x)
    layer(xt, **call)  # builds the weights
    weights = {w.name: w for w in layer.weights}
    values = {n: w.numpy() for n, w in weights.items()}  # before any update in the call
    with tf.GradientTape() as tape:
        tape.watch(xt)
        out = layer(xt, **call)
        loss = tf.reduce_sum(out * probe(out.shape))
    trainable = [w for w in weights.values() if w.trainable]
    grads = tape.gradient(loss, [xt, *trainable])
    return ((npy(out), npy(grads[0]), {w.name: npy(g) for w, g in zip(trainable, grads[1:])}),
            values)


def flat(tree: Any, prefix: str = "") -> dict[str, np.ndarray]:
    if isinstance(tree, dict):
        return {k: v for key, sub in tree.items() for k, v in flat(sub, f"{prefix}{key}/").items()}
    return {prefix[:-1]: np.asarray(tree)}


def run_flax(module: fnn.Module, x: np.ndarray) -> tuple[Result, dict]:
    params = module.init(jax.random.PRNGKey(0), x)["params"]

    def loss(p: Any, xs: Any) -> tuple[Any, Any]:
        out = module.apply({"params": p}, xs)
        return (out * probe(out.shape)).sum(), out
    (_, out), (dp, dx) = jax.value_and_grad(loss, argnums=(0, 1), has_aux=True)(params, x)
    return (npy(out), npy(dx), flat(dp)), flat(params)


def check(backend: str, make: Callable[[], ivy.Module], reference: tuple[Result, dict],
          mapping: Mapping, x: np.ndarray, rtol: float = 1e-5, **call: Any) -> None:
    """Load the reference's weights through `mapping`, then compare output and all
    gradients (a weight's gradient maps like its value: transposes and reshapes)."""
    (out, dx, dw), values = reference
    getters = {kc: how if isinstance(how, tuple) else (how, how) for kc, how in mapping.items()}
    got = run_ivy(backend, make, {kc: value(values) for kc, (value, _) in getters.items()},
                  x, **call)
    assert_close(got[0], out, rtol)
    assert_close(got[1], dx, rtol)
    assert set(got[2]) == set(mapping)
    for kc, (_, grad) in getters.items():
        assert_close(got[2][kc], grad(dw), rtol)


# ---- Linear ----
LINEAR = {"w": get("weight"), "b": get("bias")}


def test_linear_matches_torch_keras_and_flax() -> None:
    x = host(4, 2, 5)
    check("torch", lambda: Linear(5, 3), run_torch(torch.nn.Linear(5, 3), x), LINEAR, x)
    check("tensorflow", lambda: Linear(5, 3), run_keras(keras.layers.Dense(3), x),
          {"w": get("kernel", T), "b": get("bias")}, x)
    check("jax", lambda: Linear(5, 3), run_flax(fnn.Dense(3), x),
          {"w": get("kernel", T), "b": get("bias")}, x)


def test_linear_without_bias_and_seeded_weights_agree_across_backends() -> None:
    x = host(3, 4)
    check("torch", lambda: Linear(4, 2, with_bias=False),
          run_torch(torch.nn.Linear(4, 2, bias=False), x), {"w": get("weight")}, x)
    made = {}
    for backend in ("numpy", "torch", "jax", "tensorflow"):
        with ivy.with_backend(backend):
            made[backend] = {kc: npy(a) for kc, a in Linear(4, 2, seed=7).v.flatten().items()}
    for values in made.values():
        assert values.keys() == {"w", "b"}
        assert_close(values["w"], made["numpy"]["w"], 0)
    with ivy.with_backend("numpy"):
        assert not np.array_equal(npy(Linear(4, 2, seed=8).v.w), made["numpy"]["w"])


# ---- convolutions (channels-last by default; torch's layout with channels_first) ----
CONV_T = {"w": get("weight"), "b": get("bias")}
CONV_K = {"w": get("kernel"), "b": get("bias")}


@pytest.mark.parametrize("options", [
    {"strides": 1, "padding": 1},
    {"strides": 2, "padding": "SAME"},
    {"strides": (2, 1), "padding": ((1, 2), (0, 1)), "dilations": (1, 2), "groups": 2},
])
def test_conv2d_matches_torch(options: dict[str, Any]) -> None:
    x = host(2, 4, 9, 8)
    torch_padding = options["padding"]
    if torch_padding == "SAME":  # torch's 'same' refuses strides: pad as TF does
        forward_pad, torch_padding = (0, 1, 1, 1), 0
    elif isinstance(torch_padding, tuple):
        forward_pad, torch_padding = (0, 1, 1, 2), 0
    else:
        forward_pad = (0, 0, 0, 0)
    ref = torch.nn.Conv2d(4, 6, 3, stride=options["strides"], padding=torch_padding,
                          dilation=options.get("dilations", 1), groups=options.get("groups", 1))
    check("torch", lambda: Conv2D(4, 6, 3, data_format="channels_first", **options),
          run_torch(ref, x, lambda t: ref(torch.nn.functional.pad(t, forward_pad))), CONV_T, x)


@pytest.mark.parametrize("padding,strides", [("SAME", 2), ("VALID", 1)])
def test_conv2d_matches_keras_and_flax(padding: str, strides: int) -> None:
    x = host(2, 7, 8, 3)
    make = partial(Conv2D, 3, 5, (3, 2), strides, padding)
    check("tensorflow", make, run_keras(keras.layers.Conv2D(5, (3, 2), strides, padding.lower()),
                                        x), CONV_K, x)
    check("jax", make, run_flax(fnn.Conv(5, (3, 2), strides, padding), x), CONV_K, x)


@pytest.mark.parametrize("conv,rank,reference", [(Conv1D, 1, torch.nn.Conv1d),
                                                 (Conv3D, 3, torch.nn.Conv3d)])
def test_conv1d_and_conv3d_match_torch(conv: type, rank: int, reference: type) -> None:
    x = host(2, 3, *(6,) * rank)
    ref = reference(3, 4, 3, stride=2, padding=1, dilation=1)
    check("torch", lambda: conv(3, 4, 3, 2, 1, data_format="channels_first"),
          run_torch(ref, x), CONV_T, x)
    flax_x = host(2, *(6,) * rank, 3)
    check("jax", lambda: conv(3, 4, 3, 1, "SAME"), run_flax(fnn.Conv(4, (3,) * rank), flax_x),
          CONV_K, flax_x)


def test_conv2d_transpose_matches_torch_and_keras() -> None:
    x = host(2, 4, 5, 6)
    ref = torch.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2)
    check("torch", lambda: Conv2DTranspose(4, 6, 3, 2, 1, output_padding=1, groups=2,
                                           data_format="channels_first"),
          run_torch(ref, x), CONV_T, x)
    x = host(2, 5, 6, 4)
    for padding, kernel in (("same", 3), ("valid", 3), ("same", 4), ("valid", 1)):
        ref = keras.layers.Conv2DTranspose(3, kernel, strides=2, padding=padding)
        check("tensorflow", partial(Conv2DTranspose, 4, 3, kernel, 2, padding.upper()),
              run_keras(ref, x), CONV_K, x)


def test_depthwise_conv2d_matches_keras_and_torch() -> None:
    x = host(2, 7, 7, 3)
    ref = keras.layers.DepthwiseConv2D(3, strides=2, padding="same", depth_multiplier=2)
    check("tensorflow", lambda: DepthwiseConv2D(3, 3, 2, 2, "SAME"), run_keras(ref, x),
          {"w": get("kernel", lambda k: k.reshape(3, 3, 1, 6)), "b": get("bias")}, x)
    x = host(2, 3, 7, 7)
    ref = torch.nn.Conv2d(3, 6, 3, padding=1, groups=3)
    check("torch", lambda: DepthwiseConv2D(3, 3, 2, padding=1, data_format="channels_first"),
          run_torch(ref, x), CONV_T, x)


# ---- pooling ----
def test_pools_match_torch_and_keras() -> None:
    x = host(2, 3, 8, 7)
    check("torch", lambda: MaxPool2D(3, 2, 1, data_format="channels_first"),
          run_torch(torch.nn.MaxPool2d(3, 2, 1), x), {}, x)
    check("torch", lambda: AvgPool2D(3, 2, 1, count_include_pad=True,
                                     data_format="channels_first"),
          run_torch(torch.nn.AvgPool2d(3, 2, 1), x), {}, x)
    x = host(2, 8, 7, 3)
    for padding in ("same", "valid"):
        check("tensorflow", partial(MaxPool2D, 3, 2, padding.upper()),
              run_keras(keras.layers.MaxPooling2D(3, 2, padding), x), {}, x)
        check("tensorflow", partial(AvgPool2D, (2, 3), (2, 1), padding.upper()),
              run_keras(keras.layers.AveragePooling2D((2, 3), (2, 1), padding), x), {}, x)


# ---- normalization ----
def test_layer_norm_matches_torch_keras_and_flax() -> None:
    x = host(3, 4, 5) * 3 + 1
    check("torch", lambda: LayerNorm((4, 5)),
          run_torch(torch.nn.LayerNorm((4, 5)), x, None), CONV_T, x)
    check("tensorflow", lambda: LayerNorm(5, eps=1e-3),
          run_keras(keras.layers.LayerNormalization(epsilon=1e-3, gamma_initializer="random_normal",
                                                    beta_initializer="random_normal"), x),
          {"w": get("gamma"), "b": get("beta")}, x)
    check("jax", lambda: LayerNorm(5, eps=1e-6),
          run_flax(fnn.LayerNorm(epsilon=1e-6, scale_init=fnn.initializers.normal(1.0),
                                 bias_init=fnn.initializers.normal(1.0)), x),
          {"w": get("scale"), "b": get("bias")}, x)
    check("torch", lambda: LayerNorm(5, elementwise_affine=False),
          run_torch(torch.nn.LayerNorm(5, elementwise_affine=False), x), {}, x)


def test_batch_norm_matches_torch_in_train_and_eval_with_running_stats() -> None:
    x, x2 = host(4, 3, 5, 5) * 2 + 1, host(4, 3, 5, 5, seed=1) - 1
    ref = torch.nn.BatchNorm2d(3, momentum=0.2)
    with torch.no_grad():
        ref.weight.copy_(torch.tensor(host(3, seed=2)))
        ref.bias.copy_(torch.tensor(host(3, seed=3)))
    make = partial(BatchNorm2D, 3, momentum=0.2, data_format="channels_first")
    check("torch", make, run_torch(ref, x), CONV_T, x)  # train mode: batch statistics
    with ivy.with_backend("torch"):
        layer = make()
        load(layer, {"w": npy(ref.weight), "b": npy(ref.bias)})
        layer(torch.tensor(x))
        assert not any(ivy.is_variable(s) for s in layer.stats.leaves())
        layer(torch.tensor(x2))
        ref(torch.tensor(x2))
        assert_close(layer.stats.mean, ref.running_mean)
        assert_close(layer.stats.var, ref.running_var)
        layer.eval()
        ref.eval()
        assert_close(layer(torch.tensor(x2)), ref(torch.tensor(x2)))
        assert "stats" not in layer.v and set(layer.v) == {"w", "b"}


def test_batch_norm_matches_keras_and_flax() -> None:
    x = host(4, 5, 5, 3) * 2 + 1
    keras_bn = keras.layers.BatchNormalization(momentum=0.9, epsilon=1e-5,
                                               gamma_initializer="random_normal")
    reference = run_keras(keras_bn, x, training=True)
    check("tensorflow", lambda: BatchNorm2D(3, momentum=0.1), reference,
          {"w": get("gamma"), "b": get("beta")}, x)
    with ivy.with_backend("tensorflow"):
        layer = BatchNorm2D(3, momentum=0.1)
        load(layer, {"w": keras_bn.gamma.numpy(), "b": keras_bn.beta.numpy()})
        layer(tf.constant(x))  # keras has taken two training steps on x, this one
        layer(tf.constant(x))
        assert_close(layer.stats.mean, keras_bn.moving_mean)
        layer.eval()
        layer.stats = Container(mean=tf.constant(keras_bn.moving_mean.numpy()),
                                var=tf.constant(keras_bn.moving_variance.numpy()))
        assert_close(layer(tf.constant(x)), keras_bn(x, training=False))
    flax_bn = fnn.BatchNorm(use_running_average=False, momentum=0.9, epsilon=1e-5)
    variables = flax_bn.init(jax.random.PRNGKey(0), x)
    out, updated = flax_bn.apply(variables, x, mutable=["batch_stats"])
    with ivy.with_backend("jax"):
        layer = BatchNorm2D(3, momentum=0.1)

        def loss(v: Container) -> tuple[Any, Any, Any]:  # the stats come back as extras
            y = layer(jax.numpy.asarray(x), v=v)
            return ivy.sum(y), y, layer.stats
        _, grads, y, stats = ivy.execute_with_gradients(loss, layer.v)
        layer.stats = stats
    assert_close(y, out)
    assert_close(stats.mean, updated["batch_stats"]["mean"])
    assert_close(grads.b, np.full(3, 4 * 5 * 5, np.float32))


# ---- the 2021 paper's model ----
class IvyFcModel(ivy.Module):
    def __init__(self):
        self.linear0 = Linear(3, 64)
        self.linear2 = Linear(64, 1)
        ivy.Module.__init__(self)

    def _forward(self, x):
        x = ivy.relu(self.linear0(x))
        return ivy.sigmoid(self.linear2(x))


def test_paper_fc_model_gives_one_output_on_every_backend() -> None:
    weights = {"linear0/w": host(64, 3), "linear0/b": host(64, seed=1),
               "linear2/w": host(1, 64, seed=2) / 4, "linear2/b": host(1, seed=3)}
    x, outputs = host(10, 3, seed=4), {}
    for backend in ("torch", "jax", "tensorflow"):
        with ivy.with_backend(backend):
            model = IvyFcModel()
            load(model, weights)
            outputs[backend] = npy(model(ivy.asarray(x)))
    assert outputs["torch"].shape == (10, 1) and np.isfinite(outputs["torch"]).all()
    assert 0.01 < outputs["torch"].std()  # not saturated: the comparison means something
    for out in outputs.values():
        np.testing.assert_allclose(out, outputs["torch"], rtol=0, atol=1e-6)
