"""The generic walker of the TensorFlow importer: one pass over a `FuncGraph`'s ops.

Each TF op is handled by one entry of `TF_TO_IVY` (raw op type -> handler of an
`OpCtx`). Tensors whose value is known while importing (`Const`, `Shape` of the static
input shapes, and ops computed only from those) stay NumPy arrays: the same handler
runs on them through a folding emitter that executes registry ops with the
reference evaluator, so shape arithmetic (`tf.shape(x)[0] * 2`) never reaches the IR and
static operands (a `Reshape` shape, `Transpose` perm, slice bounds) are readable.
Arrays become IR constants only where a traced op consumes them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.ir import Attribute, SSAValue

from importers.common import ImportBuilder, spec_of
from ivy_ir.core.errors import TraceError
from ivy_ir.core.evaluate import evaluate
from ivy_ir.dialect import SPECS, TensorSpec
from ivy_ir.dialect.attrs import AttrError
from ivy_ir.dialect.infer import InferError
from ivy_ir.dialect.types import DTYPES, numpy_dtype

FOLD_LIMIT = 4096
"""Largest op result (in elements) computed at import time when all its inputs are known;
bigger ones are emitted as ops, so a `tf.zeros((512, 512))` stays one `ivy.full`."""


@dataclass(frozen=True)
class VarRef:
    """A resource handle of a variable: read into a named IR parameter by ReadVariableOp."""

    name: str
    value: np.ndarray
    trainable: bool


Value = SSAValue | np.ndarray | VarRef | None


class Unmapped(Exception):
    """Raised by a handler for an op it cannot import exactly (the reason is reported)."""


class FoldEmitter:
    """Registry ops run eagerly on NumPy arrays (the reference semantics)."""

    static = True

    def emit_all(self, op: str, operands: Sequence[Any] = (), **attrs: Any) -> list[Any]:
        spec = SPECS[op]
        out = evaluate(spec, list(operands), {k: v for k, v in attrs.items() if v is not None})
        outs = list(out) if spec.variadic_results or len(spec.results) > 1 else [out]
        return [np.asarray(o) for o in outs]

    def emit(self, op: str, operands: Sequence[Any] = (), **attrs: Any) -> Any:
        return self.emit_all(op, operands, **attrs)[0]

    def constant(self, value: Any, dtype: str) -> np.ndarray:
        return np.asarray(value, numpy_dtype(dtype))

    def cast(self, value: np.ndarray, dtype: str) -> np.ndarray:
        return value.astype(numpy_dtype(dtype), copy=False)


class IREmitter:
    """Registry ops recorded into the entry function being built."""

    static = False

    def __init__(self, builder: ImportBuilder):
        self.builder = builder

    def emit_all(self, op: str, operands: Sequence[Any] = (), **attrs: Any) -> list[SSAValue]:
        return self.builder.emit_all(op, operands, **attrs)

    def emit(self, op: str, operands: Sequence[Any] = (), **attrs: Any) -> SSAValue:
        return self.builder.emit(op, operands, **attrs)

    def constant(self, value: Any, dtype: str) -> SSAValue:
        return self.builder.constant(value, dtype)

    def cast(self, value: SSAValue, dtype: str) -> SSAValue:
        return self.builder.cast(value, dtype)


def tf_dtype(dtype: Any) -> str | None:
    """The registry dtype of a TF dtype, or None when the registry has none (resource,
    string, complex, unsigned wider than 8 bits)."""
    name = getattr(dtype, "name", str(dtype))
    name = {"half": "float16"}.get(name, name)
    return name if name in DTYPES else None


def _value_spec(value: Value, t: Any) -> TensorSpec | None:
    """The type of an operand as imported: TF's static shapes may hold unknown dims
    where the imported value's are known (a `Where` on a constant mask)."""
    if isinstance(value, SSAValue):
        return spec_of(value)
    spec = tensor_spec(t)
    if isinstance(value, np.ndarray) and spec is not None:
        return spec.with_(shape=value.shape)
    return spec


def tensor_spec(t: Any) -> TensorSpec | None:
    dtype = tf_dtype(t.dtype)
    if dtype is None or t.shape.rank is None:
        return None
    return TensorSpec(tuple(t.shape.as_list()), dtype)


