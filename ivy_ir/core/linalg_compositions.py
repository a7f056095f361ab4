"""Linear-algebra functions without a registry op of their own, as compositions of the
factorizations (`svd`, `eigh`, `inv`) and products over the recording ops: the facade's
traced `ivy.linalg.pinv`, ... (the standard's parameter names) and the importers'
`np.linalg.pinv`, `torch.linalg.pinv`, ... (through `importers.common.traced`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dialect.dtypes import finfo
from .tracer import OPS as F
from .vjp import _swap


def svdvals(x: Any) -> Any:
    return F.svd(x, full_matrices=False)[1]


def eigvalsh(x: Any) -> Any:
    return F.eigh(x)[0]


def _kept(x: Any, s: Any, rtol: Any) -> Any:
    """Which singular values count: those above rtol x the largest (the standard's
    default rtol: max(m, n) x the dtype's machine epsilon)."""
    if rtol is None:
        rtol = max(x.shape[-2:]) * finfo(str(x.dtype)).eps
    elif hasattr(rtol, "shape"):  # one tolerance per matrix of the stack
        rtol = F.expand_dims(rtol, axis=[rtol.ndim])
    return F.greater(s, F.multiply(F.max(s, axis=[s.ndim - 1], keepdims=True), rtol))


def matrix_rank(x: Any, rtol: Any = None) -> Any:
    s = svdvals(x)
    if s.shape[-1] == 0:  # no singular value: rank 0 (the empty sum)
        return F.astype(F.sum(s, axis=[s.ndim - 1]), dtype="int64")
    return F.sum(F.astype(_kept(x, s, rtol), dtype="int64"), axis=[s.ndim - 1])


def pinv(x: Any, rtol: Any = None) -> Any:
    """v diag(1/s) u^T over the singular values that count (the others' terms dropped)."""
    u, s, vh = F.svd(x, full_matrices=False)
    if s.shape[-1] == 0:
        return _swap(F.zeros_like(x))
    keep = _kept(x, s, rtol)
    inverse = F.where(keep, F.divide(1, F.where(keep, s, F.ones_like(s))), F.zeros_like(s))
    return F.matmul(F.multiply(_swap(vh), F.expand_dims(inverse, axis=[s.ndim - 1])),
                    _swap(u))


def matrix_power(x: Any, n: int) -> Any:
    """x^n by repeated squaring (n < 0: of the inverse; n = 0: the identity)."""
    if n < 0:
        x, n = F.inv(x), -n
    size = x.shape[-1]
    result = None
    while n:
        if n & 1:
            result = x if result is None else F.matmul(result, x)
        n >>= 1
        if n:
            x = F.matmul(x, x)
    if result is None:
        eye = np.broadcast_to(np.eye(size, dtype=np.dtype(str(x.dtype))), tuple(x.shape))
        return F.add(F.zeros_like(x), eye)
    return result


def cross(x1: Any, x2: Any, axis: int = -1) -> Any:
    """The cross product of the 3-vectors along `axis` (broadcast against each other)."""
    shape = list(np.broadcast_shapes(tuple(x1.shape), tuple(x2.shape)))
    a, b = F.broadcast_to(x1, shape=shape), F.broadcast_to(x2, shape=shape)
    rank = len(shape)
    ax = axis % rank

    def part(v: Any, i: int) -> Any:
        start, stop = [0] * rank, list(v.shape)
        start[ax], stop[ax] = i, i + 1
        return F.slice(v, start=start, stop=stop, step=[1] * rank)
    a_, b_ = [part(a, i) for i in range(3)], [part(b, i) for i in range(3)]
    return F.concat([F.subtract(F.multiply(a_[(i + 1) % 3], b_[(i + 2) % 3]),
                                F.multiply(a_[(i + 2) % 3], b_[(i + 1) % 3]))
                     for i in range(3)], axis=ax)


def condition_number(x: Any) -> Any:
    """The 2-norm condition number: the largest singular value over the smallest."""
    s = svdvals(x)
    return F.divide(F.max(s, axis=[s.ndim - 1]), F.min(s, axis=[s.ndim - 1]))


def householder_product(a: Any, tau: Any) -> Any:
    """The first n columns of H_0 H_1 ... H_{k-1}, H_i = I - tau_i v_i v_i^T with v_i
    column i of `a` below the diagonal, 1 on it, 0 above (LAPACK's orgqr: how geqrf
    stores Q): the reflectors applied to the identity's columns from the last one."""
    m, n, k = a.shape[-2], a.shape[-1], tau.shape[-1]
    batch, rank = tuple(a.shape[:-2]), a.ndim
    dtype = np.dtype(str(a.dtype))
    q = F.add(F.zeros_like(a), np.eye(m, n, dtype=dtype))
    rows = np.arange(m)[:, None]
    for i in reversed(range(k)):
        column = F.slice(a, start=[0] * (rank - 1) + [i], stop=[*batch, m, i + 1],
                         step=[1] * rank)  # (..., m, 1)
        v = F.add(F.where(rows > i, column, np.zeros((), dtype)), (rows == i).astype(dtype))
        t = F.slice(tau, start=[0] * (rank - 2) + [i], stop=[*batch, i + 1],
                    step=[1] * (rank - 1))
        scale = F.multiply(F.expand_dims(t, axis=[rank - 1]), v)  # tau_i v_i, (..., m, 1)
        q = F.subtract(q, F.matmul(scale, F.matmul(_swap(v), q)))
    return q
