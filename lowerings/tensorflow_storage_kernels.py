"""TensorFlow helpers converting between float32/float64/bfloat16 and the storage
floats TF has no kernels for, held as uint8 tensors of their byte (`tensorflow_storage.py`).

Both directions work on bit patterns with integer ops: TF flushes subnormal floats to
zero in every kernel (casts included), and float8e8m0's least value, 2**-127, is a
float32 subnormal. A format is given by its field widths and three rules (see
`storage.Format`): `nan` is "ones" (NaN where every magnitude bit is set,
no infinities), "negative_zero" (NaN as the sign bit alone, no -0.0 and no infinities)
or "none" (finite only: overflow saturates); `signed` says whether the byte has a sign
bit; `zero` whether the format has zero and subnormals (float8e8m0 has neither: its
all-zero exponent is 2**-bias, and it rounds ties away from zero).
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf

__all__ = ["storage_decode", "storage_encode"]


def storage_decode(x, exponent, mantissa, bias, nan, signed, zero, dtype):
    # the byte's fields placed into the bits of `dtype` (float32, float64 or bfloat16,
    # which hold every value exactly): no rounding, and NaN keeps its sign
    ints, wide_mantissa, wide_bias, sign_bit = {
        tf.float64: (tf.int64, 52, 1023, 63), tf.float32: (tf.int32, 23, 127, 31),
        tf.bfloat16: (tf.int16, 7, 127, 15)}[dtype]
    width = exponent + mantissa
    b = tf.cast(x, ints)
    magnitude = b & ((1 << width) - 1)
    field = tf.bitwise.right_shift(magnitude, tf.constant(mantissa, ints))
    fraction = magnitude & ((1 << mantissa) - 1)
    normal = tf.bitcast(tf.bitwise.left_shift(field + (wide_bias - bias), tf.constant(
        wide_mantissa, ints)) | tf.bitwise.left_shift(fraction, tf.constant(
            wide_mantissa - mantissa, ints)), dtype)
    # subnormals are normal in float32: a small integer times a power of two, exact
    small = tf.cast(fraction, dtype) * (2.0 ** (1 - bias - mantissa)) if zero \
        else tf.constant(2.0 ** -bias, dtype)
    value = tf.where(field == 0, small, normal)
    if nan == "ones":
        value = tf.where(magnitude == (1 << width) - 1, tf.constant(np.nan, dtype), value)
    elif nan == "negative_zero":
        value = tf.where(b == 1 << width, tf.constant(np.nan, dtype), value)
    if not signed:
        return value
    # the sign bit set last (on zero and NaN too, as ml_dtypes reads them)
    sign = tf.bitwise.left_shift(tf.bitwise.right_shift(b, tf.constant(width, ints)) & 1,
                                 tf.constant(sign_bit, ints))
    return tf.bitcast(tf.bitcast(value, ints) | sign, dtype)


def storage_encode(x, exponent, mantissa, bias, nan, signed, zero):
    # rounds float32 or float64 `x` (float64 to float32 first, as ml_dtypes does) to the
    # nearest code, ties to even (away from zero where the format has no zero, as
    # ml_dtypes rounds float8e8m0): the float32 magnitude bits, read as an integer,
    # grow with the value, so rebasing the exponent field and rounding off the low
    # bits gives the code, a carry into the exponent included
    if x.dtype == tf.float64:
        # TF flushes a float32 subnormal result to zero: those are rounded here
        tiny = tf.abs(x) < 2.0 ** -126
        bits = tf.where(tiny, tf.cast(tf.math.rint(tf.abs(x) * 2.0 ** 149), tf.int32),
                        tf.bitcast(tf.cast(x, tf.float32), tf.int32) & 0x7FFFFFFF)
        negative = tf.bitcast(x, tf.int64) < 0
    else:
        bits = tf.bitcast(x, tf.int32)
        negative = bits < 0
    width, shift = exponent + mantissa, 23 - mantissa
    magnitude = bits & 0x7FFFFFFF
    # the value's exponent in the format's bias; at 0 or below, one of its subnormals
    field = tf.maximum(tf.bitwise.right_shift(magnitude, 23), 1) - (127 - bias)
    significand = (magnitude & 0x7FFFFF) | tf.where(magnitude >= 0x800000, 0x800000, 0)
    drop = tf.clip_by_value(1 - field, 0, 31)
    lost = significand & (tf.bitwise.left_shift(tf.ones_like(drop), drop) - 1)
    aligned = tf.bitwise.right_shift(significand, drop) | tf.cast(lost != 0, tf.int32)
    scaled = tf.where(field > 0, magnitude - ((127 - bias) << 23), aligned)
    code = tf.bitwise.right_shift(scaled, shift)
    rest = scaled & ((1 << shift) - 1)
    half = 1 << (shift - 1)
    up = rest >= half if not zero else (rest > half) | ((rest == half) & ((code & 1) == 1))
    code = code + tf.cast(up, tf.int32)
    if not zero:  # below 2**(1 - bias), where only 2**-bias (code 0) lies, ml_dtypes
        # rounds every other value up (float8e8m0: the float32 subnormals)
        least = int(np.array(2.0 ** -bias, np.float32).view(np.int32))
        code = tf.where(magnitude < (128 - bias) << 23, tf.cast(magnitude > least, tf.int32),
                        code)
    top = (1 << width) - 1
    largest = top - 1 if nan == "ones" else top
    is_nan = magnitude > 0x7F800000
    if nan == "none":  # finite only: overflow and inf saturate, NaN is a zero
        code = tf.where(is_nan, 0, tf.minimum(code, largest))
        negative = negative != is_nan  # of the sign opposite the NaN's, as ml_dtypes
    else:
        code = tf.where(is_nan | (code > largest), top if nan == "ones" else 1 << width,
                        code)
    if not signed:  # a negative value or zero has no code: NaN
        return tf.cast(tf.where(negative | (magnitude == 0), top, code), tf.uint8)
    sign = tf.where(negative, 1 << width, 0)
    if nan == "negative_zero":  # no -0.0, and NaN is the sign bit alone
        sign = tf.where((code == 0) | (code == 1 << width), 0, sign)
    return tf.cast(code | sign, tf.uint8)
