"""Dtype names and their classes: the part of the dtype tables that needs no xDSL.

The registry's parser and the facade read these at import time, so they stay free of
the IR's types (`types.py` maps the names to xDSL types for everything that builds IR).
"""

from __future__ import annotations

import numpy as np

DTYPE_NAMES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
               "uint64", "float16", "bfloat16", "float32", "float64", "complex64",
               "complex128")
"""Every dtype the IR carries, by its NumPy-style name."""
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
"""As `ivy.slice` bounds: an open end (Python's `None`); the rest is slice semantics."""
FLOATS = frozenset({"float16", "bfloat16", "float32", "float64"})
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
    "any": frozenset(DTYPE_NAMES),
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
    "value": frozenset(DTYPE_NAMES),
}



def numpy_dtype(name: str) -> np.dtype:
    if name == "bfloat16":
        import ml_dtypes  # shipped with jax and tensorflow; only needed for bf16 data

        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(name)
