"""Axis attributes are canonical in the IR: non-negative, counted in the rank of the
operand or result the spec names (`axis: axis(out)`; the first operand by default).

Every framework lets users count axes from the end (`-1`). Builders and the text
parser turn such axes into this one form, and `IvyOp.attr_values` fills defaults
(`softmax`'s `axis = -1`) the same way, so passes compare one spelling and no lowering,
decomposition or kernel normalises an axis again. An axis out of range is left as it
is here; `axis_problem`, run with every inference, reports it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .spec import AttrArg, OpSpec

Ranks = Sequence[Any]
"""Per operand (in spec order): its rank, None when absent, a list for a variadic one."""


def _rank(spec: OpSpec, attr: AttrArg, operands: Ranks, results: Sequence[int]) -> int | None:
    if attr.rank_of in spec.results:
        return results[spec.results.index(attr.rank_of)] if results else None
    names = [o.name for o in spec.operands]
    rank = operands[names.index(attr.rank_of) if attr.rank_of else 0]
    if isinstance(rank, list):  # a variadic operand (concat's xs): the first one's rank
        return rank[0] if rank else None
    return rank


def canonical(value: Any, rank: int | None) -> Any:
    """An axis (or tuple of axes) with negative ones counted from the end of `rank`."""
    if value is None or rank is None:
        return value
    if isinstance(value, tuple):
        return tuple(canonical(v, rank) for v in value)
    return value + rank if -rank <= value < 0 else value


def canonical_values(spec: OpSpec, values: dict[str, Any], operands: Ranks,
                     results: Sequence[int]) -> dict[str, Any]:
    """`values` (defaults filled in) with every axis attribute canonical."""
    out = dict(values)
    for a in spec.axis_attrs:
        out[a.name] = canonical(values[a.name], _rank(spec, a, operands, results))
    return out


def negative_axes(spec: OpSpec, values: dict[str, Any]) -> list[str]:
    """The axis attributes among `values` that are not canonical."""
    def negative(v: Any) -> bool:
        return any(x < 0 for x in v) if isinstance(v, tuple) else v is not None and v < 0
    return [a.name for a in spec.axis_attrs if a.name in values and negative(values[a.name])]


def axis_problem(spec: OpSpec, values: dict[str, Any], operands: Ranks,
                 results: Sequence[int] | None) -> str | None:
    """What is wrong with the axis attributes among `values`, or None.

    One check for every op with axes, so no target meets a dimension its tensor lacks
    (TensorFlow's `reverse` silently counts an axis past the rank modulo the rank).
    Axes count from the end when negative (the builders' spelling). An attribute that
    names a result's dimensions is checked only once `results` (its ranks) are known.
    A repeated dimension is refused unless the op's tag `repeat_axes` gives it a
    meaning (rolling twice along one axis adds the shifts)."""
    for a in spec.axis_attrs:
        value = values.get(a.name)
        if value is None or (a.rank_of in spec.results and results is None):
            continue
        rank = _rank(spec, a, operands, results or ())
        if rank is None:
            continue
        axes = value if isinstance(value, tuple) else (value,)
        whose = f"{'result' if a.rank_of in spec.results else 'operand'} " \
                f"'{a.rank_of or spec.operands[0].name}'"
        for ax in axes:
            if not -rank <= ax < rank:
                return (f"axis {ax} is out of range for rank {rank} of {whose} "
                        f"(attribute '{a.name}' = {value})")
        dims = [ax % rank for ax in axes]
        if len(set(dims)) != len(dims) and not spec.has("repeat_axes"):
            return (f"attribute '{a.name}' = {value} names a dimension of {whose} twice")
    return None
