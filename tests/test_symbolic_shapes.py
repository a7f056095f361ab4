"""Symbolic sizes in the IR: dynamic dims named on the entry's inputs (`{ivy.dims}`),
size expressions over those names in shape attributes, and one lowered program that
serves every batch and sequence length on the numpy, JAX, PyTorch and TensorFlow
targets (the ONNX exporter refuses them by name for now)."""

from __future__ import annotations

import numpy as np
import pytest

import ivy_ir
from ivy_ir.core.errors import IRError
from ivy_ir.dialect.symbolic import SymbolicError, SymDim
from lowerings import LoweringError

T = "tensor<?x?x16xf32>"
ATTENTION = f"""
func.func @main(%x: {T} {{ivy.dims = ["batch", "seq", ""]}},
                %wq: tensor<16x16xf32> {{ivy.param = "wq"}},
                %wk: tensor<16x16xf32> {{ivy.param = "wk"}}) -> ({T}, tensor<?x16xf32>) {{
  %q = ivy.matmul %x, %wq : ({T}, tensor<16x16xf32>) -> {T}
  %k = ivy.matmul %x, %wk : ({T}, tensor<16x16xf32>) -> {T}
  %qh = ivy.reshape %q {{shape = ["batch", "seq", 2, 8]}} : ({T}) -> tensor<?x?x2x8xf32>
  %kh = ivy.reshape %k {{shape = ["batch", -1, 2, 8]}} : ({T}) -> tensor<?x?x2x8xf32>
  %qt = ivy.permute_dims %qh {{axes = [0, 2, 1, 3]}} : (tensor<?x?x2x8xf32>) -> tensor<?x2x?x8xf32>
  %kt = ivy.permute_dims %kh {{axes = [0, 2, 3, 1]}} : (tensor<?x?x2x8xf32>) -> tensor<?x2x8x?xf32>
  %s = ivy.matmul %qt, %kt : (tensor<?x2x?x8xf32>, tensor<?x2x8x?xf32>) -> tensor<?x2x?x?xf32>
  %p = ivy.softmax %s {{axis = 3}} : (tensor<?x2x?x?xf32>) -> tensor<?x2x?x?xf32>
  %o = ivy.matmul %p, %qt : (tensor<?x2x?x?xf32>, tensor<?x2x?x8xf32>) -> tensor<?x2x?x8xf32>
  %ot = ivy.permute_dims %o {{axes = [0, 2, 1, 3]}} : (tensor<?x2x?x8xf32>) -> tensor<?x?x2x8xf32>
  %y = ivy.reshape %ot {{shape = ["batch", "seq", 16]}} : (tensor<?x?x2x8xf32>) -> {T}
  %half = ivy.full {{shape = ["batch", 1, 16], fill_value = 0.5, dtype = f32}} : () -> tensor<?x1x16xf32>
  %r = ivy.add %y, %half : ({T}, tensor<?x1x16xf32>) -> {T}
  %flat = ivy.reshape %r {{shape = ["batch * seq", 16]}} : ({T}) -> tensor<?x16xf32>
  func.return %r, %flat : {T}, tensor<?x16xf32>
}}
"""
rng = np.random.default_rng(3)
WEIGHTS = {n: rng.standard_normal((16, 16)).astype(np.float32) * 0.3 for n in ("wq", "wk")}
SIZES = [(1, 5), (3, 40), (8, 5), (17, 40)]


def _reference(x):
    b, s, _ = x.shape
    q = (x @ WEIGHTS["wq"]).reshape(b, s, 2, 8).transpose(0, 2, 1, 3)
    k = (x @ WEIGHTS["wk"]).reshape(b, s, 2, 8).transpose(0, 2, 3, 1)
    scores = q @ k
    p = np.exp(scores - scores.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    y = (p @ q).transpose(0, 2, 1, 3).reshape(b, s, 16) + 0.5
    return y, y.reshape(b * s, 16)


def _module():
    module = ivy_ir.parse(ATTENTION)
    module.params.update(WEIGHTS)
    return module


def _np(v):
    return v.detach().numpy() if hasattr(v, "detach") else np.asarray(v)


@pytest.mark.parametrize("target", ["numpy", "jax", "torch", "tensorflow"])
def test_one_program_serves_every_batch_and_sequence_length(target):
    compiled = ivy_ir.compile(_module(), target=target)
    assert "_dim_batch * _dim_seq" in compiled.source
    for b, s in SIZES:
        x = rng.standard_normal((b, s, 16)).astype(np.float32)
        got = [_np(v) for v in compiled(x)]
        for g, w in zip(got, _reference(x)):
            assert g.shape == w.shape
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
    assert not compiled._variants  # no input took the retrace path


def test_a_static_dim_of_a_dynamic_input_is_still_checked():
    compiled = ivy_ir.compile(_module(), target="numpy")
    with pytest.raises(TypeError, match=r"input 0 has type tensor<2x3x8xf32>.*tensor<\?x\?x16xf32>"):
        compiled(np.zeros((2, 3, 8), np.float32))


def test_symbolic_sizes_print_and_parse_back():
    text = str(_module())
    assert 'shape = ["batch * seq", 16]' in text and 'ivy.dims = ["batch", "seq", ""]' in text
    assert str(ivy_ir.parse(text)) == text


def test_onnx_refuses_symbolic_sizes_by_name():
    with pytest.raises(LoweringError, match=r"ivy.reshape at .*symbolic sizes \(batch \* seq\)"):
        ivy_ir.compile(_module(), target="onnx")


BAD = {
    "an undeclared dim": ('"batch", "seq", ""', '"batch * len"', "names len, which no input"),
    "a static dim named": ('"batch", "seq", "width"', '"batch * seq"', "one identifier per "
                           "dynamic dim"),
    "an expression beyond shape arithmetic": ('"batch", "seq", ""', '"batch ** 2"',
                                              "is not integer arithmetic on dim names"),
}


@pytest.mark.parametrize("case", BAD)
def test_malformed_symbolic_sizes_are_reported(case):
    dims, flat, message = BAD[case]
    text = ATTENTION.replace('"batch", "seq", ""', dims).replace('"batch * seq"', flat)
    with pytest.raises(IRError, match=message):
        ivy_ir.parse(text)


def test_size_expressions_are_shape_arithmetic():
    batch, seq = SymDim("batch"), SymDim("seq")
    size = (batch * seq * 12 - 1) // 2 + 1
    assert size.expr == "(batch * seq * 12 - 1) // 2 + 1"
    assert size.evaluate({"batch": 3, "seq": 5}) == 90
    assert size.names == {"batch", "seq"}
    assert size.python() == "((_dim_batch * _dim_seq * 12 - 1) // 2 + 1)"
    assert batch * 1 is batch and 0 + seq is seq
    with pytest.raises(SymbolicError, match="no value while tracing"):
        range(batch)
    with pytest.raises(SymbolicError, match="no Python branch"):
        bool(batch > 0 if False else batch)
    with pytest.raises(SymbolicError, match="not integer arithmetic"):
        SymDim("max(batch, 2)")
