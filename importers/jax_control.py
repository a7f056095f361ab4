"""JAX's control-flow primitives (`cond`, `while`, `scan`) as ivy region ops.

A branch or loop body of a jaxpr is itself a jaxpr; `ControlFlow.control` walks each
one into the region of an `ivy.cond`, `ivy.while_loop` or `ivy.scan` through
`ivy_ir.core.control`, which records a body from a callable and turns the outside
values it reads (a closed-over weight, a loop constant) into explicit operands.

Known values and regions: a body may still fold equations whose inputs are all known,
and a branch's known inputs and a loop's known constants stay known inside (a body
keeps its static gather indices); a loop's carry is always an SSA value. But a
constant materialized inside a region lives in that region's block, so the walker's
cache of constants is scoped to each body (`Ctx.region`), and whatever a body returns
becomes an SSA value there: nothing a body computed is known after it. A key array
(`jax_random.KeyWords`) in a carry, a scanned input or a result crosses the region
boundary as its two words.

What is still decided at import time: a control-flow equation on known inputs alone
with small results is folded like any other (the walker runs it), a `cond` whose index
is known inlines the chosen branch, and a scan of at most one step is inlined
(`unrolled`), since such a scan needs no loop. (`fori_loop` stages to a `scan` with
static bounds, to a `while` otherwise; `lax.switch` to a `cond` of several branches.)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from jax.extend.core import ClosedJaxpr, JaxprEqn
from xdsl.ir import Attribute, SSAValue

from ivy_ir.core.control import Body, emit_cond, emit_scan, emit_while
from ivy_ir.core.errors import TraceError
from ivy_ir.dialect.infer import InferError

from .common import ImportBuilder, location_str
from .jax_ctx import Ctx, Value
from .jax_random import KeyWords, flat_words, is_key_aval, pack_words

CONTROL = ("cond", "while", "scan")
"""The control-flow primitives `ControlFlow.control` imports as region ops."""


def unrolled(length: int) -> bool:
    """Whether a scan of `length` steps is inlined rather than imported as `ivy.scan`:
    zero or one step is a plain sequence of ops, any more is a loop (the IR keeps it
    one body, so its size does not grow with the trip count)."""
    return length <= 1


class ControlFlow:
    """The `JaxprWalker` methods for control-flow equations (a mixin: `run` walks a
    jaxpr, `ssa` materializes a value, `b` and `ctx` are the walker's)."""

    b: ImportBuilder
    ctx: Ctx
    enclosing: Attribute
    run: Callable[[Any, Sequence[Any], Sequence[Value]], list[Value]]
    ssa: Callable[[Value], SSAValue]

    def control(self, eqn: JaxprEqn, ins: list[Value]) -> list[Value]:
        """Import one `cond`, `while` or `scan` equation."""
        method = {"cond": self._cond, "while": self._while, "scan": self._scan}
        try:
            return method[eqn.primitive.name](eqn, ins)
        except InferError as exc:  # a body whose imported types differ from JAX's
            where = location_str(self.b.graph.location)
            raise TraceError(f"{where}: cannot import jax op '{eqn.primitive.name}': "
                             f"{exc}") from None

    def _region(self, walk: Callable[[list[Value]], list[Value]],
                template: Sequence[Value | None], keys: Sequence[bool] = ()) -> Body:
        """A region body: `walk` on `template`, each None filled by the next block
        argument (two of them, a key array's words, where `keys` marks the slot);
        recorded with its own constants, yielding SSA values (a key array as its two
        words). The op keeps the equation's location, whatever the body's equations
        set; body equations without a user frame of their own take it too."""
        where = self.b.graph.location or self.enclosing

        def body(args: list[SSAValue]) -> list[SSAValue]:
            fill, flags = iter(args), iter(keys)
            ins = [v if v is not None else KeyWords(next(fill), next(fill))
                   if next(flags, False) else next(fill) for v in template]
            outer, self.enclosing = self.enclosing, where
            with self.ctx.region():
                try:
                    return [self.ssa(v) for v in flat_words(walk(ins))]
                finally:
                    self.enclosing = outer
                    self.b.at(where)
        return body

    def _jaxpr(self, closed: ClosedJaxpr) -> Callable[[list[Value]], list[Value]]:
        return lambda ins: self.run(closed.jaxpr, closed.consts, ins)

    def _cond(self, eqn: JaxprEqn, ins: list[Value]) -> list[Value]:
        """`branches[index]` of the inputs (the last one for an index out of range);
        inlined when the index is known."""
        index, inputs = ins[0], ins[1:]
        branches = eqn.params["branches"]
        known = self.ctx.known(index)
        if known is not None:
            k = int(known)
            return self._jaxpr(branches[k if 0 <= k < len(branches) else -1])(inputs)
        out = self._switch(index, branches, 0, inputs)
        return out if len(branches) == 1 else pack_words(out, eqn.outvars)

    def _switch(self, index: Value, branches: Sequence[ClosedJaxpr], k: int,
                inputs: list[Value]) -> list[Value]:
        """`branches[k:]` chosen by `index` as a chain of two-way conds: `index != k`
        goes on to the rest, so an index outside the range takes the last branch, as
        XLA's conditional does (`lax.switch` clamps before it gets here). A bool
        `lax.cond` (index 0 or 1) reads as one `ivy.cond(index != 0)`."""
        if k == len(branches) - 1:
            return self._jaxpr(branches[k])(inputs)
        pred = self.ctx.emit("not_equal", index, self.ctx.const(k, self.ctx.spec(index).dtype))
        template = [None if isinstance(v, SSAValue) else v for v in inputs]
        operands = [v for v in inputs if isinstance(v, SSAValue)]
        rest = self._region(lambda a: self._switch(index, branches, k + 1, a), template)
        this = self._region(self._jaxpr(branches[k]), template)
        return list(emit_cond(self.b.graph, pred, operands, rest, this))

    def _while(self, eqn: JaxprEqn, ins: list[Value]) -> list[Value]:
        """`while cond(carry): carry = body(carry)`; each jaxpr's consts come first."""
        p = eqn.params
        n_cond, n_body = p["cond_nconsts"], p["body_nconsts"]
        cond_consts, body_consts = ins[:n_cond], ins[n_cond:n_cond + n_body]
        init = ins[n_cond + n_body:]
        keys, slots = [isinstance(v, KeyWords) for v in init], [None] * len(init)
        out = emit_while(self.b.graph, [self.ssa(v) for v in flat_words(init)],
                         self._region(self._jaxpr(p["cond_jaxpr"]), cond_consts + slots, keys),
                         self._region(self._jaxpr(p["body_jaxpr"]), body_consts + slots, keys))
        return pack_words(list(out), eqn.outvars)

    def _scan(self, eqn: JaxprEqn, ins: list[Value]) -> list[Value]:
        """The body over slices of `xs` along axis 0, threading the carry; inputs are
        consts, then the initial carry, then xs."""
        p = eqn.params
        length, n_consts, n_carry = p["length"], p["num_consts"], p["num_carry"]
        consts, carry = ins[:n_consts], ins[n_consts:n_consts + n_carry]
        xs = ins[n_consts + n_carry:]
        if unrolled(length):
            return self._unroll(eqn, consts, carry, xs)
        keys = [isinstance(v, KeyWords) for v in carry + xs]
        body = self._region(self._jaxpr(p["jaxpr"]), consts + [None] * (n_carry + len(xs)),
                            keys)
        out = emit_scan(self.b.graph, [self.ssa(v) for v in flat_words(carry)],
                        [self.ssa(x) for x in flat_words(xs)], body, length=length,
                        reverse=p["reverse"], unroll=max(1, int(p["unroll"])))
        return pack_words(list(out), eqn.outvars)

    def _unroll(self, eqn: JaxprEqn, consts: list[Value], carry: list[Value],
                xs: list[Value]) -> list[Value]:
        """A scan walked step by step in place: the carry threads through copies of the
        body, per-step outputs are stacked on a new leading axis."""
        p = eqn.params
        length, n_carry = p["length"], p["num_carry"]
        steps: dict[int, list[Value]] = {}
        for i in reversed(range(length)) if p["reverse"] else range(length):
            outs = self._jaxpr(p["jaxpr"])(consts + carry + [self._step(x, i) for x in xs])
            carry, steps[i] = outs[:n_carry], outs[n_carry:]
        ys: list[Value] = []
        for j, var in enumerate(eqn.outvars[n_carry:]):
            ys.append(self._stack([steps[i][j] for i in range(length)], var.aval))
        return carry + ys

    def _step(self, x: Value, i: int) -> Value:
        if isinstance(x, KeyWords):
            return KeyWords(*(self.ctx.index0(w, i) for w in x.words))
        return self.ctx.index0(x, i)

    def _stack(self, column: list[Value], aval: Any) -> Value:
        """Per-step outputs stacked on a new leading axis (a key array's word by word)."""
        if column and isinstance(column[0], KeyWords):
            return KeyWords(*(self._stack([c.words[w] for c in column], aval) for w in (0, 1)))
        if not column:
            return np.zeros(aval.shape, "uint32" if is_key_aval(aval) else aval.dtype)
        if all(isinstance(c, np.ndarray) for c in column):
            return np.stack(column)
        return self.ctx.emit("stack", column, axis=0)
