"""Element-wise kernels of the TensorFlow spellings: promotion of two operands, and the
special cases TF's own ops get wrong (see `spellings_tensorflow_kernels.py`)."""

from __future__ import annotations

import math
from typing import Any

import lowerings

from .spellings_tensorflow_kernels import (
    _SCALARS,
    _TF,
    _arr,
    _cast,
    _const,
    _pair,
    _wide,
    tf,
)

# --------------------------------------------------------------- element-wise: two

def _binary(fn: Any) -> Any:
    def op(x1: Any, x2: Any) -> Any:
        a, b = _pair(x1, x2)
        return fn(a, b)
    op.__doc__ = f"`{fn.__name__}` after the standard's promotion."
    return op


def _logical(fn: Any) -> Any:
    def op(x1: Any, x2: Any) -> Any:
        a, b = _pair(x1, x2)
        return fn(_truth(a), _truth(b))
    op.__doc__ = "TF's logical ops take bool only: other dtypes by their truth value."
    return op


def _truth(x: Any) -> Any:
    return x if x.dtype is tf.bool else tf.math.not_equal(x, tf.zeros((), x.dtype))


def _bitwise(fn: Any, logical: Any) -> Any:
    def op(x1: Any, x2: Any) -> Any:
        a, b = _pair(x1, x2)
        return logical(a, b) if a.dtype is tf.bool else fn(a, b)
    op.__doc__ = "tf.bitwise takes integers only: bool operands use the logical op."
    return op


def _pow(x1: Any, x2: Any) -> Any:
    """TF has no unsigned pow kernel (computed wider), and refuses negative integer
    exponents, which the standard leaves undefined."""
    a, b = _pair(x1, x2)
    if a.dtype is tf.bool:
        a, b = tf.cast(a, tf.int64), tf.cast(b, tf.int64)
    return _wide(tf.math.pow, a.dtype, a, b)


def _divide(x1: Any, x2: Any) -> Any:
    a, b = _pair(x1, x2)
    return tf.math.truediv(a, b)


def _int_guard(fn: Any, divisor_sign: bool = False) -> Any:
    def op(x1: Any, x2: Any) -> Any:
        a, b = _pair(x1, x2)
        if divisor_sign and a.dtype.is_floating:
            # a zero remainder takes the divisor's sign (TF keeps the dividend's)
            out = fn(a, b)
            zero = tf.zeros((), a.dtype)
            return tf.where(out == zero, tf.where(_signbit(b), -zero, zero), out)
        if a.dtype.is_integer:
            # TF raises on an integer division by zero (the standard leaves the value
            # undefined): divide by one there and give 0, as NumPy does
            zero = tf.math.equal(b, tf.zeros((), b.dtype))
            safe = tf.where(zero, tf.ones((), b.dtype), b)
            out = fn(a, safe)
            return tf.where(zero, tf.zeros((), out.dtype), out)
        return fn(a, b)
    op.__doc__ = f"`{fn.__name__}` after promotion; integer division by 0 gives 0."
    return op


def _shift(left: bool) -> Any:
    def op(x1: Any, x2: Any) -> Any:
        a, b = _pair(x1, x2)
        bits = a.dtype.size * 8
        big = tf.math.greater_equal(b, tf.constant(bits, b.dtype))
        b = tf.math.minimum(b, tf.constant(bits - 1, b.dtype))
        out = (tf.bitwise.left_shift if left else tf.bitwise.right_shift)(a, b)
        if left or a.dtype.is_unsigned:
            out = tf.where(big, tf.zeros((), a.dtype), out)
        return out
    op.__doc__ = ("TF leaves shifts by the bit width or more undefined; the standard's "
                  "tests want every bit shifted out (a signed right shift keeps the sign)")
    return op


def _atan2(x1: Any, x2: Any) -> Any:
    a, b = _pair(x1, x2)
    return tf.math.atan2(a, b)


def _hypot(x1: Any, x2: Any) -> Any:
    """sqrt(a^2 + b^2) scaled by the larger magnitude (no overflow); an infinite
    operand gives +inf even beside NaN, as IEEE 754 asks."""
    a, b = _pair(x1, x2)
    a, b = tf.math.abs(a), tf.math.abs(b)
    big, small = tf.math.maximum(a, b), tf.math.minimum(a, b)
    zero = tf.zeros((), big.dtype)
    ratio = tf.where(big > zero, small / tf.where(big > zero, big, 1), zero)
    out = big * tf.math.sqrt(1 + ratio * ratio)
    inf = tf.constant(math.inf, big.dtype)
    return tf.where((a == inf) | (b == inf), inf, out)


def _copysign(x1: Any, x2: Any) -> Any:
    a, b = _pair(x1, x2)
    mag = tf.math.abs(a)
    return tf.where(_signbit(b), -mag, mag)


def _logaddexp(x1: Any, x2: Any) -> Any:
    """max + log1p(exp(-|a - b|)), exact where a == b (both infinite included)."""
    a, b = _pair(x1, x2)
    big = tf.math.maximum(a, b)
    same = a == b
    diff = tf.where(same, tf.zeros((), a.dtype), -tf.math.abs(a - b))
    out = big + tf.math.log1p(tf.math.exp(diff))
    return tf.where(same, a + tf.constant(math.log(2), a.dtype), out)


def _nextafter(x1: Any, x2: Any) -> Any:
    a, b = _pair(x1, x2)
    return tf.math.nextafter(a, b)


