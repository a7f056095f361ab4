"""Shared by the ONNX neural-network importer tests: hand-built models, running them on
a target, and ONNX's reference evaluator."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

import ivy_ir


def as_numpy(value: object) -> np.ndarray:
    """A target's result as NumPy (torch results of parameters carry gradients)."""
    return value.detach().numpy() if hasattr(value, "detach") else np.asarray(value)


def make_model(nodes: list, inputs: list, outputs: list, opset: int,
               inits: tuple = ()) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def vi(name: str, shape: list[int] | None, elem: int = TensorProto.FLOAT) -> object:
    """A graph input or output's value info (shape None: left to inference)."""
    return helper.make_tensor_value_info(name, elem, shape)


def reference(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    """ONNX's reference evaluator's outputs."""
    return ReferenceEvaluator(model).run(None, feeds)


def ours(model: onnx.ModelProto, *args: np.ndarray, target: str = "numpy") -> list:
    """The model compiled for `target` and run on args, its outputs as NumPy."""
    got = ivy_ir.compile(model, target=target, args=args)(*args)
    return [as_numpy(g) for g in (got if isinstance(got, (tuple, list)) else [got])]


RNG = np.random.default_rng(0)


def randn(*shape: int) -> np.ndarray:
    """Standard normal float32 data (one seeded stream per session)."""
    return RNG.standard_normal(shape).astype(np.float32)

