"""FFT kernels of the TensorFlow spellings, and the element-wise and reduction functions
derived from the other kernel files' factories."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .spellings_tensorflow_elementwise import (
    _binary,
    _bitwise,
    _float_predicate,
    _int_guard,
    _integral_identity,
    _log_base,
    _logical,
    _shift,
    _trunc_float,
)
from .spellings_tensorflow_kernels import (
    _TF,
    _arr,
    _axes,
    _cast,
    tf,
)
from .spellings_tensorflow_reduce import (
    _arg_reduce,
    _cumulative,
    _reduce,
)

# ----------------------------------------------------------------------------- fft

_NORM = ("backward", "ortho", "forward")


def _scale(norm: str, n: int, inverse: bool) -> float:
    """The factor to apply after TF's transform (unscaled forward, 1/n inverse)."""
    if norm not in _NORM:
        raise ValueError(f"fft: norm must be one of {_NORM}, not {norm!r}")
    if norm == "backward":
        return 1.0
    if norm == "ortho":
        return math.sqrt(n) if inverse else 1 / math.sqrt(n)
    return float(n) if inverse else 1.0 / n


def _complex_of(x: Any) -> Any:
    if x.dtype.is_complex:
        return x
    return tf.cast(x, tf.complex64 if x.dtype in (tf.float32, tf.float16, tf.bfloat16)
                   else tf.complex128)


def _real_of(x: Any) -> Any:
    if x.dtype.is_floating and x.dtype in (tf.float32, tf.float64):
        return x
    return tf.cast(x, tf.float32 if x.dtype in (tf.float16, tf.bfloat16) else tf.float64)


def _last(fn: Any, x: Any, axis: int) -> Any:
    """`fn` applied along `axis` (TF's transforms work on the innermost axis)."""
    axis = axis % x.ndim
    if axis == x.ndim - 1:
        return fn(x)
    perm = list(range(x.ndim))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    return tf.transpose(fn(tf.transpose(x, perm)), perm)


def _fit(x: Any, n: int) -> Any:
    """The innermost axis cut or zero-padded to n."""
    m = x.shape[-1]
    if n < m:
        return x[..., :n]
    if n > m:
        pad = [[0, 0]] * (x.ndim - 1) + [[0, n - m]]
        return tf.pad(x, pad)
    return x


def _times(x: Any, factor: float) -> Any:
    return x if factor == 1.0 else x * tf.cast(factor, x.dtype)


def _c2c(x: Any, n: Any, axis: int, norm: str, inverse: bool) -> Any:
    x = _complex_of(_arr(x))
    n = x.shape[axis] if n is None else n
    if n < 1:
        raise ValueError(f"fft: n must be positive, not {n}")
    transform = tf.signal.ifft if inverse else tf.signal.fft
    out = _last(lambda v: transform(_fit(v, n)), x, axis)
    return _times(out, _scale(norm, n, inverse))


def _fft(x: Any, n: Any, axis: int, norm: str) -> Any:
    return _c2c(x, n, axis, norm, False)


def _ifft(x: Any, n: Any, axis: int, norm: str) -> Any:
    return _c2c(x, n, axis, norm, True)


def _rfft(x: Any, n: Any, axis: int, norm: str) -> Any:
    x = _real_of(_arr(x))
    n = x.shape[axis] if n is None else n
    out = _last(lambda v: tf.signal.rfft(_fit(v, n), fft_length=[n]), x, axis)
    return _times(out, _scale(norm, n, False))


