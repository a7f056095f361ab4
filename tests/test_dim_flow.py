"""Every value's dynamic dims by name (`ivy_ir/core/dim_flow.py`), over sizes that
compare equal when they are (`ivy_ir/core/size_poly.py`), and the verifier's refusal of
programs whose ops need two different dims equal."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import ivy_ir
from ivy_ir.core.dim_flow import of_module
from ivy_ir.core.errors import IRError
from ivy_ir.core.size_poly import Poly
from ivy_ir.dialect.symbolic import SymDim

B, S = Poly.of("batch"), Poly.of("seq")


def test_equal_sizes_compare_equal():
    assert B * S == S * B and 2 * B == B + B and B - B == Poly.of(0)
    assert (B * S * 16) // 16 == B * S and (4 * B + 8) // 4 == B + 2
    assert (B * 6) % 3 == Poly.of(0) and Poly.of(7) // 2 == Poly.of(3)
    assert (B + 1) // 2 != B // 2 and ((B + 1) // 2).names == {"batch"}
    assert Poly.of(SymDim("(seq*batch)//2 + batch - batch")) == (B * S) // 2


@pytest.mark.parametrize("text", ["batch * seq - 3 * batch + 7", "(batch + 1) // 2 * seq",
                                  "(batch * seq) % 5 + ((seq - 1) // 3 - 2) // 2",
                                  "-(batch - seq) * (batch + seq)"])
def test_a_size_prints_as_an_expression_of_the_same_value(text):
    size = Poly.of(SymDim(text))
    again = SymDim(str(size))
    for b, s in itertools.product((1, 2, 7, 30), (1, 5, 40)):
        sizes = {"batch": b, "seq": s}
        assert again.evaluate(sizes) == SymDim(text).evaluate(sizes) == size.evaluate(sizes)


PROGRAM = """
func.func @main(%x: tensor<?x?x16xf32> {ivy.dims = ["batch", "seq", ""]},
                %w: tensor<16x8xf32>) -> tensor<?x8xf32> {
  %both = ivy.concat %x, %x {axis = 0} : (tensor<?x?x16xf32>, tensor<?x?x16xf32>) -> tensor<?x?x16xf32>
  %flat = ivy.reshape %both {shape = [-1, 16]} : (tensor<?x?x16xf32>) -> tensor<?x16xf32>
  %y = ivy.matmul %flat, %w : (tensor<?x16xf32>, tensor<16x8xf32>) -> tensor<?x8xf32>
  %m = ivy.mean %y {axis = [1], keepdims = true} : (tensor<?x8xf32>) -> tensor<?x1xf32>
  %c = ivy.subtract %y, %m : (tensor<?x8xf32>, tensor<?x1xf32>) -> tensor<?x8xf32>
  %h = ivy.slice %c {start = [1, 0], stop = ["batch", 8], step = [1, 1]} : (tensor<?x8xf32>) -> tensor<?x8xf32>
  func.return %c : tensor<?x8xf32>
}
"""


def _named(module) -> dict[str, str]:
    f = of_module(module)
    return {r.name_hint: f.text(r) for op in module.entry.body.block.ops for r in op.results}


def test_shapes_follow_concat_sums_reshape_and_matmul():
    shapes = _named(ivy_ir.parse(PROGRAM))
    assert shapes == {"both": "2 * batch x seq x 16", "flat": "2 * batch * seq x 16",
                      "y": "2 * batch * seq x 8", "m": "2 * batch * seq x 1",
                      "c": "2 * batch * seq x 8", "h": "batch - 1 x 8"}


BAD = [
    ("ivy.add %x, %y : (tensor<?x16xf32>, tensor<?x16xf32>) -> tensor<?x16xf32>",
     "broadcasting needs batch == seq"),
    ("ivy.add %x, %z : (tensor<?x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>",
     "broadcasting needs batch == 4"),
    ("ivy.concat %x, %y {axis = 1} : (tensor<?x16xf32>, tensor<?x16xf32>) -> tensor<?x32xf32>",
     "concat along axis 1 needs batch == seq"),
    ("ivy.reshape %x {shape = [\"seq\", 16]} : (tensor<?x16xf32>) -> tensor<?x16xf32>",
     "reshape \\(the element count\\) needs 16 \\* batch == 16 \\* seq"),
]


@pytest.mark.parametrize("op, message", BAD, ids=[m.split(" needs")[0] for _, m in BAD])
def test_ops_that_need_two_dynamic_dims_equal_are_reported(op, message):
    text = f"""
func.func @main(%x: tensor<?x16xf32> {{ivy.dims = ["batch", ""]}},
                %y: tensor<?x16xf32> {{ivy.dims = ["seq", ""]}},
                %z: tensor<4x16xf32>) -> tensor<?x16xf32> {{
  %r = {op} loc("model.py":3:5)
  func.return %x : tensor<?x16xf32>
}}
"""
    with pytest.raises(IRError, match=f"model.py:3:5: {message}") as caught:
        ivy_ir.parse(text)
    assert caught.value.line == 5  # the parser points at the op


def test_one_name_on_both_inputs_is_one_dim():
    text = """
func.func @main(%x: tensor<?x16xf32> {ivy.dims = ["batch", ""]},
                %y: tensor<?x16xf32> {ivy.dims = ["batch", ""]}) -> tensor<?x16xf32> {
  %r = ivy.add %x, %y : (tensor<?x16xf32>, tensor<?x16xf32>) -> tensor<?x16xf32>
  func.return %r : tensor<?x16xf32>
}
"""
    module = ivy_ir.parse(text)
    assert of_module(module).errors == [] and _named(module) == {"r": "batch x 16"}


torch = pytest.importorskip("torch")


def test_a_torch_cnn_names_its_spatial_sizes_through_convs_and_pools():
    nn = torch.nn
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(8, 4, 3, stride=2), nn.Flatten()).eval()
    x = torch.randn(2, 3, 12, 12)
    compiled = ivy_ir.compile(model, target="numpy", args=(x,),
                              dynamic={"input": {0: "batch", 2: "h", 3: "w"}})
    module = compiled.ir_module
    f = of_module(module)
    out = f.shape(module.entry.body.block.last_op.operands[0])
    sizes = {"batch": 2, "h": 12, "w": 12}
    assert str(out[0]) == "batch" and out[1].evaluate(sizes) == 4 * 2 * 2
    for h, w in ((12, 12), (17, 9), (31, 40)):
        want = model(torch.randn(5, 3, h, w)).shape
        assert [d.evaluate({"batch": 5, "h": h, "w": w}) for d in out] == list(want)
    assert f.errors == []
    np.testing.assert_allclose(compiled(x.numpy()), model(x).detach().numpy(), rtol=1e-5,
                               atol=1e-6)


def test_the_ir_text_names_each_dynamic_size_in_comments_that_parse_back():
    module = ivy_ir.parse(PROGRAM)
    text = module.to_text(locations=False, dims=True)
    assert "// dims: batch = input 0 dim 0, seq = input 0 dim 1" in text
    assert "-> tensor<?x?x16xf32>  // 2 * batch x seq x 16" in text
    assert "-> tensor<?x1xf32>  // 2 * batch * seq x 1" in text
    assert ivy_ir.parse(text).to_text() == module.to_text()
