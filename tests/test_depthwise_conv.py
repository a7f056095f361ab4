"""A depthwise convolution (groups == input channels) runs as TF's own depthwise kernel,
not one convolution per channel (MobileNets have dozens of them, and per-channel splits
made thousands of TF ops), and on JAX as shifted multiply-adds, not XLA's CPU grouped
convolution (~30x slower); a 1x1 convolution runs on JAX as a batched product over
channels (XLA's CPU convolution is 2-3x slower, its gradient 6-28x); other grouped
convolutions (and transposed ones) run on JAX as one convolution per group (XLA's
grouped convolution is 1.5-6x slower). Values and gradients as torch's."""

from __future__ import annotations

import numpy as np
import pytest

import ivy
import ivy_ir

torch = pytest.importorskip("torch")
tf = pytest.importorskip("tensorflow")

CASES = [  # (spatial, channels, multiplier, strides, dilations, padding, layout)
    ((7, 6), 3, 1, (1, 1), (1, 1), (1, 1, 1, 1), "channels_first"),
    ((9, 8), 4, 2, (2, 2), (1, 1), (0, 1, 1, 0), "channels_first"),
    ((9, 8), 2, 1, (2, 1), (1, 1), (1, 1, 0, 0), "channels_last"),
    ((9, 9), 3, 2, (1, 1), (2, 1), (2, 2, 1, 1), "channels_first"),
    ((11,), 3, 2, (2,), (1,), (1, 1), "channels_first"),
    ((8, 7), 3, 2, (2, 1), (1, 2), (1, 0, 2, 2), "channels_last"),
    ((10,), 2, 3, (1,), (2,), (0, 2), "channels_last"),
]