def _irfft(x: Any, n: Any, axis: int, norm: str) -> Any:
    x = _complex_of(_arr(x))
    n = 2 * (x.shape[axis] - 1) if n is None else n
    if n < 1:
        raise ValueError(f"irfft: n must be positive, not {n}")
    real = tf.float32 if x.dtype == tf.complex64 else tf.float64
    out = _last(lambda v: tf.signal.irfft(_fit(v, n // 2 + 1), fft_length=[n]), x, axis)
    return _times(_cast(out, real), _scale(norm, n, True))


_SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def _hfft(x: Any, n: Any, axis: int, norm: str) -> Any:
    """The FFT of a Hermitian-symmetric signal: irfft of the conjugate, scaled as a
    forward transform."""
    _scale(norm, 1, False)
    return _irfft(tf.math.conj(_complex_of(_arr(x))), n, axis, _SWAP[norm])


def _ihfft(x: Any, n: Any, axis: int, norm: str) -> Any:
    _scale(norm, 1, False)
    return tf.math.conj(_rfft(x, n, axis, _SWAP[norm]))


def _s_axes(x: Any, s: Any, axes: Any) -> tuple[list[Any], list[int]]:
    if axes is None:
        axes = list(range(x.ndim)) if s is None else list(range(x.ndim - len(s), x.ndim))
    axes = [a % x.ndim for a in axes]
    sizes = [None] * len(axes) if s is None else [None if v == -1 else v for v in s]
    return sizes, axes


def _c2c_axes(inverse: bool) -> Any:
    def op(x: Any, s: Any, axes: Any, norm: str) -> Any:
        x = _arr(x)
        sizes, axes = _s_axes(x, s, axes)
        for n, a in zip(sizes, axes):
            x = _c2c(x, n, a, norm, inverse)
        return _complex_of(x)
    op.__doc__ = f"The {'inverse ' * inverse}complex transform along each of `axes`."
    return op


_fftn = _c2c_axes(False)
_ifftn = _c2c_axes(True)


def _rfftn(x: Any, s: Any, axes: Any, norm: str) -> Any:
    """A real transform on the last axis, complex ones on the others."""
    x = _arr(x)
    sizes, axes = _s_axes(x, s, axes)
    x = _rfft(x, sizes[-1], axes[-1], norm)
    for n, a in zip(sizes[:-1], axes[:-1]):
        x = _c2c(x, n, a, norm, False)
    return x


def _irfftn(x: Any, s: Any, axes: Any, norm: str) -> Any:
    x = _arr(x)
    sizes, axes = _s_axes(x, s, axes)
    for n, a in zip(sizes[:-1], axes[:-1]):
        x = _c2c(x, n, a, norm, True)
    return _irfft(x, sizes[-1], axes[-1], norm)


def _fftfreq(n: int, d: float, dtype: Any) -> Any:
    values = np.concatenate([np.arange(0, (n - 1) // 2 + 1), np.arange(-(n // 2), 0)])
    return tf.cast(tf.constant(values / (d * n), tf.float64), dtype or tf.float64)


def _rfftfreq(n: int, d: float, dtype: Any) -> Any:
    values = np.arange(0, n // 2 + 1) / (d * n)
    return tf.cast(tf.constant(values, tf.float64), dtype or tf.float64)


def _fft_shift(x: Any, axes: Any, inverse: bool) -> Any:
    x = _arr(x)
    axes = _axes(axes, x.ndim)
    if not axes:
        return x
    shifts = [-(x.shape[a] // 2) if inverse else x.shape[a] // 2 for a in axes]
    return tf.roll(x, shifts, axes)


def _fftshift(x: Any, axes: Any) -> Any:
    return _fft_shift(x, axes, False)


def _ifftshift(x: Any, axes: Any) -> Any:
    return _fft_shift(x, axes, True)


# ----------------------------------------------------------- the derived functions

_add = _binary(_TF("math.add"))
_subtract = _binary(_TF("math.subtract"))
_multiply = _binary(_TF("math.multiply"))
_equal = _binary(_TF("math.equal"))
_not_equal = _binary(_TF("math.not_equal"))
_less = _binary(_TF("math.less"))
_less_equal = _binary(_TF("math.less_equal"))
_greater = _binary(_TF("math.greater"))
_greater_equal = _binary(_TF("math.greater_equal"))
_floor_divide = _int_guard(_TF("math.floordiv"))
_remainder = _int_guard(_TF("math.floormod"), divisor_sign=True)
_logical_and = _logical(_TF("math.logical_and"))
_logical_or = _logical(_TF("math.logical_or"))
_logical_xor = _logical(_TF("math.logical_xor"))
_bitwise_and = _bitwise(_TF("bitwise.bitwise_and"), _TF("math.logical_and"))
_bitwise_or = _bitwise(_TF("bitwise.bitwise_or"), _TF("math.logical_or"))
_bitwise_xor = _bitwise(_TF("bitwise.bitwise_xor"), _TF("math.logical_xor"))
_bitwise_left_shift = _shift(True)
_bitwise_right_shift = _shift(False)
_floor = _integral_identity(_TF("math.floor"))
_ceil = _integral_identity(_TF("math.ceil"))
_trunc = _integral_identity(_trunc_float)
_isnan = _float_predicate(_TF("math.is_nan"), False, _TF("math.logical_or"))
_isinf = _float_predicate(_TF("math.is_inf"), False, _TF("math.logical_or"))
_isfinite = _float_predicate(_TF("math.is_finite"), True, _TF("math.logical_and"))
_log2 = _log_base(2.0)
_log10 = _log_base(10.0)
_max = _reduce(_TF("reduce_max"))
_min = _reduce(_TF("reduce_min"))
_mean = _reduce(_TF("reduce_mean"))
_argmax = _arg_reduce(_TF("math.argmax"))
_argmin = _arg_reduce(_TF("math.argmin"))
_cumulative_sum = _cumulative(_TF("math.cumsum"), 0)
_cumulative_prod = _cumulative(_TF("math.cumprod"), 1)
