"""References for linear algebra ops (factorizations are checked by their defining identities)."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from op_refs_common import (
    ANY,
    FLOAT,
    NUM,
    arr,
    axes_subset,
    boolean,
    bshapes,
    case,
    f64,
    integer,
    like,
    pick,
    shape,
    spd,
    symmetric,
    well_conditioned,
)

LINALG_TOL = {"float32": (1e-3, 1e-4), "float64": (1e-8, 1e-10)}


def _close(got, want, tol):
    np.testing.assert_allclose(f64(got), f64(want), rtol=tol[0], atol=tol[1] * 10)


# ---- linear algebra ----

def _num_pair(d, sx, sy, lo=-5, hi=5):
    dt = pick(d, NUM)
    return arr(d, dt, sx, lo, hi), arr(d, dt, sy, lo, hi)


def _fref(fn):
    def ref(x, y, **kw):
        if x.dtype.kind == "f":
            return like(fn(f64(x), f64(y), **kw), x)
        return fn(x, y, **kw).astype(x.dtype)
    return ref


def _matmul(d):
    bx, by = bshapes(d, 2, 0, 2, 0, 3)
    n, k, m = integer(d, 0, 4), integer(d, 0, 4), integer(d, 0, 4)
    sx = (k,) if boolean(d) else bx + (n, k)
    sy = (k,) if boolean(d) else by + (k, m)
    return list(_num_pair(d, sx, sy)), {}


case("matmul", _matmul, _fref(np.matmul))


def _tensordot(d):
    sx = shape(d, 0, 3)
    ax = d.draw(st.permutations(range(len(sx))))[:integer(d, 0, len(sx))]
    extra = shape(d, 0, 2)
    sy = list(extra)
    ay = []
    for a in ax:
        pos = integer(d, 0, len(sy))
        sy.insert(pos, sx[a])
        ay = [p + (p >= pos) for p in ay] + [pos]
    return list(_num_pair(d, sx, tuple(sy))), {"axes_x": list(ax), "axes_y": ay}


case("tensordot", _tensordot, _fref(lambda x, y, axes_x, axes_y:
                                    np.tensordot(x, y, axes=(axes_x, axes_y))))


def _vecdot(d):
    bx, by = bshapes(d, 2, 0, 2)
    n = integer(d, 0, 4)
    return list(_num_pair(d, bx + (n,), by + (n,))), {"axis": -1}


case("vecdot", _vecdot, _fref(lambda x, y, axis: (x * y).sum(axis=axis)))

EINSUM = {"ij,jk->ik": "ij,jk", "bij,bjk->bik": "bij,bjk", "i,i->": "i,i", "ij->ji": "ij",
          "ii->i": "ii", "ij->": "ij", "i,j->ij": "i,j", "ij,j->i": "ij,j"}


def _einsum(d):
    eq = pick(d, sorted(EINSUM))
    sizes = {c: integer(d, 1, 4) for c in "bijk"}
    dt = pick(d, NUM)
    xs = [arr(d, dt, tuple(sizes[c] for c in term), -5, 5) for term in EINSUM[eq].split(",")]
    return [xs], {"equation": eq}


def _einsum_ref(xs, equation):
    if xs[0].dtype.kind == "f":
        return like(np.einsum(equation, *[f64(x) for x in xs]), xs[0])
    return np.einsum(equation, *xs).astype(xs[0].dtype)


case("einsum", _einsum, _einsum_ref)
case("outer", lambda d: (list(_num_pair(d, shape(d, 1, 1), shape(d, 1, 1))), {}),
     _fref(lambda x, y: x[:, None] * y[None, :]))


def _diagonal(d):
    x = arr(d, pick(d, ANY), shape(d, 2, 4))
    a1, a2 = d.draw(st.permutations(range(x.ndim)))[:2]
    return [x], {"offset": integer(d, -3, 3), "axis1": a1 - x.ndim * boolean(d), "axis2": a2}


case("diagonal", _diagonal, lambda x, offset, axis1, axis2:
     np.diagonal(x, offset, axis1, axis2))


def _vector_norm(d):
    x = arr(d, pick(d, FLOAT), shape(d, min_side=1), -5, 5)
    return [x], {"ord": pick(d, [2.0, 1.0, 3.0, 0.5, np.inf, -np.inf]),
                 "axis": axes_subset(d, x.ndim), "keepdims": boolean(d)}


def _vector_norm_ref(x, ord, axis, keepdims):
    ax = tuple(range(x.ndim)) if axis is None else tuple(a % x.ndim for a in axis)
    a = np.abs(f64(x))
    if ord == np.inf:
        return like(a.max(axis=ax, keepdims=keepdims), x)
    if ord == -np.inf:
        return like(a.min(axis=ax, keepdims=keepdims), x)
    return like((a ** ord).sum(axis=ax, keepdims=keepdims) ** (1 / ord), x)


case("vector_norm", _vector_norm, _vector_norm_ref, tol=LINALG_TOL)

_ORDS = {"fro": "fro", "nuc": "nuc", "1": 1, "-1": -1, "2": 2, "-2": -2, "inf": np.inf,
         "-inf": -np.inf}


def _matrix_norm(d):
    s = shape(d, 2, 3, 1, 4)
    return [arr(d, pick(d, FLOAT), s, -5, 5)], {"ord": pick(d, sorted(_ORDS)),
                                                 "keepdims": boolean(d)}


case("matrix_norm", _matrix_norm, lambda x, ord, keepdims: like(np.linalg.norm(
    f64(x), ord=_ORDS[ord], axis=(-2, -1), keepdims=keepdims), x), tol=LINALG_TOL)


def _square(make):
    def draw(d):
        return [make(d, pick(d, FLOAT), shape(d, 0, 1, 1, 2), integer(d, 1, 4))], {}
    return draw


def _cholesky(d):
    x = spd(d, pick(d, FLOAT), shape(d, 0, 1, 1, 2), integer(d, 1, 4))
    return [x], {"upper": boolean(d)}


def _cholesky_ref(x, upper):
    lo = np.linalg.cholesky(f64(x))
    return like(np.swapaxes(lo, -1, -2) if upper else lo, x)


case("cholesky", _cholesky, _cholesky_ref, tol=LINALG_TOL)
case("inv", _square(well_conditioned), lambda x: like(np.linalg.inv(f64(x)), x), tol=LINALG_TOL)
case("det", _square(well_conditioned), lambda x: like(np.linalg.det(f64(x)), x), tol=LINALG_TOL)


def _solve(d):
    dt, n = pick(d, FLOAT), integer(d, 1, 4)
    ba, bb = bshapes(d, 2, 0, 2, 1, 2)
    a = well_conditioned(d, dt, ba, n)
    b = arr(d, dt, (n,) if boolean(d) else bb + (n, integer(d, 0, 3)), -5, 5)
    return [a, b], {}


def _solve_ref(a, b):
    if b.ndim == 1:
        return like(np.linalg.solve(f64(a), f64(b)[..., None])[..., 0], b)
    return like(np.linalg.solve(f64(a), f64(b)), b)


case("solve", _solve, _solve_ref, tol=LINALG_TOL)


def _mat(d):
    return arr(d, pick(d, FLOAT), shape(d, 0, 1, 1, 2) + (integer(d, 1, 4), integer(d, 1, 4)),
               -5, 5)


def _eye_like(n, batch):
    return np.broadcast_to(np.eye(n), batch + (n, n))


def _qr_check(ops, attrs, outs, tol):
    x, (q, r) = ops[0], outs
    m, n = x.shape[-2:]
    kk = m if attrs["mode"] == "complete" else min(m, n)
    assert q.shape == x.shape[:-2] + (m, kk) and r.shape == x.shape[:-2] + (kk, n)
    _close(q @ r, x, tol)
    _close(np.swapaxes(q, -1, -2) @ q, _eye_like(kk, x.shape[:-2]), tol)
    _close(np.tril(r, -1), np.zeros_like(r), tol)


case("qr", lambda d: ([_mat(d)], {"mode": pick(d, ["reduced", "complete"])}),
     check=_qr_check, tol=LINALG_TOL)


def _svd_check(ops, attrs, outs, tol):
    x, (u, s, vh) = ops[0], outs
    m, n = x.shape[-2:]
    k = min(m, n)
    um, vn = (m, n) if attrs["full_matrices"] else (k, k)
    b = x.shape[:-2]
    assert u.shape == b + (m, um) and s.shape == b + (k,) and vh.shape == b + (vn, n)
    _close(s, np.linalg.svd(f64(x), compute_uv=False), tol)
    _close((u[..., :k] * s[..., None, :]) @ vh[..., :k, :], x, tol)
    _close(np.swapaxes(u, -1, -2) @ u, _eye_like(um, b), tol)
    _close(vh @ np.swapaxes(vh, -1, -2), _eye_like(vn, b), tol)


case("svd", lambda d: ([_mat(d)], {"full_matrices": boolean(d)}), check=_svd_check,
     tol=LINALG_TOL)


def _eigh_check(ops, attrs, outs, tol):
    x, (w, v) = ops[0], outs
    assert w.shape == x.shape[:-1] and v.shape == x.shape
    _close(w, np.linalg.eigvalsh(f64(x)), tol)
    _close(f64(x) @ v, v * w[..., None, :], tol)
    _close(np.swapaxes(v, -1, -2) @ v, _eye_like(x.shape[-1], x.shape[:-2]), tol)


case("eigh", _square(symmetric), check=_eigh_check, tol=LINALG_TOL)
