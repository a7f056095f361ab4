"""`ivy_ir.compile(ivy_function, ..., dynamic=...)`: facade code traced once with
symbolic dims. `x.shape` gives the dims' sizes (`batch`, `2 * seq`), so the shape code
models write (`b, s, d = x.shape`, `reshape(..., (b, s, 2, d // 2))`, `ivy.ones((b, 1))`)
stays symbolic, and one program serves every size on every target."""

from __future__ import annotations

import numpy as np
import pytest

import ivy
import ivy_ir
from ivy_ir.core.dim_flow import DimError
from ivy_ir.dialect.symbolic import SymbolicError

TARGETS = ["numpy", "jax", "torch", "tensorflow", "onnx"]


def attention(x, w):
    b, s, d = x.shape
    q = ivy.permute_dims(ivy.reshape(ivy.matmul(x, w), (b, s, 2, d // 2)), (0, 2, 1, 3))
    a = ivy.softmax(ivy.matmul(q, ivy.matrix_transpose(q)) / 2.0, axis=-1)
    out = ivy.reshape(ivy.permute_dims(ivy.matmul(a, q), (0, 2, 1, 3)), (b, s, d))
    scale = ivy.full((b, 1), 0.5) + ivy.zeros((1, d))
    return ivy.concat([out, x], axis=1), ivy.mean(out, axis=1) * scale


def _numpy(v):
    return v.numpy() if hasattr(v, "numpy") else np.asarray(v)


@pytest.mark.parametrize("target", TARGETS)
def test_one_trace_of_facade_code_serves_every_batch_and_length(target):
    rng = np.random.default_rng(0)
    w = rng.standard_normal((8, 8)).astype(np.float32)
    x = rng.standard_normal((2, 5, 8)).astype(np.float32)
    compiled = ivy_ir.compile(attention, target=target, args=(x, w),
                              dynamic={"x": {0: "batch", 1: "seq"}})
    for b, s in ((1, 5), (3, 40), (17, 2)):
        x = rng.standard_normal((b, s, 8)).astype(np.float32)
        for got, want in zip(compiled(x, w), attention(x, w)):
            # float32 rounding is relative to the outputs' scale (~10 here): a value
            # near zero that is a difference of large ones differs by ~1e-6 of that
            scale = float(np.abs(want).max())
            np.testing.assert_allclose(_numpy(got), want, rtol=1e-5, atol=1e-6 * scale)
    assert compiled.traces == 1
    assert 'shape = ["batch", "seq", 2, 4]' in compiled.ir
    assert "// batch x 2 * seq x 8" in compiled.ir  # the concat's sum, named


def test_dynamic_true_names_dim_0_of_every_input_batch():
    def f(x, y):
        return ivy.reshape(x, (x.shape[0], -1)) + y

    compiled = ivy_ir.compile(f, args=(np.ones((2, 3, 4)), np.ones((2, 12))), dynamic=True)
    assert 'ivy.dims = ["batch", "", ""]' in compiled.ir
    x, y = np.arange(5 * 12.0).reshape(5, 3, 4), np.ones((5, 12))
    np.testing.assert_allclose(compiled(x, y), f(x, y))


def test_python_code_cannot_branch_on_a_dynamic_size():
    def branchy(x):
        return x * 2 if x.shape[0] > 3 else x

    def loopy(x):
        return ivy.stack([x[i] for i in range(x.shape[0])])

    for f, what in ((branchy, "compare"), (loopy, "shape arithmetic")):
        with pytest.raises(SymbolicError, match=f"dynamic size 'batch'.*{what}"):
            ivy_ir.compile(f, args=(np.ones((4, 2)),), dynamic=True)


def test_sizes_that_an_op_needs_equal_are_refused_at_trace_time():
    with pytest.raises(DimError, match="ivy.add at .*broadcasting needs batch == rows"):
        ivy_ir.compile(lambda x, y: ivy.add(x, y), args=(np.ones((3, 2)), np.ones((3, 2))),
                       dynamic={"x": {0: "batch"}, "y": {0: "rows"}})
