"""References for linear algebra ops (factorizations are checked by their defining identities
and, where rounding cannot change them, against NumPy's factors with ops.spec's signs)."""

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


def _expm(x: np.ndarray) -> np.ndarray:
    """SciPy's matrix exponential of each matrix: an oracle beside the NumPy target's own
    kernel (which the op table checks)."""
    import scipy.linalg

    out = np.empty(x.shape)
    for i in np.ndindex(*x.shape[:-2]):
        out[i] = scipy.linalg.expm(x[i])
    return out


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
case("matrix_exp", _square(lambda d, dt, b, n: arr(d, dt, b + (n, n), -2, 2)),
     lambda x: like(_expm(f64(x)), x), tol=LINALG_TOL)


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
    # no empty matrices: the gradient sweep draws these too, and jax/TF refuse some
    # factorization gradients by shape alone (tests/test_import_linalg_conventions.py
    # runs empty ones)
    return arr(d, pick(d, FLOAT), shape(d, 0, 1, 1, 2) + (integer(d, 1, 4), integer(d, 1, 4)),
               -5, 5)


def _eye_like(n, batch):
    return np.broadcast_to(np.eye(n), batch + (n, n))


# ---- factorizations: their defining identities, and NumPy's factors where determined ----

GAP = 0.01
"""A factor is compared with NumPy's float64 one only where rounding cannot change it:
its singular value / eigenvalue lies GAP * the largest from every other (no rotation
within a near-degenerate subspace), its largest |component| exceeds the next by GAP
(the sign rule's pick cannot move), a Householder pivot and the rest of its column lie
GAP * the largest |x| away from 0 (LAPACK's sign choice cannot flip)."""


def _signs(v):
    """+1/-1 per column of v (..., n, p): ops.spec's rule (the first largest-magnitude
    component made positive), written out apart from the kernels."""
    out = np.ones(v.shape[:-2] + v.shape[-1:])
    for b in np.ndindex(v.shape[:-2]):
        for j in range(v.shape[-1]):
            col = list(v[b][:, j])
            if col and col[max(range(len(col)), key=lambda i: abs(col[i]))] < 0:
                out[b + (j,)] = -1
    return out


def _separated(values, scale):
    """Per entry of values (..., p): more than GAP * scale from every other entry."""
    p = values.shape[-1]
    dist = np.abs(values[..., :, None] - values[..., None, :]) + np.diag(np.full(p, np.inf))
    return dist.min(axis=-1, initial=np.inf) > GAP * scale


def _clear_pick(v):
    """Per column of v (..., n, p): its largest |component| exceeds the next by GAP."""
    if v.shape[-2] < 2:
        return np.ones(v.shape[:-2] + v.shape[-1:], bool)
    top = np.sort(np.abs(v), axis=-2)
    return top[..., -1, :] - top[..., -2, :] > GAP


def _close_where(got, want, keep, tol):
    """Columns of got and want (..., n, p) equal where keep (..., p) holds."""
    keep = keep[..., None, :]
    _close(np.where(keep, f64(got), 0), np.where(keep, want, 0), tol)


def _householder_clear(x):
    """Per matrix: every Householder step's sign choice is clear (pivot alpha and the
    rest of its column away from 0; alpha = r_jj (1 - tau_j) in LAPACK's dlarfg)."""
    m = x.shape[-2]
    h, tau = np.linalg.qr(f64(x), mode="raw")
    r = np.diagonal(h, axis1=-2, axis2=-1)[..., :tau.shape[-1]]
    scale = GAP * np.max(np.abs(f64(x)), axis=(-2, -1), initial=0)[..., None]
    alpha = r * (1 - tau)
    rest = np.sqrt(np.maximum(r * r - alpha * alpha, 0))
    last = np.arange(tau.shape[-1]) == m - 1  # a one-element column: no reflection
    return np.all((np.abs(alpha) > scale) & ((rest > scale) | last), axis=-1)


def _qr_check(ops, attrs, outs, tol):
    x, (q, r) = ops[0], outs
    m, n = x.shape[-2:]
    kk = m if attrs["mode"] == "complete" else min(m, n)
    assert q.shape == x.shape[:-2] + (m, kk) and r.shape == x.shape[:-2] + (kk, n)
    _close(q @ r, x, tol)
    _close(np.swapaxes(q, -1, -2) @ q, _eye_like(kk, x.shape[:-2]), tol)
    _close(np.tril(r, -1), np.zeros_like(r), tol)
    # every target's Householder QR makes LAPACK's sign choices (ops.spec)
    wq, wr = np.linalg.qr(f64(x), mode=attrs["mode"])
    clear = _householder_clear(x)[..., None]
    _close_where(q, wq, np.broadcast_to(clear, q.shape[:-2] + (kk,)), tol)
    _close_where(r, wr, np.broadcast_to(clear, r.shape[:-2] + (n,)), tol)


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
    # NumPy's factors with ops.spec's signs: pair j < k by u's column, extra ones by their own
    wu, ws, wvh = np.linalg.svd(f64(x), full_matrices=attrs["full_matrices"])
    wv = np.swapaxes(wvh, -1, -2)
    su, sv = _signs(wu), _signs(wv)
    sv[..., :k] = su[..., :k]
    scale = np.max(ws, axis=-1, keepdims=True, initial=0)
    # a column of the full u / v beyond k belongs to singular value 0
    spectrum = [np.concatenate([ws, np.zeros(b + (d - k,))], axis=-1) for d in (m, n)]
    sep_v = _separated(spectrum[1], scale)
    keep_u = _separated(spectrum[0], scale)[..., :um] & _clear_pick(wu)
    keep_v = sep_v[..., :vn] & _clear_pick(wv)
    # v's sign follows u's only through a nonzero singular value
    keep_v[..., :k] = sep_v[..., :k] & keep_u[..., :k] & (ws > GAP * scale)
    _close_where(u, wu * su[..., None, :], keep_u, tol)
    _close_where(np.swapaxes(vh, -1, -2), wv * sv[..., None, :], keep_v, tol)


