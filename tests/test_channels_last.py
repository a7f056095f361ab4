"""The `channels-last` pass: programs compute the same before and after it, and the
permutes between consecutive layers cancel."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import ivy
import ivy_ir
from ivy_ir.passes import run_pipeline


def _count(module: ivy_ir.Module, name: str) -> int:
    return sum(1 for op in module.entry.walk() if op.name == f"ivy.{name}")


def _same_after_the_pass(fn, p, x):
    """The program after `channels-last`, and its value, checked equal to before."""
    before = ivy_ir.trace(fn, (x,), params=p)
    after = run_pipeline(before, "channels-last")
    want = ivy_ir.lower(before, "numpy")(x)
    np.testing.assert_allclose(ivy_ir.lower(after, "numpy")(x), want, rtol=1e-5, atol=1e-5)
    return after, want


def _activation_permutes(module: ivy_ir.Module) -> int:
    """Permutes of anything but a parameter (the weights' are parameter work)."""
    weights = set(module.entry.body.block.args[1:])
    return sum(1 for op in module.entry.walk()
               if op.name == "ivy.permute_dims" and op.operands[0] not in weights)


def resnet_block(p, x):
    h = ivy.conv(x, p["c1"], strides=[1, 1], padding=[1, 1, 1, 1], dilations=[1, 1])
    h = ivy.relu(ivy.batch_norm(h, p["mean"], p["var"], p["scale"], p["shift"]))
    h = ivy.conv(h, p["c2"], strides=[1, 1], padding=[1, 1, 1, 1], dilations=[1, 1])
    h = ivy.relu(h + x)  # residual: both operands permuted alike
    h = ivy.avg_pool(h, kernel=[2, 2], strides=[2, 2], padding=[0, 0, 0, 0])
    h = ivy.interpolate(h, size=[8, 8], mode="bilinear")
    return ivy.adaptive_avg_pool(h, output_size=[2, 2]) * p["gain"]  # broadcasts: stays


@pytest.fixture
def block():
    rng = np.random.default_rng(0)
    f32 = np.float32
    p = {"c1": rng.standard_normal((4, 4, 3, 3)).astype(f32) / 6,
         "c2": rng.standard_normal((4, 4, 3, 3)).astype(f32) / 6,
         "mean": rng.standard_normal(4).astype(f32), "var": rng.uniform(0.5, 2, 4).astype(f32),
         "scale": rng.standard_normal(4).astype(f32), "shift": rng.standard_normal(4).astype(f32),
         "gain": rng.standard_normal((4, 1, 1)).astype(f32)}
    return p, rng.standard_normal((2, 4, 8, 8)).astype(f32)


def test_same_results_and_fewer_permutes(block):
    p, x = block
    before = ivy_ir.trace(resnet_block, (x,), params=p)
    after = run_pipeline(before, "channels-last")
    want = ivy_ir.lower(before, "numpy")(x)
    np.testing.assert_allclose(ivy_ir.lower(after, "numpy")(x), want, rtol=1e-5, atol=1e-6)
    assert _count(before, "permute_dims") == 0
    # x once (the residual add reuses it), the two weights, and one back to
    # channels-first before the multiply that broadcasts a (C, 1, 1) gain
    assert _count(after, "permute_dims") == 4
    assert all(op.attr_values().get("layout") in (None, "channels_last")
               for op in after.entry.walk() if hasattr(op, "attr_values"))


@pytest.mark.parametrize("target", ["tensorflow", "torch", "jax"])
def test_targets_agree_after_the_pass(block, target):
    p, x = block
    after = run_pipeline(ivy_ir.trace(resnet_block, (x,), params=p), "channels-last")
    want = ivy_ir.lower(after, "numpy")(x)
    got = ivy_ir.lower(after, target)(x)
    got = got.detach().numpy() if hasattr(got, "detach") else np.asarray(got)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def mobile_block(p, x):
    """A MobileNetV3 block as the importers decompose it: hardswish is x * f(x) (the
    permuted x used twice), the squeeze-excite gate a keepdims mean and 1x1 convs, and
    0-d constants broadcast in the activations."""
    conv = dict(strides=[1, 1], padding=[1, 1, 1, 1], dilations=[1, 1])
    h = ivy.conv(x, p["dw"], groups=4, **conv)
    h = h * ivy.clip(h / 6.0 + 0.5, 0.0, 1.0)  # hardswish
    s = ivy.mean(h, axis=(2, 3), keepdims=True)
    s = ivy.relu(ivy.conv(s, p["fc1"], strides=[1, 1], padding=[0, 0, 0, 0], dilations=[1, 1]))
    s = ivy.conv(s, p["fc2"], strides=[1, 1], padding=[0, 0, 0, 0], dilations=[1, 1])
    h = h * ivy.clip(s / 6.0 + 0.5, 0.0, 1.0)  # the gate, a hardsigmoid
    return x + ivy.conv(h, p["pw"], strides=[1, 1], padding=[0, 0, 0, 0], dilations=[1, 1])


def test_permutes_sink_through_shared_uses_scalars_and_keepdims_means():
    rng = np.random.default_rng(1)
    f32 = np.float32
    p = {"dw": rng.standard_normal((4, 1, 3, 3)).astype(f32),
         "fc1": rng.standard_normal((2, 4, 1, 1)).astype(f32),
         "fc2": rng.standard_normal((4, 2, 1, 1)).astype(f32),
         "pw": rng.standard_normal((4, 4, 1, 1)).astype(f32)}
    x = rng.standard_normal((2, 4, 6, 6)).astype(f32)
    after, want = _same_after_the_pass(mobile_block, p, x)
    # x in (used by the depthwise conv and the residual add) and the sum out: the
    # hardswish, the gate and the mean take the permutes through instead of undoing them
    assert _activation_permutes(after) == 2
    got = ivy_ir.lower(after, "tensorflow")(x)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-4, atol=1e-5)


