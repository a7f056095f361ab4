"""The special values of complex elementary functions: the Array API standard's tables
(C99 Annex G's, which NumPy, torch and TF's kernels mostly follow), as data. One
differs from C99: `tanh(inf + bj)` is 1 + 0j with the zero of b's sign (C99, and NumPy,
torch and TF, give it sin(2b)'s).

XLA's complex kernels ignore most of them (`exp(inf + inf j)` is NaN + NaN j, `sqrt`
drops the sign of a zero imaginary part on its branch cut); NumPy, torch and TF miss a
few. A target that misses some runs its framework's function on the argument reduced
into the closed first quadrant (or upper half-plane) and puts these values in
(`complex_kernel.complex_special` over the target's functions; docs/semantics.md):

- `symmetry` reduces the argument: "conj" (f(conj z) = conj f(z): the sign of b is
  carried to the result's imaginary part), "odd" (also f(-z) = -f(z): the sign of a to
  its real part), "even" (also f(-z) = f(z): a's sign conjugates). The cases are then
  written for a >= +0 where the symmetry allows, and b >= +0 always, as the standard
  writes them; on that domain "positive finite" includes +0 (C99's positive-signed).
- each case is (class of a, class of b, real part, imaginary part), the first matching
  case wins; a class is one of `CLASSES`; a part is a number, None (the framework's
  own), or (g, s, t) for s * g(b) + t with g "cos" or "sin": `s * cis(b) + t` is a cos
  part and a sin part (t None: nothing added, so a zero keeps its sign).
- beyond the standard's lists: sinh and cosh of an imaginary z (exactly sin(b) i and
  cos(b), with C99's zero sign, which XLA drops), acos of a real z in [-1, 1] (-0 j,
  which torch makes +0).
- `turn`: 1 for f(z) = -i g(iz) (sin, tan, asin, atan from sinh, tanh, asinh, atanh),
  2 for f(z) = g(iz) (cos from cosh), the standard's definitions of their special cases;
  `scale` multiplies both parts (log2, log10: log over the base's log).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..dialect.types import COMPLEX
from .rules import OpContext, Rule, render

CLASSES = ("+0", "-0", "0", "+inf", "-inf", "inf", "nan", "fin", "nzfin", "nz", "unit", "1",
           "-1", "any")
"""Value classes: signed and unsigned zero, infinities, NaN, finite, nonzero finite,
nonzero (NaN and infinities too), within [-1, 1], exactly 1 or -1, anything."""

INF, NAN, PI = math.inf, math.nan, math.pi
NAN2 = (NAN, NAN)

Part = float | tuple[str, float, float | None] | None
Case = tuple[str, str, Part, Part]


@dataclass(frozen=True)
class ComplexFn:
    native: str
    """The registry op whose framework kernel computes the function's finite values."""
    symmetry: str
    cases: tuple[Case, ...]
    turn: int = 0
    scale: float = 1.0

    def args(self) -> tuple[str, tuple[Case, ...], int, float]:
        """The kernel's arguments between the function and the operand."""
        return self.symmetry, self.cases, self.turn, self.scale

    def args_source(self) -> str:
        """`args()` as Python source of constants only (inf and NaN as the strings the
        kernels read with `float`), which Python builds once per program, not per call."""
        def src(v: Any) -> str:
            if isinstance(v, tuple):
                return "(" + "".join(src(e) + ", " for e in v) + ")"
            return repr(str(v)) if isinstance(v, float) and not math.isfinite(v) else repr(v)
        return ", ".join(src(a) for a in self.args())


