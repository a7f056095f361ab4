"""The functions TensorFlow's spellings call where one TF call does not give the standard.

TF ops take operands of one dtype and promote nothing, so every function of two or more
arrays first brings them to the standard's promoted dtype (`_pair`, `_common`), Python
scalars taking the array's dtype as the standard says. TF also lacks kernels for some
dtypes (unsigned `pow`, `matmul` below 32 bits, `uint16` `tile`): those compute in a
dtype that gives the same bits (`_wide`, `_bitcast`). Creation functions default to the
dtypes the namespace reports (float64, int64, complex128), not TF's float32/int32.

TensorFlow is imported on first use (`_Lazy`): importing `ivy` loads no framework.
Shapes are static in eager mode, so index and shape math is plain Python here. TF interns
its `DType`s (a tensor's, a variable's and `tf.as_dtype`'s are the one object per
dtype), so the spellings compare dtypes with `is`: `==` is a Python `__eq__` at ~0.7 us.
"""

from __future__ import annotations

import importlib
import math
from typing import Any

import numpy as np

from .dtypes import result_type_names
from .results import (  # noqa: F401 (re-exported to the spellings that build them)
    EighResult,
    QRResult,
    SlogdetResult,
    SVDResult,
    UniqueAllResult,
    UniqueCountsResult,
    UniqueInverseResult,
)


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


class _Kinds(dict):
    """`id` of a TF dtype -> its kind: 'b'ool, 'i'nt, 'u'int, 'f'loat, 'c'omplex; filled
    on first sight of each dtype, so the spellings' fast paths test a dtype with one C
    lookup. Keyed by `id`: TF interns its dtypes, and a `DType` hashes in Python (~0.3 us,
    which slowed a 20 us `tf.math.tanh` by 3-4 us measured in the spelling)."""

    def __missing__(self, key: int) -> str:
        dtype = next(d for d in vars(tf.dtypes).values()
                     if isinstance(d, tf.dtypes.DType) and id(d) == key)
        kind = ("b" if dtype.is_bool else "u" if dtype.is_unsigned else "i" if dtype.is_integer
                else "c" if dtype.is_complex else "f")
        self[key] = kind
        return kind


class _IsTensor(dict):
    """Python type -> whether it is a tf.Tensor (eager or symbolic) or a tf.Variable,
    filled likewise: TF's ops take a variable wherever they take a tensor."""

    def __missing__(self, cls: type) -> bool:
        value = self[cls] = issubclass(cls, (tf.Tensor, tf.Variable))
        return value


KINDS = _Kinds()
IS_TENSOR = _IsTensor()


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
    if tf.is_tensor(obj):  # a variable (TF's, Keras's): read it where the tape sees it
        obj = tf.convert_to_tensor(obj)
        return obj if dtype is None else _cast(obj, dtype)
    if not _convertible(obj):
        raise TypeError(f"cannot make a TF tensor of {type(obj).__name__}")
    if _holds_tensors(obj):
        out = tf.stack(_all_common(obj))
        return out if dtype is None else _cast(out, dtype)
    return tf.constant(np.asarray(obj, None if dtype is None else dtype.as_numpy_dtype))


def _convertible(obj: Any) -> bool:
    """Whether `obj` is data NumPy converts without calling back into it: scalars,
    arrays (NumPy's, or any with `__array__`), tensors, and lists/tuples of those.
    Anything else (an `ivy_ir` tracer) is refused before NumPy would index it element
    by element, which would record ops into a trace."""
    if isinstance(obj, (list, tuple)):
        return all(_convertible(o) for o in obj)
    return isinstance(obj, (*_SCALARS, np.ndarray, np.generic, tf.Tensor)) or \
        hasattr(obj, "__array__")


def _cast(x: Any, dtype: Any) -> Any:
    return x if x.dtype is dtype else tf.cast(x, dtype)


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
        if x1.dtype is x2.dtype:
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
        if x.dtype is not d:
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
    if copy is False:
        return _shared(obj, dtype)
    return _convert(obj, dtype)


def _shared(obj: Any, dtype: Any) -> Any:
    """`asarray(copy=False)` of a foreign array: a tensor on the same memory through
    DLPack, or the ValueError the standard asks for where that cannot be."""
    try:
        out = tf.experimental.dlpack.from_dlpack(obj.__dlpack__())
    except Exception as exc:  # no __dlpack__, or TF refuses it (dtype, alignment)
        raise ValueError(f"asarray: {type(obj).__name__} cannot become a TF tensor "
                         "without a copy (copy=False)") from exc
    if dtype is not None and out.dtype != dtype:
        raise ValueError("asarray: casting to another dtype needs a copy (copy=False)")
    return out


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
    if not (isinstance(start, _SCALARS) and isinstance(stop, _SCALARS)):
        return _batched_linspace(start, stop, num, dtype, endpoint)
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


def _batched_linspace(start: Any, stop: Any, num: int, dtype: Any, endpoint: bool) -> Any:
    """Array endpoints (the 2021 API's batched form): samples along a new last axis,
    computed in float64 (complex128) and cast to `dtype`, else the endpoints' own
    floating dtype."""
    a, b = _pair(start, stop)
    out = dtype or (a.dtype if a.dtype.is_floating or a.dtype.is_complex else tf.float64)
    wide = tf.complex128 if a.dtype.is_complex or out.is_complex else tf.float64
    a, b = tf.cast(a, wide)[..., None], tf.cast(b, wide)[..., None]
    div = num - 1 if endpoint else num
    steps = tf.cast(tf.range(num, dtype=tf.float64) / (div if div > 0 else 1), wide)
    values = a + (b - a) * steps
    if endpoint and num > 1:
        values = tf.concat([values[..., :-1], b + tf.zeros_like(values[..., -1:])], -1)
    return tf.cast(values, out)


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