def dense_fire_block(p, x):
    """SqueezeNet's fire module (two expands concatenated on the channels) feeding a
    DenseNet-style reuse: the module's input and output concatenated again, the
    concat also read by a batch norm."""
    conv = dict(dilations=[1, 1])
    s = ivy.relu(ivy.conv(x, p["sq"], strides=[1, 1], padding=[0, 0, 0, 0], **conv))
    e1 = ivy.conv(s, p["e1"], strides=[1, 1], padding=[0, 0, 0, 0], **conv)
    e3 = ivy.conv(s, p["e3"], strides=[1, 1], padding=[1, 1, 1, 1], **conv)
    fire = ivy.relu(ivy.concat([e1, e3], axis=1))
    dense = ivy.concat([x, fire], axis=-3)
    h = ivy.relu(ivy.batch_norm(dense, p["mean"], p["var"]))
    return ivy.conv(h, p["out"], strides=[1, 1], padding=[1, 1, 1, 1], **conv) + \
        ivy.mean(dense, axis=(1,), keepdims=True)


def test_permutes_sink_through_concatenations():
    rng = np.random.default_rng(2)
    f32 = np.float32
    p = {"sq": rng.standard_normal((2, 4, 1, 1)).astype(f32),
         "e1": rng.standard_normal((3, 2, 1, 1)).astype(f32),
         "e3": rng.standard_normal((3, 2, 3, 3)).astype(f32),
         "mean": rng.standard_normal(10).astype(f32),
         "var": rng.uniform(0.5, 2, 10).astype(f32),
         "out": rng.standard_normal((5, 10, 3, 3)).astype(f32) / 6}
    x = rng.standard_normal((2, 4, 6, 6)).astype(f32)
    after, want = _same_after_the_pass(dense_fire_block, p, x)
    # x in (read by the squeeze conv and the outer concat) and the sum out
    assert _activation_permutes(after) == 2
    assert [op.attr_values()["axis"] for op in after.entry.walk()
            if op.name == "ivy.concat"] == [3, 3]
    for target in ("jax", "tensorflow"):
        got = np.asarray(ivy_ir.lower(after, target)(x))
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4, err_msg=target)


def shuffle_block(p, x):
    """ShuffleNet's unit core: a grouped 1x1 conv, the channel shuffle (reshape to
    (N, g, C/g, H, W), swap, reshape back), a depthwise conv; then ViT's patch
    embedding (flatten the spatial axes, tokens first)."""
    conv = dict(strides=[1, 1], dilations=[1, 1])
    h = ivy.relu(ivy.conv(x, p["g"], groups=2, padding=[0, 0, 0, 0], **conv))
    n, c, hh, ww = h.shape
    h = ivy.reshape(ivy.permute_dims(ivy.reshape(h, (n, 2, c // 2, hh, ww)), (0, 2, 1, 3, 4)),
                    (n, c, hh, ww))
    h = ivy.conv(h, p["dw"], groups=c, padding=[1, 1, 1, 1], **conv)
    tokens = ivy.permute_dims(ivy.reshape(h, (n, c, hh * ww)), (0, 2, 1))
    return tokens * 2.0


def test_permutes_sink_through_reshapes_that_keep_channels_together():
    rng = np.random.default_rng(3)
    f32 = np.float32
    p = {"g": rng.standard_normal((6, 2, 1, 1)).astype(f32),
         "dw": rng.standard_normal((6, 1, 3, 3)).astype(f32)}
    x = rng.standard_normal((2, 4, 5, 5)).astype(f32)
    after, want = _same_after_the_pass(shuffle_block, p, x)
    # x in and the shuffle's swap: the shuffle and the patch tokens need no permute back
    assert _activation_permutes(after) == 2
    for target in ("jax", "tensorflow"):
        got = np.asarray(ivy_ir.lower(after, target)(x))
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4, err_msg=target)


@st.composite
def permuted_reshapes(draw):
    """A permute of a random shape, then a reshape that merges runs of its axes and
    splits others into factors, and maybe a permute after it."""
    shape = draw(st.lists(st.integers(1, 4), min_size=1, max_size=4))
    p = draw(st.permutations(range(len(shape))))
    out: list[int] = []
    for d in (shape[i] for i in p):
        if out and draw(st.booleans()):
            out[-1] *= d
        elif d == 4 and draw(st.booleans()):
            out += [2, 2]
        else:
            out.append(d)
    after = draw(st.none() | st.permutations(range(len(out))))
    return shape, list(p), out, after


@given(permuted_reshapes())
@example(([2, 3, 4], [2, 1, 0], [12, 2], [1, 0]))  # the order within the merged run stays
def test_reshapes_of_permutes_compute_the_same(case):
    shape, p, out, after = case

    def fn(params, x):
        y = ivy.reshape(ivy.permute_dims(x, p), out)
        return y if after is None else ivy.permute_dims(y, after)

    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    moved, want = _same_after_the_pass(fn, {}, x)
    assert _count(moved, "permute_dims") <= (1 if after is None else 2)
