"""The functions TensorFlow's spellings call where one TF call does not give the standard.

TF ops take operands of one dtype and promote nothing, so every function of two or more
arrays first brings them to the standard's promoted dtype (`_pair`, `_common`), Python
scalars taking the array's dtype as the standard says. TF also lacks kernels for some
dtypes (unsigned `pow`, `matmul` below 32 bits, `uint16` `tile`): those compute in a
dtype that gives the same bits (`_wide`, `_bitcast`). Creation functions default to the
dtypes the namespace reports (float64, int64, complex128), not TF's float32/int32.

TensorFlow is imported on first use (`_Lazy`): importing `ivy` loads no framework.
Shapes are static in eager mode, so index and shape math is plain Python here.
"""

from __future__ import annotations

import builtins
import importlib
import math
from collections import namedtuple
from typing import Any

import numpy as np

from .dtypes import result_type_names


class _Lazy:
    """A module imported on its first attribute access; each attribute read is cached
    on the proxy, so later reads cost what a module's would."""

    def __init__(self, name: str):
        self.__dict__["_module_name"] = name

    def __getattr__(self, attr: str) -> Any:
        value = getattr(importlib.import_module(self._module_name), attr)
        self.__dict__[attr] = value
        return value


tf: Any = _Lazy("tensorflow")


class _TF:
    """The TF function at `path` under `tf`, looked up on its first call (so that the
    tables below can name TF functions before TF is imported)."""

    __slots__ = ("__name__", "_fn")

    def __init__(self, path: str):
        self.__name__ = "tf." + path
        self._fn: Any = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        fn = self._fn
        if fn is None:
            fn = tf
            for part in self.__name__.split(".")[1:]:
                fn = getattr(fn, part)
            self._fn = fn
        return fn(*args, **kwargs)

_SCALARS = (bool, int, float, complex)

