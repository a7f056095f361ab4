"""Dtype objects and the Array API standard's dtype functions, framework-free.

With no backend set, `ivy.float32` and the other dtype names are `Dtype` objects: a
`str` subclass (so every function that takes a dtype name takes them) that compares
equal to any framework's dtype of the same name (`np.float32`, `torch.float32`,
`tf.float32`, `jnp.float32`) by reading the other object's name, never by importing its
framework. With a backend set, the names are rebound to that backend's own dtypes
(`ivy/backend.py`). Promotion follows the standard's lattice (`result_type`,
`can_cast`), not any one framework's.
"""

from __future__ import annotations

import builtins
import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

from ivy_ir.dialect.dtypes import finfo
from ivy_ir.dialect.types import DTYPES

NAMES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
         "float16", "bfloat16", "float32", "float64", "complex64", "complex128")
"""Every dtype name the facade knows (the IR's are `ivy_ir.dialect.types.DTYPES`)."""

SIGNED = ("int8", "int16", "int32", "int64")
UNSIGNED = ("uint8", "uint16", "uint32", "uint64")
REAL_FLOATS = ("float16", "bfloat16", "float32", "float64")
COMPLEX = ("complex64", "complex128")
KINDS: dict[str, frozenset[str]] = {
    "bool": frozenset({"bool"}),
    "signed integer": frozenset(SIGNED),
    "unsigned integer": frozenset(UNSIGNED),
    "integral": frozenset(SIGNED + UNSIGNED),
    "real floating": frozenset(REAL_FLOATS),
    "complex floating": frozenset(COMPLEX),
    "numeric": frozenset(SIGNED + UNSIGNED + REAL_FLOATS + COMPLEX),
}
DEFAULTS = {"real floating": "float64", "complex floating": "complex128",
            "integral": "int64", "indexing": "int64"}


def dtype_name(obj: Any) -> str | None:
    """The standard name of a dtype given in any framework's spelling (None if `obj` is
    not a dtype). Reads names only: `torch.float32` prints as 'torch.float32', TF and
    NumPy dtypes have `.name`, JAX and NumPy scalar types have `.dtype`."""
    if isinstance(obj, str):
        name = obj.removeprefix("torch.")
        return {"bool_": "bool", "float": "float64", "int": "int64",
                "complex": "complex128"}.get(name, name) if name in _KNOWN else None
    if isinstance(obj, type) and obj in (builtins.bool, builtins.int, builtins.float, complex):
        return {builtins.bool: "bool", builtins.int: "int64", builtins.float: "float64",
                complex: "complex128"}[obj]
    module = type(obj).__module__.split(".")[0]
    if module == "torch":
        return dtype_name(str(obj))
    name = getattr(obj, "name", None)
    if isinstance(name, str) and module in ("numpy", "tensorflow", "ml_dtypes"):
        return dtype_name(name)
    inner = getattr(obj, "dtype", None)  # np.float32, jnp.float32 (scalar types)
    if isinstance(obj, type) and inner is not None:
        try:
            return dtype_name(np.dtype(obj).name)
        except TypeError:
            return None
    return None


_KNOWN = frozenset(NAMES) | {"bool_", "float", "int", "complex"}


class Dtype(str):
    """One of ivy's dtypes: its name, equal to every framework's dtype of that name."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        return str.__eq__(self, dtype_name(other) or "")

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = str.__hash__

    def __repr__(self) -> str:
        return f"ivy.{str(self)}"


DTYPE_OBJECTS: dict[str, Dtype] = {n: Dtype(n) for n in NAMES}


def kind_of(name: str) -> str:
    for kind in ("bool", "signed integer", "unsigned integer", "real floating",
                 "complex floating"):
        if name in KINDS[kind]:
            return kind
    raise TypeError(f"unknown dtype {name!r}")


def _bits(name: str) -> int:
    return 8 if name == "bool" else np.dtype(name).itemsize * 8 if name != "bfloat16" else 16


def _promote_pair(a: str, b: str) -> str | None:
    """The standard's promotion of two dtypes (None where it defines none)."""
    if a == b:
        return a
    ka, kb = kind_of(a), kind_of(b)
    if "bool" in (ka, kb):
        return None
    if {ka, kb} <= {"signed integer", "unsigned integer"}:
        if ka == kb:
            return a if _bits(a) >= _bits(b) else b
        s, u = (a, b) if ka == "signed integer" else (b, a)
        if _bits(s) > _bits(u):
            return s
        wider = {8: "int16", 16: "int32", 32: "int64"}.get(_bits(u))
        return wider
    if {ka, kb} <= {"real floating", "complex floating"}:
        if "bfloat16" in (a, b) and "float16" in (a, b):
            return "float32"
        bits = max(_bits(x) // (2 if x in COMPLEX else 1) for x in (a, b))
        if "complex floating" in (ka, kb):
            return "complex64" if bits <= 32 else "complex128"
        return {16: a if a == b else "float16", 32: "float32", 64: "float64"}[bits]
    return None


def result_type_names(*names: str) -> str:
    """The promoted dtype of `names` (TypeError where the standard defines none)."""
    out = names[0]
    for n in names[1:]:
        promoted = _promote_pair(out, n)
        if promoted is None:
            raise TypeError(f"the Array API standard defines no promotion of {out} and {n}")
        out = promoted
    return out


def can_cast_names(src: str, dst: str) -> bool:
    """Whether `src` promotes to `dst` under the standard's rules."""
    try:
        return result_type_names(src, dst) == dst
    except TypeError:
        return False


def isdtype_name(name: str, kind: Any) -> bool:
    """The standard's `isdtype`: `kind` a dtype, a kind name, or a tuple of either."""
    if isinstance(kind, tuple):
        return builtins.any(isdtype_name(name, k) for k in kind)
    if isinstance(kind, str) and kind in KINDS:
        return name in KINDS[kind]
    other = dtype_name(kind)
    if other is None:
        raise ValueError(f"isdtype: {kind!r} is neither a dtype nor a kind "
                         f"({', '.join(repr(k) for k in KINDS)})")
    return name == other


@dataclass(frozen=True)
class finfo_object:  # noqa: N801 (the standard's name for what finfo returns)
    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    dtype: Any


@dataclass(frozen=True)
class iinfo_object:  # noqa: N801
    bits: int
    max: int
    min: int
    dtype: Any


@functools.cache
def finfo_of(name: str, dtype: Any) -> finfo_object:
    """`dtype`: the namespace's dtype object of the result's (real) precision. Made
    once per dtype (code such as `x < 10 * ivy.finfo(x.dtype).eps` asks each call)."""
    if name not in REAL_FLOATS + COMPLEX:
        raise TypeError(f"finfo: {name} is not a floating-point dtype")
    info = finfo({"complex64": "float32", "complex128": "float64"}.get(name, name))
    return finfo_object(int(info.bits), float(info.eps), float(info.max), float(info.min),
                        float(info.smallest_normal), dtype)


@functools.cache
def iinfo_of(name: str, dtype: Any) -> iinfo_object:
    if name not in SIGNED + UNSIGNED:
        raise TypeError(f"iinfo: {name} is not an integer dtype")
    info = np.iinfo(np.dtype(name))
    return iinfo_object(int(info.bits), int(info.max), int(info.min), dtype)


IR_DTYPES = frozenset(DTYPES)
"""The dtypes the IR can carry (tracing works in these)."""
