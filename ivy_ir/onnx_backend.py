"""ivy_ir as an ONNX backend (`onnx.backend.base.Backend`), so ONNX's own conformance
harness (`onnx.backend.test.BackendTest`) runs against us the way it runs against
onnxruntime: every node test and model test is imported by `importers/onnx.py`,
optimized, lowered to one target and run there.

`backend("jax")` is the backend class of one target; `Backend` is NumPy's. A prepared
model compiles on its first run, per input signature (ONNX models often leave the
batch dimension symbolic; inputs whose values the import needs, such as a `Reshape`'s
shape given as a graph input, are part of the signature by value; a sequence input,
a list of arrays, by its length and its tensors' types; an optional input by whether
it is None, empty), and answers with NumPy arrays in graph-output order, a sequence
output as a list of them, an empty optional output as None.
For the conformance harness, `backend(target, skip_unsupported=True)` turns the
importer's `UnsupportedOpsError` (operators or attribute uses the registry cannot
express) and the lowering's `UnsupportedDtypeError` (a dtype the registry declares the
target unable to run, such as text on torch and JAX) into `unittest.SkipTest` with that
report as the reason, so a failure always
means a wrong answer or a crash on a model we claim to support; users calling the
backend get the error itself.
"""

from __future__ import annotations

import unittest
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, NoReturn

import numpy as np
import onnx
from onnx import helper
from onnx.backend.base import Backend as OnnxBackend
from onnx.backend.base import BackendRep

from importers.onnx import StaticInputsError
from lowerings.runtime import host_array

from .api import compile as compile_program
from .compiled import Compiled
from .core.errors import UnsupportedOpsError
from .core.rules import UnsupportedDtypeError
from .lazy import signature_of


class PreparedModel(BackendRep):
    """One ONNX model ready to run on a target: compiled on the first run of each input
    signature (dtypes and shapes)."""

    def __init__(self, model: onnx.ModelProto, target: str, skip_unsupported: bool = False):
        self.model = model
        self.target = target
        self.skip_unsupported = skip_unsupported
        self.input_names = _input_names(model)
        self._compiled: dict[tuple[Any, ...], Compiled] = {}
        self._static: set[str] = set()
        """Inputs whose values some node needs at import (a shape, axes or pads given as
        an input, as ONNX's node tests do): compiled per value, like `jax.jit`'s static
        arguments, since the registry takes them as attributes."""

    def run(self, inputs: Any, **kwargs: Any) -> tuple[Any, ...]:
        """The outputs in graph order: arrays, a sequence output as a list of arrays, an
        empty optional output as None."""
        values = [[np.asarray(t) for t in x] if isinstance(x, list) else
                  None if x is None else np.asarray(x)
                  for x in _ordered(inputs, self.input_names)]
        while True:
            # a sequence input (a list) is part of the signature by its tensors' types,
            # so each length compiles its own program (`importers.onnx_sequence`), as
            # each presence of an optional input does (None: empty)
            fixed = [n in self._static and isinstance(a, np.ndarray)
                     for n, a in zip(self.input_names, values)]
            args = [a.tolist() if f else a for f, a in zip(fixed, values)]
            key = tuple(signature_of(a) for a in args)
            if key in self._compiled:
                break
            try:
                self._compiled[key] = compile_program(self.model, target=self.target,
                                                      args=tuple(args), source="onnx")
                break
            except StaticInputsError as exc:
                new = set(exc.inputs) - self._static
                if not new:
                    self._unsupported(exc)
                self._static |= new  # retried with these fixed at import
            except (UnsupportedOpsError, UnsupportedDtypeError) as exc:
                self._unsupported(exc)
        compiled = self._compiled[key]
        out = compiled(*(a for f, a in zip(fixed, args) if not f))
        single = len(self.model.graph.output) == 1
        outs = (out,) if single or not isinstance(out, (tuple, list)) else out
        return tuple([host_array(t) for t in o] if isinstance(o, list) else
                     None if o is None else host_array(o) for o in outs)

    def _unsupported(self, exc: UnsupportedOpsError | UnsupportedDtypeError) -> NoReturn:
        if self.skip_unsupported:
            raise unittest.SkipTest(str(exc)) from None
        raise exc


class Backend(OnnxBackend):
    """ivy_ir on the NumPy target; `backend(target)` gives the class of another."""

    target: ClassVar[str] = "numpy"
    skip_unsupported: ClassVar[bool] = False

    @classmethod
    def prepare(cls, model: onnx.ModelProto, device: str = "CPU", **kwargs: Any) -> PreparedModel:
        if not cls.supports_device(device):
            raise ValueError(f"ivy_ir's ONNX backend runs on CPU here, not on {device!r}")
        return PreparedModel(model, cls.target, cls.skip_unsupported)

    @classmethod
    def run_node(cls, node: onnx.NodeProto, inputs: Any, device: str = "CPU",
                 outputs_info: Sequence[tuple[Any, tuple[int, ...]]] | None = None,
                 **kwargs: Any) -> tuple[np.ndarray, ...]:
        """Run one node: wrapped in a one-node model over its inputs' types."""
        arrays = [np.asarray(x) for x in inputs]
        graph_inputs = [helper.make_tensor_value_info(name, _elem_type(a), a.shape)
                        for name, a in zip(node.input, arrays) if name]
        graph_outputs = [helper.make_empty_tensor_value_info(name) for name in node.output
                         if name]
        graph = helper.make_graph([node], f"{node.op_type}_node", graph_inputs, graph_outputs)
        opset = kwargs.get("opset_version", onnx.defs.onnx_opset_version())
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        return cls.prepare(model, device).run([a for n, a in zip(node.input, arrays) if n])

    @classmethod
    def supports_device(cls, device: str) -> bool:
        return device.upper() == "CPU"


def backend(target: str, skip_unsupported: bool = False) -> type[Backend]:
    """The backend class running models on `target` ("numpy", "jax", "torch",
    "tensorflow")."""
    return type(f"Backend_{target}", (Backend,),
                {"target": target, "skip_unsupported": skip_unsupported})


def _input_names(model: onnx.ModelProto) -> list[str]:
    initialized = {t.name for t in model.graph.initializer}
    return [i.name for i in model.graph.input if i.name not in initialized]


def _ordered(inputs: Any, names: Sequence[str]) -> list[Any]:
    if isinstance(inputs, Mapping):
        missing = [n for n in names if n not in inputs]
        if missing:
            raise TypeError(f"missing model inputs: {', '.join(missing)}")
        return [inputs[n] for n in names]
    inputs = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
    if len(inputs) != len(names):
        raise TypeError(f"the model takes {len(names)} inputs ({', '.join(names)}), "
                        f"got {len(inputs)}")
    return inputs


def _elem_type(array: np.ndarray) -> int:
    return helper.np_dtype_to_tensor_dtype(array.dtype)