# the standard's result tuples: fields readable by name and by position
EighResult = namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
QRResult = namedtuple("QRResult", ["Q", "R"])
SlogdetResult = namedtuple("SlogdetResult", ["sign", "logabsdet"])
SVDResult = namedtuple("SVDResult", ["U", "S", "Vh"])
UniqueAllResult = namedtuple("UniqueAllResult",
                             ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = namedtuple("UniqueInverseResult", ["values", "inverse_indices"])


# ---------------------------------------------------------------- arrays and dtypes

def _arr(x: Any) -> Any:
    """`x` as a tf.Tensor (see `_convert` for anything else)."""
    if isinstance(x, tf.Tensor):
        return x
    return _convert(x, None)


def _convert(obj: Any, dtype: Any) -> Any:
    """A non-tensor object as a tensor, through NumPy: its defaults are the namespace's
    (int64, float64; bool mixed with int is int), and a NumPy array is not a Python
    scalar, so TF's cache of scalar constants (which takes -0.0 for a cached 0.0) is
    not involved."""
    if isinstance(obj, tf.Variable):
        obj = tf.convert_to_tensor(obj)
        return obj if dtype is None else _cast(obj, dtype)
    if _holds_tensors(obj):
        out = tf.stack([_arr(o) for o in obj])
        return out if dtype is None else _cast(out, dtype)
    return tf.constant(np.asarray(obj, None if dtype is None else dtype.as_numpy_dtype))


def _cast(x: Any, dtype: Any) -> Any:
    return x if x.dtype == dtype else tf.cast(x, dtype)


_PROMOTED: dict[tuple[Any, Any], Any] = {}


def _common(a: Any, b: Any) -> Any:
    """The standard's promoted dtype of TF dtypes `a` and `b`; pairs the standard
    leaves undefined (an integer and a float) promote as NumPy does, rather than
    failing as TF would."""
    key = (a, b)
    out = _PROMOTED.get(key)
    if out is None:
        try:
            name = result_type_names(a.name, b.name)
        except TypeError:
            name = np.promote_types(a.as_numpy_dtype, b.as_numpy_dtype).name
        out = _PROMOTED[key] = tf.as_dtype(name)
    return out


def _scalar_dtype(d: Any, s: Any) -> Any:
    """The dtype of an array of dtype `d` combined with Python scalar `s`: the array's,
    as the standard says, where `s` is of a kind `d` holds; else the default of the
    scalar's kind (as NumPy does for the mixes the standard leaves undefined)."""
    if isinstance(s, bool):
        return d
    if isinstance(s, int):
        return tf.int64 if d == tf.bool else d
    if isinstance(s, float):
        return d if d.is_floating or d.is_complex else tf.float64
    if d.is_complex:
        return d
    return tf.complex64 if d in (tf.float32, tf.float16, tf.bfloat16) else tf.complex128


def _const(s: Any, d: Any) -> Any:
    """Python scalar `s` as a 0-d tensor of dtype `d` (converted first, as TF will not
    turn True into an integer tensor nor 2 into a complex one). A zero with its sign
    bit set goes through NumPy: TF's eager cache of scalar constants is keyed by the
    Python value, and -0.0 == 0.0, so `tf.constant(-0.0)` can return a cached +0.0."""
    if d.is_bool:
        return tf.constant(bool(s), d)
    if d.is_integer:
        return tf.constant(int(s), d)
    value = complex(s) if d.is_complex else float(s)
    if _negative_zero(value):
        return tf.constant(np.asarray(value, d.as_numpy_dtype))
    return tf.constant(value, d)


def _negative_zero(value: Any) -> bool:
    if isinstance(value, complex):
        return _negative_zero(value.real) or _negative_zero(value.imag)
    return value == 0 and math.copysign(1.0, value) < 0


def _pair(x1: Any, x2: Any) -> tuple[Any, Any]:
    """Operands of a binary function as tensors of the standard's promoted dtype."""
    t1, t2 = isinstance(x1, tf.Tensor), isinstance(x2, tf.Tensor)
    if t1 and t2:
        if x1.dtype == x2.dtype:
            return x1, x2
        d = _common(x1.dtype, x2.dtype)
        return _cast(x1, d), _cast(x2, d)
    s1, s2 = isinstance(x1, _SCALARS), isinstance(x2, _SCALARS)
    if t1 and s2:
        d = _scalar_dtype(x1.dtype, x2)
        return _cast(x1, d), _const(x2, d)
    if t2 and s1:
        d = _scalar_dtype(x2.dtype, x1)
        return _const(x1, d), _cast(x2, d)
    if s1 and s2:
        return _pair(_arr(x1), x2)
    return _pair(x1 if t1 or s1 else _arr(x1), x2 if t2 or s2 else _arr(x2))


def _all_common(arrays: Any) -> list[Any]:
    """A sequence of arrays as tensors of their promoted dtype (concat, stack...)."""
    xs = [_arr(a) for a in arrays]
    if not xs:
        return xs
    d = xs[0].dtype
    for x in xs[1:]:
        if x.dtype != d:
            d = _common(d, x.dtype)
    return [_cast(x, d) for x in xs]


_WIDER = {"int8": "int32", "int16": "int32", "uint8": "int32", "uint16": "int32",
          "uint32": "int64", "uint64": "int64"}
_SIGNED_TWIN = {"uint8": "int8", "uint16": "int16", "uint32": "int32", "uint64": "int64"}


def _wide(fn: Any, d: Any, *xs: Any) -> Any:
    """`fn(*xs)` for integer dtypes TF has no kernel of (unsigned pow, sub-32-bit
    matmul): computed in a wider signed dtype and cast back, which wraps to the same
    bits as the narrow dtype's own arithmetic would."""
    wide = _WIDER.get(d.name)
    if wide is None:
        return fn(*xs)
    w = tf.as_dtype(wide)
    return tf.cast(fn(*(tf.cast(x, w) for x in xs)), d)


def _bitcast(fn: Any, x: Any, *args: Any) -> Any:
    """`fn(x, ...)` for ops that only move data (tile) where TF lacks the unsigned
    kernel: run on the same-width signed view of the bits."""
    twin = _SIGNED_TWIN.get(x.dtype.name)
    if twin is None:
        return fn(x, *args)
    return tf.bitcast(fn(tf.bitcast(x, tf.as_dtype(twin)), *args), x.dtype)


def _axes(axis: Any, ndim: int) -> list[int]:
    """`axis` (None, an int or a sequence) as a list of non-negative axes."""
    if axis is None:
        return list(range(ndim))
    if isinstance(axis, int):
        axis = (axis,)
    out = []
    for a in axis:
        if not -ndim <= a < max(ndim, 1) and not (ndim == 0 and a in (0, -1)):
            raise IndexError(f"axis {a} is out of bounds for an array of {ndim} dimensions")
        out.append(a % ndim if ndim else 0)
    return out


def _reduction_axis(axis: Any) -> Any:
    """An axis argument as TF's reductions take it: a tuple becomes a list (() then
    reduces nothing, as in the standard)."""
    return list(axis) if isinstance(axis, tuple) else axis


def _default_float(*values: Any) -> Any:
    return tf.complex128 if any(isinstance(v, complex) for v in values) else tf.float64


def _shape(shape: Any) -> list[int]:
    return [shape] if isinstance(shape, int) else list(shape)


# ------------------------------------------------------------------------- creation

def _asarray(obj: Any, dtype: Any, copy: Any) -> Any:
    """Tensors pass through (cast to `dtype` if given), other objects are converted,
    which always copies: `copy=False` then raises, as the standard asks. TF tensors are
    immutable, so `copy=True` needs no new buffer."""
    if isinstance(obj, tf.Tensor):
        if dtype is None or obj.dtype == dtype:
            return tf.identity(obj) if copy else obj
        if copy is False:
            raise ValueError("asarray: casting to another dtype needs a copy (copy=False)")
        return tf.cast(obj, dtype)
    if copy is False and not hasattr(obj, "__dlpack__"):
        raise ValueError("asarray: converting this object to a TF tensor copies it "
                         "(copy=False)")
    return _convert(obj, dtype)


def _holds_tensors(obj: Any) -> bool:
    return isinstance(obj, (list, tuple)) and bool(obj) and any(
        isinstance(o, tf.Tensor) or _holds_tensors(o) for o in obj)


def _arange(start: Any, stop: Any, step: Any, dtype: Any) -> Any:
    """Counted as the standard says (ceil((stop - start) / step) elements), in int64
    or float64, then cast: TF's range has no kernel for most dtypes."""
    if stop is None:
        start, stop = 0, start
    ints = all(isinstance(v, int) for v in (start, stop, step))
    dtype = dtype or (tf.int64 if ints else tf.float64)
    if ints and dtype.is_integer:
        n = max(0, -((start - stop) // step))
        return tf.cast(start + tf.range(n, dtype=tf.int64) * step, dtype)
    n = max(0, math.ceil((stop - start) / step))
    return tf.cast(start + tf.range(n, dtype=tf.float64) * step, dtype)


def _full(shape: Any, fill_value: Any, dtype: Any) -> Any:
    """The dtype defaults by the fill value's kind (bool, int64, float64, complex128)."""
    if isinstance(fill_value, tf.Tensor):
        return tf.fill(_shape(shape), _cast(fill_value, dtype or fill_value.dtype))
    if dtype is None:
        dtype = {bool: tf.bool, int: tf.int64, float: tf.float64,
                 complex: tf.complex128}.get(type(fill_value)) or _arr(fill_value).dtype
    return tf.fill(_shape(shape), _fill_const(fill_value, dtype))


def _fill_const(value: Any, dtype: Any) -> Any:
    if isinstance(value, float) and dtype.is_integer or isinstance(value, complex) and \
            not dtype.is_complex:
        return tf.cast(tf.constant(value), dtype)
    return _const(value, dtype)


def _full_like(x: Any, fill_value: Any, dtype: Any) -> Any:
    x = _arr(x)
    return tf.fill(tf.shape(x), _fill_const(fill_value, dtype or x.dtype))


def _eye(n_rows: int, n_cols: Any, k: int, dtype: Any) -> Any:
    n_cols = n_rows if n_cols is None else n_cols
    if not -n_rows < k < n_cols:  # no diagonal (and a k TF's int32 range may not hold)
        return tf.zeros([n_rows, n_cols], dtype or tf.float64)
    keep = tf.range(n_cols)[None, :] - tf.range(n_rows)[:, None] == k
    return tf.cast(keep, dtype or tf.float64)


def _linspace(start: Any, stop: Any, num: int, dtype: Any, endpoint: bool) -> Any:
    """Computed in float64 (real and imaginary parts apart for complex) and cast, so
    the float32 result is the float64 one rounded; the last value is `stop` itself."""
    dtype = dtype or _default_float(start, stop)
    if dtype.is_complex:
        start, stop = complex(start), complex(stop)
        re = _linspace(start.real, stop.real, num, tf.float64, endpoint)
        im = _linspace(start.imag, stop.imag, num, tf.float64, endpoint)
        return tf.cast(tf.complex(re, im), dtype)
    start, stop = float(start), float(stop)
    div = num - 1 if endpoint else num
    step = (stop - start) / div if div > 0 else 0.0
    values = start + tf.range(num, dtype=tf.float64) * step
    if endpoint and num > 1:
        values = tf.concat([values[:-1], tf.constant([stop], tf.float64)], 0)
    return tf.cast(values, dtype)


def _meshgrid(arrays: Any, indexing: str) -> list[Any]:
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', not {indexing!r}")
    return list(tf.meshgrid(*_all_common(arrays), indexing=indexing))


def _tri(x: Any, k: int, lower: bool) -> Any:
    x = _arr(x)
    rows, cols = x.shape[-2], x.shape[-1]
    offset = tf.range(cols)[None, :] - tf.range(rows)[:, None]
    keep = offset <= k if lower else offset >= k
    return tf.where(keep, x, tf.zeros_like(x))


def _from_dlpack(x: Any) -> Any:
    capsule = x.__dlpack__() if hasattr(x, "__dlpack__") else x
    return tf.experimental.dlpack.from_dlpack(capsule)


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
    return x if x.dtype == tf.bool else tf.math.not_equal(x, tf.zeros((), x.dtype))


def _bitwise(fn: Any, logical: Any) -> Any:
    def op(x1: Any, x2: Any) -> Any:
        a, b = _pair(x1, x2)
        return logical(a, b) if a.dtype == tf.bool else fn(a, b)
    op.__doc__ = "tf.bitwise takes integers only: bool operands use the logical op."
    return op


def _pow(x1: Any, x2: Any) -> Any:
    """TF has no unsigned pow kernel (computed wider), and refuses negative integer
    exponents, which the standard leaves undefined."""
    a, b = _pair(x1, x2)
    if a.dtype == tf.bool:
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
    return tf.math.logical_or(a, b) if a.dtype == tf.bool else tf.math.maximum(a, b)


def _minimum(x1: Any, x2: Any) -> Any:
    a, b = _pair(x1, x2)
    return tf.math.logical_and(a, b) if a.dtype == tf.bool else tf.math.minimum(a, b)


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


def _expm1(x: Any) -> Any:
    """TF's complex expm1 gives NaN wherever a part is infinite: complex numbers are
    computed as (e^a cos b - 1) + i e^a sin b, with the standard's special values."""
    x = _arr(x)
    if not x.dtype.is_complex:
        return tf.math.expm1(x)
    a, b = tf.math.real(x), tf.math.imag(x)
    cos, sin = tf.math.cos(b), tf.math.sin(b)
    re = tf.math.expm1(a) * cos + (cos - 1)
    im = tf.math.exp(a) * sin
    zero_b = b == 0  # the real axis: expm1(a) and the zero as given
    re = tf.where(zero_b, tf.math.expm1(a), re)
    im = tf.where(zero_b, b, im)
    inf = tf.constant(math.inf, a.dtype)
    re = tf.where(a == -inf, -tf.ones((), a.dtype), re)
    im = tf.where(a == -inf, tf.zeros((), a.dtype), im)
    blown = (a == inf) & ~tf.math.is_finite(b)
    re = tf.where(blown, inf, re)
    return tf.complex(re, im)


def _log1p(x: Any) -> Any:
    """TF's complex log1p gives NaN for infinite parts and for -1 + 0j: complex numbers
    as log|1 + z| + i arg(1 + z), the modulus' log through log1p near zero and through
    an overflow-free hypot elsewhere; an infinite part makes the real part +inf."""
    x = _arr(x)
    if not x.dtype.is_complex:
        return tf.math.log1p(x)
    a, b = tf.math.real(x), tf.math.imag(x)
    one = tf.ones((), a.dtype)
    small = tf.math.abs(a) + tf.math.abs(b) < 0.5
    near = 0.5 * tf.math.log1p(a * (2 + a) + b * b)
    far = tf.math.log(_hypot(a + one, b))
    re = tf.where(small, near, far)
    inf = tf.constant(math.inf, a.dtype)
    re = tf.where(tf.math.is_inf(a) | tf.math.is_inf(b), inf, re)
    return tf.complex(re, tf.math.atan2(b, a + one))


def _tanh(x: Any) -> Any:
    """tanh(±inf + bj) for finite b is ±1 with a zero of b's sign as imaginary part
    (TF's complex tanh gives the zero's sign from its intermediate products)."""
    x = _arr(x)
    out = tf.math.tanh(x)
    if not x.dtype.is_complex:
        return out
    a, b = tf.math.real(x), tf.math.imag(x)
    edge = tf.math.is_inf(a) & tf.math.is_finite(b)
    zero = tf.zeros((), a.dtype)
    limit = tf.complex(tf.math.sign(a), tf.where(_signbit(b), -zero, zero))
    return tf.where(edge, limit, out)


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
        return tf.math.log(x) / tf.math.log(tf.constant(base, x.dtype))
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
    return tf.math.logical_not(x) if x.dtype == tf.bool else tf.bitwise.invert(x)


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


def _unary(fn: Any) -> Any:
    def op(x: Any) -> Any:
        return fn(_arr(x))
    op.__doc__ = f"`{fn.__name__}` of any array-like."
    return op


# ------------------------------------------------------------------- linear algebra

def _matmul(x1: Any, x2: Any) -> Any:
    """NumPy's rules for 1-d operands; int8/int16/unsigned computed wider (TF has no
    such matmul kernel)."""
    a, b = _pair(x1, x2)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("matmul: operands must have at least one dimension")
    if a.dtype == tf.bool:
        return tf.cast(_matmul(tf.cast(a, tf.int32), tf.cast(b, tf.int32)), tf.bool)
    if a.shape[-1] != b.shape[0 if b.ndim == 1 else -2]:
        raise ValueError(f"matmul: shapes {a.shape} and {b.shape} do not align")
    return _wide(_matmul_same, a.dtype, a, b)


def _matmul_same(a: Any, b: Any) -> Any:
    if a.ndim == 1 and b.ndim == 1:
        return tf.tensordot(a, b, 1)
    if a.ndim == 1:
        return tf.linalg.matmul(a[None, :], b)[..., 0, :]
    if b.ndim == 1:
        return tf.linalg.matmul(a, b[:, None])[..., 0]
    return tf.linalg.matmul(a, b)


def _tensordot(x1: Any, x2: Any, axes: Any) -> Any:
    a, b = _pair(x1, x2)
    if not isinstance(axes, int):
        axes = [list(axes[0]), list(axes[1])]
    return _wide(lambda p, q: tf.tensordot(p, q, axes), a.dtype, a, b)


def _vecdot(x1: Any, x2: Any, axis: int) -> Any:
    """Sum of conj(x1) * x2 over `axis` after broadcasting; the axis must have the same
    size in both (broadcasting a 1 there is an error in the standard)."""
    a, b = _pair(x1, x2)
    if a.shape[axis] != b.shape[axis]:
        raise ValueError(f"vecdot: sizes {a.shape[axis]} and {b.shape[axis]} differ on "
                         f"axis {axis}")
    return tf.reduce_sum(tf.math.conj(a) * b, axis=axis)


def _matrix_transpose(x: Any) -> Any:
    x = _arr(x)
    if x.ndim < 2:
        raise ValueError("matrix_transpose: x needs at least two dimensions")
    return tf.linalg.matrix_transpose(x)


def _cross(x1: Any, x2: Any, axis: int) -> Any:
    a, b = _pair(x1, x2)
    shape = np.broadcast_shapes(tuple(a.shape), tuple(b.shape))
    if a.shape[axis] != 3 or b.shape[axis] != 3:
        raise ValueError("cross: the axis must have size 3 in both arrays")
    a, b = tf.broadcast_to(a, shape), tf.broadcast_to(b, shape)
    a0, a1, a2 = tf.unstack(a, axis=axis)
    b0, b1, b2 = tf.unstack(b, axis=axis)
    return tf.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=axis)


def _outer(x1: Any, x2: Any) -> Any:
    a, b = _pair(x1, x2)
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError("outer: both arrays must be one-dimensional")
    return a[:, None] * b[None, :]


def _diagonal(x: Any, offset: int) -> Any:
    """tf.linalg.diag_part rejects a diagonal with no elements: empty there."""
    x = _arr(x)
    rows, cols = x.shape[-2], x.shape[-1]
    if min(rows + min(offset, 0), cols - max(offset, 0)) <= 0:
        return tf.zeros(tuple(x.shape[:-2]) + (0,), x.dtype)
    return tf.linalg.diag_part(x, k=offset)


def _trace(x: Any, offset: int, dtype: Any) -> Any:
    x = _arr(x)
    d = dtype or _accumulator(x.dtype)
    return tf.reduce_sum(_cast(_diagonal(x, offset), d), axis=-1)


def _matrix_power(x: Any, n: int) -> Any:
    """Repeated squaring; n < 0 powers the inverse, n == 0 is the identity."""
    x = _arr(x)
    if n < 0:
        x, n = tf.linalg.inv(x), -n
    eye = tf.broadcast_to(tf.eye(x.shape[-1], dtype=x.dtype), tf.shape(x))
    out, base = eye, x
    while n:
        if n & 1:
            out = _wide(tf.linalg.matmul, out.dtype, out, base)
        n >>= 1
        if n:
            base = _wide(tf.linalg.matmul, base.dtype, base, base)
    return out


def _svd(x: Any, full_matrices: bool) -> Any:
    s, u, v = tf.linalg.svd(_arr(x), full_matrices=full_matrices)
    return SVDResult(u, s, tf.linalg.adjoint(v))


def _svdvals(x: Any) -> Any:
    return tf.linalg.svd(_arr(x), compute_uv=False)


def _rtol(x: Any, rtol: Any, s: Any) -> Any:
    """The singular-value cut-off: rtol (default max(M, N) * eps) times the largest."""
    if rtol is None:
        rtol = max(x.shape[-2:]) * np.finfo(s.dtype.as_numpy_dtype).eps
    tol = _as(rtol, s.dtype)
    if tol.ndim:
        tol = tol[..., None]
    return tol * tf.reduce_max(s, axis=-1, keepdims=True)


def _matrix_rank(x: Any, rtol: Any) -> Any:
    x = _arr(x)
    s = tf.linalg.svd(x, compute_uv=False)
    if s.shape[-1] == 0:
        return tf.zeros(s.shape[:-1], tf.int64)
    return tf.math.count_nonzero(s > _rtol(x, rtol, s), axis=-1, dtype=tf.int64)


def _pinv(x: Any, rtol: Any) -> Any:
    x = _arr(x)
    s, u, v = tf.linalg.svd(x, full_matrices=False)
    if s.shape[-1] == 0:
        return tf.zeros(tuple(x.shape[:-2]) + (x.shape[-1], x.shape[-2]), x.dtype)
    keep = s > _rtol(x, rtol, s)
    inv = tf.where(keep, 1 / tf.where(keep, s, tf.ones((), s.dtype)), tf.zeros((), s.dtype))
    return tf.linalg.matmul(v * tf.cast(inv, x.dtype)[..., None, :], u, adjoint_b=True)


def _slogdet(x: Any) -> Any:
    """TF gives log|det| of a complex matrix as a complex number; the standard a real."""
    sign, logabs = tf.linalg.slogdet(_arr(x))
    return SlogdetResult(sign, tf.math.real(logabs) if logabs.dtype.is_complex else logabs)


def _eigh(x: Any) -> Any:
    values, vectors = tf.linalg.eigh(_arr(x))
    return EighResult(values, vectors)


def _qr(x: Any, mode: str) -> Any:
    if mode not in ("reduced", "complete"):
        raise ValueError(f"qr: mode must be 'reduced' or 'complete', not {mode!r}")
    q, r = tf.linalg.qr(_arr(x), full_matrices=mode == "complete")
    return QRResult(q, r)


def _cholesky(x: Any, upper: bool) -> Any:
    lower = tf.linalg.cholesky(_arr(x))
    return tf.linalg.adjoint(lower) if upper else lower


def _solve(x1: Any, x2: Any) -> Any:
    """tf.linalg.solve does not broadcast the stacks; a 1-d x2 is one column."""
    a, b = _pair(x1, x2)
    n = a.shape[-1]
    column = b.ndim == 1
    if column:
        b = b[:, None]
    batch = np.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
    out = tf.linalg.solve(tf.broadcast_to(a, batch + (n, n)),
                          tf.broadcast_to(b, batch + tuple(b.shape[-2:])))
    return out[..., 0] if column else out


def _vector_norm(x: Any, axis: Any, keepdims: bool, ord: Any) -> Any:  # noqa: A002
    x = _arr(x)
    a = tf.math.abs(x)
    axis = _reduction_axis(axis)
    if ord == math.inf:
        return tf.reduce_max(a, axis=axis, keepdims=keepdims)
    if ord == -math.inf:
        return tf.reduce_min(a, axis=axis, keepdims=keepdims)
    if ord == 0:
        n = tf.math.count_nonzero(a, axis=axis, keepdims=keepdims)
        return tf.cast(n, a.dtype)
    if ord == 1:
        return tf.reduce_sum(a, axis=axis, keepdims=keepdims)
    if ord == 2:
        return tf.math.sqrt(tf.reduce_sum(a * a, axis=axis, keepdims=keepdims))
    p = tf.constant(ord, a.dtype)
    return tf.reduce_sum(a ** p, axis=axis, keepdims=keepdims) ** (1 / p)


def _matrix_norm(x: Any, keepdims: bool, ord: Any) -> Any:  # noqa: A002
    """'fro' and 'nuc', and the 1, 2, inf norms and their negative (minimum) forms."""
    x = _arr(x)
    a = tf.math.abs(x)
    if ord == "fro":
        out = tf.math.sqrt(tf.reduce_sum(a * a, axis=[-2, -1]))
    elif ord in ("nuc", 2, -2):
        s = tf.linalg.svd(x, compute_uv=False)
        out = {"nuc": tf.reduce_sum, 2: tf.reduce_max, -2: tf.reduce_min}[ord](s, axis=-1)
    elif ord in (1, -1, math.inf, -math.inf):
        sums = tf.reduce_sum(a, axis=-2 if ord in (1, -1) else -1)
        out = (tf.reduce_max if ord > 0 else tf.reduce_min)(sums, axis=-1)
    else:
        raise ValueError(f"matrix_norm: unsupported ord {ord!r}")
    return out[..., None, None] if keepdims else out


# ------------------------------------------------------------------ manipulation

def _concat(arrays: Any, axis: Any) -> Any:
    xs = _all_common(arrays)
    if axis is None:
        return tf.concat([tf.reshape(x, [-1]) for x in xs], 0)
    return tf.concat(xs, axis)


def _stack(arrays: Any, axis: int) -> Any:
    return tf.stack(_all_common(arrays), axis)


def _expand_dims(x: Any, axis: int) -> Any:
    x = _arr(x)
    if not -x.ndim - 1 <= axis <= x.ndim:
        raise IndexError(f"expand_dims: axis {axis} is out of bounds for {x.ndim + 1} "
                         "dimensions")
    return tf.expand_dims(x, axis)


def _squeeze(x: Any, axis: Any) -> Any:
    x = _arr(x)
    axes = _axes(axis, x.ndim)
    if any(x.shape[a] != 1 for a in axes):
        raise ValueError(f"squeeze: axis {axis} of shape {tuple(x.shape)} is not of size 1")
    return tf.reshape(x, [d for i, d in enumerate(x.shape) if i not in axes])


def _flip(x: Any, axis: Any) -> Any:
    x = _arr(x)
    return tf.reverse(x, _axes(axis, x.ndim)) if x.ndim else x


def _moveaxis(x: Any, source: Any, destination: Any) -> Any:
    x = _arr(x)
    src, dst = _axes(source, x.ndim), _axes(destination, x.ndim)
    if len(src) != len(dst):
        raise ValueError("moveaxis: source and destination need as many axes")
    order = [a for a in range(x.ndim) if a not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return tf.transpose(x, order)


def _repeat(x: Any, repeats: Any, axis: Any) -> Any:
    """A gather of repeated indices: works for every dtype (TF's repeat has no uint16
    kernel)."""
    x = _arr(x)
    if axis is None:
        x, axis = tf.reshape(x, [-1]), 0
    n = x.shape[axis]
    reps = repeats if isinstance(repeats, int) else _cast(_arr(repeats), tf.int64)
    index = tf.repeat(tf.range(n, dtype=tf.int64), reps)
    return tf.gather(x, index, axis=axis)


def _roll(x: Any, shift: Any, axis: Any) -> Any:
    x = _arr(x)
    if axis is None:
        total = shift if isinstance(shift, int) else builtins.sum(shift)
        return tf.reshape(tf.roll(tf.reshape(x, [-1]), total, 0), tf.shape(x))
    axes = [axis] if isinstance(axis, int) else list(axis)
    shifts = [shift] * len(axes) if isinstance(shift, int) else list(shift)
    if not axes:
        return x
    return tf.roll(x, shifts, axes)


def _tile(x: Any, repetitions: Any) -> Any:
    """Shape and repetitions aligned on the right, the shorter padded with ones."""
    x = _arr(x)
    reps = list(repetitions)
    rank = max(len(reps), x.ndim)
    x = tf.reshape(x, [1] * (rank - x.ndim) + list(x.shape))
    return _bitcast(tf.tile, x, [1] * (rank - len(reps)) + reps)


def _unstack(x: Any, axis: int) -> tuple[Any, ...]:
    return tuple(tf.unstack(_arr(x), axis=axis))


def _broadcast_arrays(arrays: Any) -> list[Any]:
    xs = [_arr(a) for a in arrays]
    shape = np.broadcast_shapes(*(tuple(x.shape) for x in xs))
    return [tf.broadcast_to(x, shape) for x in xs]


def _take(x: Any, indices: Any, axis: Any) -> Any:
    x, indices = _arr(x), _arr(indices)
    if axis is None:
        if x.ndim != 1:
            raise ValueError("take: axis may be None only for a one-dimensional x")
        axis = 0
    n = x.shape[axis]
    indices = tf.where(indices < 0, indices + tf.cast(n, indices.dtype), indices)
    return tf.gather(x, indices, axis=axis)


def _take_along_axis(x: Any, indices: Any, axis: int) -> Any:
    """A batched gather along the last axis after moving `axis` there and broadcasting
    every other axis."""
    x, indices = _arr(x), _arr(indices)
    rank = x.ndim
    axis = axis % rank
    perm = [i for i in range(rank) if i != axis] + [axis]
    back = [int(i) for i in np.argsort(perm)]
    xt, it = tf.transpose(x, perm), tf.transpose(indices, perm)
    batch = list(np.broadcast_shapes(tuple(xt.shape[:-1]), tuple(it.shape[:-1])))
    xt = tf.broadcast_to(xt, batch + [xt.shape[-1]])
    it = tf.broadcast_to(it, batch + [it.shape[-1]])
    it = tf.where(it < 0, it + tf.cast(xt.shape[-1], it.dtype), it)
    return tf.transpose(tf.gather(xt, it, batch_dims=rank - 1), back)


# -------------------------------------------------------------------- reductions

def _accumulator(d: Any) -> Any:
    """sum/prod/trace's default dtype: int64 for signed (and bool), uint64 for
    unsigned integers, the input's own for floats."""
    if d.is_bool or (d.is_integer and not d.is_unsigned):
        return tf.int64
    if d.is_unsigned:
        return tf.uint64
    return d


def _sum(x: Any, axis: Any, dtype: Any, keepdims: bool) -> Any:
    x = _arr(x)
    return tf.reduce_sum(_cast(x, dtype or _accumulator(x.dtype)),
                         axis=_reduction_axis(axis), keepdims=keepdims)


def _prod(x: Any, axis: Any, dtype: Any, keepdims: bool) -> Any:
    x = _arr(x)
    return tf.reduce_prod(_cast(x, dtype or _accumulator(x.dtype)),
                          axis=_reduction_axis(axis), keepdims=keepdims)


def _reduce(fn: Any) -> Any:
    def op(x: Any, axis: Any, keepdims: bool) -> Any:
        x = _arr(x)
        if x.dtype == tf.bool:
            return tf.cast(fn(tf.cast(x, tf.int8), axis=_reduction_axis(axis),
                              keepdims=keepdims), tf.bool)
        return fn(x, axis=_reduction_axis(axis), keepdims=keepdims)
    op.__doc__ = f"`{fn.__name__}` with the standard's axis forms (a tuple, ())."
    return op


def _all(x: Any, axis: Any, keepdims: bool) -> Any:
    return tf.reduce_all(_truth(_arr(x)), axis=_reduction_axis(axis), keepdims=keepdims)


def _any(x: Any, axis: Any, keepdims: bool) -> Any:
    return tf.reduce_any(_truth(_arr(x)), axis=_reduction_axis(axis), keepdims=keepdims)


def _var(x: Any, axis: Any, correction: float, keepdims: bool) -> Any:
    """Mean squared deviation over n - correction (TF's reduce_variance divides by n)."""
    x = _arr(x)
    axes = _axes(axis, x.ndim)
    n = int(np.prod([x.shape[a] for a in axes]))
    mean = tf.reduce_mean(x, axis=axes, keepdims=True)
    dev = tf.math.abs(x - mean) if x.dtype.is_complex else x - mean
    total = tf.reduce_sum(dev * dev, axis=axes, keepdims=keepdims)
    return total / tf.constant(n - correction, total.dtype)


def _std(x: Any, axis: Any, correction: float, keepdims: bool) -> Any:
    return tf.math.sqrt(_var(x, axis, correction, keepdims))


def _arg_reduce(fn: Any) -> Any:
    def op(x: Any, axis: Any, keepdims: bool) -> Any:
        x = _arr(x)
        if axis is None:
            out = fn(tf.reshape(x, [-1]), axis=0, output_type=tf.int64)
            return tf.reshape(out, [1] * x.ndim) if keepdims else out
        out = fn(x, axis=axis, output_type=tf.int64)
        return tf.expand_dims(out, axis) if keepdims else out
    op.__doc__ = f"`{fn.__name__}` in int64, with axis None (flattened) and keepdims."
    return op


def _count_nonzero(x: Any, axis: Any, keepdims: bool) -> Any:
    x = _arr(x)
    return tf.math.count_nonzero(_truth(x), axis=_reduction_axis(axis), keepdims=keepdims,
                                 dtype=tf.int64)


def _cumulative(fn: Any, initial: int) -> Any:
    def op(x: Any, axis: Any, dtype: Any, include_initial: bool) -> Any:
        x = _arr(x)
        if axis is None:
            if x.ndim > 1:
                raise ValueError("cumulative functions need an axis for more than one "
                                 "dimension")
            x, axis = tf.reshape(x, [-1]), 0
        x = _cast(x, dtype or _accumulator(x.dtype))
        out = fn(x, axis=axis)
        if include_initial:
            shape = list(x.shape)
            shape[axis] = 1
            out = tf.concat([tf.fill(shape, tf.constant(initial, x.dtype)), out], axis)
        return out
    op.__doc__ = (f"`{fn.__name__}` in sum's accumulation dtype, `include_initial` "
                  f"putting {initial} first")
    return op


def _diff(x: Any, axis: int, n: int, prepend: Any, append: Any) -> Any:
    x = _arr(x)
    parts = [x]
    if prepend is not None:
        parts.insert(0, _edge(prepend, x, axis))
    if append is not None:
        parts.append(_edge(append, x, axis))
    if len(parts) > 1:
        x = tf.concat(_all_common(parts), axis)
    axis = axis % x.ndim
    lead = (slice(None),) * axis
    for _ in range(n):
        hi, lo = x[lead + (slice(1, None),)], x[lead + (slice(None, -1),)]
        x = tf.math.not_equal(hi, lo) if x.dtype == tf.bool else hi - lo
    return x


def _edge(v: Any, x: Any, axis: int) -> Any:
    """A scalar prepend/append as a slab one element thick along `axis`."""
    if isinstance(v, _SCALARS):
        shape = list(x.shape)
        shape[axis] = 1
        return tf.fill(shape, _const(v, _scalar_dtype(x.dtype, v)))
    return _arr(v)


# ------------------------------------------------------------- searching and sets

def _where(condition: Any, x1: Any, x2: Any) -> Any:
    a, b = _pair(x1, x2)
    return tf.where(_truth(_arr(condition)), a, b)


def _nonzero(x: Any) -> tuple[Any, ...]:
    x = _arr(x)
    if x.ndim == 0:
        raise ValueError("nonzero: x must have at least one dimension")
    idx = tf.where(_truth(x))
    return tuple(idx[:, i] for i in range(x.ndim))


def _searchsorted(x1: Any, x2: Any, side: str, sorter: Any) -> Any:
    a, v = _pair(x1, x2)
    if sorter is not None:
        a = tf.gather(a, sorter)
    if a.dtype == tf.bool:
        a, v = tf.cast(a, tf.int8), tf.cast(v, tf.int8)
    flat = tf.reshape(v, [1, -1])
    out = tf.searchsorted(a[None, :], flat, side=side, out_type=tf.int64)
    return tf.reshape(out, tf.shape(v))


def _sortable(x: Any) -> Any:
    """TF sorts no bool: as uint8 (its order is the same)."""
    return tf.cast(x, tf.uint8) if x.dtype == tf.bool else x


def _argsort(x: Any, axis: int, descending: bool, stable: bool) -> Any:
    """Stable always (TF's stable sort costs the same); NaNs go last, as in NumPy, by a
    second stable pass (TF's sort compares NaN wrongly and leaves them in place)."""
    x = _arr(x)
    if x.ndim == 0:
        return tf.zeros((), tf.int64)
    direction = "DESCENDING" if descending else "ASCENDING"
    key = _sortable(x)
    nans = tf.math.is_nan(x) if x.dtype.is_floating else None
    if nans is not None and bool(tf.reduce_any(nans)):
        fill = tf.constant(-math.inf if descending else math.inf, x.dtype)
        order = tf.argsort(tf.where(nans, fill, x), axis=axis, direction=direction,
                           stable=True)
        late = tf.cast(tf.gather(nans, order, axis=axis, batch_dims=_batch(x, axis)),
                       tf.int8)
        again = tf.argsort(late, axis=axis, stable=True)
        order = tf.gather(order, again, axis=axis, batch_dims=_batch(x, axis))
        return tf.cast(order, tf.int64)
    return tf.cast(tf.argsort(key, axis=axis, direction=direction, stable=True), tf.int64)


def _batch(x: Any, axis: int) -> int:
    return axis % x.ndim


def _sort(x: Any, axis: int, descending: bool, stable: bool) -> Any:
    x = _arr(x)
    if x.ndim == 0:
        return x
    if x.dtype.is_floating and bool(tf.reduce_any(tf.math.is_nan(x))):
        order = _argsort(x, axis, descending, stable)
        return _gather_along(x, order, axis)
    direction = "DESCENDING" if descending else "ASCENDING"
    out = tf.sort(_sortable(x), axis=axis, direction=direction)
    return _cast(out, x.dtype)


def _gather_along(x: Any, order: Any, axis: int) -> Any:
    """x's elements in `order` (indices of the same shape) along `axis`."""
    axis = axis % x.ndim
    perm = [i for i in range(x.ndim) if i != axis] + [axis]
    back = [int(i) for i in np.argsort(perm)]
    xt, ot = tf.transpose(x, perm), tf.transpose(order, perm)
    return tf.transpose(tf.gather(xt, ot, batch_dims=x.ndim - 1), back)


def _unique(x: Any) -> tuple[Any, Any, Any]:
    """Values (sorted, as NumPy returns them), inverse indices into them, counts. Each
    NaN is its own value, as the standard says (TF's unique hashes NaN != NaN)."""
    flat = tf.reshape(_arr(x), [-1])
    if flat.dtype.is_complex:
        pairs = tf.stack([tf.math.real(flat), tf.math.imag(flat)], -1)
        y, idx = tf.raw_ops.UniqueV2(x=pairs, axis=[0], out_idx=tf.int64)
        values = tf.complex(y[:, 0], y[:, 1])
        counts = tf.math.bincount(idx, minlength=tf.shape(values)[0], dtype=tf.int64)
        return values, idx, counts
    values, idx, counts = tf.unique_with_counts(flat, out_idx=tf.int64)
    if values.dtype != tf.bool and values.shape[0] > 1:
        order = _argsort(values, -1, False, True)
        rank = tf.math.invert_permutation(order)
        values, counts, idx = tf.gather(values, order), tf.gather(counts, order), \
            tf.gather(rank, idx)
    return values, idx, counts


def _unique_values(x: Any) -> Any:
    return _unique(x)[0]


def _unique_counts(x: Any) -> Any:
    values, _, counts = _unique(x)
    return UniqueCountsResult(values, counts)


def _unique_inverse(x: Any) -> Any:
    x = _arr(x)
    values, idx, _ = _unique(x)
    return UniqueInverseResult(values, tf.reshape(idx, tf.shape(x)))


def _unique_all(x: Any) -> Any:
    """`indices`: each value's first position in the flattened x."""
    x = _arr(x)
    values, idx, counts = _unique(x)
    n = tf.size(x, out_type=tf.int64)
    first = tf.math.unsorted_segment_min(tf.range(n), idx, tf.shape(values)[0])
    return UniqueAllResult(values, first, tf.reshape(idx, tf.shape(x)), counts)


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


def _fftn(x: Any, s: Any, axes: Any, norm: str) -> Any:
    x = _arr(x)
    sizes, axes = _s_axes(x, s, axes)
    for n, a in zip(sizes, axes):
        x = _c2c(x, n, a, norm, False)
    return _complex_of(x)


def _ifftn(x: Any, s: Any, axes: Any, norm: str) -> Any:
    x = _arr(x)
    sizes, axes = _s_axes(x, s, axes)
    for n, a in zip(sizes, axes):
        x = _c2c(x, n, a, norm, True)
    return _complex_of(x)


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

KERNELS: dict[str, Any] = {
    name: value for name, value in dict(globals()).items()
    if name.startswith("_") and not name.startswith("__") and callable(value)
    and not isinstance(value, type)}
"""What the spellings may call by name (every private function above)."""
