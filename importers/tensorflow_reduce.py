"""TF reductions, arg-reductions, scans and top-k -> ivy ops.

Reduction axes are an operand in TF, known at import time (or the op is reported);
they become the registry's sorted, non-negative `axis` list. TF's integer `Mean`
truncates toward zero, so it is an integer sum and a truncating division.
"""

from __future__ import annotations

from typing import Any

from ivy_ir.dialect.types import COMPLEX, FLOATS

from .common import Rule, camel, one_to_one
from .tensorflow_ctx import Ctx
from .tensorflow_math import trunc_div

REDUCE = one_to_one(("sum", "prod", "max", "min", "all", "any", "mean"), camel)
"""TF reduction -> the registry reduction over the same axes."""


def _reduce(name: str) -> Rule:
    def rule(c: Ctx, x: Any, axes: Any, *, keep_dims: bool = False, **_: Any) -> Any:
        axis = c.axes(axes, c.rank(x))
        keep = bool(keep_dims)
        if not axis:
            return c.operand(x)  # reducing over no axis is the identity
        if name == "mean" and c.spec(x).dtype not in FLOATS | COMPLEX:
            return _int_mean(c, x, axis, keep)
        return c.emit(name, x, axis=axis, keepdims=keep)
    return rule


def _int_mean(c: Ctx, x: Any, axes: list[int], keep: bool) -> Any:
    # TF's integer Mean: the integer sum divided by the count, truncated toward zero
    spec = c.spec(x)
    count = 1
    for a in axes:
        count *= spec.shape[a]
    total = c.emit("sum", x, axis=axes, keepdims=keep)
    return trunc_div(c, total, c.const(count, spec.dtype), spec.dtype)


def _euclidean_norm(c: Ctx, x: Any, axes: Any, *, keep_dims: bool = False, **_: Any) -> Any:
    axis = c.axes(axes, c.rank(x))
    return c.emit("vector_norm", x, ord=2.0, axis=axis, keepdims=bool(keep_dims))


def _arg_reduce(name: str) -> Rule:
    def rule(c: Ctx, x: Any, dimension: Any, **_: Any) -> Any:
        (axis,) = c.ints(dimension, "axis")
        return c.cast(c.emit(name, x, axis=axis), c.out.dtype)
    return rule


EXCLUSIVE_FIRST = {"cumsum": 0.0, "cumprod": 1.0, "logcumsumexp": float("-inf")}
"""What an exclusive scan starts from: the fold's identity."""


def _scan(name: str) -> Rule:
    """Cumsum/Cumprod with TF's `reverse` (scan from the end) and `exclusive` (shifted by
    one, starting from the identity) flags, as flips and a slice + concat: exact, no
    subtraction of a running total."""
    def rule(c: Ctx, x: Any, axis_: Any, *, exclusive: bool = False, reverse: bool = False,
             **_: Any) -> Any:
        (axis,) = c.ints(axis_, "axis")
        rank, shape, dtype = c.rank(x), list(c.spec(x).shape), c.spec(x).dtype
        x = c.operand(x)
        axis %= rank
        if reverse:
            x = c.emit("flip", x, axis=[axis])
        if exclusive:
            n = shape[axis]
            start, stop, step = [0] * rank, list(shape), [1] * rank
            stop[axis] = max(n - 1, 0)
            head = c.emit("slice", x, start=start, stop=stop, step=step)
            shape[axis] = 1
            first = c.emit("full", shape=shape, fill_value=EXCLUSIVE_FIRST[name], dtype=dtype)
            x = c.emit("concat", [first, c.emit(name, head, axis=axis)], axis=axis) if n \
                else x
        else:
            x = c.emit(name, x, axis=axis)
        if reverse:
            x = c.emit("flip", x, axis=[axis])
        return x
    return rule


def _top_k(c: Ctx, x: Any, k: Any, **_: Any) -> list[Any]:
    (n,) = c.ints(k, "k")
    values, indices = c.emit_all("top_k", x, k=n, axis=-1, largest=True)
    return [values, c.cast(indices, c.outs[1].dtype)]


def _l2_loss(c: Ctx, t: Any, **_: Any) -> Any:
    """tf.nn.l2_loss: sum(t^2) / 2 over every axis."""
    t = c.operand(t)
    half = c.const(0.5, c.spec(t).dtype)
    return c.emit("multiply", c.emit("sum", c.emit("square", t)), half)


REDUCTIONS: dict[str, Rule] = {
    **{k: _reduce(v) for k, v in REDUCE.items()},
    "L2Loss": _l2_loss,
    "EuclideanNorm": _euclidean_norm,
    "ArgMax": _arg_reduce("argmax"), "ArgMin": _arg_reduce("argmin"),
    "Cumsum": _scan("cumsum"), "Cumprod": _scan("cumprod"),
    "CumulativeLogsumexp": _scan("logcumsumexp"), "TopKV2": _top_k,
}
"""TF raw op -> rule: reductions over axes, arg-reductions, scans and top-k."""