class OpCtx:
    """What a handler sees of one TF op: its operands as IR values (or arrays when
    folding), static operand values, attributes and the static types TF inferred."""

    def __init__(self, walker: Walker, op: Any, scope: Scope, emitter: Any):
        self.walker = walker
        self.op = op
        self.scope = scope
        self.e = emitter
        self.ins = [_value_spec(scope.values[t.name], t) for t in op.inputs]
        self.outs = [tensor_spec(t) for t in op.outputs]

    @property
    def n_inputs(self) -> int:
        return len(self.op.inputs)

    def raw(self, i: int) -> Value:
        return self.scope.values[self.op.inputs[i].name]

    def x(self, i: int) -> Any:
        """Operand `i` as something registry ops take: an array when folding, else an
        SSA value (known arrays are materialized as IR constants once per tensor)."""
        value = self.raw(i)
        if isinstance(value, np.ndarray) and not self.e.static:
            return self.scope.materialize(self.walker.builder, self.op.inputs[i].name, value)
        if value is None or isinstance(value, VarRef):
            raise Unmapped(f"operand {i} is not an array")
        return value

    def static(self, i: int, what: str) -> np.ndarray:
        """Operand `i`'s value, which must be known at import time (`what` names it in
        the error otherwise)."""
        value = self.raw(i)
        if not isinstance(value, np.ndarray):
            raise Unmapped(f"non-constant {what}")
        return value

    def ints(self, i: int, what: str) -> list[int]:
        return [int(v) for v in np.ravel(self.static(i, what))]

    def attr(self, name: str, default: Any = None) -> Any:
        try:
            value = self.op.get_attr(name)
        except ValueError:
            return default
        if isinstance(value, bytes):
            return value.decode()
        if hasattr(value, "as_datatype_enum"):
            return tf_dtype(value)
        return value

    def emit(self, op: str, operands: Sequence[Any] = (), **attrs: Any) -> Any:
        return self.e.emit(op, operands, **attrs)

    def emit_all(self, op: str, operands: Sequence[Any] = (), **attrs: Any) -> list[Any]:
        return self.e.emit_all(op, operands, **attrs)

    def const(self, value: Any, dtype: str) -> Any:
        return self.e.constant(value, dtype)

    def cast(self, value: Any, dtype: str) -> Any:
        return self.e.cast(value, dtype)

    def rank(self, i: int = 0) -> int:
        spec = self.ins[i]
        if spec is None:
            raise Unmapped("operand of unknown rank")
        return spec.rank


Handler = Callable[[OpCtx], Any]


@dataclass
class Scope:
    """The values of one graph's tensors (by name) while it is walked, and the IR
    constants made of its known arrays (once per tensor)."""

    values: dict[str, Value]
    constants: dict[str, SSAValue] = field(default_factory=dict)

    def materialize(self, builder: ImportBuilder, name: str, array: np.ndarray) -> SSAValue:
        if name not in self.constants:
            self.constants[name] = builder.constant(array)
        return self.constants[name]


