"""`astype` into and out of the storage dtypes on TensorFlow (docs/semantics.md).

TF 2.21 converts float32 and float16 into float8e4m3fn and float8e5m2 as ml_dtypes
does (the IR's meaning). The other storage dtypes (`CARRIED`) TF names but cannot
cast, bitcast or compute in (float8e8m0 it does not name at all), or, for int4/uint4,
hands across an XLA function's edge with its nibbles scrambled (`tf.cast` of -4..3 to
int4 under `jit_compile` returns [-4 -2 0 2 -4 5 0 0]), so a value of one of them is
carried as a uint8 tensor of its byte, ml_dtypes' bit pattern (the small integers and
float4 in the low bits),
and converted with integer ops (`tensorflow_storage_kernels.py`) from one description
of each format (`FORMATS`, shared with torch in `storage.py`). At the call boundary
(`carried`) ml_dtypes arrays in are read as their bytes and bytes out are handed back
as ml_dtypes arrays.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ivy_ir.core.module import Module
from ivy_ir.core.rules import OpContext, storage_int_value
from ivy_ir.dialect.types import FLOATS, STORAGE_FLOATS, STORAGE_INT_BITS, STORAGE_INTS

from . import storage
from .storage import FORMATS
from .storage import fields as _fields

CARRIED = frozenset(FORMATS) | STORAGE_INTS
"""The storage dtypes carried as uint8 tensors of their byte."""
DECODED = {"float32": "float32", "float64": "float64", "bfloat16": "bfloat16",
           "bool": "float64"}
"""The float a carried float is read into on its way to these dtypes (to the others:
float32): each holds every value exactly, and TF (which flushes subnormals) would
read float8e8m0's 2**-127 as zero in float32 or bfloat16 arithmetic, as `!= 0` is."""


def astype(c: OpContext) -> str:
    """Casts between a storage float and another kind (or float64) go through float32
    (`STORAGE_FLOATS`); a float into a small integer through int32 (truncated, and 0
    where int32 cannot hold it: ml_dtypes' conversion, float64 read directly), then the
    low bits, as from any other integer (integer casts wrap). A carried dtype is decoded
    first and encoded last (from the float bits: TF flushes subnormals, such as
    float8e8m0's 2**-127, in every kernel)."""
    x, src, dst = c.args["x"], c.in_types["x"].dtype, c.out.dtype
    if src in STORAGE_INTS:
        x, src = storage_int_value(f"tf.cast({x}, tf.int32)", src), "int32"
    elif src in FORMATS:
        fields, src = _fields(FORMATS[src]), DECODED.get(dst, "float32")
        x = f"storage_decode({x}, {fields}, tf.{src})"
    elif src in STORAGE_FLOATS and (dst in CARRIED or dst not in FLOATS | STORAGE_FLOATS):
        x, src = f"tf.cast({x}, tf.float32)", "float32"
    if dst in FORMATS:
        if src not in ("float32", "float64"):  # float16/bfloat16 exactly, integers rounded
            x = f"tf.cast({x}, tf.float32)"
        return f"storage_encode({x}, {_fields(FORMATS[dst])})"
    if dst in STORAGE_INTS:
        if src in ("float32", "float64"):  # ml_dtypes' bound, INT_MAX, exact in each
            held = "<= 2.0 ** 31 - 1" if src == "float64" else "< 2.0 ** 31"
            x = f"tf.where(tf.abs({x}) {held}, {x}, tf.zeros_like({x}))"
        if src in FLOATS:
            x = f"tf.cast({x}, tf.int32)"
        return f"(tf.cast({x}, tf.uint8) & {(1 << STORAGE_INT_BITS[dst]) - 1})"
    if dst in STORAGE_FLOATS and (src == "float64" or src not in FLOATS):
        x, src = f"tf.cast({x}, tf.float32)", "float32"
    return f"tf.cast({x}, {c.lit('dtype')})"


def carried(fn: Callable[..., Any], module: Module) -> Callable[..., Any]:
    """`fn` reading inputs of carried dtypes as bytes and handing such results back as
    ml_dtypes arrays (`storage.carried`)."""
    return storage.carried(fn, module, CARRIED)


__all__ = ["CARRIED", "astype", "carried"]
