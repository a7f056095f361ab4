"""Shared by the ONNX importer tests: ONNX's node test cases, small hand-built
models, and the numeric comparison."""

from __future__ import annotations

import functools
import warnings

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


@functools.cache
def node_cases() -> dict[str, object]:
    """ONNX's node test cases by name (built in memory by onnx, once per session)."""
    from onnx.backend.test.loader import load_model_tests

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {case.name: case for case in load_model_tests(kind="node")}


def node_case(name: str) -> tuple[onnx.ModelProto, list[np.ndarray], list[np.ndarray]]:
    """The model, inputs and expected outputs of ONNX node test `name`."""
    case = node_cases()[name]
    ins, outs = case.data_sets[0]
    return case.model, [array(a) for a in ins], [array(a) for a in outs]


def array(value: object) -> np.ndarray:
    """A stored input or output (some cases keep TensorProtos) as an array."""
    return numpy_helper.to_array(value) if isinstance(value, TensorProto) else np.asarray(value)


def check(got: object, expected: list[np.ndarray]) -> None:
    """`got` (one array or a tuple) equals `expected` in dtype, shape and value."""
    outs = list(got) if isinstance(got, (tuple, list)) else [got]
    assert len(outs) == len(expected)
    for g, e in zip(outs, expected):
        g = np.asarray(g)
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)


def make_model(nodes: list, inputs: list, outputs: list, inits: list = (), opset: int = 18,
               value_info: list = ()) -> onnx.ModelProto:
    """A one-graph model of the default domain at `opset`."""
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(inits),
                              value_info=list(value_info))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def tensor_info(name: str, shape: list | None, elem: int = TensorProto.FLOAT) -> object:
    """A tensor value info (inputs and outputs of `make_model`)."""
    return helper.make_tensor_value_info(name, elem, shape)
