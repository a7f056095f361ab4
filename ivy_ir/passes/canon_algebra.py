"""Algebraic rules: neutral and absorbing constants, `x op x`, unary involutions and
projections.

Every row is exact for the dtypes it fires on, on every target, unless its comment says
otherwise. Floats are where most identities break: `x * 0` is not 0 for NaN, inf or
-0.0, `x - x` is NaN for inf, and `x + 0.0` turns -0.0 into +0.0 (so only `x + (-0.0)`
and `x - 0.0` are identities). Complex values are floats here, and no constant row fires
on them: complex arithmetic mixes the parts (`(inf + 0j) * 1` is `inf + nanj`), and
`sign` is no projection (`z / |z|` of a unit `z` rounds). A constant must also broadcast
to the other operand's shape and dtype: `x + zeros((4, 3))` with `x` of shape (3,) is no
identity, so every row checks that the result has the type of the operand it keeps.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from xdsl.ir import SSAValue

from ..dialect import IvyOp
from .canon_match import (
    Emit,
    Replacement,
    Rule,
    is_complex,
    is_float,
    merge,
    producer,
    source,
    splat,
)

Test = Callable[[np.generic, bool], bool]
"""(the constant's scalar, whether the dtype is a float) -> does the row fire."""
Make = Callable[[Emit, SSAValue], SSAValue]
"""(emit, the kept operand x) -> what the op becomes."""


def _is(value: float) -> Test:
    return lambda c, flt: bool(c == value)


def _ints(test: Test) -> Test:
    return lambda c, flt: not flt and test(c, flt)


def _floats(test: Test) -> Test:
    return lambda c, flt: flt and test(c, flt)


def _negative_zero(c: np.generic, flt: bool) -> bool:
    """0 as an additive identity: any integer 0, but only the float -0.0."""
    return bool(c == 0) and (not flt or bool(np.signbit(c)))


def _positive_zero(c: np.generic, flt: bool) -> bool:
    """0 as a subtrahend identity: any integer 0, but only the float +0.0."""
    return bool(c == 0) and (not flt or not np.signbit(c))


def _all_ones(c: np.generic, flt: bool) -> bool:
    return not flt and bool(c == np.invert(np.zeros((), c.dtype)))


def _keep(emit: Emit, x: SSAValue) -> SSAValue:
    return x


def _unary(name: str, **attrs: object) -> Make:
    return lambda emit, x: emit(name, x, **attrs)


def _cube(emit: Emit, x: SSAValue) -> SSAValue:
    return emit("multiply", emit("square", x), x)


ANY, RHS, LHS = "any", "rhs", "lhs"
"""Where the constant stands: either operand (commutative ops), y, or x."""

NEUTRAL_ROWS: list[tuple[str, str, Test, Make]] = [
    ("add", ANY, _negative_zero, _keep),            # x + 0 -> x
    ("subtract", RHS, _positive_zero, _keep),       # x - 0 -> x
    ("multiply", ANY, _is(1), _keep),               # x * 1 -> x
    ("divide", RHS, _is(1), _keep),                 # x / 1 -> x
]
"""The copies importers leave (`x * 1`, `x + 0`): `strip-wrappers` runs these too."""

ALGEBRA_ROWS: list[tuple[str, str, Test, Make]] = [
    ("subtract", LHS, _negative_zero, _unary("negative")),      # 0 - x -> -x
    ("multiply", ANY, _is(-1), _unary("negative")),             # x * -1 -> -x
    ("multiply", ANY, _ints(_is(0)), _unary("zeros_like")),     # x * 0 -> 0 (ints only)
    ("divide", RHS, _is(-1), _unary("negative")),               # x / -1 -> -x
    ("floor_divide", RHS, _ints(_is(1)), _keep),                # x // 1 -> x (ints only)
    ("pow", RHS, _is(1), _keep),                                # x ** 1 -> x
    ("pow", RHS, _is(0), _unary("ones_like")),                  # x ** 0 -> 1 (also NaN)
    # x ** 2 -> square(x): NumPy computes pow by 2 as a square; C pow is within rounding
    ("pow", RHS, _is(2), _unary("square")),
    # x ** -1 -> 1 / x (floats): NumPy's reciprocal fast path; C pow within rounding
    ("pow", RHS, _floats(_is(-1)), _unary("reciprocal")),
    # x ** 0.5 -> sqrt(x) (floats): NumPy (scalar exponent) and torch compute sqrt; XLA's
    # pow differs only at -inf (+inf, sqrt gives NaN) and -0.0 (+0.0, sqrt gives -0.0)
    ("pow", RHS, _floats(_is(0.5)), _unary("sqrt")),
    # x ** 3 -> x*x*x (ints only: exact modular arithmetic; floats would round twice)
    ("pow", RHS, _ints(_is(3)), _cube),
    ("logical_and", ANY, _is(True), _keep),                     # x & true -> x
    ("logical_and", ANY, _is(False), _unary("zeros_like")),     # x & false -> false
    ("logical_or", ANY, _is(False), _keep),                     # x | false -> x
    ("logical_or", ANY, _is(True), _unary("ones_like")),        # x | true -> true
    ("logical_xor", ANY, _is(False), _keep),                    # x ^ false -> x
    ("logical_xor", ANY, _is(True), _unary("logical_not")),     # x ^ true -> !x
    ("bitwise_or", ANY, _is(0), _keep),                         # x | 0 -> x
    ("bitwise_xor", ANY, _is(0), _keep),                        # x ^ 0 -> x
    ("bitwise_and", ANY, _all_ones, _keep),                     # x & ~0 -> x
    ("bitwise_and", ANY, _is(0), _unary("zeros_like")),         # x & 0 -> 0
]

SELF_ROWS: dict[str, tuple[bool, Make]] = {
    # op: (also for floats?, what `x op x` becomes)
    "maximum": (True, _keep),                                   # max(x, x) -> x
    "minimum": (True, _keep),                                   # min(x, x) -> x
    "logical_and": (True, _keep),                               # x & x -> x
    "logical_or": (True, _keep),                                # x | x -> x
    "bitwise_and": (True, _keep),                               # x & x -> x
    "bitwise_or": (True, _keep),                                # x | x -> x
    "logical_xor": (True, _unary("zeros_like")),                # x ^ x -> false
    "bitwise_xor": (True, _unary("zeros_like")),                # x ^ x -> 0
    "subtract": (False, _unary("zeros_like")),                  # x - x -> 0 (inf - inf: NaN)
    "equal": (False, _unary("ones_like", dtype="bool")),        # x == x -> true (NaN != NaN)
    "not_equal": (False, _unary("zeros_like", dtype="bool")),   # x != x -> false
    "less": (True, _unary("zeros_like", dtype="bool")),         # x < x -> false
    "greater": (True, _unary("zeros_like", dtype="bool")),      # x > x -> false
}

INVOLUTIONS = ("negative", "logical_not", "bitwise_invert")     # f(f(x)) -> x
PROJECTIONS = ("abs", "sign", "floor", "ceil", "round", "trunc", "relu", "relu6")
"""f(f(x)) -> f(x): every value f returns is a fixed point of f."""


def _constant_rows(rows: list[tuple[str, Test, Make]]) -> Rule:
    """One rule trying each row of an op in order: the first that fires wins."""
    def rule(op: IvyOp, emit: Emit) -> Replacement:
        x, y = op.operands
        out = op.results[0]
        if is_complex(out):
            return None
        for side, test, make in rows:
            pairs = {ANY: ((x, y), (y, x)), RHS: ((x, y),), LHS: ((y, x),)}[side]
            for keep, const in pairs:
                c = splat(const)
                if c is not None and keep.type == out.type and test(c, is_float(keep)):
                    return make(emit, keep)
        return None
    return rule


def _self_rule(op: IvyOp, emit: Emit) -> Replacement:
    x, y = op.operands
    floats_too, make = SELF_ROWS[op.SPEC.name]
    if x is not y or (is_float(x) and not floats_too):
        return None
    return make(emit, x)


def _involution(op: IvyOp, emit: Emit) -> Replacement:
    inner = producer(source(op), op.SPEC.name)
    return None if inner is None else source(inner)


def _projection(op: IvyOp, emit: Emit) -> Replacement:
    if op.SPEC.name == "sign" and is_complex(source(op)):
        return None
    return source(op) if producer(source(op), op.SPEC.name) is not None else None


def _abs_negative(op: IvyOp, emit: Emit) -> Replacement:
    """abs(-x) -> abs(x)."""
    inner = producer(source(op), "negative")
    return None if inner is None else emit("abs", source(inner))


def _where_same(op: IvyOp, emit: Emit) -> Replacement:
    """where(c, x, x) -> x (when c does not broadcast x to a bigger shape)."""
    _, x, y = op.operands
    return x if x is y and x.type == op.results[0].type else None


def _group(rows: list[tuple[str, str, Test, Make]]) -> dict[str, tuple[Rule, ...]]:
    by_op: dict[str, list[tuple[str, Test, Make]]] = {}
    for name, *row in rows:
        by_op.setdefault(name, []).append(tuple(row))
    return {name: (_constant_rows(r),) for name, r in by_op.items()}


NEUTRAL_RULES = _group(NEUTRAL_ROWS)
ALGEBRA_RULES = merge(
    _group(ALGEBRA_ROWS),
    {name: (_self_rule,) for name in SELF_ROWS},
    {name: (_involution,) for name in INVOLUTIONS},
    {name: (_projection,) for name in PROJECTIONS},
    {"abs": (_abs_negative,), "where": (_where_same,)},
)
