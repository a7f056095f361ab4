"""Every registry op: the verifier accepts its example and rejects broken variants,
with a message that names the op; `ivy_ir.parse` turns bad text into `IRError`."""

from __future__ import annotations

import pytest
from op_examples import example_func
from xdsl.dialects.builtin import Float32Type, Float64Type, TensorType
from xdsl.ir import Attribute, Block
from xdsl.utils.exceptions import VerifyException

import ivy_ir
from ivy_ir.dialect import CONTROL, OP_CLASSES, SPECS, IvyOp, TensorSpec

OPS = sorted(set(SPECS) - CONTROL)  # region ops: tests/test_control_flow.py


def _op(name: str) -> IvyOp:
    fn = example_func(name)
    return next(op for op in fn.walk() if isinstance(op, IvyOp))


def _other_dtype(t: Attribute) -> TensorType:
    """The same shape with another element type: never what inference computed."""
    assert isinstance(t, TensorType)
    elem = Float64Type() if t.element_type == Float32Type() else Float32Type()
    return TensorType(elem, t.get_shape())


@pytest.mark.parametrize("name", OPS)
def test_example_verifies(name: str) -> None:
    example_func(name).verify()


@pytest.mark.parametrize("name", OPS)
def test_wrong_result_type_rejected(name: str) -> None:
    op = _op(name)
    types = [_other_dtype(r.type) for r in op.results]
    bad = OP_CLASSES[name].create(operands=list(op.operands), result_types=types,
                                  properties=dict(op.properties))
    with pytest.raises(VerifyException, match=f"ivy\\.{name}\\b"):
        bad.verify()


_BAD_DTYPE = {"float": "int32", "bool": "int32", "cond": "int32", "mask": "int32",
              "num": "bool", "real": "complex64", "inexact": "int32", "int": "float32",
              "intbool": "float32", "index": "float32", "text": "float32"}


@pytest.mark.parametrize("name", [n for n in OPS if SPECS[n].operands  # these take all
                                  and SPECS[n].operands[0].dtype_class not in ("any", "castable")])
def test_wrong_operand_dtype_rejected(name: str) -> None:
    """The first operand retyped to a dtype outside its class."""
    op = _op(name)
    first = SPECS[name].operands[0]
    old = TensorSpec.from_xdsl(op.operands[0].type)
    block = Block(arg_types=[old.with_(dtype=_BAD_DTYPE[first.dtype_class]).to_xdsl()])
    operands = [block.args[0], *op.operands[1:]]
    bad = OP_CLASSES[name].create(operands=operands, result_types=list(op.result_types),
                                  properties=dict(op.properties))
    with pytest.raises(VerifyException, match=f"ivy\\.{name}\\b"):
        bad.verify()


def test_parse_error_has_line_and_column() -> None:
    text = ("builtin.module {\n  func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
            "    %b = ivy.add %a %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>\n"
            "    func.return %b : tensor<2xf32>\n  }\n}\n")
    with pytest.raises(ivy_ir.IRError, match=r":3:21"):
        ivy_ir.parse(text)


def test_parse_verifier_failure_names_op() -> None:
    text = ("builtin.module {\n  func.func @f(%a: tensor<2xi32>) -> tensor<2xi32> {\n"
            "    %b = ivy.exp %a : (tensor<2xi32>) -> tensor<2xi32>\n"
            "    func.return %b : tensor<2xi32>\n  }\n}\n")
    with pytest.raises(ivy_ir.IRError, match=r"ivy\.exp: operand 'x' must have a float or complex"):
        ivy_ir.parse(text)
