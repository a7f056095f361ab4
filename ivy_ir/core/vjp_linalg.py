"""Reverse-mode rules of the linear-algebra ops (see `vjp.py` for the conventions):
products and contractions, inverses, solves and the symmetric factorizations.
`reverse.py` reads `LINALG` beside `vjp.VJPS`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .tracer import OPS as F
from .vjp import DerivativeError, _swap, rules_into, unbroadcast

LINALG: dict[str, Callable[..., Any]] = {}
_rule = rules_into(LINALG)


@_rule("outer")
def _outer(g, out, x, y):
    return [F.matmul(g, y), F.matmul(x, g)]


@_rule("vecdot")
def _vecdot(g, out, x, y, axis):
    ge = F.expand_dims(g, axis=[axis % (g.ndim + 1)])
    return [unbroadcast(F.multiply(ge, y), x.shape), unbroadcast(F.multiply(ge, x), y.shape)]


@_rule("tensordot")
def _tensordot(g, out, x, y, axes_x, axes_y):
    # g is (x's free axes, y's free axes); contract it with the other operand's free
    # axes, then put the contracted axes (left in the other operand's order) back
    axes_x, axes_y = list(axes_x), list(axes_y)
    free_x = [i for i in range(x.ndim) if i not in axes_x]
    free_y = [i for i in range(y.ndim) if i not in axes_y]
    n = len(free_x)
    gx = F.tensordot(g, y, axes_x=list(range(n, g.ndim)), axes_y=free_y)
    gy = F.tensordot(x, g, axes_x=free_x, axes_y=list(range(n)))
    from_x = free_x + [axes_x[axes_y.index(j)] for j in sorted(axes_y)]
    from_y = [axes_y[axes_x.index(i)] for i in sorted(axes_x)] + free_y
    return [F.permute_dims(gx, axes=[from_x.index(i) for i in range(x.ndim)]),
            F.permute_dims(gy, axes=[from_y.index(i) for i in range(y.ndim)])]


@_rule("einsum")
def _einsum(g, out, xs, equation):
    # each operand's cotangent is the einsum of g with the others, written to that
    # operand's subscripts; subscripts it alone carries (summed away) are broadcast back
    lhs, arrow, result = equation.replace(" ", "").partition("->")
    subs = lhs.split(",")
    if "." in equation or not arrow or any(len(set(s)) < len(s) for s in [*subs, result]):
        raise DerivativeError(f"einsum {equation!r}: derivatives of ellipses, implicit "
                              "outputs and repeated subscripts are not supported")
    grads = []
    for k, (x, mine) in enumerate(zip(xs, subs)):
        others = [(s, v) for i, (s, v) in enumerate(zip(subs, xs)) if i != k]
        seen = set(result).union(*(s for s, _ in others))
        reached = "".join(c for c in mine if c in seen)
        part = F.einsum([g, *(v for _, v in others)],
                        equation=",".join([result, *(s for s, _ in others)]) + "->" + reached)
        missing = [i for i, c in enumerate(mine) if c not in seen]
        if missing:
            part = F.broadcast_to(F.expand_dims(part, axis=missing), shape=list(x.shape))
        grads.append(part)
    return [grads]


@_rule("cholesky")
def _cholesky(g, out, x, upper):
    # a = l l^T: ga = l^-T phi(l^T gl) l^-1, phi keeping the lower triangle with its
    # diagonal halved, symmetrised (only a's symmetric part is an input)
    low = _swap(out) if upper else out
    gl = F.tril(_swap(g) if upper else g, k=0)
    inner = F.matmul(_swap(low), gl)
    below = F.tril(inner, k=-1)
    phi = F.add(below, F.multiply(F.subtract(F.tril(inner, k=0), below), 0.5))
    inv = F.inv(low)
    ga = F.matmul(F.matmul(_swap(inv), phi), inv)
    return [F.multiply(F.add(ga, _swap(ga)), 0.5)]


@_rule("eigh")
def _eigh(g_values, g_vectors, values, vectors, x):
    # a = v diag(w) v^T: ga = v (diag(gw) + f * (v^T gv)) v^T with f_ij = 1 / (w_j - w_i)
    # off the diagonal, symmetrised; repeated eigenvalues make it infinite, as in torch
    vt = _swap(vectors)
    gap = F.subtract(F.expand_dims(values, axis=[values.ndim - 1]),
                     F.expand_dims(values, axis=[values.ndim]))
    eye = np.eye(values.shape[-1], dtype=np.dtype(str(values.dtype)))
    f = F.where(eye.astype(bool), 0, F.divide(1, F.where(eye.astype(bool), 1, gap)))
    middle = F.add(F.multiply(F.expand_dims(g_values, axis=[g_values.ndim]), eye),
                   F.multiply(f, F.matmul(vt, g_vectors)))
    ga = F.matmul(F.matmul(vectors, middle), vt)
    return [F.multiply(F.add(ga, _swap(ga)), 0.5)]


@_rule("inv")
def _inv(g, out, x):
    t = _swap(out)
    return [F.negative(F.matmul(F.matmul(t, g), t))]


@_rule("matrix_exp")
def _matrix_exp(g, out, x):
    # the adjoint of the exponential's Frechet derivative at x, applied to g: the upper
    # right block of exp([[x^T, g], [0, x^T]]) (Najfeld and Havel's block form)
    t, n, rank = _swap(x), x.shape[-1], x.ndim
    block = F.concat([F.concat([t, g], axis=rank - 1),
                      F.concat([F.zeros_like(t), t], axis=rank - 1)], axis=rank - 2)
    full = F.matrix_exp(block)
    return [F.slice(full, start=[0] * (rank - 1) + [n], stop=[*x.shape[:-1], 2 * n],
                    step=[1] * rank)]


@_rule("det")
def _det(g, out, x):
    scale = F.expand_dims(F.multiply(g, out), axis=[out.ndim, out.ndim + 1])
    return [F.multiply(scale, _swap(F.inv(x)))]


@_rule("solve")
def _solve(g, out, a, b):
    # out = a^-1 b: gb = a^-T g, ga = -gb out^T; a 1-d b is one vector for every matrix
    if b.ndim == 1:
        gb = F.squeeze(F.solve(_swap(a), F.expand_dims(g, axis=[g.ndim])), axis=[g.ndim])
        ga = F.multiply(F.expand_dims(gb, axis=[gb.ndim]), F.expand_dims(out, axis=[out.ndim - 1]))
    else:
        gb = F.solve(_swap(a), g)
        ga = F.matmul(gb, _swap(out))
    return [unbroadcast(F.negative(ga), a.shape), unbroadcast(gb, b.shape)]


@_rule("lu")
def _lu(g, g_pivots, g_permutation, factors, pivots, permutation, x):
    # x[perm] = l u: with f = l^-1 d(x[perm]) u^-1, dl = l tril_-1(f) and du = triu(f) u,
    # so g's strictly lower part (gl) and upper part (gu) pull back to x[perm] as
    # l^-T (tril_-1(l^T gl) + triu(gu u^T)) u^-T, whose rows then go back to x's order
    n = x.shape[-1]
    eye = np.eye(n, dtype=np.dtype(str(x.dtype)))
    low, up = F.add(F.tril(factors, k=-1), eye), F.triu(factors, k=0)
    middle = F.add(F.tril(F.matmul(_swap(low), F.tril(g, k=-1)), k=-1),
                   F.triu(F.matmul(F.triu(g, k=0), _swap(up)), k=0))
    left = F.solve(_swap(low), middle)
    permuted = _swap(F.solve(up, _swap(left)))
    rows = F.astype(F.equal(F.expand_dims(permutation, axis=[permutation.ndim]),
                            np.arange(n, dtype=np.int32)), dtype=x.dtype)
    return [F.matmul(_swap(rows), permuted)]
