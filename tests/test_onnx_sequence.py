"""ONNX sequences (`importers/onnx_sequence.py`): hand-built models of every sequence
operator, alone and combined (with `If`, `Loop`, `SequenceMap` bodies), sequence-typed
graph inputs and outputs, run through ivy_ir's ONNX backend on the four targets and
compared with ONNX's reference evaluator; the direct `ivy_ir.compile` call with lists;
and the unsupported-op report where a length or position is only known at run time."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402
from onnx_cases import make_model, tensor_info  # noqa: E402

import ivy_ir  # noqa: E402
from ivy_ir.core.errors import UnsupportedOpsError  # noqa: E402
from ivy_ir.onnx_backend import backend  # noqa: E402

TARGETS = ["numpy", "jax", "torch", "tensorflow"]
F = TensorProto.FLOAT
I64 = TensorProto.INT64
RNG = np.random.default_rng(0)


def seq_info(name: str, elem: int = F, shape: list | None = None) -> Any:
    """A sequence-of-tensors value info."""
    return helper.make_value_info(name, helper.make_sequence_type_proto(
        helper.make_tensor_type_proto(elem, shape)))


def const(name: str, value: Any) -> Any:
    """A Constant node producing `value`."""
    return helper.make_node("Constant", [], [name], value=onnx.numpy_helper.from_array(
        np.asarray(value), name))


def data(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def _construct_at() -> tuple[Any, list[Any]]:
    nodes = [helper.make_node("SequenceConstruct", ["x", "y", "z"], ["s"]),
             const("p", np.int64(-1)), helper.make_node("SequenceAt", ["s", "p"], ["last"]),
             helper.make_node("SequenceLength", ["s"], ["n"])]
    ins = [tensor_info(k, [2, 3]) for k in "xyz"]
    outs = [tensor_info("last", [2, 3]), tensor_info("n", [], I64)]
    return make_model(nodes, ins, outs), [data(2, 3), data(2, 3), data(2, 3)]


def _insert_erase() -> tuple[Any, list[Any]]:
    """An empty sequence edited at front, back and by negative positions; the sequence
    itself is the output."""
    nodes = [helper.make_node("SequenceEmpty", [], ["e"], dtype=F),
             helper.make_node("SequenceInsert", ["e", "x"], ["s1"]),
             const("zero", np.int64(0)), const("minus", np.array([-1], np.int64)),
             helper.make_node("SequenceInsert", ["s1", "y", "zero"], ["s2"]),
             helper.make_node("SequenceInsert", ["s2", "z", "minus"], ["s3"]),
             helper.make_node("SequenceErase", ["s3", "zero"], ["s4"]),
             helper.make_node("SequenceErase", ["s4"], ["s5"]),
             helper.make_node("SequenceInsert", ["s3", "x"], ["s6"])]
    ins = [tensor_info(k, [4]) for k in "xyz"]
    return make_model(nodes, ins, [seq_info("s5"), seq_info("s6")]), [
        data(4), data(4), data(4)]


def _split_concat() -> tuple[Any, list[Any]]:
    """SplitToSequence in its three forms, back together by ConcatFromSequence."""
    nodes = [helper.make_node("SplitToSequence", ["x"], ["rows"], axis=0, keepdims=0),
             const("two", np.int64(2)), const("sizes", np.array([1, 4], np.int64)),
             helper.make_node("SplitToSequence", ["x", "two"], ["cols"], axis=-1),
             helper.make_node("SplitToSequence", ["x", "sizes"], ["parts"], axis=1),
             helper.make_node("ConcatFromSequence", ["rows"], ["stacked"], axis=-1,
                              new_axis=1),
             helper.make_node("ConcatFromSequence", ["cols"], ["joined"], axis=1),
             helper.make_node("SequenceLength", ["parts"], ["n"])]
    outs = [seq_info("rows"), seq_info("cols"), tensor_info("stacked", None),
            tensor_info("joined", None), tensor_info("n", [], I64)]
    return make_model(nodes, [tensor_info("x", [3, 5])], outs), [data(3, 5)]


def _sequence_input(length: int) -> tuple[Any, list[Any]]:
    """A sequence-typed graph input, edited and returned, and concatenated (inserted
    into at the front, or when empty at the back: ONNX's reference evaluator divides by
    the length to place a position)."""
    position = ["zero"] if length else []
    nodes = [const("zero", np.int64(0)),
             helper.make_node("SequenceInsert", ["s", "t", *position], ["s2"]),
             helper.make_node("ConcatFromSequence", ["s2"], ["cat"], axis=0),
             helper.make_node("Identity", ["s"], ["same"])]
    model = make_model(nodes, [seq_info("s", F, [2]), tensor_info("t", [2])],
                       [seq_info("s2"), tensor_info("cat", None), seq_info("same")])
    return model, [[data(2) for _ in range(length)], data(2)]


def _sequence_map(second: str) -> tuple[Any, list[Any]]:
    """SequenceMap over a sequence and a second sequence (`second="seq"`) or a tensor:
    the body runs per position (ONNX's reference takes no mix of the two)."""
    body = helper.make_graph(
        [helper.make_node("Add", ["a", "b"], ["out"]), helper.make_node("Shape", ["a"],
                                                                       ["shape"])], "body",
        [tensor_info("a", None), tensor_info("b", None)],
        [tensor_info("out", None), tensor_info("shape", [1], I64)])
    nodes = [helper.make_node("SequenceMap", ["s", "u"], ["mapped", "shapes"], body=body)]
    u = seq_info("u", F, [3]) if second == "seq" else tensor_info("u", [3])
    model = make_model(nodes, [seq_info("s", F, [3]), u],
                       [seq_info("mapped"), seq_info("shapes", I64)])
    return model, [[data(3), data(3)], [data(3), data(3)] if second == "seq" else data(3)]


def _if_sequences() -> tuple[Any, list[Any]]:
    """A traced condition choosing between two sequences of one length."""
    def branch(name: str, first: str, second: str) -> Any:
        return helper.make_graph([helper.make_node(
            "SequenceConstruct", [first, second], [f"{name}_out"])], name, [],
            [seq_info(f"{name}_out")])
    nodes = [helper.make_node("If", ["cond"], ["s"], then_branch=branch("then", "x", "y"),
                              else_branch=branch("else", "y", "x")),
             helper.make_node("ConcatFromSequence", ["s"], ["cat"], axis=0)]
    model = make_model(nodes, [tensor_info("cond", [], TensorProto.BOOL),
                               tensor_info("x", [2]), tensor_info("y", [2])],
                       [seq_info("s"), tensor_info("cat", None)])
    return model, [np.array(False), data(2), data(2)]


def _loop_sequence() -> tuple[Any, list[Any]]:
    """A Loop growing a sequence (known trip count): reported, never unrolled."""
    body = helper.make_graph(
        [helper.make_node("Identity", ["c_in"], ["c_out"]),
         helper.make_node("Cast", ["i"], ["fi"], to=F),
         helper.make_node("Mul", ["x", "fi"], ["xi"]),
         helper.make_node("SequenceInsert", ["s_in", "xi"], ["s_out"]),
         helper.make_node("Add", ["xi", "x"], ["scan"])], "body",
        [tensor_info("i", [], I64), tensor_info("c_in", [], TensorProto.BOOL),
         seq_info("s_in")], [tensor_info("c_out", [], TensorProto.BOOL), seq_info("s_out"),
                             tensor_info("scan", [2])])
    nodes = [helper.make_node("SequenceEmpty", [], ["e"]), const("m", np.int64(3)),
             const("go", np.bool_(True)),
             helper.make_node("Loop", ["m", "go", "e"], ["s", "scans"], body=body)]
    model = make_model(nodes, [tensor_info("x", [2])], [seq_info("s"),
                                                        tensor_info("scans", None)])
    return model, [data(2)]


CASES = {"construct_at": _construct_at, "insert_erase": _insert_erase,
         "split_concat": _split_concat, "input_2": lambda: _sequence_input(2),
         "input_0": lambda: _sequence_input(0),
         "map_sequences": lambda: _sequence_map("seq"),
         "map_tensor": lambda: _sequence_map("tensor"),
         "if": _if_sequences}


def _reference(model: Any, inputs: list[Any]) -> list[Any]:
    names = [i.name for i in model.graph.input]
    return ReferenceEvaluator(model).run(None, dict(zip(names, inputs)))


def _same(got: Any, expected: Any) -> None:
    """Equal values: a sequence as a list of equal arrays, an empty optional as None."""
    if expected is None:
        assert got is None
        return
    if isinstance(expected, list):
        assert isinstance(got, list) and len(got) == len(expected)
        for g, e in zip(got, expected):
            _same(g, e)
        return
    got = np.asarray(got)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_backend_matches_reference(case: str, target: str) -> None:
    model, inputs = CASES[case]()
    got = backend(target).prepare(model).run(inputs)
    expected = _reference(model, inputs)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        _same(g, e)


def test_sequence_lengths_compile_per_structure() -> None:
    """One prepared model serves every length of a sequence input, a program each."""
    model, _ = _sequence_input(1)
    prepared = backend("numpy").prepare(model)
    for n in (1, 3, 1):
        inputs = [[data(2) for _ in range(n)], data(2)]
        for g, e in zip(prepared.run(inputs), _reference(model, inputs)):
            _same(g, e)
    assert len(prepared._compiled) == 2


def test_compile_takes_and_gives_lists() -> None:
    """`ivy_ir.compile` with a list for a sequence input: the compiled call takes the
    list and returns sequence outputs as lists; another length is refused."""
    model, (seq, t) = _sequence_input(2)
    c = ivy_ir.compile(model, target="numpy", args=(seq, t))
    s2, cat, same = c(seq, t)
    assert isinstance(s2, list) and len(s2) == 3 and isinstance(same, list)
    np.testing.assert_array_equal(cat, np.concatenate([t, *seq]))
    with pytest.raises(TypeError):
        c([*seq, t], t)


def _report(model: Any, args: tuple[Any, ...] = ()) -> str:
    with pytest.raises(UnsupportedOpsError) as info:
        ivy_ir.trace(model, args=args, dynamic=True)
    return str(info.value)


def test_data_dependent_position_is_reported() -> None:
    nodes = [helper.make_node("SequenceConstruct", ["x", "x"], ["s"]),
             helper.make_node("ArgMax", ["x"], ["p"], keepdims=0),
             helper.make_node("SequenceAt", ["s", "p"], ["y"])]
    model = make_model(nodes, [tensor_info("x", [2])], [tensor_info("y", [2])])
    text = _report(model, (data(2),))
    assert "SequenceAt (opset 18): the position is not known at import time" in text
    assert "graph input 'x'" in text


@pytest.mark.parametrize("nodes,inputs,needle", [
    ([helper.make_node("SequenceConstruct", ["x"], ["s"]),
      helper.make_node("Relu", ["s"], ["y"])], [data(2)],
     "Relu (opset 18): input 0 is a sequence, which this operator does not take"),
    ([helper.make_node("SequenceEmpty", [], ["s"]),
      helper.make_node("ConcatFromSequence", ["s"], ["y"], axis=0)], [data(2)],
     "ConcatFromSequence of an empty sequence"),
    ([helper.make_node("SplitToSequence", ["x"], ["s"]),
      helper.make_node("ConcatFromSequence", ["s"], ["y"], axis=0)], None,
     "SplitToSequence of a dynamic dim"),
    ([helper.make_node("SequenceConstruct", ["x"], ["s"]), const("p", np.int64(1)),
      helper.make_node("SequenceAt", ["s", "p"], ["y"])], [data(2)],
     "position 1 is outside a sequence of 1 tensors"),
])
def test_unsupported_uses_are_reported(nodes: list[Any], inputs: Any, needle: str) -> None:
    x = tensor_info("x", ["n"]) if inputs is None else tensor_info("x", [2])
    model = make_model(nodes, [x], [tensor_info("y", None)])
    assert needle in _report(model, tuple(inputs or ()))


def test_loop_carrying_a_sequence_is_reported() -> None:
    """Each iteration may change the sequence's length: no region op carries that, and
    loops are not unrolled at import."""
    model, inputs = _loop_sequence()
    assert "Loop (opset 18): input 2 is a sequence, which this operator does not take" \
        in _report(model, tuple(inputs))


@pytest.mark.parametrize("args", [(), (np.zeros(2, np.float32), np.zeros(2, np.float32))])
def test_sequence_input_needs_a_list(args: tuple[Any, ...]) -> None:
    model, _ = _sequence_input(1)
    with pytest.raises(UnsupportedOpsError, match="known only when it is called"):
        ivy_ir.trace(model, args=args)


def test_compile_without_examples_takes_lists() -> None:
    """A compile that waits for its first call passes sequence lists on, and keys its
    cache by the list's length and types, not by the values."""
    model, (seq, t) = _sequence_input(2)
    c = ivy_ir.compile(model, target="numpy")
    for n in (2, 2, 3):
        items = [data(2) + i for i in range(n)]
        got = c(items, t)
        for g, e in zip(got, _reference(model, [items, t])):
            _same(g, e)
    assert c.cache_info().entries == 2 and c.cache_info().hits == 1
