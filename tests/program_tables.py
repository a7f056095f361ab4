"""What the program generator (`program_gen.py`) draws from: dtype classes, domain
prefixes and one table per op family.

Each table row names an op of the registry and what its operands need: a dtype class
of ops.spec, restricted to the generated dtypes, and a domain prefix that maps any
value into the op's domain (`abs(x) + 1` before log, `tanh(x) / 2` before asin, a clip
before exp), so no NaN or overflow comes from random data. A new row is all it takes
to generate a new op of an existing family.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

import ivy as F
from ivy_ir.core.tracer import Tracer

MAX_RANK = 4
DTYPES = ("float32", "float64", "int32", "int64", "bool")
FLOATS, INTS = ("float32", "float64"), ("int32", "int64")
CLASSES = {"any": DTYPES, "num": FLOATS + INTS, "float": FLOATS, "int": INTS,
           "intbool": INTS + ("bool",), "bool": ("bool",)}
"""The dtype classes of ops.spec, restricted to the dtypes generated."""


def extremes(dtype: str) -> tuple[Any, ...]:
    """Values at the edges of `dtype`: its largest and smallest (for floats the largest
    finite ones, whose doubling overflows to infinity; not the smallest normal, whose
    neighbourhood jax and TF flush, docs/semantics.md)."""
    info = np.finfo(dtype) if dtype in FLOATS else np.iinfo(dtype)
    return (info.min, info.max, 0) if dtype in INTS else (info.max, -info.max)


def factor(b: Any, shape: tuple[int, ...]) -> list[int]:
    """A random shape with as many elements as `shape` (rank 0..4)."""
    if (n := math.prod(shape)) == 0:
        dims = [b.pick((1, 2, 3)) for _ in range(b.integer(0, MAX_RANK - 1))]
        dims.insert(b.integer(0, len(dims)), 0)
        return dims
    dims = [1] * b.integer(1 if n > 1 else 0, MAX_RANK)
    for p in (2, 3, 5, 7):
        while n % p == 0:
            n //= p
            dims[b.integer(0, len(dims) - 1)] *= p
    return dims


# ---- domain prefixes: each maps any value of its dtype into some ops' domain ----
Domain = Callable[[Tracer], Tracer] | None


def positive(x: Tracer) -> Tracer:  # >= 1: log, sqrt, reciprocal, divisors
    return F.add(F.abs(x), 1)


def unit(x: Tracer) -> Tracer:  # |v| <= 1/2: asin, acos, atanh
    return F.multiply(F.tanh(x), 0.5)


def bounded(x: Tracer) -> Tracer:  # |v| <= 8: exp and friends stay finite in float32
    return F.clip(x, min=-8.0, max=8.0)


def base(x: Tracer) -> Tracer:  # float bases >= 1: no NaN from fractional powers
    return positive(x) if x.dtype in FLOATS else x


def exponent(x: Tracer) -> Tracer:  # small powers and shift counts: [-3, 3] or {0..3}
    return F.clip(x, min=-3.0, max=3.0) if x.dtype in FLOATS else F.remainder(F.abs(x), 4)


UNARY: dict[str, tuple[str, Domain]] = {  # op: (dtype class, domain prefix)
    **dict.fromkeys(("abs", "negative", "sign", "square", "isnan", "isinf", "isfinite",
                     "relu"), ("num", None)),
    **dict.fromkeys(("sqrt", "rsqrt", "reciprocal", "log", "log2", "log10", "acosh"),
                    ("float", positive)),
    "log1p": ("float", F.abs),  # >= 0
    **dict.fromkeys(("exp", "expm1", "sinh", "cosh"), ("float", bounded)),
    **dict.fromkeys(("asin", "acos", "atanh"), ("float", unit)),
    **dict.fromkeys(("sin", "cos", "tan", "atan", "tanh", "asinh", "erf", "floor", "ceil",
                     "round", "trunc", "sigmoid"), ("float", None)),
    "logical_not": ("bool", None), "bitwise_invert": ("intbool", None),
}

BINARY: dict[str, tuple[str, Domain, Domain]] = {  # op: (dtype class, lhs, rhs domains)
    **dict.fromkeys(("add", "subtract", "multiply", "maximum", "minimum"), ("num", None, None)),
    "divide": ("float", None, positive), "floor_divide": ("num", None, positive),
    "remainder": ("num", None, positive), "pow": ("num", base, exponent),
    "atan2": ("float", None, None), **dict.fromkeys(("equal", "not_equal"), ("any", None, None)),
    **dict.fromkeys(("less", "less_equal", "greater", "greater_equal"), ("num", None, None)),
    **dict.fromkeys(("logical_and", "logical_or", "logical_xor"), ("bool", None, None)),
    **dict.fromkeys(("bitwise_and", "bitwise_or", "bitwise_xor"), ("intbool", None, None)),
    **dict.fromkeys(("bitwise_left_shift", "bitwise_right_shift"), ("int", None, exponent)),
}

NEUTRAL: dict[str, tuple[Any, ...]] = {
    # op: constants worth pairing with it (identities, absorbing elements, cheap strengths)
    "add": (0, 1, -1), "subtract": (0, 1), "multiply": (1, 0, -1, 2),
    "divide": (1, 2, -1, 0.5), "pow": (1, 2, 0, 3), "maximum": (0,), "minimum": (0,),
    "floor_divide": (1,), "remainder": (1,), "logical_and": (True, False),
    "logical_or": (True, False), "logical_xor": (False, True), "bitwise_and": (0, -1),
    "bitwise_or": (0, -1), "bitwise_xor": (0,),
}
RHS_ONLY = frozenset({"divide", "pow", "floor_divide", "remainder"})
"""Ops whose constant stays on the right (its domain: no division by x or x ** c)."""

IDIOMS: dict[str, Callable[[Tracer], Tracer]] = {
    # identities a canonicalizer may simplify; the pass must keep their values
    "negate twice": lambda x: F.negative(F.negative(x)),  # -(-x) == x
    "abs twice": lambda x: F.abs(F.abs(x)),  # |(|x|)| == |x|
    "x - x": lambda x: F.subtract(x, x),  # 0 for finite x only
    "x + x": lambda x: F.add(x, x),  # 2x
    "max(x, x)": lambda x: F.maximum(x, x),  # x
    "same astype": lambda x: F.astype(x, dtype=x.dtype),  # x
    "same reshape": lambda x: F.reshape(x, shape=list(x.shape)),  # x
    "transpose twice": lambda x: F.permute_dims(F.permute_dims(
        x, axes=list(range(x.ndim))[::-1]), axes=list(range(x.ndim))[::-1]),  # x
    "expand then squeeze": lambda x: F.squeeze(F.expand_dims(x, axis=[0]), axis=[0]),  # x
    "exp of log": lambda x: F.exp(F.log(positive(F.astype(x, dtype="float64")))),  # ~x
}

REDUCTIONS: dict[str, tuple[str, str]] = {
    # op: (dtype class, axes): "axes" a subset or all, "one" one axis or all, "scan" one
    # axis, "nonempty" a subset or all but never over nothing (max of nothing is an error;
    # logsumexp's decomposition takes one too, a gap of the NumPy reference)
    **dict.fromkeys(("sum", "prod"), ("num", "axes")), "min": ("num", "nonempty"),
    **dict.fromkeys(("mean", "var", "std"), ("float", "axes")), "max": ("num", "nonempty"),
    **dict.fromkeys(("all", "any"), ("any", "axes")), "logsumexp": ("float", "nonempty"),
    **dict.fromkeys(("argmax", "argmin"), ("num", "one")),
    **dict.fromkeys(("cumsum", "cumprod"), ("num", "scan")),
}

COMPOSITES = ("softmax", "log_softmax", "gelu", "silu", "layer_norm", "sigmoid", "relu")
"""Emitted as the composite op or, as often, as its registered decomposition."""
SHAPE_OPS = ("reshape", "permute_dims", "expand_dims", "squeeze", "broadcast_to", "slice",
             "concat", "flip")
LAYERS = ("conv", "max_pool", "avg_pool", "batch_norm")
"""Channels-first layers: what `channels-last` rewrites."""
