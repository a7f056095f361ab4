"""torch's control-flow higher-order ops (`torch.cond`, `torch.while_loop`, and
`torch._higher_order_ops.scan`) as ivy region ops, and `torch.no_grad()` blocks
inside a forward (`wrap_with_set_grad_enabled`) inlined with their results cut.

torch.export records each as a `torch.ops.higher_order.*` node whose bodies are
`GraphModule`s reached through `get_attr` nodes. `ControlFlow.control` walks each body
graph into the region of an `ivy.cond`, `ivy.while_loop` or `ivy.scan` through
`ivy_ir.core.control`: the body's placeholders bind to the region's block arguments
(and to the op's extra operands: a scan's or loop's `additional_inputs`, which the
region closes over), its output node gives the yielded values. Body nodes go through
the same ATen table as the top-level graph, so a body may hold any mapped op,
including another control-flow op.

torch's own conventions, as the nodes arrive:
- `cond(pred, true_graph, false_graph, operands)`: every branch takes all operands.
  A predicate known at import time (a Python bool, a lifted constant) inlines the
  chosen branch, as `torch.cond` does in eager mode.
- `while_loop(cond_graph, body_graph, carried_inputs, additional_inputs)`: both
  graphs take the carry, then the additional inputs; the body returns the new carry.
- `scan(combine_graph, init, xs, additional_inputs)`: always forward over axis 0
  (`torch.scan`'s `dim` and `reverse` are recorded as `movedim`/`flip` around it);
  the combine graph takes carry, slices, additional inputs and returns the new carry,
  then the per-step outputs: the same contract as `ivy.scan`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch
from xdsl.ir import SSAValue

from ivy_ir.core.control import Body, emit_cond, emit_scan, emit_while
from ivy_ir.core.errors import TraceError
from ivy_ir.dialect.dtypes import COMPLEX, FLOATS
from ivy_ir.dialect.infer import InferError

from .common import ImportBuilder, Unmapped, location_str, spec_of

Graphs = torch.fx.GraphModule


class ControlFlow:
    """The torch walker's methods for higher-order ops (a mixin: `_walk` imports the
    nodes of a graph module that the given nodes depend on, `_value` maps node
    arguments to imported values, `_placeholders` records an unmapped op)."""

    b: ImportBuilder
    env: dict[Any, Any]
    enclosing: Any
    known: dict[SSAValue, np.ndarray]
    _walk: Callable[[Graphs, Sequence[Any]], None]
    _value: Callable[[Any], Any]
    _placeholders: Callable[[str, Any], Any]

    def control(self, node: torch.fx.Node, args: Sequence[Any]) -> Any:
        """Import one higher-order op node; ops without a rule join the report."""
        name = node.target.name()
        method = {"cond": self._cond, "while_loop": self._while, "scan": self._scan,
                  "wrap_with_set_grad_enabled": self._grad_mode}.get(name)
        try:
            if method is None:
                raise Unmapped()
            return method(*args)
        except Unmapped as exc:
            label = f"higher_order.{name}" + (f" ({exc.detail})" if exc.detail else "")
            return self._placeholders(label, node.meta.get("val"))
        except InferError as exc:  # a body whose imported types differ from torch's
            where = location_str(self.b.graph.location)
            raise TraceError(f"cannot import higher_order.{name} at {where}: {exc}") from None

    def subgraph(self, graph: Graphs, inputs: Sequence[Any]) -> list[Any]:
        """Walk a body graph on `inputs` (one per placeholder); its results."""
        nodes = list(graph.graph.nodes)
        places = [n for n in nodes if n.op == "placeholder"]
        if len(places) != len(inputs):
            raise TraceError(f"importer bug: a subgraph takes {len(places)} inputs, "
                             f"given {len(inputs)}")
        self.env.update(zip(places, inputs))
        results = next(n for n in nodes if n.op == "output").args[0]
        results = list(results) if isinstance(results, (list, tuple)) else [results]
        outer, self.enclosing = self.enclosing, self.b.graph.location
        try:
            self._walk(graph, [r for r in results if isinstance(r, torch.fx.Node)])
        finally:
            self.enclosing = outer
        return [self._value(r) for r in results]

    def _region(self, graph: Graphs, template: Sequence[Any],
                finish: Callable[[SSAValue], SSAValue] = lambda v: v) -> Body:
        """A region body walking `graph`: each None of `template` is filled by the
        next block argument, the rest (extra operands) are passed as they are. The op
        keeps the location it had before its body's nodes set theirs."""
        where = self.b.graph.location

        def body(args: list[SSAValue]) -> list[SSAValue]:
            fill = iter(args)
            try:
                outs = self.subgraph(graph, [next(fill) if v is None else v
                                             for v in template])
            finally:
                self.b.at(where)
            if not all(isinstance(v, SSAValue) for v in outs):
                raise TraceError(f"a control-flow body at {location_str(where)} returns "
                                 "a non-tensor value")
            return [finish(v) for v in outs]
        return body

    def _predicate(self, pred: SSAValue) -> SSAValue:
        """A one-element tensor as the 0-d bool a region op tests."""
        if spec_of(pred).shape != ():
            pred = self.b.emit("reshape", [pred], shape=[])
        return self.b.cast(pred, "bool")

    def _cond(self, pred: Any, then: Graphs, orelse: Graphs, operands: Sequence[Any]
              ) -> list[Any]:
        known = self.known.get(pred) if isinstance(pred, SSAValue) else pred
        if known is not None:
            return self.subgraph(then if bool(np.asarray(known)) else orelse, operands)
        template = [None if isinstance(v, SSAValue) else v for v in operands]
        inputs = [v for v in operands if isinstance(v, SSAValue)]
        return emit_cond(self.b.graph, self._predicate(pred), inputs,
                         self._region(then, template), self._region(orelse, template))

    def _grad_mode(self, enabled: bool, graph: Graphs, *inputs: Any) -> list[Any]:
        """A `torch.no_grad()` (or `enable_grad()`) block inside the forward: its body
        inlined, and under no_grad each floating result cut from autodiff, as torch
        computes it without history."""
        outs = self.subgraph(graph, inputs)
        if enabled:
            return outs
        return [self.b.emit("stop_gradient", [v]) if isinstance(v, SSAValue)
                and spec_of(v).dtype in FLOATS | COMPLEX else v for v in outs]

    def _while(self, cond: Graphs, body: Graphs, carried: Sequence[Any],
               additional: Sequence[Any]) -> list[SSAValue]:
        if not all(isinstance(v, SSAValue) for v in carried):
            raise Unmapped("a carried value is not a tensor")
        template = [None] * len(carried) + list(additional)
        return emit_while(self.b.graph, list(carried),
                          self._region(cond, template, self._predicate),
                          self._region(body, template))

    def _scan(self, combine: Graphs, init: Sequence[Any], xs: Sequence[Any],
              additional: Sequence[Any]) -> list[SSAValue]:
        if not xs or not all(isinstance(v, SSAValue) for v in (*init, *xs)):
            raise Unmapped("needs tensor carries and at least one scanned tensor")
        template = [None] * (len(init) + len(xs)) + list(additional)
        return emit_scan(self.b.graph, list(init), list(xs), self._region(combine, template),
                         length=spec_of(xs[0]).shape[0])
