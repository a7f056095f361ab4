"""ONNX reductions, arg-reductions, TopK and cumulative sums -> ivy ops.

The Reduce* operators share one rule (`_reduce`) over a table of how each reduces
(`REDUCTIONS`): the axes come from the `axes` input (an attribute before opset 13 for
ReduceSum, 18 for the others: `UPGRADES`), no axes reduce everything unless
`noop_with_empty_axes`, and a reduction over an empty axis gives ONNX's identity value
(0 for sums, -inf for ReduceMax, ...) as a filled constant, since registry reductions
of nothing are not defined everywhere. Integer inputs of the float-only forms (mean,
L2, log-sums) are computed in float64 and cast back, as ONNX's reference does.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ivy_ir.dialect.types import FLOATS

from .common import Rule, Unmapped
from .onnx_ctx import Ctx
from .onnx_shape import axes_upgrade

Reducer = Callable[[Ctx, Any, list[int], bool], Any]
"""`reducer(ctx, x, axes, keepdims)`: one reduction over known, non-negative axes."""


def _plain(op: str) -> Reducer:
    return lambda c, x, axes, keep: c.emit(op, x, axis=axes, keepdims=keep)


def _in_float(reduce: Reducer) -> Reducer:
    """`reduce` in float64 for integer inputs, the result cast back (truncated)."""
    def run(c: Ctx, x: Any, axes: list[int], keep: bool) -> Any:
        dtype = c.spec(x).dtype
        if dtype in FLOATS:
            return reduce(c, x, axes, keep)
        return c.cast(reduce(c, c.cast(x, "float64"), axes, keep), dtype)
    return run


def _extreme(op: str, boolean: str) -> Reducer:
    """max/min; on bool inputs any/all."""
    def run(c: Ctx, x: Any, axes: list[int], keep: bool) -> Any:
        name = boolean if c.spec(x).dtype == "bool" else op
        return c.emit(name, x, axis=axes, keepdims=keep)
    return run


def _sum_of(inner: Callable[[Ctx, Any], Any]) -> Reducer:
    return lambda c, x, axes, keep: c.emit("sum", inner(c, x), axis=axes, keepdims=keep)


def _square(c: Ctx, x: Any) -> Any:
    return c.emit("multiply", x, x)


REDUCTIONS: dict[str, tuple[Reducer, float]] = {
    "ReduceSum": (_plain("sum"), 0.0),
    "ReduceMean": (_in_float(_plain("mean")), math.nan),
    "ReduceMax": (_extreme("max", "any"), -math.inf),
    "ReduceMin": (_extreme("min", "all"), math.inf),
    "ReduceProd": (_plain("prod"), 1.0),
    "ReduceL1": (_sum_of(lambda c, x: c.emit("abs", x)), 0.0),
    "ReduceL2": (_in_float(lambda c, x, a, k: c.emit("sqrt", _sum_of(_square)(c, x, a, k))),
                 0.0),
    "ReduceSumSquare": (_sum_of(_square), 0.0),
    "ReduceLogSum": (_in_float(lambda c, x, a, k: c.emit("log", c.emit(
        "sum", x, axis=a, keepdims=k))), -math.inf),
    "ReduceLogSumExp": (_in_float(lambda c, x, a, k: c.emit("log", c.emit(
        "sum", c.emit("exp", x), axis=a, keepdims=k))), -math.inf),
}
"""ONNX Reduce* -> (how it reduces, its value over an empty set)."""


def _reduction(name: str) -> Rule:
    reduce, empty = REDUCTIONS[name]

    def rule(c: Ctx, x: Any, axes: Any = None, keepdims: int = 1,
             noop_with_empty_axes: int = 0) -> Any:
        shape = c.spec(x).shape
        picked = [] if axes is None else c.ints(axes, "axes")
        if not picked:
            if noop_with_empty_axes:
                return x
            picked = list(range(len(shape)))
        picked = sorted({a + len(shape) if a < 0 else a for a in picked})
        if any(shape[a] == 0 for a in picked):
            out = [1 if a in picked else d for a, d in enumerate(shape)]
            if not keepdims:
                out = [d for a, d in enumerate(out) if a not in picked]
            if None in out:
                raise Unmapped("an empty reduction of a dynamic shape")
            dtype = c.spec(x).dtype
            fill = float(empty > 0) if dtype == "bool" else empty  # any: False, all: True
            return c.emit("full", shape=out, fill_value=fill, dtype=dtype)
        return reduce(c, x, picked, bool(keepdims))
    return rule


def _arg(op: str) -> Rule:
    """argmax/argmin; `select_last_index` flips the axis first, then maps back."""
    def rule(c: Ctx, x: Any, axis: int = 0, keepdims: int = 1,
             select_last_index: int = 0) -> Any:
        rank = c.rank(x)
        axis = axis + rank if axis < 0 else axis
        if not select_last_index:
            return c.emit(op, x, axis=axis, keepdims=bool(keepdims))
        dim = c.spec(x).shape[axis]
        if dim is None:
            raise Unmapped("select_last_index on a dynamic dim")
        found = c.emit(op, c.emit("flip", x, axis=[axis]), axis=axis, keepdims=bool(keepdims))
        return c.emit("subtract", c.const(dim - 1, "int64"), found)
    return rule


def _top_k(c: Ctx, x: Any, k: Any, axis: int = -1, largest: int = 1, sorted: int = 1
           ) -> list[Any]:
    """Sorted top k (ties: the lower index first); `sorted=0` allows any order, so the
    sorted one is exact too."""
    count = c.ints(k, "k")[0]
    return c.emit_all("top_k", x, k=count, axis=axis, largest=bool(largest))


def _top_k_upgrade(inputs: list[Any], attrs: dict[str, Any], opset: int
                   ) -> tuple[list[Any], dict[str, Any]]:
    """TopK < 10 takes `k` as an attribute; 10 as an input."""
    return inputs[:1] + [np.asarray([attrs.pop("k")], np.int64)], attrs


def _cumulative(op: str, identity: float) -> Rule:
    """cumsum/cumprod along a known axis; `reverse` flips around it, `exclusive`
    shifts the result by one (the identity first), so no value is subtracted."""
    def rule(c: Ctx, x: Any, axis: Any, exclusive: int = 0, reverse: int = 0) -> Any:
        rank = c.rank(x)
        a = c.ints(axis, "axis")[0]
        a = a + rank if a < 0 else a
        if reverse:
            x = c.emit("flip", x, axis=[a])
        out = c.emit(op, x, axis=a)
        if exclusive:
            shape = c.spec(out).shape
            if shape[a] is None:
                raise Unmapped("exclusive on a dynamic dim")
            stop = [d if i != a else max(d - 1, 0) for i, d in enumerate(shape)]
            head = c.emit("slice", out, start=[0] * rank, stop=stop, step=[1] * rank)
            width = [0] * (2 * rank)
            width[2 * a] = 1 if shape[a] else 0
            out = c.emit("pad", head, pad_width=width, value=identity)
        if reverse:
            out = c.emit("flip", out, axis=[a])
        return out
    return rule


TABLE: dict[str, Rule] = {
    **{name: _reduction(name) for name in REDUCTIONS},
    "ArgMax": _arg("argmax"), "ArgMin": _arg("argmin"), "TopK": _top_k,
    "CumSum": _cumulative("cumsum", 0.0), "CumProd": _cumulative("cumprod", 1.0),
}
"""ONNX op_type -> rule for reductions."""

UPGRADES = {
    "ReduceSum": (13, axes_upgrade),
    **{name: (18, axes_upgrade) for name in REDUCTIONS if name != "ReduceSum"},
    "TopK": (10, _top_k_upgrade),
}
"""op_type -> (since, upgrade): reductions' `axes` and TopK's `k` became inputs."""