_EXP_TAIL: tuple[Case, ...] = (
    ("fin", "+inf", *NAN2), ("fin", "nan", *NAN2), ("+inf", "+0", INF, 0.0),
)
_EXP_INF_NAN: tuple[Case, ...] = (
    ("+inf", "+inf", INF, NAN), ("+inf", "nan", INF, NAN),
    ("nan", "+0", NAN, 0.0), ("nan", "nz", *NAN2),
)
_LOG_TAIL: tuple[Case, ...] = (
    ("fin", "+inf", INF, PI / 2), ("fin", "nan", *NAN2), ("-inf", "fin", INF, PI),
    ("+inf", "fin", INF, 0.0), ("-inf", "+inf", INF, 3 * PI / 4),
    ("+inf", "+inf", INF, PI / 4), ("inf", "nan", INF, NAN), ("nan", "fin", *NAN2),
    ("nan", "+inf", INF, NAN), ("nan", "nan", *NAN2),
)
_LOG = ComplexFn("log", "conj", (("-0", "+0", -INF, PI), ("+0", "+0", -INF, 0.0), *_LOG_TAIL))
_SINH = ComplexFn("sinh", "odd", (
    ("+0", "+0", 0.0, 0.0), ("+0", "+inf", 0.0, NAN), ("+0", "nan", 0.0, NAN),
    ("+0", "fin", ("cos", 0.0, None), ("sin", 1.0, None)),
    ("fin", "+inf", *NAN2), ("fin", "nan", *NAN2), ("+inf", "+0", INF, 0.0),
    ("+inf", "fin", ("cos", INF, None), ("sin", INF, None)), ("+inf", "+inf", INF, NAN),
    ("+inf", "nan", INF, NAN), ("nan", "+0", NAN, 0.0), ("nan", "nz", *NAN2),
))
_COSH = ComplexFn("cosh", "even", (
    ("+0", "+0", 1.0, 0.0), ("+0", "+inf", NAN, 0.0), ("+0", "nan", NAN, 0.0),
    ("+0", "fin", ("cos", 1.0, None), ("sin", 0.0, None)), ("fin", "+inf", *NAN2),
    ("fin", "nan", *NAN2), ("+inf", "+0", INF, 0.0),
    ("+inf", "fin", ("cos", INF, None), ("sin", INF, None)), ("+inf", "+inf", INF, NAN),
    ("+inf", "nan", INF, NAN), ("nan", "0", NAN, 0.0), ("nan", "nz", *NAN2),
))
_TANH = ComplexFn("tanh", "odd", (
    ("+0", "+0", 0.0, 0.0), ("+0", "+inf", 0.0, NAN), ("+0", "nan", 0.0, NAN),
    ("fin", "+inf", *NAN2), ("fin", "nan", *NAN2), ("+inf", "fin", 1.0, 0.0),
    ("+inf", "+inf", 1.0, 0.0), ("+inf", "nan", 1.0, 0.0), ("nan", "+0", NAN, 0.0),
    ("nan", "nz", *NAN2),
))
_ASINH = ComplexFn("asinh", "odd", (
    ("+0", "+0", 0.0, 0.0), ("fin", "+inf", INF, PI / 2), ("fin", "nan", *NAN2),
    ("+inf", "fin", INF, 0.0), ("+inf", "+inf", INF, PI / 4), ("+inf", "nan", INF, NAN),
    ("nan", "+0", NAN, 0.0), ("nan", "+inf", INF, NAN), ("nan", "any", *NAN2),
))
_ATANH = ComplexFn("atanh", "odd", (
    ("+0", "+0", 0.0, 0.0), ("+0", "nan", 0.0, NAN), ("1", "+0", INF, 0.0),
    ("fin", "+inf", 0.0, PI / 2), ("fin", "nan", *NAN2), ("+inf", "fin", 0.0, PI / 2),
    ("+inf", "+inf", 0.0, PI / 2), ("+inf", "nan", 0.0, NAN), ("nan", "fin", *NAN2),
    ("nan", "+inf", 0.0, PI / 2), ("nan", "nan", *NAN2),
))