class Walker:
    """Walks TF graphs into one ImportBuilder, op by op, in the graph's (topological)
    creation order, and inlines the bodies of called functions."""

    def __init__(self, builder: ImportBuilder, table: dict[str, Handler],
                 locate: Callable[[Any], Attribute], side_effects: frozenset[str], graph: Any):
        self.graph = graph
        self.builder = builder
        self.table = table
        self.locate = locate
        self.side_effects = side_effects
        self.real = IREmitter(builder)
        self.fold = FoldEmitter()
        self._params: dict[str, SSAValue] = {}

    def run(self, graph: Any, inputs: Sequence[Value]) -> list[Value]:
        """Values of `graph.outputs` given values of `graph.inputs`."""
        scope = Scope({t.name: v for t, v in zip(graph.inputs, inputs, strict=True)})
        for op in _needed_ops(graph, self.side_effects):
            if op.type == "Placeholder" and op.outputs[0].name in scope.values:
                continue
            self.builder.at(self.locate(op))
            self._import(op, scope)
        return [scope.values[t.name] for t in graph.outputs]

    def _import(self, op: Any, scope: Scope) -> None:
        env = scope.values
        handler = self.table.get(op.type)
        if handler is None:
            self._unsupported(op, op.type, env)
            return
        inputs = [env[t.name] for t in op.inputs]
        # fold ops of known inputs, unless a result is large; one whose size depends on
        # the values (a `Where` of a constant mask) is always folded
        foldable = all(isinstance(v, np.ndarray) for v in inputs) and all(
            not t.shape.is_fully_defined() or t.shape.num_elements() <= FOLD_LIMIT
            for t in op.outputs)
        ctx = OpCtx(self, op, scope, self.fold if foldable else self.real)
        try:
            results = handler(ctx)
        except (Unmapped, InferError, AttrError) as exc:
            # registry errors: an operand dtype or attribute the registry op refuses
            self._unsupported(op, f"{op.type} ({exc})", env)
            return
        results = list(results) if isinstance(results, (list, tuple)) else [results]
        results += [None] * (len(op.outputs) - len(results))
        for t, spec, value in zip(op.outputs, ctx.outs, results, strict=True):
            env[t.name] = _checked(op, spec, value)

    def function_graph(self, op: Any, fname: str | bytes) -> Any:
        """The FuncGraph of a function called by `op`, from the function library of the
        graph holding the call (or of the traced function)."""
        name = fname.decode() if isinstance(fname, bytes) else fname
        for g in (op.graph, self.graph):
            fn = getattr(g, "_functions", {}).get(name)
            if fn is not None:
                return fn.graph
        raise Unmapped(f"the called function '{name}' is not in the graph's library")

    def output(self, value: Value, index: int) -> SSAValue:
        """An output of the traced function as an IR value (known arrays become
        constants)."""
        if isinstance(value, np.ndarray):
            return self.builder.constant(value)
        if not isinstance(value, SSAValue):
            raise TraceError(f"output {index} of the traced function is not an array")
        return value

    def _unsupported(self, op: Any, name: str, env: dict[str, Value]) -> None:
        specs = [tensor_spec(t) or TensorSpec(tuple(t.shape.as_list() if t.shape.rank is not None
                                                     else ()), "float32")
                 for t in op.outputs]
        for t, v in zip(op.outputs, self.builder.unsupported(name, specs)):
            env[t.name] = v

    def read_variable(self, ref: VarRef) -> SSAValue:
        """The IR parameter of a variable (one per variable, however often it is read)."""
        if ref.name not in self._params:
            self._params[ref.name] = self.builder.param(ref.name, ref.value, ref.trainable)
        return self._params[ref.name]


def _checked(op: Any, spec: TensorSpec | None, value: Value) -> Value:
    """Keep TF's static type for every imported result: a mismatch is an importer bug,
    caught here at the op instead of as a wrong answer later. Known arrays take TF's
    dtype exactly (a folded `Shape` is int32 when TF says so)."""
    if value is None or isinstance(value, VarRef) or spec is None:
        return value
    got = TensorSpec(value.shape, spec.dtype) if isinstance(value, np.ndarray) \
        else spec_of(value)
    if got.dtype != spec.dtype or len(got.shape) != len(spec.shape) or any(
            a is not None and b is not None and a != b for a, b in zip(got.shape, spec.shape)):
        raise AssertionError(f"importing {op.type} '{op.name}': got {got}, TF says {spec}")
    if isinstance(value, np.ndarray):
        return value.astype(numpy_dtype(spec.dtype), copy=False)
    return value


def _needed_ops(graph: Any, side_effects: frozenset[str]) -> list[Any]:
    """The ops the outputs depend on through data edges (plus side-effecting ops, so that
    they are reported), in graph order. Control edges carry no data and are ignored."""
    ops = graph.get_operations()
    seen: set[str] = set()
    stack = [t.op for t in graph.outputs] + [op for op in ops if op.type in side_effects]
    while stack:
        op = stack.pop()
        if op.name in seen:
            continue
        seen.add(op.name)
        stack.extend(t.op for t in op.inputs)
    return [op for op in ops if op.name in seen]
