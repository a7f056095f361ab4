"""The standard's linear-algebra functions without a registry op, traced as
compositions of the factorizations (`svd`, `eigh`, `inv`) and products; eagerly each
backend runs its own function (`linalg.pinv`, ...), which the tests compare against."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ivy_ir.dialect.dtypes import finfo

from . import ops as O  # noqa: N812 (the registry ops, as `F` elsewhere)


def _swap(x: Any) -> Any:
    return O.permute_dims(x, axes=[*range(x.ndim - 2), x.ndim - 1, x.ndim - 2])


def svdvals(x: Any) -> Any:
    return O.svd(x, full_matrices=False)[1]


def eigvalsh(x: Any) -> Any:
    return O.eigh(x)[0]


def _kept(x: Any, s: Any, rtol: Any) -> Any:
    """Which singular values count: those above rtol x the largest (the standard's
    default rtol: max(m, n) x the dtype's machine epsilon)."""
    if rtol is None:
        rtol = max(x.shape[-2:]) * finfo(str(x.dtype)).eps
    elif hasattr(rtol, "shape"):  # one tolerance per matrix of the stack
        rtol = O.expand_dims(rtol, axis=[rtol.ndim])
    return O.greater(s, O.multiply(O.max(s, axis=[s.ndim - 1], keepdims=True), rtol))


def matrix_rank(x: Any, rtol: Any = None) -> Any:
    s = svdvals(x)
    return O.sum(O.astype(_kept(x, s, rtol), dtype="int64"), axis=[s.ndim - 1])


def pinv(x: Any, rtol: Any = None) -> Any:
    """v diag(1/s) u^T over the singular values that count (the others' terms dropped)."""
    u, s, vh = O.svd(x, full_matrices=False)
    if s.shape[-1] == 0:
        return _swap(O.zeros_like(x))
    keep = _kept(x, s, rtol)
    inverse = O.where(keep, O.divide(1, O.where(keep, s, O.ones_like(s))), O.zeros_like(s))
    return O.matmul(O.multiply(_swap(vh), O.expand_dims(inverse, axis=[s.ndim - 1])),
                    _swap(u))


def matrix_power(x: Any, n: int) -> Any:
    """x^n by repeated squaring (n < 0: of the inverse; n = 0: the identity)."""
    if n < 0:
        x, n = O.inv(x), -n
    size = x.shape[-1]
    result = None
    while n:
        if n & 1:
            result = x if result is None else O.matmul(result, x)
        n >>= 1
        if n:
            x = O.matmul(x, x)
    if result is None:
        eye = np.broadcast_to(np.eye(size, dtype=np.dtype(str(x.dtype))), tuple(x.shape))
        return O.add(O.zeros_like(x), eye)
    return result


def cross(x1: Any, x2: Any, axis: int = -1) -> Any:
    """The cross product of the 3-vectors along `axis` (broadcast against each other)."""
    shape = list(np.broadcast_shapes(tuple(x1.shape), tuple(x2.shape)))
    a, b = O.broadcast_to(x1, shape=shape), O.broadcast_to(x2, shape=shape)
    rank = len(shape)
    ax = axis % rank

    def part(v: Any, i: int) -> Any:
        start, stop = [0] * rank, list(v.shape)
        start[ax], stop[ax] = i, i + 1
        return O.slice(v, start=start, stop=stop, step=[1] * rank)
    a_, b_ = [part(a, i) for i in range(3)], [part(b, i) for i in range(3)]
    return O.concat([O.subtract(O.multiply(a_[(i + 1) % 3], b_[(i + 2) % 3]),
                                O.multiply(a_[(i + 2) % 3], b_[(i + 1) % 3]))
                     for i in range(3)], axis=ax)


LINALG_COMPOSITES: dict[str, Callable[..., Any]] = {
    "linalg.svdvals": svdvals, "linalg.eigvalsh": eigvalsh,
    "linalg.matrix_rank": matrix_rank, "linalg.pinv": pinv,
    "linalg.matrix_power": matrix_power, "linalg.cross": cross,
}
"""Facade name -> its composition (called with the bound arguments by name)."""
