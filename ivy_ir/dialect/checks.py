"""Type checking of one op from its registry entry: attribute values and result types.

`IvyOp.build` and `IvyOp.verify_` both call `infer_types`, and so do the reference
evaluator and the importers before they build anything, so an op's result types are
computed one way only: operand dtypes against the spec's classes, then the spec's
`infer=` rule (given the regions' signatures for a control-flow op).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .attrs import AttrError, normalize
from .axes import axis_problem
from .infer import RULES, InferError
from .infer_bits import BITS_RULES
from .infer_control import CONTROL_RULES
from .infer_data import DATA_RULES
from .infer_fft import FFT_RULES
from .infer_nn import NN_RULES
from .infer_shape import SHAPE_RULES
from .infer_strings import STRING_RULES
from .infer_window import WINDOW_RULES
from .spec import GROUPED_CLASSES, OpSpec
from .types import CLASS_MEMBERS, STORAGE, TensorSpec

CLASS_WORDS = {"inexact": "float or complex", "any": "non-storage", "value": "non-storage"}
"""How errors name a dtype class whose name says less than its members."""

INFER_RULES: dict[str, Any] = {**RULES, **SHAPE_RULES, **NN_RULES, **WINDOW_RULES,
                                **CONTROL_RULES, **BITS_RULES, **FFT_RULES, **DATA_RULES,
                                **STRING_RULES}
"""Every inference rule by the name the spec's `infer=` tag gives."""


def ranks(specs: list[Any]) -> list[Any]:
    """The rank of each operand group (None when absent, a list for a variadic one)."""
    return [None if s is None else [t.rank for t in s] if isinstance(s, list) else s.rank
            for s in specs]


def check_attrs(spec: OpSpec, attrs: dict[str, Any], filled: bool = False) -> dict[str, Any]:
    """Normalise attribute values, fill defaults, and reject unknown/missing ones."""
    unknown = set(attrs) - set(spec.attr_map)
    if unknown:
        raise AttrError(f"ivy.{spec.name}: unknown attribute(s) {', '.join(sorted(unknown))}; "
                        f"it takes {', '.join(spec.attr_map) or 'none'}")
    out: dict[str, Any] = {}
    for a in spec.attrs:
        value = attrs.get(a.name)
        if value is None and a.required:
            raise AttrError(f"ivy.{spec.name}: missing required attribute '{a.name}'")
        try:
            out[a.name] = a.default if value is None else normalize(a, value)
        except AttrError as exc:
            raise AttrError(f"ivy.{spec.name}: {exc}") from None
    return out


def infer_types(spec: OpSpec, operands: Sequence[Any], attrs: dict[str, Any],
                regions: Sequence[Any] | None = None) -> list[TensorSpec]:
    """Check operand dtypes against the spec, then run the op's inference rule (given
    the regions' `Signature`s for a control-flow op)."""
    where = f"ivy.{spec.name}"
    if len(operands) != len(spec.operands):
        raise InferError(f"{where} takes {len(spec.operands)} operand(s), got {len(operands)}")
    group: list[tuple[str, str]] = []
    for arg, value in zip(spec.operands, operands):
        if value is None:
            if not arg.optional:
                raise InferError(f"{where}: operand '{arg.name}' is required")
            continue
        for t in value if arg.variadic else [value]:
            if t.dtype not in CLASS_MEMBERS[arg.dtype_class]:
                what = CLASS_WORDS.get(arg.dtype_class, arg.dtype_class)
                raise InferError(f"{where}: operand '{arg.name}' must have a {what} dtype, "
                                 f"got {t.dtype}")
            if arg.dtype_class in GROUPED_CLASSES:
                group.append((arg.name, t.dtype))
    if len({d for _, d in group}) > 1:
        raise InferError(f"{where}: operands must share one dtype, got "
                         + ", ".join(f"{n}: {d}" for n, d in group))
    operand_ranks = ranks(list(operands))
    try:  # axes first: a rule may index a dimension an axis names
        problem = axis_problem(spec, attrs, operand_ranks, None)
        rule = INFER_RULES[spec.infer]
        out = [] if problem else rule(list(operands), attrs, regions) if spec.regions \
            else rule(list(operands), attrs)
        problem = problem or axis_problem(spec, attrs, operand_ranks, [t.rank for t in out])
    except InferError as exc:
        problem = str(exc)
    if problem is None:
        problem = _storage_problem(spec, out) or _text_problem(spec, out)
    if problem is not None:
        raise InferError(f"{where}: {problem}")
    return out


def _storage_problem(spec: OpSpec, out: list[TensorSpec]) -> str | None:
    """Only an op that takes the storage dtypes (`astype`) may make one: a `zeros` or
    `bitcast` in float8 would need arithmetic the IR leaves undefined there."""
    made = sorted({t.dtype for t in out if t.dtype in STORAGE})
    if not made or any(STORAGE & CLASS_MEMBERS[a.dtype_class] for a in spec.operands):
        return None
    return f"{', '.join(made)} is a storage dtype: only astype converts into it"


def _text_problem(spec: OpSpec, out: list[TensorSpec]) -> str | None:
    """Only an op that reads text (the `text` class) may make it: a `zeros` or `full` of
    strings would need a fill value the IR has no text form for."""
    if all(t.dtype != "string" for t in out) or any(
            "string" in CLASS_MEMBERS[a.dtype_class] for a in spec.operands):
        return None
    return "string is a text dtype: only the string ops make it"


__all__ = ["CLASS_WORDS", "INFER_RULES", "check_attrs", "infer_types", "ranks"]
