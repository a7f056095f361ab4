"""References for the special functions: `cbrt` (NumPy's, in float64), `lgamma` (Python's
`math.lgamma`), `digamma` and `bessel_i0e` (mpmath's, in 30 digits), each cast back to
the operand's dtype; none computes through the NumPy lowering's own kernels
(`ivy_ir/core/reference_special.py`).

Operands lie in [-10, 10] (`bessel_i0e`: [-40, 40], both sides of its kernel's switch
from the power series to the asymptotic one at 30): the poles, infinities and NaN are
checked on every target in tests/test_special_functions.py."""

from __future__ import annotations

import math

import numpy as np
from op_refs_common import FLOAT, arr, case, f64, like, pick, shape


def _floats(lo: float, hi: float):
    def draw(d):
        return [arr(d, pick(d, FLOAT), shape(d), lo, hi)], {}
    return draw


def _elementwise(fn):
    """A float64 function of one float, over an array, cast back to its dtype."""
    def ref(x):
        return like(np.vectorize(fn, otypes=[np.float64])(f64(x)) if x.size else f64(x), x)
    return ref


def _pole(v: float) -> bool:
    return v <= 0 and v == math.floor(v)


def _lgamma(v: float) -> float:
    if _pole(v):
        return math.inf
    try:
        return math.lgamma(v)
    except OverflowError:
        return math.inf


def _digamma(v: float) -> float:
    import mpmath
    return math.nan if _pole(v) else float(mpmath.digamma(mpmath.mpf(v)))


def _bessel_i0e(v: float) -> float:
    import mpmath
    with mpmath.workdps(30):
        return float(mpmath.besseli(0, mpmath.mpf(v)) * mpmath.exp(-abs(mpmath.mpf(v))))


case("cbrt", _floats(-1e3, 1e3), lambda x: like(np.cbrt(f64(x)), x))
case("lgamma", _floats(-10, 10), _elementwise(_lgamma))
case("digamma", _floats(-10, 10), _elementwise(_digamma))
case("bessel_i0e", _floats(-40, 40), _elementwise(_bessel_i0e))
