"""Dtypes and tensor types: the one table between NumPy-style dtype names, xDSL types
and NumPy dtypes, plus `TensorSpec`, the framework-free type that inference rules use."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    BFloat16Type,
    ComplexType,
    Float4E2M1FNType,
    Float8E4M3FNType,
    Float8E4M3FNUZType,
    Float8E5M2FNUZType,
    Float8E5M2Type,
    Float8E8M0FNUType,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    Signedness,
    TensorType,
)
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition

from .dtypes import (  # noqa: F401 (re-exported: modules import dtype tables from here)
    _ALIASES,
    CLASS_MEMBERS,
    COMPLEX,
    DTYPE_NAMES,
    FLOATS,
    INT64_MAX,
    INT64_MIN,
    INTS,
    REAL_OF,
    STORAGE,
    STORAGE_FLOATS,
    STORAGE_INT_BITS,
    STORAGE_INTS,
    UNSIGNED,
    WIDE,
    numpy_dtype,
    storage_range,
)


@irdl_attr_definition
class StringType(ParametrizedAttribute, TypeAttribute):
    """The element type of text tensors, `tensor<3x!ivy.string>`: MLIR's builtin has no
    string element type, so the ivy dialect declares one (no parameters: an element is
    one Unicode string of any length)."""

    name = "ivy.string"


DTYPES: dict[str, Attribute] = {
    "bool": IntegerType(1),
    "int8": IntegerType(8),
    "int16": IntegerType(16),
    "int32": IntegerType(32),
    "int64": IntegerType(64),
    "uint8": IntegerType(8, Signedness.UNSIGNED),
    "uint16": IntegerType(16, Signedness.UNSIGNED),
    "uint32": IntegerType(32, Signedness.UNSIGNED),
    "uint64": IntegerType(64, Signedness.UNSIGNED),
    "float16": Float16Type(),
    "bfloat16": BFloat16Type(),
    "float32": Float32Type(),
    "float64": Float64Type(),
    "complex64": ComplexType(Float32Type()),
    "complex128": ComplexType(Float64Type()),
    # storage dtypes: xDSL's builtin types, printed as MLIR spells them (f8E4M3FN, i4)
    "float8_e4m3fn": Float8E4M3FNType(),
    "float8_e4m3fnuz": Float8E4M3FNUZType(),
    "float8_e5m2": Float8E5M2Type(),
    "float8_e5m2fnuz": Float8E5M2FNUZType(),
    "float8_e8m0fnu": Float8E8M0FNUType(),
    "float4_e2m1fn": Float4E2M1FNType(),
    "int4": IntegerType(4),
    "uint4": IntegerType(4, Signedness.UNSIGNED),
    "int2": IntegerType(2),
    "uint2": IntegerType(2, Signedness.UNSIGNED),
    "string": StringType(),
}
_BY_TYPE = {v: k for k, v in DTYPES.items()}
assert tuple(DTYPES) == DTYPE_NAMES


def is_text(dtype: Any) -> bool:
    """Whether a NumPy dtype holds text: Python `str` objects (ONNX's, the NumPy
    target's) or fixed-width str; the IR's `string`."""
    return np.dtype(dtype).kind in "OU"


def dtype_name(dtype: Any) -> str:
    """Normalise a dtype given as a name, NumPy dtype/type or xDSL type to our name."""
    if isinstance(dtype, Attribute):
        if dtype in _BY_TYPE:
            return _BY_TYPE[dtype]
        raise TypeError(f"unsupported element type {dtype}")
    if isinstance(dtype, str):
        name = _ALIASES.get(dtype, dtype)
        if name in DTYPES:
            return name
    try:
        np_dtype = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"unknown dtype {dtype!r}") from None
    name = "string" if is_text(np_dtype) else np_dtype.name
    if name not in DTYPES:
        raise TypeError(f"unsupported dtype {dtype!r}; supported: {', '.join(DTYPES)}")
    return name


@dataclass(frozen=True)
class TensorSpec:
    """Shape (None for a dynamic dim) and dtype name of one tensor value."""

    shape: tuple[int | None, ...]
    dtype: str

    @property
    def rank(self) -> int:
        return len(self.shape)

    def with_(self, shape: tuple[int | None, ...] | None = None,
              dtype: str | None = None) -> TensorSpec:
        return TensorSpec(self.shape if shape is None else tuple(shape), dtype or self.dtype)

    def to_xdsl(self) -> TensorType:
        dims = [DYNAMIC_INDEX if d is None else d for d in self.shape]
        return TensorType(DTYPES[self.dtype], dims)

    @staticmethod
    def from_xdsl(t: Attribute) -> TensorSpec:
        if not isinstance(t, TensorType):
            raise TypeError(f"expected a ranked tensor type, got {t}")
        shape = tuple(None if d == DYNAMIC_INDEX else d for d in t.get_shape())
        return TensorSpec(shape, dtype_name(t.element_type))

    @staticmethod
    def of(array: Any) -> TensorSpec:
        return TensorSpec(tuple(np.shape(array)), dtype_name(np.asarray(array).dtype))

    def __str__(self) -> str:
        return str(self.to_xdsl())
