"""The generic walker of the TensorFlow importer: one pass over a `FuncGraph`'s ops.

Each TF op is imported by one rule of the raw-op table (`tensorflow.TABLE`), called as
`rule(ctx, *inputs, **attrs)` with a `tensorflow_ctx.Ctx` for that op. Tensors whose
value is known while importing (`Const`, `Shape` of the static input shapes, and ops
computed only from those) stay NumPy arrays: an op whose inputs are all known runs its
rule folding (registry ops executed by the reference evaluator) unless a result is
large, so static operands stay readable. Arrays become IR constants only where a traced
op consumes them, once per tensor.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from tensorflow.python.framework.function_def_to_graph import function_def_to_graph
from xdsl.ir import Attribute, Block, SSAValue

from ivy_ir.core.errors import TraceError
from ivy_ir.dialect import TensorSpec
from ivy_ir.dialect.attrs import AttrError
from ivy_ir.dialect.infer import InferError
from ivy_ir.dialect.symbolic import SymbolicError, SymDim
from ivy_ir.dialect.types import numpy_dtype

from .common import ImportBuilder, Rule, Unmapped, spec_of
from .tensorflow_ctx import (
    NO_VALUE,
    Constants,
    Ctx,
    NoValue,
    Sizes,
    Value,
    VarRef,
    node_attrs,
    tensor_spec,
)

if TYPE_CHECKING:
    from .tensorflow_dims import DimFlow

FOLD_LIMIT = 4096
"""Largest op result (in elements) computed at import time when all its inputs are known;
bigger ones are emitted as ops, so a `tf.zeros((512, 512))` stays one `ivy.full`."""


class Walker:
    """Walks TF graphs into one ImportBuilder, op by op, in the graph's (topological)
    creation order: the traced function's, and the bodies of the functions its ops call
    (inlined in place, or walked into the regions of control-flow ops on their block
    arguments, `tensorflow_control`)."""

    def __init__(self, builder: ImportBuilder, table: Mapping[str, Rule],
                 locate: Callable[[Any], Attribute], side_effects: frozenset[str], graph: Any,
                 dims: DimFlow | None = None):
        self.graph = graph
        self.dims = dims
        """The sizes of values as expressions of the input dims (None: all static)."""
        self.builder = builder
        self.table = table
        self.locate = locate
        self.side_effects = side_effects
        self._params: dict[str, SSAValue] = {}
        self.updates: dict[str, SSAValue] = {}
        """Variable name -> the value the program last assigned to it."""
        self._where: dict[Any, Attribute] = {}

    def run(self, graph: Any, inputs: Sequence[Value],
            outputs: Sequence[Any] | None = None) -> list[Value]:
        """Values of `outputs` (tensors of `graph`; `graph.outputs` by default) given
        values of `graph.inputs`: only the ops they need are walked, so a loop body can
        be walked for some of its results. Each walk has its own constants (a known
        array is an IR constant once per tensor of the graph, made where the walk
        records: inside a region for a branch or loop body)."""
        outputs = graph.outputs if outputs is None else outputs
        scope = Scope(Constants(self.builder))
        for t, v in zip(graph.inputs, inputs, strict=True):
            scope.bind(t.name, v)
        for op in _needed_ops(graph, self.side_effects, outputs):
            if op.type == "Placeholder" and op.outputs[0].name in scope.values:
                continue
            if op not in self._where:  # a loop's cond is walked once per iteration
                self._where[op] = self.locate(op)
            self.builder.at(self._where[op])
            self._import(op, scope)
        return [scope.values[t.name] for t in outputs]

    def fold(self, graph: Any, inputs: Sequence[Value], outputs: Sequence[Any]) -> list[Value]:
        """`run` for values wanted at import time only (a loop's trip count): whatever
        the walk would record goes to a scratch block and its unsupported-op reports are
        dropped, so the IR and the report are as before; results not known are SSA
        values of that scratch block, which the caller must not use."""
        missing = {k: list(v) for k, v in self.builder.missing.items()}
        where = self.builder.graph.location
        try:
            with self.builder.graph.inside(Block()):
                return self.run(graph, inputs, outputs)
        finally:
            self.builder.missing = missing
            self.builder.at(where)

    def _import(self, op: Any, scope: Scope) -> None:
        rule = self.table.get(op.type)
        inputs = [scope.values[t.name] for t in op.inputs]
        if self.dims is not None and any(isinstance(v, Sizes) for v in inputs):
            rule = self.dims.rule_for(op.type, rule)  # shape arithmetic on dynamic sizes
        if rule is None:
            self._unsupported(op, op.type, scope)
            return
        # fold ops of known inputs, unless a result is large; one whose size depends on
        # the values (a `Where` of a constant mask) is always folded
        folding = all(isinstance(v, np.ndarray) for v in inputs) and all(
            not t.shape.is_fully_defined() or t.shape.num_elements() <= FOLD_LIMIT
            for t in op.outputs)
        ctx = Ctx(self, self.builder, scope.constants, op, inputs, folding, scope.values)
        attrs = node_attrs(op)
        try:
            results = rule(ctx, *inputs, **attrs)
        except (Unmapped, InferError, AttrError) as exc:
            # registry errors: an operand dtype or attribute the registry op refuses
            self._unsupported(op, f"{op.type} ({exc})", scope)
            return
        except (TypeError, SymbolicError):
            if not any(t.shape.rank is None or None in t.shape.as_list() for t in op.inputs):
                raise
            # a rule computing with a size TF leaves unknown (a dynamic dim)
            self._unsupported(op, f"{op.type} (needs a static size where a dim is dynamic)",
                              scope)
            return
        results = list(results) if isinstance(results, (list, tuple)) else [results]
        results += [NO_VALUE] * (len(op.outputs) - len(results))
        for t, spec, value in zip(op.outputs, ctx.outs, results, strict=True):
            scope.bind(t.name, _checked(op, spec, value))
        if self.dims is not None:
            self.dims.record(ctx, attrs, results)

    def function_graph(self, op: Any, name: str) -> Any:
        """The FuncGraph of a function called by `op`, from the function library of the
        graph holding the call (or of the traced function)."""
        for g in (op.graph, self.graph):
            fn = getattr(g, "_functions", {}).get(name)
            if fn is not None:
                # a legacy `Defun` (tf.nn.ctc_loss's loops) holds only its FunctionDef
                if hasattr(fn, "graph"):
                    return fn.graph
                with g.as_default():  # its body calls functions of g's library
                    return function_def_to_graph(fn.definition)
        raise Unmapped(f"the called function '{name}' is not in the graph's library")

    def output(self, value: Value, index: int) -> SSAValue:
        """An output of the traced function as an IR value (known arrays become
        constants)."""
        if isinstance(value, np.ndarray):
            return self.builder.constant(value)
        if isinstance(value, Sizes):
            raise TraceError(f"output {index} of the traced function is a dynamic size "
                             "(tf.shape of a dynamic dim), which the IR has as shape "
                             "attributes only, not as a value")
        if not isinstance(value, SSAValue):
            raise TraceError(f"output {index} of the traced function is not an array")
        return value

    def _unsupported(self, op: Any, name: str, scope: Scope) -> None:
        specs = [tensor_spec(t) or TensorSpec(tuple(t.shape.as_list() if t.shape.rank is not None
                                                     else ()), "float32")
                 for t in op.outputs]
        for t, v in zip(op.outputs, self.builder.unsupported(name, specs)):
            scope.bind(t.name, v)

    def symbolic_shape(self, value: Value) -> tuple[int | SymDim, ...] | None:
        """The sizes of `value` with its dynamic dims as expressions of the input dims
        (None: not followed, or the program has no dynamic dims)."""
        return None if self.dims is None else self.dims.shape_of(value)

    def read_variable(self, ref: VarRef) -> SSAValue:
        """The value last assigned to a variable in the program, else its IR parameter
        (one per variable, however often it is read)."""
        if ref.name in self.updates:
            return self.updates[ref.name]
        if ref.name not in self._params:
            self._params[ref.name] = self.builder.param(ref.name, ref.value, ref.trainable)
        return self._params[ref.name]

    def assign_variable(self, ref: VarRef, value: SSAValue) -> None:
        """Record the variable's new value: the program returns it as an update of the
        variable's parameter (made here if the program never read it)."""
        self.read_variable(ref)
        self.updates[ref.name] = value


class Scope:
    """The values of one graph's tensors (by name) while it is walked, and the IR
    constants made of its known arrays."""

    def __init__(self, constants: Constants):
        self.values: dict[str, Value] = {}
        self.constants = constants
        self._arrays: set[int] = set()

    def bind(self, name: str, value: Value) -> None:
        """Set tensor `name`'s value. A known array another tensor holds already (passed
        through by `Identity` or a called function) is stored as a view of its own: the
        array object identifies its tensor, which gets an IR constant of its own."""
        if isinstance(value, np.ndarray):
            if id(value) in self._arrays:
                value = value.view()
            self._arrays.add(id(value))
        self.values[name] = value


def _checked(op: Any, spec: TensorSpec | None, value: Value) -> Value:
    """Keep TF's static type for every imported result: a mismatch is an importer bug,
    caught here at the op instead of as a wrong answer later. Known arrays take TF's
    dtype exactly (a folded `Shape` is int32 when TF says so)."""
    if isinstance(value, (VarRef, NoValue)) or spec is None:
        return value
    if isinstance(value, Sizes):
        if value.dtype != spec.dtype or len(value.shape) != len(spec.shape) or any(
                b is not None and a != b for a, b in zip(value.shape, spec.shape)):
            raise AssertionError(f"importing {op.type} '{op.name}': got sizes of shape "
                                 f"{value.shape}, TF says {spec}")
        return value
    got = TensorSpec(value.shape, spec.dtype) if isinstance(value, np.ndarray) \
        else spec_of(value)
    if got.dtype != spec.dtype or len(got.shape) != len(spec.shape) or any(
            a is not None and b is not None and a != b for a, b in zip(got.shape, spec.shape)):
        raise AssertionError(f"importing {op.type} '{op.name}': got {got}, TF says {spec}")
    if isinstance(value, np.ndarray):
        return value.astype(numpy_dtype(spec.dtype), copy=False)
    return value


def _needed_ops(graph: Any, side_effects: frozenset[str], outputs: Sequence[Any]) -> list[Any]:
    """The ops `outputs` depend on through data edges (plus side-effecting ops, so that
    they are reported), in graph order. Control edges carry no data and are ignored."""
    ops = graph.get_operations()
    seen: set[str] = set()
    stack = [t.op for t in outputs] + [op for op in ops if op.type in side_effects]
    while stack:
        op = stack.pop()
        if op.name in seen:
            continue
        seen.add(op.name)
        stack.extend(t.op for t in op.inputs)
    return [op for op in ops if op.name in seen]
