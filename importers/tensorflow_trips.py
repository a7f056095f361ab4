"""How often a TF loop runs, when its `cond` reads only counters and known values.

A counter is a loop variable that starts at a known integer and adds a known amount
each iteration, so its value at iteration k is known. Where the `cond` is a
conjunction (or disjunction) of comparisons between sums of counters and known values
(what `tf.scan`, `tf.map_fn`, `tf.range` loops, `maximum_iterations` and Keras RNNs
stage), the first iteration it fails at is solved for directly; any other `cond` of
counters is folded iteration by iteration, up to `TRIP_LIMIT`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .tensorflow_ctx import NO_VALUE, Ctx, node_attrs

TRIP_LIMIT = 1 << 12
"""Most iterations a `cond` is folded for (one walk of it each) when it cannot be
solved; a loop found to run longer imports as an `ivy.while_loop`."""


@dataclass(frozen=True)
class Counter:
    """A loop variable worth `start + step * k` at iteration k."""

    start: int
    step: int
    dtype: np.dtype

    def at(self, k: int) -> np.ndarray:
        return np.asarray(self.start + self.step * k, self.dtype)


def source(t: Any) -> Any:
    """`t` with the identities that pass it on looked through."""
    while t.op.type == "Identity":
        t = t.op.inputs[0]
    return t


def needed(outputs: list[Any]) -> list[Any]:
    """The ops `outputs` depend on through data edges."""
    seen: dict[str, Any] = {}
    stack = [t.op for t in outputs]
    while stack:
        op = stack.pop()
        if op.name not in seen:
            seen[op.name] = op
            stack.extend(t.op for t in op.inputs)
    return list(seen.values())


def known_value(t: Any, known: Mapping[str, np.ndarray]) -> np.ndarray | None:
    """The value of `t` if it is a constant or an input of known value."""
    t = source(t)
    if t.op.type == "Const":
        return np.asarray(node_attrs(t.op)["value"])
    return known.get(t.name)


Affine = tuple[int, int]
"""(a, b): worth a + b * k at iteration k."""

_BELOW: dict[str, Callable[[Affine, Affine], tuple[Affine, int]]] = {
    # each comparison as `e < t` for an affine e and t of 0 or 1 (integers)
    "Less": lambda x, y: ((x[0] - y[0], x[1] - y[1]), 0),
    "LessEqual": lambda x, y: ((x[0] - y[0], x[1] - y[1]), 1),
    "Greater": lambda x, y: ((y[0] - x[0], y[1] - x[1]), 0),
    "GreaterEqual": lambda x, y: ((y[0] - x[0], y[1] - x[1]), 1),
}


class Trips:
    """The trip count of one loop from its `cond` graph, the known values of its
    inputs and its counters (both by `cond` input name)."""

    def __init__(self, cond: Any, known: Mapping[str, np.ndarray],
                 counters: Mapping[str, Counter]):
        self.cond, self.known, self.counters = cond, known, counters

    def count(self, c: Ctx) -> int | None:
        """The number of iterations, or None when it is not known at import time."""
        reads = {op.outputs[0].name for op in needed(list(self.cond.outputs))
                 if op.type == "Placeholder"}
        if not reads <= self.known.keys() | self.counters.keys():
            return None
        solved = self._first_false(self.cond.outputs[0])
        if solved is not None:
            return None if solved == math.inf else int(solved)
        for k in range(TRIP_LIMIT + 1):
            ins = [self.counters[t.name].at(k) if t.name in self.counters else
                   self.known.get(t.name, NO_VALUE) for t in self.cond.inputs]
            go = c.graphs.fold(self.cond, ins, list(self.cond.outputs))[0]
            if not isinstance(go, np.ndarray):
                return None
            if not go.any():
                return k
        return None

    def _first_false(self, t: Any) -> float | None:
        """f such that the bool `t` is true at iterations [0, f) and false from f on
        (inf: never false), for `t` made of comparisons of affine values, and, or;
        None for anything else. Such an `and` is false from the first of its parts'
        f on, an `or` from the last."""
        t = source(t)
        op = t.op
        if op.type in ("LogicalAnd", "LogicalOr"):
            parts = [self._first_false(u) for u in op.inputs]
            if None in parts:
                return None
            return min(parts) if op.type == "LogicalAnd" else max(parts)
        if op.type in _BELOW:
            x, y = (self._affine(u) for u in op.inputs)
            if x is None or y is None:
                return None
            (a, b), limit = _BELOW[op.type](x, y)
            if a >= limit:  # false from the start: for good unless it comes true later
                return 0 if b >= 0 else None
            return math.inf if b <= 0 else -((a - limit) // b)
        value = known_value(t, self.known)
        if value is None or value.ndim:
            return None
        return math.inf if value else 0

    def _affine(self, t: Any) -> Affine | None:
        """`t` as a + b * k, for sums and constant multiples of counters and integers."""
        t = source(t)
        if t.name in self.counters:
            k = self.counters[t.name]
            return k.start, k.step
        value = known_value(t, self.known)
        if value is not None:
            return (int(value), 0) if value.ndim == 0 and value.dtype.kind in "iu" else None
        if t.op.type not in ("Add", "AddV2", "Sub", "Mul"):
            return None
        x, y = (self._affine(u) for u in t.op.inputs)
        if x is None or y is None:
            return None
        if t.op.type == "Mul":
            return (x[0] * y[0], x[0] * y[1] + x[1] * y[0]) if 0 in (x[1], y[1]) else None
        sign = -1 if t.op.type == "Sub" else 1
        return x[0] + sign * y[0], x[1] + sign * y[1]
