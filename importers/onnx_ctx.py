"""What an ONNX operator rule sees: `Ctx`, the ONNX importer's `ImportContext`.

The walker (`onnx_walk.py`) calls every rule of the operator table as
`rule(ctx, *inputs, **attrs)`: the node's inputs in order and its attributes decoded to
Python (`decode_attrs`; schema defaults are not filled in, rules use Python defaults).
An input is an SSA value of the IR being built, a *known* NumPy array (a `Constant`, a
`Shape` of static shapes, a small integer initializer, or a result computed only from
those), a symbolic shape value (`onnx_dims.Sizes`: a `Shape` of dynamic dims and the
arithmetic on it), or None for an omitted optional input. `emit` folds: a registry op
whose operands are all known runs in the reference evaluator (unless its result is
large), so shape arithmetic (`Shape -> Gather -> Concat -> Reshape`) never reaches the
IR and static operands stay readable. A known array becomes an IR constant only where a
traced op consumes it, once per array and block.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from xdsl.ir import Block, BlockArgument, SSAValue

from ivy_ir.core.evaluate import evaluate
from ivy_ir.dialect import SPECS, TensorSpec
from ivy_ir.dialect.checks import check_attrs, infer_types
from ivy_ir.dialect.symbolic import SymDim
from ivy_ir.dialect.types import numpy_dtype

from .common import ImportBuilder, Unmapped, dtype_of, spec_of
from .onnx_dims import Dim, Sizes

FOLD_LIMIT = 4096
"""Largest op result (in elements) computed at import time from known operands; bigger
ones are emitted as ops, so a `ConstantOfShape` of a big static shape stays one
`ivy.full` instead of a weight-sized constant."""

ELEM_TYPES: dict[int, str] = {
    1: "float32", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32", 7: "int64",
    9: "bool", 10: "float16", 11: "float64", 12: "uint32", 13: "uint64", 14: "complex64",
    15: "complex128", 16: "bfloat16", 17: "float8_e4m3fn", 18: "float8_e4m3fnuz",
    19: "float8_e5m2", 20: "float8_e5m2fnuz", 21: "uint4", 22: "int4", 23: "float4_e2m1fn",
    24: "float8_e8m0fnu", 25: "uint2", 26: "int2", 8: "string",
}
"""ONNX `TensorProto.DataType` -> registry dtype (the float8/float4/int4/int2 ones are
the registry's storage dtypes; STRING its text dtype). The others (float6) have no
registry type: a node or input using one is reported, never guessed."""

ELEM_NAMES: dict[int, str] = {0: "undefined", 27: "float6e2m3", 28: "float6e3m2"}
"""Names of the ONNX element types the registry lacks, for the report."""


@dataclass(frozen=True)
class Seq:
    """An ONNX sequence, held at import as the Python list of its tensors: the IR has
    no sequence type, and every sequence operator the importer takes
    (`onnx_sequence.py`) edits the list at positions known at import. `dtype` is the
    element type, which an empty sequence still has."""

    items: tuple[Any, ...]
    dtype: str | None = None


@dataclass(frozen=True)
class Opt:
    """An ONNX optional, held at import as what it holds: a tensor value, a `Seq`, or
    None when empty. The IR has no optional type; whether one holds a value is known
    when the model is imported, or for a graph input when it is called
    (`onnx_optional.py`)."""

    value: Any = None


Value = SSAValue | np.ndarray | Sizes | Seq | Opt | None


def elem_dtype(elem_type: int) -> str:
    """The registry dtype of an ONNX element type; `Unmapped` naming it otherwise."""
    if elem_type not in ELEM_TYPES:
        name = ELEM_NAMES.get(elem_type, f"element type {elem_type}")
        raise Unmapped(f"dtype {name} has no ivy dtype")
    return ELEM_TYPES[elem_type]


def tensor_array(tensor: Any) -> np.ndarray:
    """A TensorProto's value as a NumPy array in its registry dtype (bfloat16 through
    ml_dtypes). ONNX's own reader decodes the raw bytes; external data was already
    loaded with the model (from its path), so nothing here touches files or runs code."""
    from onnx import TensorProto, numpy_helper  # lazy: `import ivy_ir` must not load onnx

    dtype = elem_dtype(tensor.data_type)
    if tensor.data_location == TensorProto.EXTERNAL:
        # only ONNX's loader, given the model's path, may read (checked) external files
        raise Unmapped("its data is in an external file; load the model from its path")
    array = np.asarray(numpy_helper.to_array(tensor))
    if dtype == "string":  # ONNX's reader gives UTF-8 bytes; the IR's text is `str`
        return np.vectorize(lambda b: b.decode("utf-8", "replace") if isinstance(b, bytes)
                            else b, otypes=[object])(array) if array.size else array.astype(object)
    return array.astype(numpy_dtype(dtype), copy=False)


def decode_attrs(node: Any) -> dict[str, Any]:
    """The node's attributes as Python values: ints, floats, str, lists of those, a
    NumPy array for a tensor, a `GraphProto` for a graph, a `TypeProto` for a type
    (lists of graphs/tensors as lists). Only attributes the node sets; no schema defaults."""
    from onnx import AttributeProto  # lazy: `import ivy_ir` must not load onnx

    kinds: dict[int, Callable[[Any], Any]] = {
        AttributeProto.FLOAT: lambda a: float(a.f),
        AttributeProto.INT: lambda a: int(a.i),
        AttributeProto.STRING: lambda a: a.s.decode("utf-8", "replace"),
        AttributeProto.TENSOR: lambda a: tensor_array(a.t),
        AttributeProto.GRAPH: lambda a: a.g,
        AttributeProto.FLOATS: lambda a: [float(v) for v in a.floats],
        AttributeProto.INTS: lambda a: [int(v) for v in a.ints],
        AttributeProto.STRINGS: lambda a: [s.decode("utf-8", "replace") for s in a.strings],
        AttributeProto.TENSORS: lambda a: [tensor_array(t) for t in a.tensors],
        AttributeProto.GRAPHS: lambda a: list(a.graphs),
        AttributeProto.TYPE_PROTO: lambda a: a.tp,
    }
    out: dict[str, Any] = {}
    for attr in node.attribute:
        if attr.type not in kinds:
            raise Unmapped(f"attribute '{attr.name}' of a kind ivy_ir does not read")
        out[attr.name] = kinds[attr.type](attr)
    return out


class NotKnown(Unmapped):
    """A value a rule needs at import time is traced; `inputs` are the graph inputs it
    is computed from, which an example given as a Python value would fix."""

    def __init__(self, what: str, inputs: Sequence[str]):
        many = len(inputs) > 1
        hint = "" if not inputs else (
            f" (it depends on graph input{'s' * many} {', '.join(map(repr, inputs))}: give "
            f"{'their examples as Python lists' if many else 'its example as a Python list'}"
            f" to fix {'them' if many else 'it'} at import)")
        super().__init__(f"{what} is not known at import time{hint}")
        self.inputs = tuple(inputs)


@dataclass(frozen=True)
class Deferred:
    """An input an `UPGRADES` row can only make with ops (a reshape of a traced value):
    the walker calls `make` with the node's `Ctx` before the rule runs."""

    make: Callable[[Ctx], Any]


