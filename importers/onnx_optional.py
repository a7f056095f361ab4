"""ONNX optionals (`Optional`, `OptionalHasElement`, `OptionalGetElement`) as
import-time structures, the way sequences are import-time lists (`onnx_sequence`).

The IR has tensors only. An optional is an `onnx_ctx.Opt`: empty, or holding one
tensor or one sequence, and which of the two is known when the model is imported:
`Optional` builds one from its input (none: empty), so `OptionalHasElement` is a
constant bool and `OptionalGetElement` the held value itself, and getting the element
of an empty one is reported, naming the node, since ONNX leaves it undefined. Since
opset 18 both also take a plain tensor or sequence (held, so true and itself) or no
input (empty, so false). An optional reaching an operator that takes tensors is
reported like a sequence (`rule_for`).

An optional graph input is decided by the call: None is an empty one, no program
input; a value is imported as that tensor or sequence. Another presence is then
another program, as another sequence length is (`onnx_sequence.SequenceCall`, whose
slot for an empty optional is `ABSENT`); an empty optional output is returned as None.
An `If` whose branches give optionals of different presence needs its condition at
import (`onnx_control`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Literal

import numpy as np

from .common import Rule, Unmapped
from .onnx_ctx import Ctx, Opt, Seq

ABSENT: Literal["absent"] = "absent"
"""The call-structure slot of an empty optional: None in a call, no program input or
result."""

Form = int | Literal["absent"] | None
"""What of a value's structure each program fixes: None for a tensor, a sequence's
length, `ABSENT` for an empty optional (a held value has its content's form)."""


def form(value: Any) -> Form:
    """The structure of a graph input, output or branch result (see `Form`)."""
    if isinstance(value, Opt):
        return ABSENT if value.value is None else form(value.value)
    return len(value.items) if isinstance(value, Seq) else None


def leaves(value: Any) -> tuple[Any, ...]:
    """The tensors a value is made of: itself, a sequence's, an optional's content's."""
    if isinstance(value, Opt):
        return () if value.value is None else leaves(value.value)
    return value.items if isinstance(value, Seq) else (value,)


def rebuild(like: Any, flat: Iterator[Any]) -> Any:
    """A value of `like`'s structure made of the next tensors of `flat` (an `If`'s
    results from the branches' flattened ones)."""
    if isinstance(like, Opt):
        return like if like.value is None else Opt(rebuild(like.value, flat))
    if isinstance(like, Seq):
        return Seq(tuple(next(flat) for _ in like.items), like.dtype)
    return next(flat)


def _optional(c: Ctx, x: Any = None, *, type: Any = None) -> Opt:
    """An optional holding `x`, empty without it. The `type` attribute (an empty
    one's element type) is accepted and not needed: nothing reads an empty optional."""
    if isinstance(x, Opt):
        raise Unmapped("input 0 is already an optional")
    return Opt(x)


def _has_element(c: Ctx, x: Any = None) -> np.ndarray:
    held = x.value is not None if isinstance(x, Opt) else x is not None
    return np.asarray(held)


def _get_element(c: Ctx, x: Any) -> Any:
    if not isinstance(x, Opt):
        return x
    if x.value is None:
        raise Unmapped("the optional is empty at import, so it has no element to get")
    return x.value


def _identity(c: Ctx, x: Any) -> Any:
    return x


TABLE: dict[str, Rule] = {
    "Optional": _optional, "OptionalHasElement": _has_element,
    "OptionalGetElement": _get_element,
}
"""ONNX op_type -> rule for the optional family."""

ON_OPTIONALS: dict[str, Rule] = {"Identity": _identity}
"""Operators of other families that also take optionals (`rule_for`)."""


def rule_for(op_type: str, domain: str, inputs: Sequence[Any]) -> Rule | None:
    """The rule for a node of this family (whatever its inputs: a plain sequence too)
    or one with an optional input that also takes optionals (`ON_OPTIONALS`), else
    None; `Unmapped` for an operator given an optional that takes none."""
    if not domain and op_type in TABLE:
        return TABLE[op_type]
    if not any(isinstance(v, Opt) for v in inputs):
        return None
    if not domain and op_type in ON_OPTIONALS:
        return ON_OPTIONALS[op_type]
    k = next(i for i, v in enumerate(inputs) if isinstance(v, Opt))
    raise Unmapped(f"input {k} is an optional, which this operator does not take")