FUNCTIONS: dict[str, ComplexFn] = {
    "exp": ComplexFn("exp", "conj", (
        ("0", "+0", 1.0, 0.0), *_EXP_TAIL,
        ("-inf", "fin", ("cos", 0.0, None), ("sin", 0.0, None)),
        ("+inf", "fin", ("cos", INF, None), ("sin", INF, None)),
        ("-inf", "+inf", 0.0, 0.0), ("-inf", "nan", 0.0, 0.0), *_EXP_INF_NAN)),
    "expm1": ComplexFn("expm1", "conj", (
        ("0", "+0", 0.0, 0.0), *_EXP_TAIL,
        ("-inf", "fin", ("cos", 0.0, -1.0), ("sin", 0.0, None)),
        ("+inf", "fin", ("cos", INF, -1.0), ("sin", INF, None)),
        ("-inf", "+inf", -1.0, 0.0), ("-inf", "nan", -1.0, 0.0), *_EXP_INF_NAN)),
    "log": _LOG,
    "log2": ComplexFn("log", "conj", _LOG.cases, scale=1 / math.log(2)),
    "log10": ComplexFn("log", "conj", _LOG.cases, scale=1 / math.log(10)),
    "log1p": ComplexFn("log1p", "conj", (("-1", "+0", -INF, 0.0), ("0", "+0", 0.0, 0.0),
                                         *_LOG_TAIL)),
    "sqrt": ComplexFn("sqrt", "conj", (
        ("0", "+0", 0.0, 0.0), ("any", "+inf", INF, INF), ("fin", "nan", *NAN2),
        ("-inf", "fin", 0.0, INF), ("+inf", "fin", INF, 0.0), ("-inf", "nan", NAN, INF),
        ("+inf", "nan", INF, NAN), ("nan", "any", *NAN2))),
    "sinh": _SINH,
    "cosh": _COSH,
    "tanh": _TANH,
    "asinh": _ASINH,
    "acosh": ComplexFn("acosh", "conj", (
        ("0", "+0", 0.0, PI / 2), ("fin", "+inf", INF, PI / 2), ("0", "nan", NAN, PI / 2),
        ("fin", "nan", *NAN2), ("-inf", "fin", INF, PI), ("+inf", "fin", INF, 0.0),
        ("-inf", "+inf", INF, 3 * PI / 4), ("+inf", "+inf", INF, PI / 4),
        ("inf", "nan", INF, NAN), ("nan", "fin", *NAN2), ("nan", "+inf", INF, NAN),
        ("nan", "nan", *NAN2))),
    "atanh": _ATANH,
    "acos": ComplexFn("acos", "conj", (
        ("0", "+0", PI / 2, -0.0), ("unit", "+0", None, -0.0), ("0", "nan", PI / 2, NAN),
        ("fin", "+inf", PI / 2, -INF),
        ("fin", "nan", *NAN2), ("-inf", "fin", PI, -INF), ("+inf", "fin", 0.0, -INF),
        ("-inf", "+inf", 3 * PI / 4, -INF), ("+inf", "+inf", PI / 4, -INF),
        ("inf", "nan", NAN, INF), ("nan", "fin", *NAN2), ("nan", "+inf", NAN, -INF),
        ("nan", "nan", *NAN2))),
    "sin": ComplexFn("sinh", "odd", _SINH.cases, turn=1),
    "cos": ComplexFn("cosh", "even", _COSH.cases, turn=2),
    "tan": ComplexFn("tanh", "odd", _TANH.cases, turn=1),
    "asin": ComplexFn("asinh", "odd", _ASINH.cases, turn=1),
    "atan": ComplexFn("atanh", "odd", _ATANH.cases, turn=1),
}
"""Registry op -> its complex special values."""


def native_function(rules: Mapping[str, Rule], op: str) -> str:
    """The expression of the framework function `rules` spell `op` with (`jnp.sinh`)."""
    rule = rules[op]
    if not (isinstance(rule, str) and rule.endswith("({x})") and "{" not in rule[:-5]):
        raise ValueError(f"complex_special needs a one-call rule for {op}, not {rule!r}")
    return rule[:-5]


def complex_special_rules(rules: Mapping[str, Rule], ops: Iterable[str],
                          natives: Mapping[str, str] = {}) -> dict[str, Rule]:
    """Rules for `ops` that, for a complex operand, run the target's `complex_special`
    kernel around its own function, or the helper `natives` names for it (real operands
    keep the rule in `rules`, `base`).
    Each rule carries `complex_special`: (the native function's expression, its
    `ComplexFn`), from which eager callers build the kernel (`lowerings.complex_kernel`)."""
    out: dict[str, Rule] = {}
    for op in ops:
        fn, base = FUNCTIONS[op], rules[op]
        native = natives.get(fn.native) or native_function(rules, fn.native)

        def rule(c: OpContext, base: Rule = base, fn: ComplexFn = fn, native: str = native
                 ) -> str:
            if c.in_types["x"].dtype not in COMPLEX:
                return render(base, c)
            return (f"complex_special(complex_ops(), None, {native}, {fn.args_source()}, "
                    f"{c.args['x']})")
        rule.complex_special = (native, fn)  # type: ignore[attr-defined]
        rule.base = base  # type: ignore[attr-defined]
        out[op] = rule
    return out
