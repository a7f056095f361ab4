"""The generic walker of the ONNX importer: one pass over a `GraphProto`'s nodes.

ONNX lists a graph's nodes in topological order, so the walk is a single loop: per
node, normalize (an `UPGRADES` row rewrites a node of an older opset into the newest
operator form), look up the rule of its `op_type` (the shape-arithmetic rule of
`onnx_sizes.TABLE` when its data input is a symbolic shape value) and call it as
`rule(ctx, *inputs, **attrs)` (`onnx_ctx.Ctx`). A node that cannot be imported (no
rule, a domain without a table, an unsupported dtype, a rule raising `Unmapped`, an
attribute the rule does not take) is recorded for the all-at-once report with its
op_type, opset version and node name; its outputs become `MISSING`, and nodes that
consume them are skipped silently (their failure is a consequence, not a gap).
Subgraphs (If/Loop/Scan bodies) are walked by the same loop in a child scope, so
names of the enclosing graphs stay visible.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, NameLoc, StringAttr
from xdsl.ir import SSAValue
from xdsl.utils.exceptions import VerifyException

from ivy_ir.core.locations import identifier
from ivy_ir.dialect.attrs import AttrError
from ivy_ir.dialect.infer import InferError
from ivy_ir.dialect.symbolic import SymbolicError

from . import onnx_optional, onnx_sequence, onnx_sizes
from .common import ImportBuilder, Rule, Unmapped
from .onnx_ctx import Constants, Ctx, Deferred, NotKnown, Value, decode_attrs, tensor_array
from .onnx_dim_flow import SymShapes
from .onnx_dims import Dim, Sizes

Upgrade = Any
"""`upgrade(inputs, attrs, opset) -> (inputs, attrs)`: a node of an older opset in the
operator's newest form (see `onnx.UPGRADES`); an input it can only make with ops is a
`Deferred`, made with the node's context before the rule runs."""

DEFAULT_DOMAINS = ("", "ai.onnx")


class Missing:
    """The value of an output of a node that could not be imported."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING = Missing()


class Scope:
    """The values of one graph's tensors by name; a subgraph's scope sees its parents'."""

    def __init__(self, parent: Scope | None = None):
        self.parent = parent
        self.values: dict[str, Value | Missing] = {}

    def get(self, name: str) -> Value | Missing:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.values:
                return scope.values[name]
            scope = scope.parent
        raise Unmapped(f"'{name}' is produced by no node, graph input or initializer")

    def bind(self, name: str, value: Value | Missing) -> None:
        if name:
            self.values[name] = value


