"""The storage floats as bytes, shared by the targets that carry them as uint8 tensors of
their byte (TensorFlow: `tensorflow_storage.py`; torch: float4, `torch_storage.py`): one
description of each format (`FORMATS`), which the targets' integer-op kernels convert
from, and the call edge (`carried`) where ml_dtypes arrays become bytes and back.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import astuple, dataclass
from typing import Any

import numpy as np

from ivy_ir.core.module import Module
from ivy_ir.core.rules import literal
from ivy_ir.dialect.types import numpy_dtype

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
"""The storage floats some target cannot convert, by the fields of their byte."""


def fields(fmt: Format) -> str:
    """A format's fields as the kernels' literal arguments."""
    return ", ".join(literal(v) for v in astuple(fmt))


def to_bytes(value: Any) -> np.ndarray:
    """A carried dtype's array (NumPy or a framework tensor of its named dtype) as its
    bytes (one per value, so any array's view is one)."""
    return host_array(value).view(np.uint8)


def carried(fn: Callable[..., Any], module: Module, dtypes: frozenset[str],
            bytes_in: Callable[[np.ndarray], Any] = lambda b: b,
            host: Callable[[Any], np.ndarray] = np.asarray) -> Callable[..., Any]:
    """`fn` reading inputs of `dtypes` as bytes (made target arrays by `bytes_in`) and
    handing such results back as ml_dtypes arrays (read to the host by `host`); decided
    from the IR once, so other programs run `fn` itself."""
    ins = {i for i, t in enumerate(module.inputs) if t.dtype in dtypes}
    outs = {i: numpy_dtype(t.dtype) for i, t in enumerate(module.outputs)
            if t.dtype in dtypes}
    if not ins and not outs:
        return fn
    single = not module.returns_sequence and len(module.outputs) == 1

    def call(params: dict[str, Any], *inputs: Any) -> Any:
        inputs = tuple(bytes_in(to_bytes(v)) if i in ins else v for i, v in enumerate(inputs))
        out = fn(params, *inputs)
        if single:
            return host(out).view(outs[0]) if outs else out
        return tuple(host(v).view(outs[i]) if i in outs else v for i, v in enumerate(out))
    return call
