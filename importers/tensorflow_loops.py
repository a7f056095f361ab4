"""TF `While` / `StatelessWhile` loops as `ivy.scan` or `ivy.while_loop`.

TF stages every loop (`tf.while_loop`, autograph's `while`/`for`, `tf.scan`,
`tf.map_fn`, `tf.foldl`, Keras' RNN loop) as one `While` op over all its loop
variables, with `cond` and `body` functions of them. What the importer reads off them:

* Invariant variables: the body returns its input unchanged (TF makes every value a
  body captures one of these: weights, variables, the lists a loop reads). They are no
  loop state: both functions see the outside value itself, known or not.
* Counters: start at a known integer and add a known amount each iteration (the loop
  counter, the step index of `tf.scan`, `tf.range` and Keras). Their value at every iteration is
  known, so a `cond` that reads nothing else gives the trip count at import time.
* With a static trip count N the loop is an `ivy.scan` of N steps (gradients through
  it work on every target, which a JAX `while_loop` would not allow). A list read at
  the step index only (`TensorListGetItem(xs, i)`) becomes a scanned input, sliced
  along axis 0; a list written at the step index only (`TensorListSetItem(ys, i, y)`)
  becomes a stacked output, placed into the list after the loop; a step index that
  runs downwards makes the scan run backwards (`tf.scan(reverse=True)`). A list written
  at one known position only (Keras' last output) carries that element. A counter the
  body computes with is a scanned `arange`. Every other variable is carry, lists as
  their dense arrays (reads and writes then `take` and `scatter_nd` on them).
* Without one it is an `ivy.while_loop` carrying every variable that is not invariant.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from xdsl.ir import SSAValue

from ivy_ir.core.control import emit_scan, emit_while

from .common import Rule, Unmapped, spec_of
from .tensorflow_control import Slot, region, truth
from .tensorflow_ctx import NO_VALUE, Ctx, TList, Value, tensor_spec
from .tensorflow_lists import Step, dense
from .tensorflow_trips import Counter, Trips, known_value, needed, source


def _uses(t: Any) -> list[Any]:
    """The ops reading `t`, identities looked through."""
    return [u for op in t.consumers()
            for u in (_uses(op.outputs[0]) if op.type == "Identity" else [op])]


@dataclass(frozen=True)
class Roles:
    """The lists a scan reads at its step (`reads`: scanned inputs), writes at its step
    (`writes`: stacked outputs, by their SetItem op) or writes at one known position
    (`fixed`: the element there is carry; SetItem op and position); the step visits
    list positions lo..lo+n, downwards when `reverse`."""

    reads: list[int]
    writes: dict[int, Any]
    fixed: dict[int, tuple[Any, int]]
    lo: int
    reverse: bool


class Loop:
    """One `While` op being imported: its inputs' values, its functions' graphs and
    what each loop variable is (invariant, counter or loop state)."""

    def __init__(self, c: Ctx, inputs: list[Value], cond: str, body: str):
        self.c, self.inputs = c, inputs
        self.cond = c.graphs.function_graph(c.op, cond)
        self.body = c.graphs.function_graph(c.op, body)
        self.args = [t.name for t in self.body.inputs]
        self.invariant = {j for j, t in enumerate(self.body.outputs)
                          if source(t).name == self.args[j]}
        self.known = {self.args[j]: inputs[j] for j in self.invariant
                      if isinstance(inputs[j], np.ndarray)}
        self.counters = {j: k for j in range(len(inputs)) if j not in self.invariant
                         and (k := self._counter(j)) is not None}

    def _counter(self, j: int) -> Counter | None:
        start = self.inputs[j]
        if not isinstance(start, np.ndarray) or start.ndim or start.dtype.kind not in "iu":
            return None
        op = source(self.body.outputs[j]).op
        if op.type not in ("AddV2", "Add", "Sub"):
            return None
        a, b = (source(t).name for t in op.inputs)
        if self.args[j] not in (a, b) or op.type == "Sub" and a != self.args[j]:
            return None
        amount = known_value(op.inputs[1] if a == self.args[j] else op.inputs[0], self.known)
        if amount is None or amount.ndim or amount.dtype.kind not in "iu":
            return None
        return Counter(int(start), int(amount) * (-1 if op.type == "Sub" else 1), start.dtype)

    def _index(self, op: Any) -> Counter | None:
        """The counter a list op's index (input 1) is, if it is one."""
        name = source(op.inputs[1]).name
        return next((k for j, k in self.counters.items() if self.args[j] == name), None)

    def trip_count(self) -> int | None:
        """How often the body runs, if known at import time (`tensorflow_trips`)."""
        names = [t.name for t in self.cond.inputs]
        known = {names[j]: self.inputs[j] for j in self.invariant
                 if isinstance(self.inputs[j], np.ndarray)}
        return Trips(self.cond, known, {names[j]: k for j, k in self.counters.items()}
                     ).count(self.c)

    # -- scan -----------------------------------------------------------------------------

    def scan(self, n: int) -> list[Value]:
        """The loop as an `ivy.scan` of `n` steps (see the module docstring)."""
        c, results = self.c, list(self.inputs)
        for j, k in self.counters.items():
            results[j] = k.at(n)
        r = self._roles(n)
        state = [j for j in range(len(results)) if j not in self.invariant
                 and j not in self.counters and j not in r.writes and j not in r.fixed]
        if n == 0 or not state and not r.writes and not r.fixed:
            return results
        walked = [self.body.outputs[j] for j in state] + [
            op.inputs[2] for op in [*(op for op, _ in r.fixed.values()), *r.writes.values()]]
        counted = self._counters_used(walked, r.reads)
        xs = [self._sliced(self.inputs[j], r.lo, n) for j in r.reads]
        xs += [self._steps(self.counters[j], n, r.reverse) for j in counted]
        template: list[Value | Slot] = [
            NO_VALUE if j in self.counters or j in r.writes or j in r.fixed else v
            for j, v in enumerate(self.inputs)]
        for at, j in enumerate(state):
            template[j] = self._slot(at, j)
        for at, j in enumerate([*r.reads, *counted], start=len(state) + len(r.fixed)):
            template[j] = Slot(at, Step) if j in r.reads else Slot(at)
        carry = [self._operand(j) for j in state]
        carry += [self._element(j, at) for j, (_, at) in r.fixed.items()]
        out = emit_scan(c.b.graph, carry, xs, region(
            c, lambda ins: c.graphs.run(self.body, ins, walked), template),
            length=n, reverse=r.reverse)
        for j, v in zip(state, out):
            results[j] = replace(results[j], items=v) if isinstance(results[j], TList) else v
        out = out[len(state):]
        for (j, (_, at)), item in zip(r.fixed.items(), out):
            results[j] = self._placed(results[j], c.b.emit("expand_dims", [item], axis=[0]), at, 1)
        for j, ys in zip(r.writes, out[len(r.fixed):]):
            results[j] = self._placed(results[j], ys, r.lo, n)
        return results

    def _roles(self, n: int) -> Roles:
        """Which lists the scan reads or writes at its step, or writes at one place."""
        found: dict[int, tuple[Counter | None, Any]] = {}
        fixed: dict[int, tuple[Any, int]] = {}
        for j, lst in enumerate(self.inputs):
            if not isinstance(lst, TList):
                continue
            uses = _uses(self.body.inputs[j])
            if j in self.invariant and uses and all(
                    op.type == "TensorListGetItem" and source(op.inputs[0]).name == self.args[j]
                    for op in uses):
                indices = {self._index(op) for op in uses}
                found[j] = (indices.pop() if len(indices) == 1 else None, None)
            op = source(self.body.outputs[j]).op
            if j in self.invariant or op.type != "TensorListSetItem" or [
                    u.name for u in uses] != [op.name] or source(op.inputs[0]).name != self.args[j]:
                continue
            at = known_value(op.inputs[1], self.known)
            if at is not None and at.ndim == 0 and 0 <= int(at) < lst.length:
                fixed[j] = (op, int(at))
            else:
                found[j] = (self._index(op), op)
        index = next((k for k, _ in found.values() if k is not None and abs(k.step) == 1), None)
        lo = 0 if index is None else min(index.start, index.at(n - 1).item())
        fits = sorted(j for j, (k, _) in found.items() if index is not None and k == index
                      and 0 <= lo and lo + n <= self.inputs[j].length)
        return Roles([j for j in fits if found[j][1] is None],
                     {j: found[j][1] for j in fits if found[j][1] is not None}, fixed,
                     lo, index is not None and index.step < 0)

    def _counters_used(self, walked: list[Any], reads: list[int]) -> list[int]:
        """The counters the walked ops compute with (a step list's index needs none)."""
        names = {self.args[j]: j for j in self.counters}
        step_lists = {self.args[j] for j in reads}
        used = {names[t.name] for t in walked if t.name in names}
        for op in needed(walked):
            used.update(names[t.name] for at, t in enumerate(op.inputs) if t.name in names and not (
                op.type == "TensorListGetItem" and at == 1
                and source(op.inputs[0]).name in step_lists))
        return sorted(used)

    def _sliced(self, lst: TList, lo: int, n: int) -> SSAValue:
        """Positions lo..lo+n of a list read at the step, scanned along axis 0."""
        items = self._as_ssa(dense(self.c, lst))
        return items if (lo, n) == (0, lst.length) else self._slice(items, lo, lo + n)

    def _steps(self, k: Counter, n: int, reverse: bool) -> SSAValue:
        """A counter's values at the scan's positions (backwards: the last step first)."""
        first, last = k.start, k.start + k.step * (n - 1)
        start, step = (last, -k.step) if reverse else (first, k.step)
        return self.c.b.emit("arange", [], start=float(start), stop=float(start + step * n),
                             step=float(step), dtype=str(k.dtype))

    def _placed(self, lst: TList, ys: SSAValue, lo: int, n: int) -> TList:
        """`lst` with positions lo..lo+n replaced by the stacked writes `ys`."""
        if (lo, n) == (0, lst.length):
            return replace(lst, items=ys)
        items = self._as_ssa(dense(self.c, lst, spec_of(ys).shape[1:]))
        parts = [self._slice(items, 0, lo)] if lo else []
        parts.append(ys)
        if lo + n < lst.length:
            parts.append(self._slice(items, lo + n, lst.length))
        return replace(lst, items=self.c.b.emit("concat", [parts], axis=0))

    def _slice(self, x: SSAValue, start: int, stop: int) -> SSAValue:
        rest = spec_of(x).shape[1:]
        return self.c.b.emit("slice", [x], start=[start] + [0] * len(rest),
                             stop=[stop, *rest], step=[1] * (1 + len(rest)))

    # -- carry ----------------------------------------------------------------------------

    def _slot(self, at: int, j: int) -> Slot:
        """Loop state `j` as block argument `at` (a list: its dense array)."""
        lst = self.inputs[j]
        if isinstance(lst, TList):
            return Slot(at, lambda arg: replace(lst, items=arg))
        return Slot(at)

    def _element(self, j: int, at: int) -> SSAValue:
        """The element list `j` holds at position `at` before the loop."""
        lst = self.inputs[j]
        if lst.items is None:
            shape = self._written_shape(j)
            if shape is None or None in shape:
                raise Unmapped("a TensorList of unknown element shape written in a loop")
            return self.c.b.emit("zeros", shape=list(shape), dtype=lst.dtype)
        return self.c.b.emit("take", [self._as_ssa(lst.items), self.c.b.constant(at, "int32")],
                             axis=0)

    def _operand(self, j: int) -> SSAValue:
        """The initial value of loop state `j` as an operand."""
        value = self.inputs[j]
        if isinstance(value, TList):
            value = dense(self.c, value, self._written_shape(j))
        return self._as_ssa(value)

    def _as_ssa(self, value: Value) -> SSAValue:
        if isinstance(value, np.ndarray):
            return self.c.constants.of(value)
        if not isinstance(value, SSAValue):
            raise Unmapped(f"loop state that is a {type(value).__name__}")
        return value

    def _written_shape(self, j: int) -> tuple[int | None, ...] | None:
        """The element shape the body writes into list `j` (TF's static shape)."""
        for op in self.body.get_operations():
            if op.type == "TensorListSetItem" and source(op.inputs[0]).name == self.args[j]:
                spec = tensor_spec(op.inputs[2])
                return None if spec is None else spec.shape
        return None

    # -- while ----------------------------------------------------------------------------

    def while_loop(self) -> list[Value]:
        """The loop as an `ivy.while_loop` carrying every variable that is not invariant."""
        c, results = self.c, list(self.inputs)
        carried = [j for j in range(len(results)) if j not in self.invariant]
        template: list[Value | Slot] = list(self.inputs)
        for at, j in enumerate(carried):
            template[j] = self._slot(at, j)
        walked = [self.body.outputs[j] for j in carried]
        out = emit_while(
            c.b.graph, [self._operand(j) for j in carried],
            region(c, lambda ins: [truth(c, c.graphs.run(self.cond, ins)[0])], template),
            region(c, lambda ins: c.graphs.run(self.body, ins, walked), template))
        for j, v in zip(carried, out):
            results[j] = replace(results[j], items=v) if isinstance(results[j], TList) else v
        return results


def _while(c: Ctx, *inputs: Value, cond: str, body: str, **_: Any) -> list[Value]:
    loop = Loop(c, list(inputs), cond, body)
    n = loop.trip_count()
    return loop.while_loop() if n is None else loop.scan(n)


LOOPS: dict[str, Rule] = {"While": _while, "StatelessWhile": _while}
"""TF raw op -> rule: functional loops."""
