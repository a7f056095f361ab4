"""Pure-NumPy kernels for ops that NumPy has no single function for.

The emitter copies the source of each kernel a program uses into the generated code,
so these functions may only use `np` and `math` and each other.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = [
    "argsort", "column_signs", "eigh", "erf", "erfc", "gather_nd", "lu", "matrix_exp", "nd_index",
    "one_hot",
    "random_uniform", "scatter_combine", "scatter_nd", "searchsorted", "sort", "svd", "top_k",
    "vector_norm",
]


def erf(x):
    # math.erf is correctly rounded; NumPy has no erf of its own
    return np.vectorize(math.erf, otypes=[x.dtype])(x) if x.size else x.copy()


def erfc(x):
    # math.erfc keeps its relative precision in the tail, where 1 - erf(x) is all rounding
    return np.vectorize(math.erfc, otypes=[x.dtype])(x) if x.size else x.copy()


def one_hot(indices, depth, axis, dtype):
    hot = np.arange(depth) == np.expand_dims(indices, -1)
    return np.moveaxis(hot, -1, axis).astype(dtype)


def vector_norm(x, ord, axis, keepdims, dtype):
    # np.linalg.norm takes at most two axes; this one reduces any set of axes
    a = np.abs(x)
    if ord == math.inf:
        out = np.max(a, axis=axis, keepdims=keepdims, initial=0)
    elif ord == -math.inf:
        out = np.min(a, axis=axis, keepdims=keepdims, initial=math.inf)
    elif ord == 0:
        out = np.sum(a != 0, axis=axis, keepdims=keepdims)
    elif ord == 1:
        out = np.sum(a, axis=axis, keepdims=keepdims)
    elif ord == 2:
        out = np.sqrt(np.sum(a * a, axis=axis, keepdims=keepdims))
    else:
        out = np.sum(a ** ord, axis=axis, keepdims=keepdims) ** (1.0 / ord)
    return np.asarray(out).astype(dtype, copy=False)


def nd_index(indices, x):
    # (..., k) indices -> a tuple of k flat index arrays and the shape of the gathered slices
    k = indices.shape[-1]
    flat = indices.reshape(math.prod(indices.shape[:-1]), k)
    return tuple(flat.T), (flat.shape[0],) + x.shape[k:]


def gather_nd(x, indices):
    index, shape = nd_index(indices, x)
    out = x[index] if index else np.broadcast_to(x, shape)
    return np.array(out.reshape(indices.shape[:-1] + x.shape[indices.shape[-1]:]))


def scatter_nd(x, indices, updates):
    # later updates of one index win, as with NumPy fancy assignment
    out = x.copy()
    index, shape = nd_index(indices, x)
    upd = updates.reshape(shape)
    if index:
        out[index] = upd
    elif shape[0]:
        out[...] = upd[-1]
    return out


def scatter_combine(x, indices, updates, ufunc):
    # every update of a repeated index combines (ufunc.at does not buffer)
    out = x.copy()
    index, shape = nd_index(indices, x)
    upd = updates.reshape(shape)
    if index:
        ufunc.at(out, index, upd)
    elif shape[0]:
        out = ufunc(out, ufunc.reduce(upd, axis=0, dtype=out.dtype))
    return out


def searchsorted(a, v, side):
    # one sorted row, or a batch of rows each searched for its own row of v
    if a.ndim == 1:
        return np.searchsorted(a, v, side=side).astype(np.int64)
    out = np.empty(v.shape, np.int64)
    for i in np.ndindex(*a.shape[:-1]):
        out[i] = np.searchsorted(a[i], v[i], side=side)
    return out


def argsort(x, axis, descending):
    # stable both ways: descending sorts the reversed axis and maps the indices back
    if x.ndim == 0:
        return np.zeros((), dtype=np.int64)
    if not descending:
        return np.argsort(x, axis=axis, kind="stable").astype(np.int64, copy=False)
    n = x.shape[axis]
    rev = np.argsort(np.flip(x, axis), axis=axis, kind="stable")
    return (n - 1 - np.flip(rev, axis)).astype(np.int64, copy=False)


def sort(x, axis, descending):
    if x.ndim == 0:
        return x.copy()
    return np.take_along_axis(x, argsort(x, axis, descending), axis)


def top_k(x, k, axis, largest):
    # ties keep their original order (stable sort)
    idx = np.take(argsort(x, axis, largest), np.arange(k), axis=axis)
    return np.take_along_axis(x, idx, axis), idx


def random_uniform(key, low, high, shape, dtype):
    u = np.random.default_rng(int(key) % 2**64).uniform(low, high, shape).astype(dtype)
    # rounding a float64 draw to a narrower dtype can reach `high`; keep [low, high)
    top = np.nextafter(np.asarray(high, dtype), np.asarray(low, dtype))
    return np.where(u < np.asarray(high, dtype), u, top).astype(dtype, copy=False)


def column_signs(v):
    # +1/-1 per column of v: the sign of its first largest-magnitude component (ops.spec's
    # sign rule for svd/eigh); +1 for columns of no components
    if v.shape[-2] == 0:
        return np.ones(v.shape[:-2] + v.shape[-1:], v.dtype)
    i = np.argmax(np.abs(v), axis=-2)[..., None, :]
    return np.where(np.take_along_axis(v, i, axis=-2)[..., 0, :] < 0, -1, 1).astype(v.dtype)


def svd(x, full_matrices):
    # pair j < k flipped by u[:, j]'s sign; extra columns of u / rows of vh by their own
    u, s, vh = np.linalg.svd(x, full_matrices=full_matrices)
    k = s.shape[-1]
    su, sv = column_signs(u), column_signs(np.swapaxes(vh, -1, -2))
    sv = np.concatenate([su[..., :k], sv[..., k:]], axis=-1)
    return u * su[..., None, :], s, vh * sv[..., :, None]


def eigh(x):
    w, v = np.linalg.eigh(x)
    return w, v * column_signs(v)[..., None, :]


def lu(x):
    # getrf's partial pivoting (ops.spec), one column at a time over the whole batch; a
    # zero pivot leaves its column unscaled (its entries below are zero already)
    n, batch = x.shape[-1], x.shape[:-2]
    b = math.prod(batch)
    a = np.array(x, copy=True).reshape((b, n, n))
    rows = np.arange(b)
    pivots = np.zeros((b, n), np.int32)
    perm = np.tile(np.arange(n, dtype=np.int32), (b, 1))
    for k in range(n):
        p = k + np.argmax(np.abs(a[:, k:, k]), axis=-1)
        pivots[:, k] = p
        a[rows, k], a[rows, p] = a[rows, p], a[rows, k]
        perm[rows, k], perm[rows, p] = perm[rows, p], perm[rows, k]
        pivot = a[:, k, k]
        column = a[:, k + 1:, k] / np.where(pivot == 0, 1, pivot)[:, None]
        a[:, k + 1:, k] = column
        a[:, k + 1:, k + 1:] -= column[:, :, None] * a[:, k, None, k + 1:]
    return a.reshape(x.shape), pivots.reshape(batch + (n,)), perm.reshape(batch + (n,))


def matrix_exp(x):
    # Higham's scaling and squaring (SIAM J. Matrix Anal. Appl. 26, 2005) in float64: the
    # degree-13 Pade approximant of x / 2**s, |x / 2**s|_1 <= 5.37, squared s times
    b = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
         129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
         40840800.0, 960960.0, 16380.0, 182.0, 1.0)
    out = np.empty(x.shape, np.float64)
    n = x.shape[-1]
    for i in np.ndindex(*x.shape[:-2]):
        a = x[i].astype(np.float64)
        norm = np.abs(a).sum(axis=0).max(initial=0.0)
        if not np.isfinite(norm):
            out[i] = np.nan
            continue
        s = max(0, math.ceil(math.log2(norm / 5.371920351148152))) if norm > 0 else 0
        a = a / 2.0 ** s
        one = np.eye(n)
        a2 = a @ a
        a4 = a2 @ a2
        a6 = a4 @ a2
        u = a @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2)
                 + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * one)
        v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 \
            + b[0] * one
        r = np.linalg.solve(v - u, v + u)
        with np.errstate(over="ignore", invalid="ignore"):  # past the range: inf or NaN
            for _ in range(s):
                r = r @ r
        out[i] = r
    with np.errstate(over="ignore"):
        return out.astype(x.dtype)
