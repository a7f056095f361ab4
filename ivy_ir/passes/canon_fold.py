"""Rules every ivy op gets from `canonicalize`: constant folding through the NumPy
reference, and dropping attributes spelled out at their default value."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from xdsl.ir import SSAValue

from ..core.evaluate import evaluate
from ..core.graph import INLINE_LIMIT
from ..dialect import IvyOp, TensorSpec
from .canon_match import (
    Emit,
    Replacement,
    Rule,
    constant_array,
    is_constant_like,
    producer,
    size,
)

FOLD_LIMIT = INLINE_LIMIT
"""Largest result (in elements) folded into an inline constant: the tracer's limit for
inline arrays, so folding never prints data the tracer would have made a parameter."""

NOT_FOLDED = frozenset({"constant", "random_uniform", "random_normal"})
"""Random streams are per target ("the same key gives the same stream on a target"), so
evaluating them with NumPy would change what other targets compute."""


def folder(limit: int = FOLD_LIMIT) -> Rule:
    """op(constants...) -> constant(s), evaluated by the reference evaluator (the
    NumPy lowering's own rules), when every result has at most `limit` elements.

    Ops without operands (zeros, arange, ...) are already as compact as a constant and
    stay, but count as constants where they feed another op. Control-flow ops are
    never evaluated here (the reference evaluator runs single ops, not regions): their
    own rules (`canon_control.py`) fold them, and the ops inside their bodies fold as
    any other.
    Float results are NumPy's; another target may round a transcendental function
    differently in the last place, as it may for the same op at run time."""

    def rule(op: IvyOp, emit: Emit) -> Replacement:
        if op.SPEC.name in NOT_FOLDED or op.SPEC.regions or not op.operands or \
                not all(is_constant_like(v) for v in op.operands):
            return None
        outs = [TensorSpec.from_xdsl(r.type) for r in op.results]
        if any(None in s.shape or math.prod(s.shape) > limit for s in outs):
            return None
        groups: list[Any] = []
        for group in op.operand_groups():
            values = group if isinstance(group, list) else [] if group is None else [group]
            arrays = [_operand_array(v, limit) for v in values]
            if any(a is None for a in arrays):
                return None
            groups.append(arrays if isinstance(group, list) else arrays[0] if arrays else None)
        got = _evaluate(op, groups)
        if got is None or len(got) != len(outs):
            return None
        if any(TensorSpec.of(a) != s for a, s in zip(got, outs)):
            return None
        return [emit("constant", value=a) for a in got]

    return rule


def _operand_array(value: SSAValue, limit: int) -> np.ndarray | None:
    """A constant's array, or a small creation op's (`zeros`, `arange`, ...) evaluated."""
    array = constant_array(value)
    op = producer(value)
    if array is not None or op is None or op.operands or op.SPEC.name in NOT_FOLDED:
        return array
    if size(value) is None or size(value) > limit:
        return None
    got = _evaluate(op, [])
    return None if got is None else got[0]


def _evaluate(op: IvyOp, groups: list[Any]) -> list[np.ndarray] | None:
    try:
        with np.errstate(all="ignore"):
            out = evaluate(op.SPEC, groups, op.attr_values())
    except (ArithmeticError, ValueError, np.linalg.LinAlgError):
        return None  # the reference refuses these operands: leave the op to run time
    many = op.SPEC.variadic_results or len(op.SPEC.results) > 1
    return [np.asarray(o) for o in out] if many else [np.asarray(out)]


def drop_defaults(op: IvyOp, emit: Emit) -> Replacement:
    """op{attr = its default} -> op: builders never store defaults, so parsed IR that
    spells them out must lose them too, or `cse` sees two spellings of one op. (A
    control-flow op is rebuilt around copies of its regions.)"""
    values = op.attr_values()
    if not any(a.name in op.properties and a.default is not None
               and values[a.name] == a.default for a in op.SPEC.attrs):
        return None
    new = emit.build(op.SPEC.name, *op.operand_groups(),
                     regions=[r.clone() for r in op.regions], **values)
    return list(new.results)
