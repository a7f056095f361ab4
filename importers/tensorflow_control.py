"""TF functional control flow (`If`, `Case`, `While` and their stateless forms) as ivy
region ops.

A TF control-flow op names its branches or loop functions in the graph's function
library; `region` walks one such function with the same op table into the region of
an `ivy.cond` / `ivy.while_loop` / `ivy.scan` (built by `ivy_ir.core.control`): the
function's inputs bind to the region's block arguments, or to values known at import
time (constants, captured variables, lists) which need no operand, and its return
values are what the region yields. Outside values a body reads become operands through
`close_over`. A known predicate or branch index inlines the chosen branch instead.
Loops are in `tensorflow_loops.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.ir import SSAValue

from ivy_ir.core.control import Body, emit_cond

from .common import Rule, Unmapped
from .tensorflow_ctx import Ctx, TList, Value
from .tensorflow_lists import dense

Walk = Callable[[list[Value]], list[Value]]
"""A function body walked on the values of its inputs; the values of its results."""


@dataclass(frozen=True)
class Slot:
    """An input of a body that is block argument `at` of its region; `fill` makes the
    body's value of it from the argument (a carried list wraps its dense array)."""

    at: int
    fill: Callable[[SSAValue], Value] = field(default=lambda arg: arg)


def function(c: Ctx, name: str) -> Walk:
    """Walks the library function `name` (called by the op being imported)."""
    graph = c.graphs.function_graph(c.op, name)
    return lambda ins: c.graphs.run(graph, ins)


def yielded(c: Ctx, value: Value) -> SSAValue:
    """A body's result as a value its region can yield (made inside the region: a
    known array becomes a constant there, a list its dense array)."""
    if isinstance(value, TList):
        value = dense(c, value)
    if isinstance(value, np.ndarray):
        return c.b.constant(value)
    if not isinstance(value, SSAValue):
        raise Unmapped(f"a body returns a {type(value).__name__}, which a region cannot yield")
    return value


def region(c: Ctx, walk: Walk, template: Sequence[Value | Slot]) -> Body:
    """A region body: `walk` on `template`, each `Slot` filled from its block argument,
    yielding its results. The op keeps its own location, whatever the body's ops set."""
    where = c.b.graph.location

    def body(args: list[SSAValue]) -> list[SSAValue]:
        ins = [v.fill(args[v.at]) if isinstance(v, Slot) else v for v in template]
        try:
            return [yielded(c, v) for v in walk(ins)]
        finally:
            c.b.at(where)
    return body


def truth(c: Ctx, pred: Value) -> SSAValue:
    """A 0-d bool from an `If` or `While` predicate: a non-bool scalar is true when
    non-zero, as TF has it (a non-scalar one, true when non-empty, is not supported)."""
    spec = c.spec(pred)
    if spec.rank != 0:
        raise Unmapped("a non-scalar predicate")
    pred = pred if isinstance(pred, SSAValue) else c.b.constant(pred)
    if spec.dtype == "bool":
        return pred
    return c.b.emit("not_equal", [pred, c.b.constant(0, spec.dtype)])


def _branch(c: Ctx, pred: SSAValue, then: Walk, orelse: Walk, inputs: Sequence[Value]
            ) -> list[Value]:
    """`then(inputs)` if `pred` else `orelse(inputs)` as one `ivy.cond`: SSA inputs are
    its operands, known ones go into both branches as they are."""
    operands = [v for v in inputs if isinstance(v, SSAValue)]
    at = iter(range(len(operands)))
    template = [Slot(next(at)) if isinstance(v, SSAValue) else v for v in inputs]
    return list(emit_cond(c.b.graph, pred, operands, region(c, then, template),
                          region(c, orelse, template)))


def _if(c: Ctx, pred: Value, *inputs: Value, then_branch: str, else_branch: str,
        **_: Any) -> list[Value]:
    then, orelse = function(c, then_branch), function(c, else_branch)
    known = c.known(pred)
    if known is not None:
        chosen = bool(known) if known.ndim == 0 else known.size > 0
        return (then if chosen else orelse)(list(inputs))
    return _branch(c, truth(c, pred), then, orelse, inputs)


def _case(c: Ctx, index: Value, *inputs: Value, branches: list[str], **_: Any) -> list[Value]:
    """`branches[index]`; an index out of range takes the last branch, as TF's Case."""
    walks = [function(c, name) for name in branches]
    known = c.known(index)
    if known is not None:
        k = int(known)
        return walks[k if 0 <= k < len(walks) else -1](list(inputs))
    return _switch(c, index, walks, list(inputs))


def _switch(c: Ctx, index: SSAValue, walks: list[Walk], inputs: list[Value], k: int = 0
            ) -> list[Value]:
    """`walks[k:]` chosen by `index` as a chain of two-way conds: `index != k` goes on
    to the rest, so any index outside the range ends at the last branch."""
    if k == len(walks) - 1:
        return walks[k](inputs)
    pred = c.b.emit("not_equal", [index, c.b.constant(k, c.spec(index).dtype)])
    rest: Walk = lambda ins: _switch(c, index, walks, ins, k + 1)  # noqa: E731
    return _branch(c, pred, rest, walks[k], inputs)


CONTROL: dict[str, Rule] = {
    "If": _if, "StatelessIf": _if, "Case": _case, "StatelessCase": _case,
}
"""TF raw op -> rule: functional branches (loops: `tensorflow_loops.LOOPS`)."""

