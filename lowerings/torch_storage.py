"""`astype` into and out of the storage dtypes on torch (docs/semantics.md).

torch has float8 tensors but converts into two of them otherwise than ml_dtypes (the
IR's meaning); its int4/uint4/int2/uint2 tensors hold one value per byte, as ml_dtypes'
arrays do, but have no kernels, so they are read and written through a uint8 view of
that byte (the value in its low bits, the rest zero: ml_dtypes' layout, so the call
boundary only reinterprets bytes). float4_e2m1fn has no one-value-per-byte tensor in
torch: it is `CARRIED` as a uint8 tensor of ml_dtypes' byte, converted with integer ops
(`torch_storage_kernels.py`) from the format's description (`storage.FORMATS`, which
TF's carried dtypes share), and read and written as ml_dtypes arrays at the call edge.
"""

from __future__ import annotations

from ivy_ir.core.rules import OpContext, storage_int_value
from ivy_ir.dialect.types import FLOATS, STORAGE, STORAGE_FLOATS, STORAGE_INT_BITS

from .storage import FORMATS, fields

CARRIED = frozenset({"float4_e2m1fn"})
"""The storage floats torch has no tensor for, carried as uint8 tensors of their byte."""

NAN_OUTSIDE = {"float8_e4m3fn": "{x}.abs() <= 464.0",
               "float8_e8m0fnu": "({x} > 0) & ({x} < torch.inf)"}
"""Storage dtypes torch converts into otherwise than ml_dtypes, and where the values
ml_dtypes keeps lie (every other value gives NaN): into float8e4m3fn torch saturates
past 464, the midpoint above the largest finite value 448; into float8e8m0 it rounds
the magnitude of zero and negative values."""


def astype(c: OpContext) -> str:
    """Casts between a storage dtype and another kind (or float64) go through float32
    (`STORAGE_FLOATS`), a carried one decoded and encoded; small integers are read as
    int32 and written as their low bits of the int32 value (NumPy's float -> int32
    conversion first, as ml_dtypes)."""
    x, src, dst = c.args["x"], c.in_types["x"].dtype, c.out.dtype
    if src in STORAGE_INT_BITS:
        x, src = storage_int_value(f"{x}.view(torch.uint8).to(torch.int32)", src), "int32"
    elif src in CARRIED or (src in FORMATS and dst in CARRIED):
        # decoded exactly into float32 (a float8 from its byte: its NaN keeps the sign
        # ml_dtypes reads it with, which torch's conversion drops), then as from float32
        x = x if src in CARRIED else f"{x}.view(torch.uint8)"
        x, src = f"storage_decode({x}, {fields(FORMATS[src])}, torch.float32)", "float32"
    if dst in CARRIED:  # encoded from float32 (float64 rounds to it first, as ml_dtypes)
        if src != "float32":
            x = f"{x}.to(torch.float32)"
        return f"storage_encode({x}, {fields(FORMATS[dst])})"
    if (src in STORAGE_FLOATS and dst not in FLOATS | STORAGE) or (
            src == "float64" and dst in STORAGE) or (
            dst in STORAGE_FLOATS and src not in FLOATS):
        x = f"{x}.to(torch.float32)"
    if dst in STORAGE_INT_BITS:
        mask = (1 << STORAGE_INT_BITS[dst]) - 1
        return f"({x}.to(torch.int32) & {mask}).to(torch.uint8).view(torch.{dst})"
    if dst in NAN_OUTSIDE:
        x = f"torch.where({NAN_OUTSIDE[dst].format(x=x)}, {x}, torch.nan)"
    return f"{x}.to({c.lit('dtype')})"

