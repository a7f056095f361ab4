"""Reductions over axes, arg-reductions and cumulative scans: lax -> registry ops.

Window reductions (pooling) are layers, in `jax_nn.py`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ivy_ir.dialect.types import dtype_name

from .common import Rule, Unmapped
from .jax_ctx import Ctx, Value


def _reduce(op: str, bool_op: str | None = None) -> Rule:
    """`reduce_<op>` over `axes`; on bool operands `bool_op` (max is any, min is all)."""
    def rule(ctx: Ctx, *ins: Value, axes: Sequence[int], **_: Any) -> Value:
        name = op
        if ctx.spec(ins[0]).dtype == "bool":
            if bool_op is None:
                raise Unmapped(f"{ctx.primitive} on bool")
            name = bool_op
        elif op in ("all", "any"):
            raise Unmapped(f"bitwise {ctx.primitive} on integers")
        return ctx.emit(name, *ins, axis=list(axes))
    return rule


def _arg_reduce(op: str) -> Rule:
    def rule(ctx: Ctx, x: Value, *, axes: Sequence[int], index_dtype: Any,
             **_: Any) -> Value:
        (axis,) = axes
        if ctx.spec(x).dtype == "bool":  # the first True (False): the same on 0/1 integers
            x = ctx.cast(x, "int8")
        return ctx.cast(ctx.emit(op, x, axis=axis), dtype_name(index_dtype))
    return rule


def _cumulative(op: str) -> Rule:
    def rule(ctx: Ctx, x: Value, *, axis: int, reverse: bool = False, **_: Any) -> Value:
        if not reverse:
            return ctx.emit(op, x, axis=axis)
        flipped = ctx.emit(op, ctx.emit("flip", x, axis=[axis]), axis=axis)
        return ctx.emit("flip", flipped, axis=[axis])
    return rule


REDUCE: dict[str, Rule] = {
    "reduce_sum": _reduce("sum"),
    "reduce_prod": _reduce("prod"),
    "reduce_max": _reduce("max", "any"),
    "reduce_min": _reduce("min", "all"),
    "reduce_and": _reduce("all", "all"),
    "reduce_or": _reduce("any", "any"),
    "argmax": _arg_reduce("argmax"),
    "argmin": _arg_reduce("argmin"),
    "cumsum": _cumulative("cumsum"),
    "cumprod": _cumulative("cumprod"),
    "cummax": _cumulative("cummax"),
    "cummin": _cumulative("cummin"),
    "cumlogsumexp": _cumulative("logcumsumexp"),
}
"""Reducing lax primitive name -> rule."""
