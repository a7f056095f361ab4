"""`astype` into and out of the storage dtypes on TensorFlow (docs/semantics.md).

TF 2.21 converts float32 and float16 into float8e4m3fn and float8e5m2 as ml_dtypes
does (the IR's meaning), and int4/uint4 only to and from int8, uint8, int32 and int64;
it has no conversion at all into the other storage dtypes, which stay refused
(`unsupported=tensorflow:` in ops.spec).
"""

from __future__ import annotations

from ivy_ir.core.rules import OpContext
from ivy_ir.dialect.types import FLOATS, INTS, STORAGE, STORAGE_FLOATS, STORAGE_INTS

NIBBLE_PEERS = frozenset({"int8", "uint8", "int32", "int64"})
"""The dtypes TF casts int4/uint4 from."""


def astype(c: OpContext) -> str:
    """Casts between a storage dtype and another kind (or float64) go through float32
    (`STORAGE_FLOATS`); int4/uint4 through int32 (a float's NumPy conversion to int32,
    which TF's is on the CPU, then the low bits: TF's int32 -> int4 cast wraps) or
    int64 (the other integers: the low bits are the same)."""
    x, src, dst = c.args["x"], c.in_types["x"].dtype, c.out.dtype
    if src in STORAGE_INTS:
        x, src = f"tf.cast({x}, tf.int32)", "int32"
    if (src in STORAGE_FLOATS and dst not in FLOATS | STORAGE) or (
            src == "float64" and dst in STORAGE):
        x, src = f"tf.cast({x}, tf.float32)", "float32"
    if dst in STORAGE_INTS and src not in NIBBLE_PEERS:
        x = f"tf.cast({x}, {'tf.int64' if src in INTS else 'tf.int32'})"
    return f"tf.cast({x}, {c.lit('dtype')})"
