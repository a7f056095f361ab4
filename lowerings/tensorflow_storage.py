"""`astype` into and out of the storage dtypes on TensorFlow (docs/semantics.md).

TF 2.21 converts float32 and float16 into float8e4m3fn and float8e5m2 as ml_dtypes
does (the IR's meaning). The other storage dtypes (`CARRIED`) TF names but cannot
cast, bitcast or compute in (float8e8m0 it does not name at all), or, for int4/uint4,
hands across an XLA function's edge with its nibbles scrambled (`tf.cast` of -4..3 to
int4 under `jit_compile` returns [-4 -2 0 2 -4 5 0 0]), so a value of one of them is
carried as a uint8 tensor of its byte, ml_dtypes' bit pattern (the small integers and
float4 in the low bits),
and converted with integer ops (`tensorflow_storage_kernels.py`) from one description
of each format (`FORMATS`). At the call boundary (`carried`) ml_dtypes arrays in are
read as their bytes and bytes out are handed back as ml_dtypes arrays.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import astuple, dataclass
from typing import Any

import numpy as np

from ivy_ir.core.module import Module
from ivy_ir.core.rules import OpContext, literal, storage_int_value
from ivy_ir.dialect.types import (
    FLOATS,
    STORAGE_FLOATS,
    STORAGE_INT_BITS,
    STORAGE_INTS,
    numpy_dtype,
)

from .runtime import host_array


@dataclass(frozen=True)
class Format:
    """A storage float's byte, as ml_dtypes lays it out: `exponent` and `mantissa`
    field widths and the exponent `bias`; where NaN lives (`nan`: "ones", every
    magnitude bit set; "negative_zero", the sign bit alone, so there is no -0.0;
    "none", finite only, overflow saturating); whether there is a sign bit; whether
    there is a zero (and subnormals: float8e8m0 has neither)."""

    exponent: int
    mantissa: int
    bias: int
    nan: str
    signed: bool = True
    zero: bool = True


FORMATS = {
    "float8_e4m3fnuz": Format(4, 3, 8, "negative_zero"),
    "float8_e5m2fnuz": Format(5, 2, 16, "negative_zero"),
    "float8_e8m0fnu": Format(8, 0, 127, "ones", signed=False, zero=False),
    "float4_e2m1fn": Format(2, 1, 1, "none"),
}
"""The storage floats TF cannot convert, by the fields of their byte."""
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


def _fields(fmt: Format) -> str:
    return ", ".join(literal(v) for v in astuple(fmt))


def to_bytes(value: Any) -> np.ndarray:
    """A carried dtype's array (NumPy or a TF tensor of TF's named dtype) as its bytes
    (one per value, so any array's view is one)."""
    return host_array(value).view(np.uint8)


def carried(fn: Callable[..., Any], module: Module) -> Callable[..., Any]:
    """`fn` reading inputs of carried dtypes as bytes and handing such results back as
    ml_dtypes arrays; decided from the IR once, so other programs run `fn` itself."""
    ins = {i for i, t in enumerate(module.inputs) if t.dtype in CARRIED}
    outs = {i: numpy_dtype(t.dtype) for i, t in enumerate(module.outputs)
            if t.dtype in CARRIED}
    if not ins and not outs:
        return fn
    single = not module.returns_sequence and len(module.outputs) == 1

    def call(params: dict[str, Any], *inputs: Any) -> Any:
        inputs = tuple(to_bytes(v) if i in ins else v for i, v in enumerate(inputs))
        out = fn(params, *inputs)
        if single:
            return np.asarray(out).view(outs[0]) if outs else out
        return tuple(np.asarray(v).view(outs[i]) if i in outs else v
                     for i, v in enumerate(out))
    return call
