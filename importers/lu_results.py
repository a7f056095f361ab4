"""What the sources derive from an LU factorization (the registry's `lu`: factors,
0-based pivots, permutation), written once over the `ImportContext` every importer has:
the permutation that a pivot sequence makes, the permutation matrix, the triangles, a
solve with given factors and the triangular solve they use (`slogdet` is a registry op
of its own)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .common import ImportContext, swapped


def _column(ctx: ImportContext, x: Any, i: int) -> Any:
    """x[..., i:i + 1]."""
    lead = list(ctx.spec(x).shape[:-1])
    return ctx.emit("slice", x, start=[0] * len(lead) + [i], stop=[*lead, i + 1],
                    step=[1] * (len(lead) + 1))


def pivots_to_permutation(ctx: ImportContext, pivots: Any, size: int) -> Any:
    """The order that applying the pivots' row swaps one after another makes of
    0..size-1 (pivots 0-based): per pivot, one select between its two positions."""
    spec = ctx.spec(pivots)
    axis = spec.rank - 1
    position = ctx.const(np.arange(size, dtype=spec.dtype), spec.dtype)
    order = ctx.emit("broadcast_to", position, shape=[*spec.shape[:-1], size])
    for i in range(spec.shape[-1]):
        p = _column(ctx, pivots, i)
        order = ctx.emit("where", ctx.emit("equal", position, ctx.const(i, spec.dtype)),
                         ctx.emit("take_along_axis", order, p, axis=axis),
                         ctx.emit("where", ctx.emit("equal", position, p),
                                  _column(ctx, order, i), order))
    return order


def rows_of(ctx: ImportContext, permutation: Any, dtype: str) -> Any:
    """The permutation matrix p with x = p l u (p[j, i] = 1 where permutation[i] = j)."""
    spec = ctx.spec(permutation)
    n = spec.shape[-1]
    hit = ctx.emit("equal", ctx.emit("expand_dims", permutation, axis=[spec.rank]),
                   ctx.const(np.arange(n, dtype=spec.dtype), spec.dtype))
    return swapped(ctx, ctx.emit("astype", hit, dtype=dtype))


def _unit_diagonal(ctx: ImportContext, a: Any) -> Any:
    spec = ctx.spec(a)
    eye = ctx.const(np.eye(spec.shape[-1], dtype=bool), "bool")
    return ctx.emit("where", eye, ctx.const(1, spec.dtype), a)


def triangles(ctx: ImportContext, factors: Any) -> tuple[Any, Any]:
    """(l, u): the unit lower triangle and the upper one of packed factors."""
    return _unit_diagonal(ctx, ctx.emit("tril", factors, k=-1)), ctx.emit("triu", factors, k=0)


def triangle_solve(ctx: ImportContext, a: Any, b: Any, *, lower: bool, unit: bool = False,
                   transpose: bool = False, left: bool = True) -> Any:
    """op(t) x = b (x op(t) = b unless `left`), t the triangle of a that `lower` names
    (the other never read; with `unit` not the diagonal either, taken as ones) and op
    the transpose if `transpose`: the registry's general solve of that triangle (XLA's
    triangular_solve, torch's solve_triangular, TF's MatrixTriangularSolve)."""
    t = ctx.emit("tril" if lower else "triu", a)
    if unit:
        t = _unit_diagonal(ctx, t)
    if transpose:
        t = swapped(ctx, t)
    if left:
        return ctx.emit("solve", t, b)
    return swapped(ctx, ctx.emit("solve", swapped(ctx, t), swapped(ctx, b)))


def solve_factored(ctx: ImportContext, factors: Any, permutation: Any, b: Any,
                   transposed: bool = False) -> Any:
    """x with a x = b (a^T x = b if `transposed`), a = p l u given by its factors; b a
    stack of matrices (..., n, k)."""
    low, up = triangles(ctx, factors)
    rows = rows_of(ctx, permutation, ctx.spec(factors).dtype)
    if transposed:  # a^T = u^T l^T p^T
        y = ctx.emit("solve", swapped(ctx, low), ctx.emit("solve", swapped(ctx, up), b))
        return ctx.emit("matmul", rows, y)
    y = ctx.emit("matmul", swapped(ctx, rows), b)
    return ctx.emit("solve", up, ctx.emit("solve", low, y))
