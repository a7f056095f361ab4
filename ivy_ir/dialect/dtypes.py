"""Dtype names and their classes: the part of the dtype tables that needs no xDSL.

The registry's parser and the facade read these at import time, so they stay free of
the IR's types (`types.py` maps the names to xDSL types for everything that builds IR).
"""

from __future__ import annotations

from typing import Any

import numpy as np

ARRAY_NAMES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
               "uint64", "float16", "bfloat16", "float32", "float64", "complex64",
               "complex128")
"""The dtypes ops compute in, by their NumPy-style names."""
STORAGE_NAMES = ("float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz",
                 "float8_e8m0fnu", "float4_e2m1fn", "int4", "uint4", "int2", "uint2")
"""Low-precision storage dtypes (ml_dtypes' names): values are stored and exchanged in
them (ONNX's float8/float4/int4/int2 tensors), but only `astype` reads or writes them,
so no op has to define arithmetic (rounding, overflow) in 2 to 8 bits."""
TEXT_NAMES = ("string",)
"""Text: each element one Unicode string (ONNX's STRING tensors). It belongs to no
numeric class, nor to `any` (which also holds fills, padding, triangles and truthiness,
all undefined on text): only the ops of the `text` class read or make it."""
DTYPE_NAMES = ARRAY_NAMES + STORAGE_NAMES + TEXT_NAMES
"""Every dtype the IR carries."""
STORAGE = frozenset(STORAGE_NAMES)
STORAGE_INT_BITS = {"int4": 4, "uint4": 4, "int2": 2, "uint2": 2}
"""The storage integers' widths: ml_dtypes holds one value per byte, in its low bits."""
STORAGE_INTS = frozenset(STORAGE_INT_BITS)
STORAGE_FLOATS = STORAGE - STORAGE_INTS
"""The storage dtypes holding integers, and those holding floats. A storage float goes
to any other kind (integer, bool, complex) through float32, which holds it exactly, so
every target pins one conversion (ml_dtypes' own saturates float8e5m2's infinities);
float64 goes into any storage dtype through float32, rounding twice, as ml_dtypes does
(ONNX's reference is ml_dtypes)."""
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
"""As `ivy.slice` bounds: an open end (Python's `None`); the rest is slice semantics."""
FLOATS = frozenset({"float16", "bfloat16", "float32", "float64"})
HALF = frozenset({"float16", "bfloat16"})
"""Floats that frameworks compute in float32 and round once per op."""
"""The real floating dtypes."""
UNSIGNED = frozenset({"uint8", "uint16", "uint32", "uint64"})
INTS = frozenset({"int8", "int16", "int32", "int64"}) | UNSIGNED
COMPLEX = frozenset({"complex64", "complex128"})
WIDE = frozenset({"int64", "uint64", "float64", "complex128"})
"""The 64-bit dtypes: JAX has them only in its x64 mode."""
REAL_OF = {"complex64": "float32", "complex128": "float64"}
"""The real dtype of a complex dtype's parts (what `abs` of it gives)."""
_ALIASES = {"f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64",
            "i1": "bool", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
            "ui8": "uint8", "ui16": "uint16", "ui32": "uint32", "ui64": "uint64",
            "bool_": "bool", "float": "float32", "int": "int64", "complex": "complex64"}

CLASS_MEMBERS: dict[str, frozenset[str]] = {
    "any": frozenset(ARRAY_NAMES),
    # the Array API's classes: numeric (complex included), real-valued (ordered: what
    # comparisons, min/max, sorting and rounding division need) and floating-point (real
    # or complex: the transcendental functions); `float` is real floating only
    "num": FLOATS | INTS | COMPLEX,
    "real": FLOATS | INTS,
    "inexact": FLOATS | COMPLEX,
    "float": FLOATS,
    "int": INTS,
    "index": frozenset({"int32", "int64"}),
    "intbool": INTS | {"bool"},
    "bool": frozenset({"bool"}),
    "cond": frozenset({"bool"}),
    "mask": FLOATS | {"bool"},
    "value": frozenset(ARRAY_NAMES),
    # `astype` alone converts into and out of the storage dtypes
    "castable": frozenset(ARRAY_NAMES + STORAGE_NAMES),
    "text": frozenset(TEXT_NAMES),
}


def numpy_dtype(name: str) -> np.dtype:
    if name == "string":  # Python `str` objects, as ONNX's numpy_helper gives them
        return np.dtype(object)
    if name == "bfloat16" or name in STORAGE:
        import ml_dtypes  # shipped with jax and tensorflow; only needed for these dtypes

        return np.dtype(getattr(ml_dtypes, name))
    return np.dtype(name)


def finfo(name: str) -> Any:
    """The limits of a float dtype (`numpy.finfo`'s fields); ml_dtypes' for bfloat16 and
    the storage floats, which NumPy's finfo does not know."""
    if name == "bfloat16" or name in STORAGE:
        import ml_dtypes  # its finfo knows these dtypes (NumPy's does not)

        return ml_dtypes.finfo(numpy_dtype(name))
    return np.finfo(name)


def storage_range(name: str) -> tuple[float, float]:
    """The lowest and highest finite value of a storage dtype (what a saturating cast
    clips to)."""
    if name in STORAGE_INTS:
        import ml_dtypes  # its iinfo knows the storage integers (NumPy's does not)

        info = ml_dtypes.iinfo(numpy_dtype(name))
    else:
        info = finfo(name)
    return float(info.min), float(info.max)