class Walker:
    """Walks an ONNX graph (and its subgraphs) into one ImportBuilder."""

    def __init__(self, builder: ImportBuilder, tables: Mapping[str, Mapping[str, Rule]],
                 upgrades: Mapping[str, tuple[int, Upgrade]], opsets: Mapping[str, int],
                 file: str):
        self.builder = builder
        self.tables = tables
        """Operator domain ("" for the default one) -> op_type -> rule."""
        self.upgrades = upgrades
        self.opsets = {("" if d in DEFAULT_DOMAINS else d): v for d, v in opsets.items()}
        self.file = file
        self.root = Scope()
        self.constants = Constants(builder)
        self._scopes = [self.root]
        self._inputs: dict[SSAValue, str] = {}
        self.static_wanted: set[str] = set()
        """Graph inputs whose values a rule needed at import (`NotKnown`)."""
        self.shapes = SymShapes()

    def bind_input(self, name: str, value: SSAValue, dims: Sequence[str | None] = ()) -> None:
        """Bind graph input `name` to its IR input, whose dynamic dims `dims` names."""
        self._inputs[value] = name
        self.root.bind(name, value)
        if any(dims):
            self.shapes.bind(value, dims)

    def shape_of(self, value: SSAValue) -> tuple[Dim, ...]:
        """`value`'s shape, dynamic dims as size expressions where known."""
        return self.shapes.of(value)

    def input_name(self, value: SSAValue) -> str | None:
        """The graph input an IR value is, if it is one."""
        return self._inputs.get(value)

    def value_of(self, name: str) -> Value | Missing:
        """The value of the tensor `name` as the current graph sees it."""
        return self._scopes[-1].get(name)

    def walk(self, graph: Any, scope: Scope) -> None:
        """Import every node of `graph` into `scope`."""
        self._scopes.append(scope)
        try:
            for index, node in enumerate(graph.node):
                self._import(node, index, scope)
        finally:
            self._scopes.pop()

    def subgraph(self, graph: Any, inputs: Sequence[Value]) -> list[Value]:
        """A GRAPH attribute walked at the current insertion point with `inputs` bound
        to its inputs (its initializers are constants or parameters, as at top level);
        the values of its outputs (`Unmapped` if one could not be imported)."""
        scope = Scope(self._scopes[-1])
        for info, value in zip(graph.input, inputs):
            scope.bind(info.name, value)
        for tensor in graph.initializer:
            scope.bind(tensor.name, self.initializer(tensor))
        where = self.builder.graph.location
        try:
            self.walk(graph, scope)
        finally:
            self.builder.at(where)
        outs = [scope.get(o.name) for o in graph.output]
        if any(isinstance(v, Missing) for v in outs):
            raise Unmapped("its subgraph holds nodes that cannot be imported")
        return outs  # type: ignore[return-value]

    def initializer(self, tensor: Any) -> Value | Missing:
        """An initializer's value: small integer ones are known arrays (shapes, axes,
        indices: folding keeps `Reshape` by an initializer static), the rest are IR
        parameters named as in the graph, trainable when floating-point."""
        try:
            array = tensor_array(tensor)
        except Unmapped as exc:
            self.report(f"initializer '{tensor.name}' ({exc.detail})", "graph")
            return MISSING
        if array.dtype.kind in "biu" and array.size <= KNOWN_INT_LIMIT:
            return array
        name, n = tensor.name, 1
        while name in self.builder.graph.params:
            name, n = f"{tensor.name}_{n}", n + 1
        return self.builder.param(name, array, trainable=array.dtype.kind in "fc")

    def report(self, what: str, where: str) -> None:
        """Record one entry of the all-at-once unsupported report."""
        self.builder.missing.setdefault(what, []).append(where)

    def _import(self, node: Any, index: int, scope: Scope) -> None:
        domain = "" if node.domain in DEFAULT_DOMAINS else node.domain
        opset = self.opsets.get(domain, 0)
        label = node.name or f"{node.op_type}_{index}"
        self.builder.at(NameLoc(StringAttr(label), FileLineColLoc(
            StringAttr(self.file), IntAttr(index + 1), IntAttr(0))))
        try:
            inputs = [scope.get(n) if n else None for n in node.input]
        except Unmapped as exc:
            inputs = [MISSING]
            self._fail(node, opset, domain, f"input {exc.detail}", label, index)
        if any(isinstance(v, Missing) for v in inputs):
            for name in node.output:
                scope.bind(name, MISSING)
            return
        try:
            results = self._call(node, opset, domain, inputs)
        except (Unmapped, InferError, AttrError, VerifyException, IndexError,
                SymbolicError) as exc:
            # registry errors: an operand dtype or attribute value the registry op refuses;
            # an IndexError: an axis attribute out of range for the operand's rank; a
            # SymbolicError: a size expression beyond the IR's size arithmetic
            detail = exc.detail if isinstance(exc, Unmapped) else str(exc).split("\n")[0]
            if isinstance(exc, IndexError):
                detail = f"an axis or index out of range ({detail})"
            if isinstance(exc, NotKnown):
                self.static_wanted.update(exc.inputs)
            self._fail(node, opset, domain, detail, label, index)
            for name in node.output:
                scope.bind(name, MISSING)
            return
        for i, name in enumerate(node.output):
            value = results[i] if i < len(results) else None
            if name and value is None:
                self._fail(node, opset, domain, f"output {i} is not produced", label, index)
                value = MISSING
            if isinstance(value, SSAValue) and value.name_hint is None:
                value.name_hint = identifier(name)
            scope.bind(name, value)

    def _call(self, node: Any, opset: int, domain: str, inputs: list[Value]) -> list[Value]:
        if domain not in self.tables:
            raise Unmapped(f"operators of domain '{domain}' are not imported")
        if node.op_type not in self.tables[domain]:
            raise Unmapped()
        attrs = decode_attrs(node)
        ctx = Ctx(self, self.builder, self.constants, node, opset)
        if not domain and node.op_type in self.upgrades:
            since, upgrade = self.upgrades[node.op_type]
            if opset < since:
                inputs, attrs = upgrade(list(inputs), dict(attrs), opset)
                inputs = [v.make(ctx) if isinstance(v, Deferred) else v for v in inputs]
        # shape arithmetic on a symbolic shape value has its own rules (`onnx_sizes`),
        # as have optionals and sequences reaching operators that also take tensors
        # (`onnx_optional`, `onnx_sequence`)
        rule = (None if domain else onnx_sizes.rule_for(node.op_type, inputs)) \
            or onnx_optional.rule_for(node.op_type, domain, inputs) \
            or onnx_sequence.rule_for(node.op_type, domain, inputs) \
            or self.tables[domain][node.op_type]
        unknown = _unknown_attrs(rule, attrs)
        if unknown:
            raise Unmapped(f"attribute{'s' * (len(unknown) > 1)} {', '.join(unknown)} "
                           "not supported")
        try:  # a malformed node (inputs or a required attribute missing) is reported
            _signature(rule).bind(ctx, *inputs, **attrs)
        except TypeError as exc:
            raise Unmapped(f"the node does not fit the operator: {exc}") from None
        try:
            out = rule(ctx, *inputs, **attrs)
        except (InferError, AttrError, SymbolicError):
            raise  # the registry's or the size arithmetic's own report
        except (TypeError, AttributeError, ValueError):
            # a shape value of dynamic sizes reaching a rule written for tensors and
            # known arrays (the ones that take it say so): reported, not a traceback
            shapes = [v for v in inputs if isinstance(v, Sizes)]
            if not shapes:
                raise
            raise Unmapped(f"an input is the shape value {shapes[0]} of dynamic sizes, "
                           "which this operator does not take") from None
        return list(out) if isinstance(out, (list, tuple)) else [out]

    def _fail(self, node: Any, opset: int, domain: str, detail: str, label: str,
              index: int) -> None:
        op = f"{domain}.{node.op_type}" if domain else node.op_type
        what = f"{op} (opset {opset})" + (f": {detail}" if detail else "")
        self.report(what, f"node '{label}' ({self.file}:{index + 1})")


KNOWN_INT_LIMIT = 64
"""Integer initializers up to this many elements are known values rather than
parameters: shapes, axes, pads and small index tables, which rules need at import."""


@functools.cache
def _signature(rule: Rule) -> inspect.Signature:
    return inspect.signature(rule)


@functools.cache
def _accepted(rule: Rule) -> frozenset[str] | None:
    """The keyword names a rule takes (None: it takes any, `**attrs`)."""
    params = _signature(rule).parameters.values()
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return None
    return frozenset(p.name for p in params
                     if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD))


def _unknown_attrs(rule: Rule, attrs: Mapping[str, Any]) -> list[str]:
    accepted = _accepted(rule)
    return [] if accepted is None else sorted(a for a in attrs if a not in accepted)


def output_value(builder: ImportBuilder, value: Value | Missing, name: str = ""
                 ) -> SSAValue | None:
    """A graph output as an IR value (known arrays become constants); None where the
    node producing it failed (the report is raised by `finish`)."""
    if isinstance(value, np.ndarray):
        return builder.constant(value)
    if isinstance(value, Sizes):
        raise Unmapped(f"'{name}' is the shape value {value} of dynamic sizes (no op "
                       "reads a size at run time)")
    return value if isinstance(value, SSAValue) else None
