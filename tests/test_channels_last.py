"""The `channels-last` pass: programs compute the same before and after it, and the
permutes between consecutive layers cancel."""

from __future__ import annotations

import numpy as np
import pytest

import ivy
import ivy_ir
from ivy_ir.passes import run_pipeline


def _count(module: ivy_ir.Module, name: str) -> int:
    return sum(1 for op in module.entry.walk() if op.name == f"ivy.{name}")


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
