"""What a TF raw-op rule sees: `Ctx`, the TensorFlow importer's `ImportContext`.

The walker (`tensorflow_walk.py`) calls every rule of the raw-op table as
`rule(ctx, *inputs, **attrs)`: the op's input values positionally and its node
attributes, decoded by `node_attrs`, as keyword arguments. An input value is an SSA
value of the IR being built, a *known* NumPy array (a `Const`, a `Shape` of the static
input shapes, or a result computed only from those), a `VarRef` (a captured variable's
resource handle) or `NO_VALUE`. Rules read static operands (a `Reshape` shape, slice
bounds) with `ints`/`static` and pass values of any kind to `emit`, which makes a known
array an IR constant only where a traced op consumes it, once per tensor. When every
input of an op is known the same rule runs *folding*: `emit` executes registry ops with
the reference evaluator, so shape arithmetic (`tf.shape(x)[0] * 2`) never reaches the IR.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import tensorflow as tf
from xdsl.ir import SSAValue

from ivy_ir.core.evaluate import evaluate
from ivy_ir.dialect import SPECS, TensorSpec
from ivy_ir.dialect.symbolic import SymDim
from ivy_ir.dialect.types import DTYPES, numpy_dtype

from .common import ImportBuilder, Unmapped, dtype_of, spec_of


@dataclass(frozen=True)
class VarRef:
    """A resource handle of a variable: read into a named IR parameter by ReadVariableOp."""

    name: str
    value: np.ndarray
    trainable: bool


class NoValue:
    """The value of an output its rule left out (FusedBatchNorm's batch statistics): an
    op using it is reported as unsupported."""

    def __repr__(self) -> str:
        return "NO_VALUE"


NO_VALUE = NoValue()


@dataclass(frozen=True)
class TList:
    """A TensorList (what a TensorArray, `tf.scan`, `tf.map_fn` and Keras' RNN loop
    stage to) of static `length`, held densely: `items` stacks its elements on a new
    axis 0, or is None while nothing was written (TF stacks unwritten elements as
    zeros). `elem` is the element shape as far as TF knows it (None: unknown rank).
    Every list op then is an array op (`tensorflow_lists.py`), and a list carried by a
    loop is one carried array."""

    items: SSAValue | np.ndarray | None
    length: int
    elem: tuple[int | None, ...] | None
    dtype: str


@dataclass(frozen=True, eq=False)
class Sizes:
    """A known integer tensor some of whose entries are dynamic sizes: `tf.shape` of a
    value with dynamic dims, and the shape arithmetic done on it (`tf.shape(x)[0] * 2`).
    `entries` is an object array of ints and `SymDim`s. Only the rules of
    `tensorflow_sizes` take it (a `Reshape` or `Fill` then gets a symbolic `shape`
    attribute); any other op using it is reported, since the IR has no value for a
    size, only size expressions in shape attributes."""

    entries: np.ndarray
    dtype: str

    @property
    def shape(self) -> tuple[int, ...]:
        return self.entries.shape


def sizes_value(entries: Any, dtype: str) -> np.ndarray | Sizes:
    """Shape arithmetic's result: a plain known array when no entry is dynamic."""
    entries = np.asarray(entries, dtype=object) if not isinstance(entries, np.ndarray) \
        else entries
    if any(isinstance(e, SymDim) for e in entries.flat):
        return Sizes(entries, dtype)
    return np.asarray(entries.astype(np.int64), numpy_dtype(dtype))


Value = SSAValue | np.ndarray | VarRef | NoValue | TList | Sizes


def tf_dtype(dtype: Any) -> str | None:
    """The registry dtype of a TF dtype, or None when the registry has none (resource,
    string, variant, quantized)."""
    name = getattr(dtype, "name", str(dtype))
    name = {"half": "float16"}.get(name, name)
    return name if name in DTYPES else None


def tensor_spec(t: Any) -> TensorSpec | None:
    """TF's static type of tensor `t`, or None where the registry cannot hold it."""
    dtype = tf_dtype(t.dtype)
    if dtype is None or t.shape.rank is None:
        return None
    return TensorSpec(tuple(t.shape.as_list()), dtype)


def node_attrs(op: Any) -> dict[str, Any]:
    """The node attributes of `op` as Python values: dtypes as registry dtype names (TF's
    own name where the registry has none), strings as str (binary blobs such as a
    serialized config stay bytes), shapes as lists (None: unknown rank), tensors as
    NumPy arrays (a TensorProto where NumPy has no such dtype), functions by name, lists
    element by element."""
    return {name: _decode(value) for name, value in op.node_def.attr.items()}


def _decode(value: Any) -> Any:
    kind = value.WhichOneof("value")
    if kind == "list":
        for field in ("s", "i", "f", "b", "type", "shape", "tensor", "func"):
            items = getattr(value.list, field)
            if items:
                return [_decode_one(field, v) for v in items]
        return []
    return None if kind is None else _decode_one(kind, getattr(value, kind))


def _decode_one(kind: str, v: Any) -> Any:
    if kind == "s":
        try:
            return v.decode()
        except UnicodeDecodeError:
            return v
    if kind == "type":
        return _type_name(v)
    if kind == "shape":
        shape = tf.TensorShape(v)
        return None if shape.rank is None else shape.as_list()
    if kind == "tensor":
        try:
            return tf.make_ndarray(v)
        except (KeyError, TypeError, ValueError):  # variant, resource: NumPy has no such dtype
            return v
    if kind == "func":
        return v.name
    return v  # i, f, b: int, float, bool


@functools.cache
def _type_name(enum: int) -> str:
    dtype = tf.as_dtype(enum)
    return tf_dtype(dtype) or dtype.name


class Graphs(Protocol):
    """What the walker does for rules that reach beyond one op."""

    def run(self, graph: Any, inputs: Sequence[Value],
            outputs: Sequence[Any] | None = None) -> list[Value]: ...

    def fold(self, graph: Any, inputs: Sequence[Value], outputs: Sequence[Any]
             ) -> list[Value]: ...

    def function_graph(self, op: Any, name: str) -> Any: ...

    def read_variable(self, ref: VarRef) -> SSAValue: ...

    def assign_variable(self, ref: VarRef, value: SSAValue) -> None: ...

    def symbolic_shape(self, value: Value) -> tuple[int | SymDim, ...] | None: ...


class Constants:
    """The IR constants made of one graph's known arrays, once per tensor. The walker
    stores each tensor's known array as an object of its own (a pass-through result is
    a view), so the array object identifies its tensor."""

    def __init__(self, builder: ImportBuilder):
        self.builder = builder
        self._made: dict[int, tuple[np.ndarray, SSAValue]] = {}

    def of(self, array: np.ndarray) -> SSAValue:
        if id(array) not in self._made:
            self._made[id(array)] = (array, self.builder.constant(array))
        return self._made[id(array)][1]


class Ctx:
    """One TF op being imported: its node (`op`), TF's static types of its inputs and
    outputs, and whether it is folded (all inputs known: registry ops run on arrays)."""

    def __init__(self, graphs: Graphs, builder: ImportBuilder, constants: Constants, op: Any,
                 inputs: Sequence[Value], folding: bool, values: Mapping[str, Value]):
        self.graphs = graphs
        self._values = values
        self.b = builder
        self.constants = constants
        self.op = op
        self.inputs = tuple(inputs)
        self.folding = folding
        self._ins = [_value_spec(v, t) for v, t in zip(self.inputs, op.inputs)]
        self.outs = [tensor_spec(t) for t in op.outputs]
        """TF's static types of all outputs (None where the registry has no such type)."""

    # -- ImportContext ------------------------------------------------------------------

    @property
    def out(self) -> TensorSpec:
        """TF's static type of the first output."""
        if self.outs[0] is None:
            raise Unmapped(f"result of dtype {self.op.outputs[0].dtype.name}")
        return self.outs[0]

    def emit(self, op: str, *operands: Any, **attrs: Any) -> Any:
        """Emit registry op `op` (a variadic operand is one list; None: an absent optional
        operand); its first result, an array when folding."""
        return self.emit_all(op, *operands, **attrs)[0]

    def emit_all(self, op: str, *operands: Any, **attrs: Any) -> list[Any]:
        args = [[self.operand(v) for v in x] if isinstance(x, list) else
                None if x is None else self.operand(x) for x in operands]
        if not self.folding:
            return self.b.emit_all(op, args, **attrs)
        spec = SPECS[op]
        out = evaluate(spec, args, {k: v for k, v in attrs.items() if v is not None})
        outs = list(out) if spec.variadic_results or len(spec.results) > 1 else [out]
        return [np.asarray(o) for o in outs]

    def cast(self, value: Any, dtype: str) -> Any:
        """`value` in `dtype`, with an `astype` only where the dtype differs."""
        value = self.operand(value)
        if self.folding:
            return value.astype(numpy_dtype(dtype), copy=False)
        return self.b.cast(value, dtype)

    def const(self, value: Any, dtype: str) -> Any:
        """A constant of `dtype`: an array when folding, else an IR constant."""
        if self.folding:
            return np.asarray(value, numpy_dtype(dtype))
        return self.b.constant(value, dtype)

    def spec(self, value: Any) -> TensorSpec:
        """The type of a value: TF's static type for an input (the imported value's shape
        where TF's has unknown dims), else the value's own."""
        spec = self.spec_or_none(value)
        if spec is None:
            raise Unmapped("operand of unknown type")
        return spec

    @staticmethod
    def known(value: Any) -> np.ndarray | None:
        return value if isinstance(value, np.ndarray) else None

    # -- TF extras ----------------------------------------------------------------------

    def operand(self, value: Any) -> Any:
        """`value` as registry ops take it: an array when folding, else an SSA value (a
        known array becomes an IR constant, once per tensor). A rule that returns one of
        its inputs unchanged returns `operand(x)`, so the result is what an op made of
        it would be."""
        if isinstance(value, np.ndarray):
            return value if self.folding else self.constants.of(value)
        if isinstance(value, (VarRef, NoValue, TList, Sizes)):
            index = next((i for i, v in enumerate(self.inputs) if v is value), None)
            if isinstance(value, Sizes):
                raise Unmapped(f"operand {index} holds the dynamic size(s) "
                               f"{_listed(value)}, which only shape arithmetic may use")
            raise Unmapped(f"operand {index} is not an array")
        return value

    def static(self, value: Any, what: str) -> np.ndarray:
        """The value of an operand that must be known at import time (`what` names it in
        the report otherwise)."""
        if not isinstance(value, np.ndarray):
            raise Unmapped(f"non-constant {what}")
        return value

    def ints(self, value: Any, what: str) -> list[int]:
        """A known operand's values as a flat list of ints (shape, perm, bounds)."""
        return [int(v) for v in np.ravel(self.static(value, what))]

    def symbolic_shape(self, value: Any) -> tuple[int | SymDim, ...] | None:
        """The sizes of a value, dynamic ones as expressions of the input dims (None:
        not tracked, see `tensorflow_dims`)."""
        return self.graphs.symbolic_shape(value)

    def rank(self, value: Any) -> int:
        spec = self.spec_or_none(value)
        if spec is None:
            raise Unmapped("operand of unknown rank")
        return spec.rank

    def axes(self, value: Any, rank: int) -> list[int]:
        """Known reduction axes, made non-negative and sorted (no duplicates)."""
        return sorted({a % rank if rank else a for a in self.ints(value, "reduction axes")})

    def index(self, value: Any) -> Any:
        """An index operand in a dtype registry index operands take (int32 or int64)."""
        if self.spec(value).dtype in ("int32", "int64"):
            return self.operand(value)
        return self.cast(value, "int64")

    def inline(self, function: str, *inputs: Value) -> list[Value]:
        """The values of a called function's outputs, its body walked in place."""
        return self.graphs.run(self.graphs.function_graph(self.op, function), inputs)

    def value_of(self, tensor: Any) -> Value | None:
        """The imported value of another tensor of the op's graph (None: not walked),
        for rules that recognise a pattern of several ops (`tensorflow_space`)."""
        return self._values.get(tensor.name)

    def read_variable(self, ref: VarRef) -> SSAValue:
        """The IR parameter of a captured variable (one per variable)."""
        return self.graphs.read_variable(ref)

    def spec_or_none(self, value: Any) -> TensorSpec | None:
        """`spec`, or None for an input whose type the registry cannot hold (a resource
        handle, a string tensor) or whose rank TF does not know."""
        if isinstance(value, SSAValue):
            return spec_of(value)
        for v, spec in zip(self.inputs, self._ins):
            if v is value:
                return spec
        if isinstance(value, np.ndarray):  # made by the rule while folding
            return TensorSpec(value.shape, dtype_of(value.dtype))
        return None


def _listed(value: Sizes) -> str:
    return ", ".join(str(e) for e in value.entries.flat if isinstance(e, SymDim))


def _value_spec(value: Value, t: Any) -> TensorSpec | None:
    """The type of an input as imported: TF's static shapes may hold unknown dims where
    the imported value's are known (a `Where` on a constant mask)."""
    if isinstance(value, SSAValue):
        return spec_of(value)
    spec = tensor_spec(t)
    if isinstance(value, np.ndarray) and spec is not None:
        return spec.with_(shape=value.shape)
    return spec
