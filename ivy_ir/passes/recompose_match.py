"""Matching helpers of the `recompose` pass: constants by value, and arithmetic in normal
form.

Users spell one formula many ways (`x * 0.5 * (1 + erf(x / sqrt(2)))`,
`x * (erf(x * 0.7071) + 1) / 2`, ...). Rather than one pattern per spelling, a rule
expands the arithmetic around its anchor into a polynomial over *atoms* (values that
are not expanded further: inputs, reductions, transcendental ops) and compares that
normal form with the expected one. Expansion only walks into an op whose result has a
single use (or that the rule explicitly allows), so a match never absorbs a value that
other code still needs; every op it walked through is reported, and the driver refuses
a match whose interior ops have uses outside the pattern.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.ir import Operation, SSAValue

from ..dialect import IvyOp, TensorSpec
from ..dialect.types import FLOATS, numpy_dtype

RTOL = {"float16": 2e-3, "bfloat16": 1.6e-2, "float32": 1e-6, "float64": 1e-10}
"""Relative tolerance when a constant in the IR is compared with a pattern's constant
(sqrt(2), 0.044715, ...): a couple of units in the last place of the dtype, after the
constant was rounded to it and perhaps multiplied with another rounded constant. For
float64 it accepts the 10-significant-digit literals users type (0.7978845608)."""

MAX_TERMS = 24
"""Expansions with more monomials than this are not any pattern of the pass: give up."""

MAX_OPS = 48
"""Nor are expansions through more ops than this (a long chain of single-use arithmetic
would otherwise be walked again from every op of it)."""

ARITH = frozenset({"add", "subtract", "multiply", "divide", "negative", "square", "pow",
                   "reciprocal"})
"""Ops the normal form expands through; every other op's result is an atom."""

Mono = tuple[tuple[SSAValue, int], ...]
"""A monomial: (atom, power) pairs sorted by atom identity; () is the constant term."""
Poly = dict[Mono, float]


class NoMatch(Exception):
    """Raised inside a rule to say "this is not the pattern"; the driver catches it."""


def require(cond: Any) -> None:
    if not cond:
        raise NoMatch


# ---- values ----

def spec(v: SSAValue) -> TensorSpec:
    return TensorSpec.from_xdsl(v.type)


def is_float(v: SSAValue) -> bool:
    return spec(v).dtype in FLOATS


def producer(v: SSAValue | None, *names: str) -> IvyOp | None:
    """The ivy op that defines `v`, if it is one of `names` (any op when none given)."""
    op = None if v is None else v.owner
    if isinstance(op, IvyOp) and (not names or op.SPEC.name in names):
        return op
    return None


def expect(v: SSAValue | None, *names: str) -> IvyOp:
    op = producer(v, *names)
    require(op is not None)
    assert op is not None
    return op


def scalar(v: SSAValue) -> float | None:
    """The value of `v` when it is one number repeated (a splat constant, `full`, or a
    `zeros_like`/`ones_like`/`full_like`)."""
    op = producer(v, "constant", "full", "full_like", "zeros_like", "ones_like")
    if op is None:
        return None
    attrs = op.attr_values()
    name = op.SPEC.name
    if name in ("zeros_like", "ones_like"):
        return float(name == "ones_like")
    if name in ("full", "full_like"):
        return float(attrs["fill_value"])
    value = attrs["value"]
    if value.size == 0 or value.dtype == np.bool_:
        return None
    flat = value.reshape(-1)
    return float(flat[0]) if np.all(flat == flat[0]) or np.all(np.isnan(flat)) else None


def close(value: float, want: float, dtype: str) -> bool:
    """`value` (read from IR in `dtype`) equals the pattern constant `want`."""
    return math.isclose(value, want, rel_tol=RTOL.get(dtype, 0.0), abs_tol=0.0)


