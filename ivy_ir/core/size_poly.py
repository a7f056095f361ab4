"""Sizes as polynomials over dim names, so that equal sizes compare equal.

`SymDim` keeps a size expression as its text, which is all a lowering needs to compute
it; deciding whether two sizes are the same (`batch * seq` and `seq * batch`, or
`2 * batch` and `batch + batch`) needs a canonical form. A `Poly` is a sum of monomials
with integer coefficients; floor division and modulo by an integer that divides every
coefficient stay exact, anything else becomes an opaque atom named by its canonical
text (`(batch + 1) // 2`), which is equal only to itself.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from ..dialect.symbolic import SymDim

Monomial = tuple[str, ...]
"""The names multiplied, sorted, each as often as its power."""


@dataclass(frozen=True)
class Poly:
    terms: tuple[tuple[Monomial, int], ...]
    """(monomial, coefficient) pairs, sorted, no zero coefficient."""

    @staticmethod
    def of(value: int | str | SymDim | Poly) -> Poly:
        """A size: an int, a dim name or atom, or a `SymDim`'s expression."""
        if isinstance(value, Poly):
            return value
        if isinstance(value, SymDim):
            return Poly.of(value.evaluate(_AnyName()))
        if isinstance(value, str):
            return _make({(value,): 1})
        return _make({(): int(value)})

    @property
    def constant(self) -> int | None:
        """The value where the size names no dim, else None."""
        if not self.terms:
            return 0
        return self.terms[0][1] if len(self.terms) == 1 and not self.terms[0][0] else None

    @property
    def names(self) -> frozenset[str]:
        """The dim names the size depends on (inside atoms too)."""
        return frozenset(name for monomial, _ in self.terms for n in monomial
                         for name in (SymDim(n).names if n.startswith("(") else (n,)))

    @property
    def divides(self) -> bool:
        """Whether the size holds a floor division or remainder (an atom)."""
        return any(n.startswith("(") for monomial, _ in self.terms for n in monomial)

    def sym(self) -> int | SymDim:
        """As an attribute's size entry."""
        c = self.constant
        return c if c is not None else SymDim(str(self))

    def __add__(self, other: int | Poly) -> Poly:
        out = dict(self.terms)
        for monomial, c in Poly.of(other).terms:
            out[monomial] = out.get(monomial, 0) + c
        return _make(out)

    __radd__ = __add__

    def __neg__(self) -> Poly:
        return _make({m: -c for m, c in self.terms})

    def __sub__(self, other: int | Poly) -> Poly:
        return self + -Poly.of(other)

    def __rsub__(self, other: int | Poly) -> Poly:
        return Poly.of(other) - self

    def __mul__(self, other: int | Poly) -> Poly:
        out: dict[Monomial, int] = {}
        for m1, c1 in self.terms:
            for m2, c2 in Poly.of(other).terms:
                key = tuple(sorted(m1 + m2))
                out[key] = out.get(key, 0) + c1 * c2
        return _make(out)

    __rmul__ = __mul__

    def __floordiv__(self, other: int | Poly) -> Poly:
        k = Poly.of(other).constant
        if k == 1:
            return self
        if k and k > 0 and all(c % k == 0 for _, c in self.terms):
            return _make({m: c // k for m, c in self.terms})
        if k and self.constant is not None:
            return Poly.of(self.constant // k)
        return Poly.of(f"({_operand(self)} // {_operand(Poly.of(other))})")

    def __rfloordiv__(self, other: int) -> Poly:
        return Poly.of(other) // self

    def __rmod__(self, other: int) -> Poly:
        return Poly.of(other) % self

    def __mod__(self, other: int | Poly) -> Poly:
        k = Poly.of(other).constant
        if k and k > 0 and all(c % k == 0 for _, c in self.terms):
            return Poly.of(0)
        if k and self.constant is not None:
            return Poly.of(self.constant % k)
        return Poly.of(f"({_operand(self)} % {_operand(Poly.of(other))})")

    def __str__(self) -> str:
        if not self.terms:
            return "0"
        parts = []
        for monomial, c in self.terms:
            factors = ([str(abs(c))] if abs(c) != 1 or not monomial else []) + list(monomial)
            text = " * ".join(factors)
            parts.append(("- " if c < 0 else "+ ") + text)
        out = " ".join(parts)
        return out[2:] if out.startswith("+ ") else "-" + out[2:]

    def evaluate(self, sizes: Mapping[str, int]) -> int:
        """The size once every name has a value (atoms included, by their text)."""
        return sum(c * math.prod(SymDim(n).evaluate(sizes) if n.startswith("(") else sizes[n]
                                 for n in m)
                   for m, c in self.terms)


def _operand(p: Poly) -> str:
    """`p` as an operand of `//` or `%`: bare where it is one name, atom or number."""
    simple = p.constant is not None and p.constant >= 0 or \
        len(p.terms) == 1 and p.terms[0][1] == 1 and len(p.terms[0][0]) == 1
    return str(p) if simple else f"({p})"


def _make(terms: Mapping[Monomial, int]) -> Poly:
    return Poly(tuple(sorted(((m, c) for m, c in terms.items() if c),
                             key=lambda t: (-len(t[0]), t[0]))))


class _AnyName(dict):
    """Every dim name as its own size: `SymDim.evaluate` over this mapping computes the
    expression's polynomial with `Poly`'s arithmetic."""

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str)

    def __missing__(self, name: str) -> Poly:
        return Poly.of(name)
