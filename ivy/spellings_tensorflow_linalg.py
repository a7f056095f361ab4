"""Linear algebra and manipulation kernels of the TensorFlow spellings (see
`spellings_tensorflow_kernels.py` for the rules they share)."""

from __future__ import annotations

import builtins
import math
from typing import Any

import numpy as np

from .spellings_tensorflow_elementwise import (
    _as,
)
from .spellings_tensorflow_kernels import (
    EighResult,
    QRResult,
    SlogdetResult,
    SVDResult,
    _all_common,
    _arr,
    _axes,
    _bitcast,
    _cast,
    _pair,
    _reduction_axis,
    _wide,
    tf,
)

# ------------------------------------------------------------------- linear algebra

def _matmul(x1: Any, x2: Any) -> Any:
    """NumPy's rules for 1-d operands; int8/int16/unsigned computed wider (TF has no
    such matmul kernel)."""
    a, b = _pair(x1, x2)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("matmul: operands must have at least one dimension")
    if a.dtype is tf.bool:
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
    stack_a, stack_b = tuple(a.shape[:-2]), tuple(b.shape[:-2])
    if stack_a != stack_b:  # (broadcasting copies: only where the stacks differ)
        batch = np.broadcast_shapes(stack_a, stack_b)
        a, b = tf.broadcast_to(a, batch + (n, n)), tf.broadcast_to(b, batch + b.shape[-2:])
    out = tf.linalg.solve(a, b)
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