def shortest(value: float, dtype: str) -> float:
    """The shortest decimal that rounds to the same `dtype` number (1e-05, not
    9.99999974e-06), so a recomposed attribute prints as the user wrote it."""
    kind = numpy_dtype(dtype).type
    for digits in range(1, 18):
        short = float(f"{value:.{digits}g}")
        if kind(short) == kind(value):
            return short
    return float(value)


def uncut(v: SSAValue, ops: list) -> SSAValue:
    """`v`, or the value `v = stop_gradient(value)` cuts (the op joined to `ops`). Only
    for a value whose derivative is zero anyway (a shift the formula is invariant to),
    where the cut changes no gradient and the fused op may leave it out."""
    op = producer(v, "stop_gradient")
    if op is None:
        return v
    ops.append(op)
    return op.operand_groups()[0]


def norm_axes(axes: Iterable[int] | None, rank: int) -> tuple[int, ...]:
    """A reduction's (canonical) axes as a sorted set; None reduces every axis."""
    return tuple(range(rank)) if axes is None else tuple(sorted(set(axes)))


def reduction(v: SSAValue, name: str, x: SSAValue | None = None) -> tuple[IvyOp, SSAValue,
                                                                          tuple[int, ...]]:
    """`v = name(x', axis=A, keepdims=True)` -> (op, x', A normalized); x' must be `x`
    when given. keepdims is required: without it the result broadcasts over the wrong
    axes when combined with x."""
    op = expect(v, name)
    attrs = op.attr_values()
    src = op.operand_groups()[0]
    require(attrs["keepdims"] and (x is None or src is x))
    if name == "var":
        require(attrs["correction"] == 0)
    return op, src, norm_axes(attrs["axis"], spec(src).rank)


# ---- polynomials ----

def _key(factors: dict[SSAValue, int]) -> Mono:
    return tuple(sorted(((v, p) for v, p in factors.items() if p), key=lambda vp: id(vp[0])))


def atom(v: SSAValue, power: int = 1) -> Poly:
    return {((v, power),): 1.0}


def padd(a: Poly, b: Poly, scale: float = 1.0) -> Poly:
    out = dict(a)
    for k, c in b.items():
        out[k] = out.get(k, 0.0) + scale * c
    return {k: c for k, c in out.items() if c != 0.0}


def pmul(a: Poly, b: Poly) -> Poly:
    out: Poly = {}
    for ka, ca in a.items():
        for kb, cb in b.items():
            factors = dict(ka)
            for v, p in kb:
                factors[v] = factors.get(v, 0) + p
            k = _key(factors)
            out[k] = out.get(k, 0.0) + ca * cb
    require(len(out) <= MAX_TERMS)
    return {k: c for k, c in out.items() if c != 0.0}


def pinv(a: Poly) -> Poly | None:
    """1 / a when a is a single monomial (else None: a sum has no monomial inverse)."""
    if len(a) != 1:
        return None
    (k, c), = a.items()
    return {tuple((v, -p) for v, p in k): 1.0 / c}


def ppow(a: Poly, n: int) -> Poly | None:
    if n < 0:
        inv = pinv(a)
        return None if inv is None else ppow(inv, -n)
    out: Poly = {(): 1.0}
    for _ in range(n):
        out = pmul(out, a)
    return out


def monomial(factors: dict[SSAValue, int], coef: float = 1.0) -> tuple[Mono, float]:
    return _key(factors), coef


def same_poly(a: Poly, b: Poly, dtype: str) -> bool:
    return a.keys() == b.keys() and all(close(a[k], b[k], dtype) for k in a)


