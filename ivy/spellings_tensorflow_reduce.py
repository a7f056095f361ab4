"""Reduction, searching and set kernels of the TensorFlow spellings (see
`spellings_tensorflow_kernels.py` for the rules they share)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .spellings_tensorflow_elementwise import (
    _truth,
)
from .spellings_tensorflow_kernels import (
    _SCALARS,
    UniqueAllResult,
    UniqueCountsResult,
    UniqueInverseResult,
    _all_common,
    _arr,
    _axes,
    _cast,
    _const,
    _pair,
    _reduction_axis,
    _scalar_dtype,
    tf,
)
from .spellings_tensorflow_linalg import _diagonal

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
        if x.dtype is tf.bool:
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
        x = tf.math.not_equal(hi, lo) if x.dtype is tf.bool else hi - lo
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
    if a.dtype is tf.bool:
        a, v = tf.cast(a, tf.int8), tf.cast(v, tf.int8)
    flat = tf.reshape(v, [1, -1])
    out = tf.searchsorted(a[None, :], flat, side=side, out_type=tf.int64)
    return tf.reshape(out, tf.shape(v))


def _sortable(x: Any) -> Any:
    """TF sorts no bool: as uint8 (its order is the same)."""
    return tf.cast(x, tf.uint8) if x.dtype is tf.bool else x


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
        late = tf.cast(_gather_along(nans, order, axis), tf.int8)
        again = tf.argsort(late, axis=axis, stable=True)
        return tf.cast(_gather_along(order, again, axis), tf.int64)
    return tf.cast(tf.argsort(key, axis=axis, direction=direction, stable=True), tf.int64)


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
        counts = tf.math.unsorted_segment_sum(tf.ones_like(idx), idx, tf.shape(values)[0])
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


def _trace(x: Any, offset: int, dtype: Any) -> Any:
    x = _arr(x)
    d = dtype or _accumulator(x.dtype)
    return tf.reduce_sum(_cast(_diagonal(x, offset), d), axis=-1)
