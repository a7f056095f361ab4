"""ONNX optionals (`importers/onnx_optional.py`): hand-built models with optional
graph inputs given and empty, `Optional`/`OptionalHasElement`/`OptionalGetElement`
chains, optional sequences and `If` branches giving optionals, run through ivy_ir's
ONNX backend on the four targets and compared with ONNX's reference evaluator; the
direct `ivy_ir.compile` call with None; and the reports for an empty optional's
element and an optional reaching an operator that takes tensors.

ONNX's reference evaluator runs `Optional` as a one-element list (a sequence, and
`Optional()` a list holding None, which it then says has an element), so models using
that operator are checked against their values written out with NumPy (`EXPECTED`),
as is an empty optional through `Identity`, which the evaluator refuses."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402
from onnx_cases import make_model, tensor_info  # noqa: E402
from test_onnx_sequence import _same  # noqa: E402

import ivy_ir  # noqa: E402
from ivy_ir.core.errors import UnsupportedOpsError  # noqa: E402
from ivy_ir.onnx_backend import backend  # noqa: E402

TARGETS = ["numpy", "jax", "torch", "tensorflow"]
F = TensorProto.FLOAT
RNG = np.random.default_rng(0)


def tensor_type(shape: list | None, elem: int = F) -> Any:
    return helper.make_tensor_type_proto(elem, shape)


def seq_type(shape: list | None, elem: int = F) -> Any:
    return helper.make_sequence_type_proto(tensor_type(shape, elem))


def opt_info(name: str, elem_type: Any) -> Any:
    """An optional value info holding `elem_type` (a tensor or sequence type)."""
    return helper.make_value_info(name, helper.make_optional_type_proto(elem_type))


def data(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def _optional_input(given: bool) -> tuple[Any, list[Any]]:
    """An optional tensor input: whether it holds a value chooses the `If` branch (a
    constant at import), and the held value is added to `x`."""
    then = helper.make_graph(
        [helper.make_node("OptionalGetElement", ["o"], ["got"]),
         helper.make_node("Add", ["got", "x"], ["then_y"])], "then", [],
        [tensor_info("then_y", [2, 3])])
    other = helper.make_graph([helper.make_node("Neg", ["x"], ["else_y"])], "else", [],
                              [tensor_info("else_y", [2, 3])])
    nodes = [helper.make_node("OptionalHasElement", ["o"], ["has"]),
             helper.make_node("If", ["has"], ["y"], then_branch=then, else_branch=other)]
    model = make_model(nodes, [opt_info("o", tensor_type([2, 3])), tensor_info("x", [2, 3])],
                       [tensor_info("y", [2, 3]), tensor_info("has", [], TensorProto.BOOL)])
    return model, [data(2, 3) if given else None, data(2, 3)]


def _chain() -> tuple[Any, list[Any]]:
    """Optional of a traced value through Identity and back, beside an empty optional
    built from its type, plain tensors given to HasElement/GetElement (opset 18), and
    a HasElement without input."""
    nodes = [helper.make_node("Exp", ["x"], ["e"]),
             helper.make_node("Optional", ["e"], ["o"]),
             helper.make_node("Identity", ["o"], ["o2"]),
             helper.make_node("OptionalGetElement", ["o2"], ["got"]),
             helper.make_node("OptionalGetElement", ["x"], ["plain"]),
             helper.make_node("Mul", ["got", "plain"], ["y"]),
             helper.make_node("Optional", [], ["empty"], type=tensor_type([3])),
             helper.make_node("OptionalHasElement", ["empty"], ["has_empty"]),
             helper.make_node("OptionalHasElement", ["o2"], ["has_held"]),
             helper.make_node("OptionalHasElement", ["x"], ["has_plain"]),
             helper.make_node("OptionalHasElement", [], ["has_none"])]
    b = TensorProto.BOOL
    outs = [tensor_info("y", [3]), tensor_info("has_empty", [], b),
            tensor_info("has_held", [], b), tensor_info("has_plain", [], b),
            tensor_info("has_none", [], b), opt_info("o2", tensor_type([3]))]
    return make_model(nodes, [tensor_info("x", [3])], outs), [data(3)]


def _optional_sequence(given: bool) -> tuple[Any, list[Any]]:
    """An optional sequence input, passed on as an optional output and, when it holds
    one, concatenated."""
    nodes = [helper.make_node("Identity", ["o"], ["same"]),
             helper.make_node("OptionalHasElement", ["o"], ["has"])]
    outs = [opt_info("same", seq_type([2])), tensor_info("has", [], TensorProto.BOOL)]
    if given:
        nodes += [helper.make_node("OptionalGetElement", ["o"], ["s"]),
                  helper.make_node("ConcatFromSequence", ["s"], ["cat"], axis=0)]
        outs.append(tensor_info("cat", None))
    model = make_model(nodes, [opt_info("o", seq_type([2]))], outs)
    return model, [[data(2), data(2), data(2)] if given else None]


def _if_optionals(same_presence: bool) -> tuple[Any, list[Any]]:
    """A traced condition choosing between two optionals: both held (an `ivy.cond`), or
    one empty (ONNX's test_if_opt: a program per condition value)."""
    then_nodes = [helper.make_node("Neg", ["x"], ["n"]),
                  helper.make_node("Optional", ["n"], ["then_o"])] if same_presence else \
        [helper.make_node("Optional", [], ["then_o"], type=tensor_type([2]))]
    then = helper.make_graph(then_nodes, "then", [], [opt_info("then_o", tensor_type([2]))])
    other = helper.make_graph([helper.make_node("Optional", ["x"], ["else_o"])], "else", [],
                              [opt_info("else_o", tensor_type([2]))])
    nodes = [helper.make_node("If", ["cond"], ["o"], then_branch=then, else_branch=other),
             helper.make_node("OptionalHasElement", ["o"], ["has"])]
    model = make_model(nodes, [tensor_info("cond", [], TensorProto.BOOL),
                               tensor_info("x", [2])],
                       [opt_info("o", tensor_type([2])),
                        tensor_info("has", [], TensorProto.BOOL)])
    return model, [np.asarray(False), data(2)]


CASES = {"input_given": lambda: _optional_input(True),
         "input_empty": lambda: _optional_input(False),
         "chain": _chain,
         "sequence_given": lambda: _optional_sequence(True),
         "sequence_empty": lambda: _optional_sequence(False),
         "if_held": lambda: _if_optionals(True),
         "if_presence": lambda: _if_optionals(False)}


EXPECTED = {
    "chain": lambda x: [np.exp(x) * x, np.asarray(False), np.asarray(True),
                        np.asarray(True), np.asarray(False), np.exp(x)],
    "sequence_empty": lambda o: [None, np.asarray(False)],
    "if_held": lambda cond, x: [x if not cond else -x, np.asarray(True)],
    "if_presence": lambda cond, x: [None, np.asarray(False)] if cond else
    [x, np.asarray(True)],
}
"""The outputs of the cases the reference evaluator cannot run, from their inputs (see
the docstring)."""


def _reference(model: Any, inputs: list[Any], case: str = "") -> list[Any]:
    if case in EXPECTED:
        return EXPECTED[case](*inputs)
    names = [i.name for i in model.graph.input]
    return ReferenceEvaluator(model).run(None, dict(zip(names, inputs)))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_backend_matches_reference(case: str, target: str) -> None:
    model, inputs = CASES[case]()
    got = backend(target).prepare(model).run(inputs)
    expected = _reference(model, inputs, case)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        _same(g, e)


def test_presence_compiles_per_structure() -> None:
    """One prepared model serves an optional input given and empty, a program each;
    an `If` whose branches differ in presence compiles per condition value."""
    model, (o, x) = _optional_input(True)
    prepared = backend("numpy").prepare(model)
    for value in (o, None, o):
        for g, e in zip(prepared.run([value, x]), _reference(model, [value, x])):
            _same(g, e)
    assert len(prepared._compiled) == 2
    model, (_, x) = _if_optionals(False)
    prepared = backend("numpy").prepare(model)
    for cond in (True, False):
        inputs = [np.asarray(cond), x]
        for g, e in zip(prepared.run(inputs), _reference(model, inputs, "if_presence")):
            _same(g, e)


def test_compile_takes_none_for_an_empty_optional() -> None:
    """`ivy_ir.compile` with None for an optional input: the call takes None; a value
    there is another program, which a compile with examples refuses and a compile
    without them (on the first call) builds."""
    model, (_, x) = _optional_input(False)
    c = ivy_ir.compile(model, target="numpy", args=(None, x))
    y, has = c(None, x)
    np.testing.assert_array_equal(y, -x)
    assert not has
    with pytest.raises(TypeError):
        c(x, x)
    lazy = ivy_ir.compile(model, target="numpy")
    o = data(2, 3)
    np.testing.assert_allclose(lazy(o, x)[0], o + x, rtol=1e-6)
    np.testing.assert_array_equal(lazy(None, x)[0], -x)
    assert lazy.cache_info().entries == 2


def test_optional_input_needs_an_example() -> None:
    model, _ = _optional_input(True)
    with pytest.raises(TypeError, match="None for an empty optional"):
        ivy_ir.trace(model)


def _report(model: Any, args: tuple[Any, ...] = ()) -> str:
    with pytest.raises(UnsupportedOpsError) as info:
        ivy_ir.trace(model, args=args)
    return str(info.value)


def test_element_of_an_empty_optional_is_reported() -> None:
    nodes = [helper.make_node("Optional", [], ["o"], type=tensor_type([2])),
             helper.make_node("OptionalGetElement", ["o"], ["y"], name="get")]
    text = _report(make_model(nodes, [], [tensor_info("y", [2])]))
    assert "OptionalGetElement (opset 18): the optional is empty at import" in text
    assert "node 'get'" in text


def test_empty_input_element_is_reported() -> None:
    model = make_model([helper.make_node("OptionalGetElement", ["o"], ["y"])],
                       [opt_info("o", tensor_type([2]))], [tensor_info("y", [2])])
    assert "the optional is empty at import" in _report(model, (None,))


def test_optional_reaching_a_tensor_operator_is_reported() -> None:
    nodes = [helper.make_node("Optional", ["x"], ["o"]),
             helper.make_node("Add", ["o", "x"], ["y"])]
    text = _report(make_model(nodes, [tensor_info("x", [2])], [tensor_info("y", [2])]),
                   (data(2),))
    assert "Add (opset 18): input 0 is an optional, which this operator does not take" in text