@pytest.mark.parametrize("target", ["tensorflow", "jax"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_depthwise_conv_matches_torch(case, target):
    spatial, c, m, strides, dilations, padding, layout = CASES[case]
    rng = np.random.default_rng(case)
    x = rng.standard_normal((2, c, *spatial)).astype(np.float32)
    w = rng.standard_normal((c * m, 1, *(3,) * len(spatial))).astype(np.float32)
    b = rng.standard_normal(c * m).astype(np.float32)
    attrs = dict(strides=list(strides), padding=list(padding), dilations=list(dilations),
                 groups=c, layout=layout)
    _check_against_torch(x, w, b, attrs, target, "depthwise_conv(")


POINTWISE = [  # (spatial, in channels, out channels, groups, strides, layout, bias)
    ((5, 6), 8, 4, 1, (1, 1), "channels_first", True),
    ((7, 5), 6, 9, 3, (2, 1), "channels_first", False),
    ((6, 6), 8, 4, 1, (2, 2), "channels_last", True),
    ((5, 4), 6, 4, 2, (1, 1), "channels_last", True),
    ((9,), 4, 6, 2, (2,), "channels_first", True),
    ((3, 4, 5), 4, 3, 1, (1, 2, 1), "channels_first", False),
]


@pytest.mark.parametrize("case", range(len(POINTWISE)))
def test_pointwise_conv_is_a_product_on_jax(case):
    spatial, c, o, groups, strides, layout, bias = POINTWISE[case]
    rng = np.random.default_rng(case)
    x = rng.standard_normal((3, c, *spatial)).astype(np.float32)
    w = rng.standard_normal((o, c // groups, *(1,) * len(spatial))).astype(np.float32)
    b = rng.standard_normal(o).astype(np.float32) if bias else None
    attrs = dict(strides=list(strides), padding=[0] * 2 * len(spatial),
                 dilations=[1] * len(spatial), groups=groups, layout=layout)
    _check_against_torch(x, w, b, attrs, "jax", "pointwise_conv(")


GROUPED = [  # (spatial, in channels, out channels, groups, strides, dilations, layout)
    ((9, 8), 8, 6, 2, (1, 1), (1, 1), "channels_first"),
    ((9, 9), 6, 9, 3, (2, 1), (1, 2), "channels_last"),
    ((11,), 8, 8, 4, (2,), (1,), "channels_first"),
    ((5, 6, 4), 4, 6, 2, (1, 2, 1), (1, 1, 1), "channels_last"),
]


@pytest.mark.parametrize("case", range(len(GROUPED)))
def test_grouped_conv_runs_one_convolution_per_group_on_jax(case):
    spatial, c, o, groups, strides, dilations, layout = GROUPED[case]
    rng = np.random.default_rng(case)
    x = rng.standard_normal((2, c, *spatial)).astype(np.float32)
    w = rng.standard_normal((o, c // groups, *(3,) * len(spatial))).astype(np.float32)
    b = rng.standard_normal(o).astype(np.float32)
    attrs = dict(strides=list(strides), padding=[1, 0] * len(spatial),
                 dilations=list(dilations), groups=groups, layout=layout)
    _check_against_torch(x, w, b, attrs, "jax", "grouped_conv(")


@pytest.mark.parametrize("layout", ["channels_first", "channels_last"])
def test_grouped_conv_transpose_runs_one_convolution_per_group_on_jax(layout):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 6, 5, 4)).astype(np.float32)
    w = rng.standard_normal((6, 2, 3, 3)).astype(np.float32)  # (in, out / groups, kH, kW)
    attrs = dict(strides=[2, 2], padding=[1, 1, 1, 1], output_padding=[1, 1],
                 dilations=[1, 1], groups=3, layout=layout)
    compiled = _check_against_torch(x, w, None, attrs, "jax", "grouped_conv(")
    assert "feature_group_count" not in compiled.source


def _check_against_torch(x, w, b, attrs, target, kernel):
    """`ivy.conv` (or `ivy.conv_transpose`, when attrs has output_padding) compiled for
    target, its values and gradients against torch's; the compiled program."""
    n = x.ndim - 2
    xt, wt = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    bt = None if b is None else torch.tensor(b)
    padding, transpose = attrs["padding"], "output_padding" in attrs
    if transpose:
        assert padding[::2] == padding[1::2]  # torch's transposed padding is symmetric
        conv = [torch.nn.functional.conv_transpose1d, torch.nn.functional.conv_transpose2d,
                torch.nn.functional.conv_transpose3d][n - 1]
        want = conv(xt, wt, bt, attrs["strides"], padding[::2], attrs["output_padding"],
                    attrs["groups"], attrs["dilations"])
    else:
        conv = [torch.nn.functional.conv1d, torch.nn.functional.conv2d,
                torch.nn.functional.conv3d][n - 1]
        pads = [p for i in reversed(range(n)) for p in padding[2 * i:2 * i + 2]]
        want = conv(torch.nn.functional.pad(xt, pads), wt, bt, attrs["strides"],
                    dilation=attrs["dilations"], groups=attrs["groups"])
    (want ** 2).sum().backward()
    last = attrs["layout"] == "channels_last"
    if last:
        x, w = np.moveaxis(x, 1, -1), np.moveaxis(w, (0, 1), (-1, -2))
    op = ivy.conv_transpose if transpose else ivy.conv

    def f(x, w, *b):
        return op(x, w, *b or [None], **attrs)
    rest = () if b is None else (b,)
    compiled = ivy_ir.compile(f, target=target, args=(x, w, *rest))
    assert kernel in compiled.source
    got, dx, dw = (_tf_grads if target == "tensorflow" else _jax_grads)(compiled, x, w, rest)
    if last:
        got, dx = np.moveaxis(np.asarray(got), -1, 1), np.moveaxis(np.asarray(dx), -1, 1)
        dw = np.moveaxis(np.asarray(dw), (-1, -2), (0, 1))
    np.testing.assert_allclose(np.asarray(got), want.detach().numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np.asarray(dx), xt.grad.numpy(), rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(np.asarray(dw), wt.grad.numpy(), rtol=1e-4, atol=1e-3)
    return compiled


def _tf_grads(compiled, x, w, rest):
    xv, wv = tf.Variable(x), tf.Variable(w)
    with tf.GradientTape() as tape:
        got = compiled(xv, wv, *rest)
        loss = tf.reduce_sum(got ** 2)
    return (got, *tape.gradient(loss, [xv, wv]))


def _jax_grads(compiled, x, w, rest):
    import jax

    def loss(x, w):
        return (compiled.apply(compiled.params, x, w, *rest) ** 2).sum()
    return (compiled(x, w, *rest), *jax.grad(loss, argnums=(0, 1))(x, w))
