"""The one kernel that puts the special values of `complex_cases.py` into a framework's
complex function, written against `ops`: a dict of that framework's functions, which
each target's `complex_ops()` helper gives (`where`, `signbit`, `complex`, ...).

Every target's rule table lists these functions among its helpers; the emitter copies
their source into the generated code like any helper's, so they may use only `ops` and
each other.
"""

from __future__ import annotations

__all__ = ["case_value", "complex_reduced", "complex_special", "value_is"]


def value_is(ops, v, cls):
    # v's elements in a class of `complex_cases.CLASSES`; None for "any" (no test)
    if cls == "any":
        return None
    if cls in ("+0", "-0"):
        return (v == 0) & (ops["signbit"](v) == (cls == "-0"))
    if cls in ("inf", "nan", "fin"):
        return ops["is" + cls.replace("fin", "finite")](v)
    if cls == "nzfin":
        return ops["isfinite"](v) & (v != 0)
    if cls == "nz":
        return v != 0
    if cls == "unit":
        return ops["abs"](v) <= 1
    return v == float(cls)  # 0, 1, -1, +inf, -inf


def case_value(ops, hit, v, b, part, signs_only):
    # one part of a case (`complex_cases.Part`) where `hit`, `part` elsewhere;
    # `signs_only` (a finite argument): a finite value gives only its sign to the
    # framework's part, which keeps its gradient. A tensor goes left of a Python factor
    # (TF's `0.0 * t` drops the zero's sign)
    if v is None:
        return part
    if isinstance(v, tuple):
        g, s, t = v
        value = ops[g](b) * float(s)
        value, finite = (value if t is None else value + t), abs(float(s)) < float("inf")
    else:
        value, finite = ops["constant"](float(v), part), abs(float(v)) < float("inf")
    if signs_only and finite:
        value = ops["where"](ops["isfinite"](part), ops["copysign"](part, value), value)
    return ops["where"](hit, value, part)


def complex_reduced(ops, f, symmetry, cases, turn, scale, z):
    # f on the argument reduced by the symmetry into the closed first quadrant or upper
    # half-plane (negations: a gradient of -1, never abs's 0 at 0), the table's cases,
    # the symmetry undone
    if turn:
        z = ops["complex"](-ops["imag"](z), ops["real"](z))
    a, b = ops["real"](z), ops["imag"](z)
    neg_a, neg_b = ops["signbit"](a) & (symmetry != "conj"), ops["signbit"](b)
    a, b = ops["where"](neg_a, -a, a), ops["where"](neg_b, -b, b)
    w = f(ops["complex"](a, b))
    re, im = ops["real"](w), ops["imag"](w)
    a, b = ops["stop_gradient"](a), ops["stop_gradient"](b)
    for ca, cb, re_case, im_case in reversed(cases):
        masks = [m for m in (value_is(ops, a, ca), value_is(ops, b, cb)) if m is not None]
        hit = masks[0] & masks[1] if len(masks) == 2 else masks[0]
        signs_only = {ca, cb} <= {"0", "+0", "-0", "fin", "nzfin", "unit", "1", "-1"}
        re = case_value(ops, hit, re_case, b, re, signs_only)
        im = case_value(ops, hit, im_case, b, im, signs_only)
    re = ops["where"](neg_a & (symmetry == "odd"), -re, re)
    im = ops["where"](neg_b ^ (neg_a & (symmetry == "even")), -im, im)
    if turn == 1:
        re, im = im, -re
    return ops["complex"](re * scale, im * scale) if scale != 1 else ops["complex"](re, im)


def complex_special(ops, own, f, symmetry, cases, turn, scale, z):
    # the function of a complex z with the table's special values (`complex_cases`); a
    # real z is the function's own (`own`: eager callers; the rules call this only for
    # complex z). `ops["quiet"]`, where given, is entered around it (NumPy's warnings)
    if not ops["is_complex"](z):
        return own(z)
    if "quiet" not in ops:
        return complex_reduced(ops, f, symmetry, cases, turn, scale, z)
    with ops["quiet"]():
        return complex_reduced(ops, f, symmetry, cases, turn, scale, z)
