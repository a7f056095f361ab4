"""The ONNX graph under construction, and what one export rule sees of its op.

A rule of the ONNX table (`onnx_rules.py`, `onnx_nn.py`) is a function of an
`OnnxContext`: the ONNX names of the op's operands, its attributes and IR types, and a
`GraphBuilder` to add nodes to. It returns the name of each result. Names are unique
across the model, subgraphs included (ONNX forbids a subgraph shadowing an outer name),
because every builder of one model draws them from one `Names`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import onnx
from onnx import helper, numpy_helper

from ivy_ir.dialect import IvyOp, TensorSpec
from ivy_ir.dialect.symbolic import SizeArithmetic, SymDim
from ivy_ir.dialect.types import numpy_dtype


def onnx_dtype(name: str) -> int:
    """The TensorProto element type of an IR dtype name."""
    return helper.np_dtype_to_tensor_dtype(numpy_dtype(name))


def value_info(name: str, spec: TensorSpec, dim_names: Sequence[str | None] = ()
               ) -> onnx.ValueInfoProto:
    """A typed graph input/output; dynamic dims become named symbolic dims (the IR's
    names where the input declares them)."""
    dim_names = list(dim_names) or [None] * spec.rank
    dims = [d if d is not None else n or f"{name}_d{i}"
            for i, (d, n) in enumerate(zip(spec.shape, dim_names))]
    return helper.make_tensor_value_info(name, onnx_dtype(spec.dtype), dims)


class Names:
    """Unique ONNX value names for one model, readable where the IR has a name hint."""

    def __init__(self) -> None:
        self.used: set[str] = set()

    def fresh(self, hint: str | None) -> str:
        base = re.sub(r"[^A-Za-z0-9_.]", "_", hint or "") or "v"
        if base[0].isdigit():
            base = f"v{base}"
        name, i = base, 1
        while name in self.used:
            name, i = f"{base}_{i}", i + 1
        self.used.add(name)
        return name

    def reserve(self, name: str) -> str:
        """Claim an exact name (a parameter's dotted source name)."""
        if name in self.used:
            raise ValueError(f"two values of the exported model are named '{name}'")
        self.used.add(name)
        return name


@dataclass
class GraphBuilder:
    """Nodes, initializers and typed values of one ONNX graph (the main graph or a
    region's subgraph), named through the model's shared `Names`."""

    names: Names
    opset: int
    nodes: list[onnx.NodeProto] = field(default_factory=list)
    initializers: list[onnx.TensorProto] = field(default_factory=list)
    value_infos: list[onnx.ValueInfoProto] = field(default_factory=list)
    sizes: dict[str, Size] = field(default_factory=dict)
    """Each dynamic dim's name -> its size, read from an input's `Shape` in the main
    graph (subgraphs read the outer value)."""

    def sub(self) -> GraphBuilder:
        """A builder for a subgraph of this model (If/Loop bodies)."""
        return GraphBuilder(self.names, self.opset, sizes=self.sizes)

    def node(self, op_type: str, inputs: list[str], outputs: int = 1, hint: str = "",
             **attrs: Any) -> Any:
        """Add one node; returns its output name, or a list when `outputs` > 1."""
        outs = [self.names.fresh(hint or op_type.lower()) for _ in range(outputs)]
        attrs = {k: v for k, v in attrs.items() if v is not None}
        self.nodes.append(helper.make_node(op_type, inputs, outs,
                                           name=self.names.fresh(f"{op_type}_node"), **attrs))
        return outs[0] if outputs == 1 else outs

    def const(self, value: Any, dtype: str | None = None) -> str:
        """A constant as a `Constant` node (NumPy value; `dtype` an IR dtype name)."""
        array = np.asarray(value, dtype=None if dtype is None else numpy_dtype(dtype))
        return self.node("Constant", [], hint="const", value=numpy_helper.from_array(array))

    def ints(self, values: Any) -> str:
        """An int64 1-D constant (shapes, axes, pads, slice bounds); a shape with symbolic
        sizes is computed from the inputs' sizes at run time."""
        values = list(values)
        if not any(isinstance(v, SymDim) for v in values):
            return self.const(np.asarray(values, dtype=np.int64).reshape(-1))
        parts = [v.evaluate(self.sizes) if isinstance(v, SymDim) else v for v in values]
        return self.node("Concat", [p.name if isinstance(p, Size) else
                                    self.const(np.array([p], np.int64)) for p in parts], axis=0)

    def initializer(self, name: str, value: np.ndarray) -> str:
        self.initializers.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def cast(self, x: str, dtype: str) -> str:
        return self.node("Cast", [x], to=onnx_dtype(dtype))

    def graph(self, name: str, inputs: list[onnx.ValueInfoProto],
              outputs: list[onnx.ValueInfoProto]) -> onnx.GraphProto:
        return helper.make_graph(self.nodes, name, inputs, outputs,
                                 initializer=self.initializers, value_info=self.value_infos)


ONNX_INT_OPS = {"+": "Add", "-": "Sub", "*": "Mul", "//": "Div", "%": "Mod"}


@dataclass
class Size(SizeArithmetic):
    """A size computed in the graph: a 1-D int64 tensor of one element. The integer
    operators emit ONNX nodes, so `SymDim.evaluate` over `Size`s writes a size
    expression as a subgraph (sizes are non-negative: ONNX's truncating `Div` is the
    IR's floor division there)."""

    b: GraphBuilder
    name: str

    def _combine(self, other: Any, op: str, flip: bool = False) -> Size:
        other = other.name if isinstance(other, Size) else \
            self.b.const(np.array([other], np.int64))
        inputs = [other, self.name] if flip else [self.name, other]
        return Size(self.b, self.b.node(ONNX_INT_OPS[op], inputs, hint="size"))

    def __neg__(self) -> Size:
        return Size(self.b, self.b.node("Neg", [self.name], hint="size"))


@dataclass
class OnnxContext:
    """What a rule sees of one op: operand names (a list for a variadic operand, None
    for an absent optional one), attributes with defaults, IR types, the builder."""

    op: IvyOp
    b: GraphBuilder
    args: dict[str, Any]
    attrs: dict[str, Any]
    in_types: dict[str, Any]
    out_types: list[TensorSpec]
    export_region: Any = None
    """`export_region(region, builder, inputs) -> (graph inputs, graph, outputs)`: how
    control-flow rules turn an IR region into an ONNX subgraph (`onnx.py`)."""

    @property
    def x(self) -> str:
        return self.args[self.op.SPEC.operands[0].name]

    @property
    def x_type(self) -> TensorSpec:
        return self.in_types[self.op.SPEC.operands[0].name]

    @property
    def out(self) -> TensorSpec:
        return self.out_types[0]

    def node(self, op_type: str, inputs: list[str], outputs: int = 1, **attrs: Any) -> Any:
        return self.b.node(op_type, inputs, outputs, **attrs)

    def scalar(self, value: Any, dtype: str | None = None) -> str:
        """A 0-d constant in `dtype` (default: the first operand's)."""
        return self.b.const(value, dtype or self.x_type.dtype)


__all__ = ["GraphBuilder", "Names", "OnnxContext", "Size", "onnx_dtype", "value_info"]