case("svd", lambda d: ([_mat(d)], {"full_matrices": boolean(d)}), check=_svd_check,
     tol=LINALG_TOL)


def _eigh_check(ops, attrs, outs, tol):
    x, (w, v) = ops[0], outs
    assert w.shape == x.shape[:-1] and v.shape == x.shape
    _close(w, np.linalg.eigvalsh(f64(x)), tol)
    _close(f64(x) @ v, v * w[..., None, :], tol)
    _close(np.swapaxes(v, -1, -2) @ v, _eye_like(x.shape[-1], x.shape[:-2]), tol)
    # NumPy's eigenvectors with ops.spec's signs
    ww, wv = np.linalg.eigh(f64(x))
    scale = np.max(np.abs(ww), axis=-1, keepdims=True, initial=0)
    _close_where(v, wv * _signs(wv)[..., None, :], _separated(ww, scale) & _clear_pick(wv), tol)


case("eigh", _square(symmetric), check=_eigh_check, tol=LINALG_TOL)


def _shuffled_lu(d):
    """The rows of l u shuffled, |l| <= 1/2 below its unit diagonal, |u|'s diagonal in
    [1, 2]: every pivot is clear and the matrix well conditioned."""
    dt, batch, n = pick(d, FLOAT), shape(d, 0, 1, 1, 2), integer(d, 1, 4)
    low = np.tril(arr(d, "float64", batch + (n, n), -0.5, 0.5), -1) + np.eye(n)
    up = np.triu(arr(d, "float64", batch + (n, n), -2, 2), 1) + \
        np.eye(n) * arr(d, "float64", batch + (1, n), 1, 2) * pick(d, [-1, 1])
    rows = list(d.draw(st.permutations(range(n))))
    return (low @ up)[..., rows, :].astype(dt)


def _lu_draw(d):
    if boolean(d):  # anything: ties, zero columns
        n = integer(d, 1, 4)
        return [arr(d, pick(d, FLOAT), shape(d, 0, 1, 1, 2) + (n, n), -5, 5)], {}
    return [_shuffled_lu(d)], {}


def _getrf(x):
    """LU with partial pivoting in float64, written out entry by entry; and whether each
    step's largest candidate beat the next by GAP * max |x| (rounding cannot move it)."""
    a = [[float(v) for v in row] for row in x]
    n, clear = len(a), True
    pivots, order = [], list(range(n))
    gap = GAP * max((abs(v) for row in a for v in row), default=0)
    for k in range(n):
        size = [abs(a[i][k]) for i in range(k, n)]
        p = k + size.index(max(size))
        ranked = sorted(size, reverse=True)
        clear = clear and (len(ranked) < 2 or ranked[0] - ranked[1] > gap)
        pivots.append(p)
        a[k], a[p], order[k], order[p] = a[p], a[k], order[p], order[k]
        for i in range(k + 1, n):
            if a[k][k] != 0:
                a[i][k] /= a[k][k]
            for j in range(k + 1, n):
                a[i][j] -= a[i][k] * a[k][j]
    return np.array(a).reshape(np.shape(x)), pivots, order, clear


def _lu_check(ops, attrs, outs, tol):
    x, (f, pivots, perm) = ops[0], outs
    n = x.shape[-1]
    assert f.shape == x.shape and pivots.shape == perm.shape == x.shape[:-1]
    assert pivots.dtype == perm.dtype == np.int32
    low, up = np.tril(f64(f), -1), np.triu(f64(f))
    assert np.all(np.abs(low) <= 1 + tol[0])  # partial pivoting's bound
    rows = np.take_along_axis(f64(x), perm[..., None].astype(np.int64), axis=-2)
    _close((low + np.eye(n)) @ up, rows, tol)
    for b in np.ndindex(x.shape[:-2]):
        order = list(range(n))
        for k, p in enumerate(pivots[b]):  # the pivots are the swaps that build perm
            assert k <= p < n
            order[k], order[p] = order[p], order[k]
        assert order == list(perm[b])
        want, want_pivots, _, clear = _getrf(x[b])
        if clear:
            assert list(pivots[b]) == want_pivots
            _close(f[b], want, tol)


case("lu", _lu_draw, check=_lu_check, tol=LINALG_TOL)


def _slogdet_ref(x):
    sign, logabs = np.linalg.slogdet(f64(x))
    return [like(sign, x), like(logabs, x)]


# (singular matrices, whose log |det| is -inf only where rounding leaves an exact 0:
# tests/test_lu_sources.py)
case("slogdet", lambda d: ([_shuffled_lu(d)], {}), _slogdet_ref, tol=LINALG_TOL)