class Graphs(Protocol):
    """What the walker does for rules that reach beyond one node."""

    def subgraph(self, graph: Any, inputs: Sequence[Value]) -> list[Value]: ...

    def input_name(self, value: SSAValue) -> str | None: ...

    def value_of(self, name: str) -> Any: ...

    def shape_of(self, value: SSAValue) -> tuple[Dim, ...]: ...


class Constants:
    """The IR constants made of known arrays, once per array and block: a constant
    made inside a region (a loop's condition, a branch) is not visible outside it, so
    each block where one is used gets its own."""

    def __init__(self, builder: ImportBuilder):
        self.builder = builder
        self._made: dict[tuple[int, int], tuple[np.ndarray, Block, SSAValue]] = {}

    def of(self, array: np.ndarray) -> SSAValue:
        # holding the array and the block keeps their ids from being reused
        block = self.builder.graph.builder.insertion_point.block
        key = (id(array), id(block))
        if key not in self._made:
            self._made[key] = (array, block, self.builder.constant(array))
        return self._made[key][2]


class Ctx:
    """One ONNX node being imported: its name, opset, outputs, and the op emitter."""

    def __init__(self, graphs: Graphs, builder: ImportBuilder, constants: Constants,
                 node: Any, opset: int):
        self.graphs = graphs
        self.b = builder
        self.constants = constants
        self.node = node
        self.opset = opset
        """The model's opset version of the node's domain."""
        self.name: str = node.name
        self.outputs: int = len(node.output)
        """How many outputs the node lists (requested or not)."""

    # -- ImportContext ------------------------------------------------------------------

    @property
    def out(self) -> TensorSpec:
        raise Unmapped("the node's result type is not known before it is imported")

    def emit(self, op: str, *operands: Any, **attrs: Any) -> Any:
        """Emit registry op `op` (a variadic operand is one list; None: an absent optional
        operand); its first result. With every operand known and a small result, the op
        runs now and the result is a NumPy array."""
        return self.emit_all(op, *operands, **attrs)[0]

    def emit_all(self, op: str, *operands: Any, **attrs: Any) -> list[Any]:
        attrs = {k: v for k, v in attrs.items() if v is not None}
        flat = [v for x in operands for v in (x if isinstance(x, list) else [x])
                if v is not None]
        spec = SPECS[op]
        if all(isinstance(v, np.ndarray) for v in flat) and not spec.regions \
                and _small(spec, operands, attrs):
            out = evaluate(spec, list(operands), attrs)
            return [np.asarray(o) for o in (out if spec.variadic_results
                                            or len(spec.results) > 1 else [out])]
        args = [[self.operand(v) for v in x] if isinstance(x, list) else
                None if x is None else self.operand(x) for x in operands]
        return self.b.emit_all(op, args, **attrs)

    def cast(self, value: Any, dtype: str) -> Any:
        """`value` in `dtype`, with an `astype` only where the dtype differs."""
        if isinstance(value, np.ndarray):
            return self.emit("astype", value, dtype=dtype) if value.dtype != numpy_dtype(
                dtype) else value
        if isinstance(value, Sizes):  # a shape value stays one in either index dtype
            if dtype not in ("int32", "int64"):
                raise _only_shapes(value, f"the value cast to {dtype}")
            return Sizes(value.array, dtype)
        return self.b.cast(value, dtype)

    @staticmethod
    def const(value: Any, dtype: str) -> np.ndarray:
        """A known constant of `dtype` (an IR constant where a traced op uses it)."""
        return np.asarray(value, numpy_dtype(dtype))

    def spec(self, value: Any) -> TensorSpec:
        """The type of a value (SSA or known array)."""
        if isinstance(value, np.ndarray):
            return TensorSpec(value.shape, dtype_of(value.dtype))
        if isinstance(value, SSAValue):
            return spec_of(value)
        if isinstance(value, Sizes):
            return TensorSpec(value.shape, value.dtype)
        raise _not_tensor(value)

    @staticmethod
    def known(value: Any) -> np.ndarray | None:
        return value if isinstance(value, np.ndarray) else None

    # -- ONNX extras --------------------------------------------------------------------

    def operand(self, value: Any) -> SSAValue:
        """`value` as an IR operand: a known array becomes an IR constant (once per
        array and block)."""
        if isinstance(value, np.ndarray):
            return self.constants.of(value)
        if isinstance(value, Sizes):
            raise _only_shapes(value, "an operand")
        if not isinstance(value, SSAValue):
            raise _not_tensor(value)
        return value

    def static(self, value: Any, what: str) -> np.ndarray:
        """The value of an input that must be known at import time (`what` names it in
        the report otherwise). A float initializer, a parameter elsewhere, counts as
        known here: geometry such as Resize's scales is fixed at import like a Constant."""
        if isinstance(value, np.ndarray):
            return value
        if isinstance(value, Sizes):
            raise _only_shapes(value, what)
        weight = self._initializer(value)
        if weight is None:
            raise NotKnown(what, self._input_sources(value))
        return weight

    def _initializer(self, value: Any) -> np.ndarray | None:
        """The array of the graph parameter `value` is, or None."""
        graph = self.b.graph
        if not isinstance(value, BlockArgument) or value.block is not graph.block:
            return None
        attrs = graph.param_attrs.get(value.index)
        entry = None if attrs is None else (attrs.data.get("ivy.param")
                                            or attrs.data.get("ivy.buffer"))
        return None if entry is None else graph.params[entry.data]

    def _input_sources(self, value: Any) -> list[str]:
        """The graph inputs a traced value is computed from (by their ONNX names)."""
        if not isinstance(value, SSAValue):
            return []
        found: set[str] = set()
        seen: set[int] = set()
        stack = [value]
        while stack:
            v = stack.pop()
            if id(v) in seen:
                continue
            seen.add(id(v))
            if isinstance(v, BlockArgument):
                name = self.graphs.input_name(v)
                if name is not None:
                    found.add(name)
            else:
                stack.extend(v.owner.operands)
        return sorted(found)

    def dims(self, value: Any) -> tuple[Dim, ...]:
        """`value`'s shape with each dynamic dim's size expression where the importer
        can name it, None where it cannot (`onnx_dim_flow`)."""
        if isinstance(value, SSAValue):
            return self.graphs.shape_of(value)
        return self.spec(value).shape

    def sizes(self, value: Any, what: str) -> list[int | SymDim]:
        """A known shape input's entries, each an int or a size expression over the
        input dims (a `Sizes` from symbolic shape arithmetic)."""
        if isinstance(value, Sizes):
            return value.entries()
        return self.ints(value, what)

    def ints(self, value: Any, what: str) -> list[int]:
        """A known input's values as a flat list of ints (shape, axes, bounds)."""
        return [int(v) for v in np.ravel(self.static(value, what))]

    def rank(self, value: Any) -> int:
        return self.spec(value).rank

    def requested(self, i: int) -> bool:
        """Whether the node names output `i` (an empty name: not wanted)."""
        return i < len(self.node.output) and bool(self.node.output[i])

    def dtype(self, elem_type: int) -> str:
        """The registry dtype of an ONNX element type (`Unmapped` for those it lacks)."""
        return elem_dtype(elem_type)

    def rng_key(self) -> SSAValue:
        """A random key for one random op (see `ImportBuilder.rng_key`)."""
        return self.b.rng_key()

    def subgraph(self, graph: Any, inputs: Sequence[Value]) -> list[Value]:
        """The values of a GRAPH attribute's outputs, walked in place (at the current
        insertion point, e.g. inside a region being recorded) with `inputs` bound to
        its inputs; names of the enclosing graphs stay visible."""
        return self.graphs.subgraph(graph, inputs)


