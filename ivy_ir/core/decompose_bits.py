"""Decompositions of the bit-level composites: JAX's Threefry-2x32 hash and `erfinv`.

Both are written once here over registry ops, so every target that has no kernel of
its own (NumPy, torch, TensorFlow, ONNX) computes them the same way; JAX lowers them to
its own primitives. Threefry is exact uint32 arithmetic, so a target that runs the
decomposition gives JAX's bits exactly.
"""

from __future__ import annotations

import math

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


BITS = {"threefry2x32": threefry2x32, "erfinv": erfinv}
"""These decompositions by op (`decompose.py` registers them)."""
