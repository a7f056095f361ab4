"""Torch helpers converting between float32 and the storage floats torch has no tensor
for (float4_e2m1fn), held as uint8 tensors of their byte (`torch_storage.py`). A format
is given by its fields (`storage.Format`), as the TF kernels take it
(`tensorflow_storage_kernels.py`, whose rules these follow). Torch keeps float32
subnormals, so decoding computes the value in float32 directly; encoding rounds the
float32 bits with integer ops (ties to even), as ml_dtypes does.
"""

from __future__ import annotations

import torch

__all__ = ["storage_decode", "storage_encode"]


def storage_decode(x, exponent, mantissa, bias, nan, signed, zero, dtype):
    # every code is a small integer significand times a power of two: exact in float32
    b = x.to(torch.int32)
    width = exponent + mantissa
    magnitude = b & ((1 << width) - 1)
    field = magnitude >> mantissa
    fraction = magnitude & ((1 << mantissa) - 1)
    implicit = field > 0 if zero else torch.ones_like(field, dtype=torch.bool)
    significand = (fraction | torch.where(implicit, 1 << mantissa, 0)).to(torch.float32)
    scale = torch.clamp(field, min=1 if zero else 0) - (bias + mantissa)
    value = torch.ldexp(significand, scale.to(torch.float32))
    if nan == "ones":
        value = torch.where(magnitude == (1 << width) - 1, torch.nan, value)
    elif nan == "negative_zero":
        value = torch.where(b == 1 << width, torch.nan, value)
    if signed:  # the sign set last (on zero and NaN too, as ml_dtypes reads them)
        value = torch.where((b >> width) & 1 == 1, -value, value)
    return value.to(dtype)


def storage_encode(x, exponent, mantissa, bias, nan, signed, zero):
    # rounds float32 `x` to the nearest code, ties to even (away from zero where the
    # format has no zero): the float32 magnitude bits, read as an integer, grow with the
    # value, so rebasing the exponent field and rounding off the low bits gives the
    # code, a carry into the exponent included
    bits = x.contiguous().view(torch.int32)
    negative = bits < 0
    width, shift = exponent + mantissa, 23 - mantissa
    magnitude = bits & 0x7FFFFFFF
    # the value's exponent in the format's bias; at 0 or below, one of its subnormals
    field = torch.clamp(magnitude >> 23, min=1) - (127 - bias)
    significand = (magnitude & 0x7FFFFF) | torch.where(magnitude >= 0x800000, 0x800000, 0)
    drop = torch.clamp(1 - field, 0, 31)
    lost = significand & (torch.bitwise_left_shift(torch.ones_like(drop), drop) - 1)
    aligned = (significand >> drop) | (lost != 0).to(torch.int32)
    scaled = torch.where(field > 0, magnitude - ((127 - bias) << 23), aligned)
    code = scaled >> shift
    rest = scaled & ((1 << shift) - 1)
    half = 1 << (shift - 1)
    up = rest >= half if not zero else (rest > half) | ((rest == half) & ((code & 1) == 1))
    code = code + up.to(torch.int32)
    if not zero:  # below 2**(1 - bias), where only 2**-bias (code 0) lies, ml_dtypes
        # rounds every other value up
        least = torch.tensor(2.0 ** -bias, dtype=torch.float32).view(torch.int32).item()
        code = torch.where(magnitude < (128 - bias) << 23, (magnitude > least).to(code.dtype),
                           code)
    top = (1 << width) - 1
    largest = top - 1 if nan == "ones" else top
    is_nan = magnitude > 0x7F800000
    if nan == "none":  # finite only: overflow and inf saturate, NaN is a zero
        code = torch.where(is_nan, 0, torch.clamp(code, max=largest))
        negative = negative != is_nan  # of the sign opposite the NaN's, as ml_dtypes
    else:
        code = torch.where(is_nan | (code > largest), top if nan == "ones" else 1 << width,
                           code)
    if not signed:  # a negative value or zero has no code: NaN
        return torch.where(negative | (magnitude == 0), top, code).to(torch.uint8)
    sign = torch.where(negative, 1 << width, 0)
    if nan == "negative_zero":  # no -0.0, and NaN is the sign bit alone
        sign = torch.where((code == 0) | (code == 1 << width), 0, sign)
    return (code | sign).to(torch.uint8)
