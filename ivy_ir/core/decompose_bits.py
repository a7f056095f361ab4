"""Decompositions of the bit-level composites: JAX's Threefry-2x32 hash, `erfinv` and
`population_count`.

Each is written once here over registry ops, so every target that has no kernel of
its own (NumPy, torch, TensorFlow, ONNX) computes it the same way; JAX lowers them to
its own primitives. Threefry and the bit count are exact integer arithmetic, so a
target that runs the decomposition gives JAX's bits exactly.
"""

from __future__ import annotations

import math

from ..dialect.types import numpy_dtype
from .tracer import OPS as F

ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
"""Threefry-2x32's rotation distances, alternating between groups of four rounds."""
PARITY = 0x1BD11BDA
"""The key-schedule constant: the third key word is k0 ^ k1 ^ PARITY."""


def _rotate_left(x, r):
    return F.bitwise_or(F.bitwise_left_shift(x, r), F.bitwise_right_shift(x, 32 - r))


def threefry2x32(k0, k1, x0, x1):
    """Twenty rounds (five groups of four), a key injection after each group: the
    variant of Salmon et al. (2011) that JAX's `threefry2x32` primitive computes."""
    keys = (k0, k1, F.bitwise_xor(F.bitwise_xor(k0, k1), PARITY))
    a, b = F.add(x0, k0), F.add(x1, k1)
    for group in range(5):
        for r in ROTATIONS[group % 2]:
            a = F.add(a, b)
            b = F.bitwise_xor(_rotate_left(b, r), a)
        a = F.add(a, keys[(group + 1) % 3])
        b = F.add(F.add(b, keys[(group + 2) % 3]), group + 1)
    return a, b


_CENTRAL = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
            -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
"""Giles (2010), single precision, w = -log(1 - x^2) < 5: erfinv(x) = x p(w - 2.5)."""
_TAIL = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
         -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)
"""The same for w >= 5, p in sqrt(w) - 3."""


def _horner(coefficients, t):
    p = F.add(F.multiply(t, coefficients[0]), coefficients[1])
    for c in coefficients[2:]:
        p = F.add(F.multiply(p, t), c)
    return p


def erfinv(x):
    """Giles' polynomials are accurate to float32; float64 adds Newton steps on
    erf(y) = x, which double the correct digits each."""
    w = F.negative(F.log1p(F.negative(F.multiply(x, x))))
    p = F.where(F.less(w, 5.0), _horner(_CENTRAL, F.subtract(w, 2.5)),
                _horner(_TAIL, F.subtract(F.sqrt(w), 3.0)))
    y = F.multiply(p, x)
    if x.dtype == "float64":
        inside = F.less(F.abs(x), 1.0)  # a Newton step at +-1 is 0/0
        for _ in range(2):
            slope = F.multiply(F.exp(F.negative(F.multiply(y, y))), 2 / math.sqrt(math.pi))
            y = F.where(inside, F.subtract(y, F.divide(F.subtract(F.erf(y), x), slope)), y)
    # the tail polynomial of an infinite w is inf - inf: erfinv(+-1) is +-inf
    return F.where(F.equal(x, 1.0), math.inf, F.where(F.equal(x, -1.0), -math.inf, y))


_PAIRS, _QUADS, _BYTES = 0x5555555555555555, 0x3333333333333333, 0x0F0F0F0F0F0F0F0F
"""The SWAR masks (bit pairs, nibbles, bytes), cut to the working width by `_mask`."""


def _mask(pattern: int, width: int) -> int:
    """`pattern`'s low width - 1 bits: a non-negative constant of the signed dtype."""
    return pattern & ((1 << (width - 1)) - 1)


def population_count(x):
    """The classic SWAR count (pairs, nibbles, then bytes summed by shifts), run on a
    non-negative signed value so that no sum overflows and every target's right shift
    (arithmetic on signed values) is a logical one: 8- and 16-bit values as their bits
    in int32; 32- and 64-bit ones with the sign bit cleared and counted apart."""
    width = numpy_dtype(x.dtype).itemsize * 8
    if width <= 16:
        work, top = "int32", None
        v = F.bitwise_and(F.astype(x, dtype=work), (1 << width) - 1)
    else:
        work = f"int{width}"
        signed = x if x.dtype == work else F.bitcast(x, dtype=work)
        top = F.astype(F.less(signed, 0), dtype=work)
        v = F.bitwise_and(signed, (1 << (width - 1)) - 1)
    bits = 32 if work == "int32" else 64
    v = F.subtract(v, F.bitwise_and(F.bitwise_right_shift(v, 1), _mask(_PAIRS, bits)))
    quads = _mask(_QUADS, bits)
    v = F.add(F.bitwise_and(v, quads), F.bitwise_and(F.bitwise_right_shift(v, 2), quads))
    v = F.bitwise_and(F.add(v, F.bitwise_right_shift(v, 4)), _mask(_BYTES, bits))
    shift = 8
    while shift < bits:  # each byte holds at most 8: the low byte collects the total
        v = F.add(v, F.bitwise_right_shift(v, shift))
        shift *= 2
    v = F.bitwise_and(v, 0x7F)
    if top is not None:
        v = F.add(v, top)
    return F.astype(v, dtype=x.dtype)


BITS = {"threefry2x32": threefry2x32, "erfinv": erfinv, "population_count": population_count}
"""These decompositions by op (`decompose.py` registers them)."""