@dataclass
class Expansion:
    """Expands values into `Poly`s, recording the ops it walked through.

    `stops` are never expanded; `allow` are expanded even with several uses (the rule
    vouches that all of those uses lie inside the pattern; the driver checks it).
    """

    stops: set[SSAValue] = field(default_factory=set)
    allow: set[SSAValue] = field(default_factory=set)
    ops: list[Operation] = field(default_factory=list)
    budget: list[int] = field(default_factory=lambda: [MAX_OPS])  # shared with sub-expansions

    def __call__(self, v: SSAValue, force: bool = False) -> Poly:
        c = scalar(v)
        if c is not None:
            return {(): c} if c != 0.0 else {}
        op = producer(v, *ARITH)
        if op is None or v in self.stops or not (force or v.has_one_use() or v in self.allow):
            return atom(v)
        self.budget[0] -= 1
        require(self.budget[0] >= 0)
        poly = self._expand(op, op.operand_groups())
        if poly is None:
            return atom(v)
        self.ops.append(op)
        return poly

    def _expand(self, op: IvyOp, args: list[SSAValue]) -> Poly | None:
        name = op.SPEC.name
        if name == "negative":
            return padd({}, self(args[0]), -1.0)
        if name in ("add", "subtract"):
            return padd(self(args[0]), self(args[1]), 1.0 if name == "add" else -1.0)
        if name == "multiply":
            return pmul(self(args[0]), self(args[1]))
        if name == "square":
            return ppow(self(args[0]), 2)
        if name == "pow":
            n = scalar(args[1])
            if n is None or n != round(n) or abs(n) > 4:
                return None
            return ppow(self(args[0]), int(n))
        sub = Expansion(self.stops, self.allow, budget=self.budget)
        inv = pinv(sub(args[-1]))
        if inv is None:  # 1 / (a sum) has no monomial form: the sum stays whole, an atom
            inv = atom(args[-1], -1)
        else:
            self.ops += sub.ops
        return pmul({(): 1.0} if name == "reciprocal" else self(args[0]), inv)


def peel_to(v: SSAValue, want: float, dtype: str, ops: list[Operation]) -> SSAValue:
    """The `x` of `v = want * x`, peeling scalar factors (multiply, divide, negative) one
    at a time and stopping as soon as they multiply to `want`: in `-(2 * y)` with want
    -1 the `x` is `2 * y`. Peeled ops go to `ops`."""
    coef = 1.0
    while not close(coef, want, dtype):
        op = producer(v, "negative", "multiply", "divide")
        require(op is not None)
        assert op is not None
        a, *rest = op.operand_groups()
        if op.SPEC.name == "negative":
            coef, v = -coef, a
        elif (c := scalar(rest[0])) is not None:
            require(c != 0.0)
            coef, v = (coef * c if op.SPEC.name == "multiply" else coef / c), a
        else:
            c = scalar(a)
            require(c is not None and op.SPEC.name == "multiply")
            assert c is not None
            coef, v = coef * c, rest[0]
        ops.append(op)
    return v


def atoms_of(poly: Poly) -> list[SSAValue]:
    """The distinct atoms of `poly`, in first-seen order."""
    return list(dict.fromkeys(v for k in poly for v, _ in k))


# ---- what a rule produces ----

@dataclass
class Prep:
    """An op the rewrite adds in front of the fused op (a reshape of a weight, ...)."""

    name: str
    operands: list[Any]
    attrs: dict[str, Any] = field(default_factory=dict)


@dataclass
class Fused:
    """The replacement of a matched root: `name(*operands, **attrs)`; `interior` are
    the ops of the pattern that the rewrite makes dead."""

    name: str
    operands: list[Any]
    attrs: dict[str, Any]
    interior: set[Operation]


def reshaped(v: SSAValue, shape: tuple[int, ...]) -> SSAValue | Prep:
    """`v` as an array of `shape` (it holds exactly those elements): the earliest value
    of that shape up the chain of reshapes, expand_dims and squeezes (which keep the
    element order) that made `v`, or a new reshape."""
    found: SSAValue | Prep = Prep("reshape", [v], {"shape": list(shape)})
    src: SSAValue | None = v
    while src is not None:
        if spec(src).shape == shape:
            found = src
        op = producer(src, "reshape", "expand_dims", "squeeze")
        src = None if op is None else op.operand_groups()[0]
    return found