def _maximum(x1: Any, x2: Any) -> Any:
    a, b = _pair(x1, x2)
    return tf.math.logical_or(a, b) if a.dtype is tf.bool else tf.math.maximum(a, b)


def _minimum(x1: Any, x2: Any) -> Any:
    a, b = _pair(x1, x2)
    return tf.math.logical_and(a, b) if a.dtype is tf.bool else tf.math.minimum(a, b)


# ----------------------------------------------------------------- element-wise: one

def _abs(x: Any) -> Any:
    x = _arr(x)
    return x if x.dtype.is_unsigned or x.dtype.is_bool else tf.math.abs(x)


def _negative(x: Any) -> Any:
    """TF has no unsigned negation: 0 - x wraps the same way."""
    x = _arr(x)
    return tf.math.subtract(tf.zeros((), x.dtype), x) if x.dtype.is_unsigned else \
        tf.math.negative(x)


def _positive(x: Any) -> Any:
    return _arr(x)


def _sign(x: Any) -> Any:
    x = _arr(x)
    if x.dtype.is_unsigned or x.dtype.is_bool:
        return tf.cast(tf.math.greater(x, tf.zeros((), x.dtype)), x.dtype)
    return tf.math.sign(x)


def _special(op: str) -> Any:
    def fn(x: Any) -> Any:
        x = _arr(x)
        if not x.dtype.is_complex:
            return _TF_MATH[op](x)
        return lowerings.complex_kernel("tensorflow", op)(x)
    fn.__doc__ = (f"TF's complex `{op}` misses some of the standard's special values: "
                  "the TF target's `complex_special` kernel puts them in.")
    return fn


_TF_MATH = {op: _TF(f"math.{op}") for op in ("expm1", "log", "log1p", "sqrt", "tanh", "tan")}
_expm1, _log, _log1p, _sqrt, _tanh, _tan = (_special(op) for op in _TF_MATH)


def _integral_identity(fn: Any) -> Any:
    def op(x: Any) -> Any:
        x = _arr(x)
        return x if x.dtype.is_integer or x.dtype.is_bool else fn(x)
    op.__doc__ = f"`{fn.__name__}`; integers are already integral (TF has no kernel)."
    return op


def _trunc_float(x: Any) -> Any:
    return tf.where(x < 0, tf.math.ceil(x), tf.math.floor(x))


def _round(x: Any) -> Any:
    """Half to even, as tf.math.round; complex numbers part by part."""
    x = _arr(x)
    if x.dtype.is_integer or x.dtype.is_bool:
        return x
    if x.dtype.is_complex:
        return tf.complex(tf.math.round(tf.math.real(x)), tf.math.round(tf.math.imag(x)))
    return tf.math.round(x)


def _float_predicate(fn: Any, integral: bool, join: Any) -> Any:
    def op(x: Any) -> Any:
        x = _arr(x)
        if x.dtype.is_integer or x.dtype.is_bool:
            return tf.fill(tf.shape(x), integral)
        if x.dtype.is_complex:
            return join(fn(tf.math.real(x)), fn(tf.math.imag(x)))
        return fn(x)
    op.__doc__ = (f"`{fn.__name__}` for every dtype: TF's is for real floats; integers "
                  "are finite, a complex number is NaN/infinite where a part is")
    return op


_BITS_OF = {"float16": "int16", "bfloat16": "int16", "float32": "int32", "float64": "int64"}


def _signbit(x: Any) -> Any:
    """The sign bit itself (so -0.0 and -NaN count), read through an integer view."""
    x = _arr(x)
    view = _BITS_OF.get(x.dtype.name)
    if view is not None:
        return tf.bitcast(x, tf.as_dtype(view)) < 0
    if x.dtype.is_unsigned or x.dtype.is_bool:
        return tf.zeros(tf.shape(x), tf.bool)
    return x < 0


def _log_base(base: float) -> Any:
    def op(x: Any) -> Any:
        x = _arr(x)
        if not x.dtype.is_complex:
            return _log(x) / tf.math.log(tf.constant(base, x.dtype))
        return lowerings.complex_kernel("tensorflow", f"log{int(base)}")(x)
    op.__doc__ = f"TF has no log{int(base)}: log(x) / log({int(base)})."
    return op


def _real(x: Any) -> Any:
    x = _arr(x)
    return tf.math.real(x) if x.dtype.is_complex else x


def _imag(x: Any) -> Any:
    x = _arr(x)
    return tf.math.imag(x) if x.dtype.is_complex else tf.zeros_like(x)


def _bitwise_invert(x: Any) -> Any:
    x = _arr(x)
    return tf.math.logical_not(x) if x.dtype is tf.bool else tf.bitwise.invert(x)


def _logical_not(x: Any) -> Any:
    return tf.math.logical_not(_truth(_arr(x)))


def _clip(x: Any, lo: Any, hi: Any) -> Any:
    """Bounds in x's dtype (the result's, as the standard says), then max/min (which
    propagate NaN); TF's clip_by_value wants both bounds and one dtype."""
    x = _arr(x)
    out = x
    if lo is not None:
        out = tf.math.maximum(out, _as(lo, x.dtype))
    if hi is not None:
        out = tf.math.minimum(out, _as(hi, x.dtype))
    if out.shape != x.shape:
        out = tf.broadcast_to(out, tf.broadcast_dynamic_shape(tf.shape(x), tf.shape(out)))
    return out


def _as(v: Any, d: Any) -> Any:
    return _const(v, d) if isinstance(v, _SCALARS) else _cast(_arr(v), d)