def _not_tensor(value: Any) -> Unmapped:
    """The report for a value that is no tensor where a tensor is needed."""
    if isinstance(value, Seq):
        return Unmapped("a sequence is used where a tensor is needed (a sequence exists "
                        "only at import, as the list of its tensors)")
    return Unmapped("an omitted optional input is used")


def _only_shapes(value: Sizes, what: str) -> Unmapped:
    """The report for a symbolic shape value used where no size expression can go: it
    exists only at import, so only shape arithmetic and shape attributes take it."""
    return Unmapped(f"{what} is the shape value {value} of dynamic sizes, which only "
                    "shape arithmetic, the shapes of Reshape, Expand and ConstantOfShape "
                    "and the bounds of Range take")


def _small(spec: Any, operands: Sequence[Any], attrs: dict[str, Any]) -> bool:
    """Whether every result of `spec` on these known operands has at most
    `FOLD_LIMIT` elements, from the registry's type inference: sizes are checked
    before anything is computed, so a model asking for a huge constant (a hostile
    `ConstantOfShape`, `Range` or `Expand`) gets an op, not an allocation at import."""
    types = [None if x is None else [TensorSpec.of(v) for v in x] if isinstance(x, list)
             else TensorSpec.of(x) for x in operands]
    results = infer_types(spec, types, check_attrs(spec, attrs))
    return all(None not in r.shape and math.prod(r.shape) <= FOLD_LIMIT  # type: ignore[misc]
               for r in results)
