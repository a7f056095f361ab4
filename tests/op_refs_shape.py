"""References for shape manipulation, indexing and sorting ops."""

from __future__ import annotations

import bisect

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from op_refs_common import (
    ANY,
    FLOAT,
    INT,
    NUM,
    arr,
    axes_subset,
    boolean,
    case,
    integer,
    pick,
    shape,
)

# ---- shape manipulation ----


def _any(d, **kw):
    return arr(d, pick(d, ANY), shape(d, **kw))


def _reshape(d):
    x = _any(d)
    n = x.size
    options = [[n], list(x.shape[::-1]), [1, *x.shape], [-1]]
    if x.ndim and x.shape[0] and n:
        options.append([x.shape[0], -1])
    return [x], {"shape": pick(d, options)}


case("reshape", _reshape, lambda x, shape: x.reshape(shape))
case("permute_dims", lambda d: (lambda x: ([x], {"axes": list(d.draw(
    st.permutations(range(x.ndim))))}))(_any(d)), lambda x, axes: x.transpose(axes))


def _expand_dims(d):
    x = _any(d)
    k = integer(d, 1, 2)
    rank = x.ndim + k
    axes = d.draw(st.permutations(range(rank)))[:k]
    return [x], {"axis": [a - rank if boolean(d) else a for a in axes]}


def _expand_ref(x, axis):
    rank = x.ndim + len(axis)
    axes = {a % rank for a in axis}
    it = iter(x.shape)
    return x.reshape([1 if i in axes else next(it) for i in range(rank)])


case("expand_dims", _expand_dims, _expand_ref)


def _squeeze(d):
    x = _any(d, max_side=2)
    ones = [i for i, s in enumerate(x.shape) if s == 1]
    return [x], {"axis": d.draw(st.lists(st.sampled_from(ones), unique=True)) if ones else []}


case("squeeze", _squeeze, lambda x, axis: x.reshape(
    [s for i, s in enumerate(x.shape) if i not in {a % x.ndim for a in axis}]))


def _concat(d):
    s = shape(d, 1)
    ax = integer(d, -len(s), len(s) - 1)
    dt = pick(d, ANY)
    xs = []
    for _ in range(integer(d, 1, 3)):
        si = list(s)
        si[ax] = integer(d, 0, 3)
        xs.append(arr(d, dt, tuple(si)))
    return [xs], {"axis": ax}


def _stack(d):
    s, dt = shape(d), pick(d, ANY)
    return [[arr(d, dt, s) for _ in range(integer(d, 1, 3))]], {
        "axis": integer(d, -len(s) - 1, len(s))}


def _stack_ref(xs, axis):
    return np.concatenate([np.expand_dims(x, axis) for x in xs], axis=axis)


case("concat", _concat, lambda xs, axis: np.concatenate(xs, axis=axis))
case("stack", _stack, _stack_ref)


def _split(d):
    x = _any(d, min_dims=1)
    ax = integer(d, -x.ndim, x.ndim - 1)
    left, sizes = x.shape[ax], []
    while left:
        sizes.append(integer(d, 0, left))
        left -= sizes[-1]
    if boolean(d):
        sizes.append(0)
    return [x], {"sizes": sizes or [0], "axis": ax}


def _split_ref(x, sizes, axis):
    starts = np.cumsum([0, *sizes])
    return [np.take(x, np.arange(a, b), axis=axis) for a, b in zip(starts[:-1], starts[1:])]


case("split", _split, _split_ref)
case("flip", lambda d: (lambda x: ([x], {"axis": axes_subset(d, x.ndim)}))(_any(d)),
     lambda x, axis: x[tuple(slice(None, None, -1) if axis is None or i in
                             {a % x.ndim for a in axis} else slice(None) for i in range(x.ndim))])


def _roll(d):
    x = _any(d)
    axis = axes_subset(d, x.ndim, allow_none=True)
    n = 1 if axis is None else len(axis)
    return [x], {"shift": [integer(d, -5, 5) for _ in range(n)], "axis": axis}


def _roll_ref(x, shift, axis):
    if axis is None:
        return _roll_ref(x.reshape(-1), shift, [0]).reshape(x.shape)
    out = x
    for s, a in zip(shift, axis):
        n = out.shape[a]
        if n:
            out = np.take(out, (np.arange(n) - s) % n, axis=a)
    return out


case("roll", _roll, _roll_ref)
case("tile", lambda d: ([_any(d)], {"reps": [integer(d, 0, 3) for _ in range(integer(d, 0, 3))]}),
     lambda x, reps: np.tile(x, reps))


def _repeat(d):
    x = _any(d)
    return [x], {"repeats": integer(d, 0, 3),
                 "axis": None if not x.ndim or boolean(d) else integer(d, -x.ndim, x.ndim - 1)}


def _repeat_ref(x, repeats, axis):
    if axis is None:
        x, axis = x.reshape(-1), 0
    idx = np.arange(x.shape[axis]).repeat(repeats)
    return np.take(x, idx, axis=axis)


case("repeat", _repeat, _repeat_ref)


def _pad(d):
    x = _any(d)
    mode = pick(d, ["constant", "reflect", "edge"])
    pw = []
    for s in x.shape:
        hi = 3 if mode == "constant" else (0 if s == 0 else (max(s, 1) - 1 if mode == "reflect"
                                                             else 3))
        pw += [integer(d, 0, hi), integer(d, 0, hi)]
    value = float(integer(d, 0, 1)) if x.dtype == np.bool_ else float(integer(d, -5, 5))
    return [x], {"pad_width": pw, "mode": mode, "value": value}


def _pad_ref(x, pad_width, mode, value):
    pairs = list(zip(pad_width[::2], pad_width[1::2]))
    if not pairs:
        return x.copy()
    if mode == "constant":
        return np.pad(x, pairs, constant_values=np.asarray(value).astype(x.dtype))
    return np.pad(x, pairs, mode=mode)


case("pad", _pad, _pad_ref)


def _slice(d):
    x = _any(d)
    st_, sp, sc = [], [], []
    for s in x.shape:
        st_.append(integer(d, -s - 2, s + 2))
        sp.append(integer(d, -s - 2, s + 2))
        sc.append(pick(d, [1, 2, 3, -1, -2]))
    return [x], {"start": st_, "stop": sp, "step": sc}


case("slice", _slice, lambda x, start, stop, step:
     x[tuple(slice(a, b, c) for a, b, c in zip(start, stop, step))])

# ---- indexing ----


def _index(d, n, s):
    if n:
        return arr(d, pick(d, INT), s, 0, n - 1)
    return np.zeros(s if 0 in s else (0,), pick(d, INT))  # nothing to index: no indices


def _take(d):
    x = _any(d, min_dims=1)
    ax = integer(d, -x.ndim, x.ndim - 1)
    return [x, _index(d, x.shape[ax], shape(d, 0, 2))], {"axis": ax}


case("take", _take, lambda x, indices, axis: np.take(x, indices, axis=axis))


def _take_along(d):
    x = _any(d, min_dims=1)
    ax = integer(d, -x.ndim, x.ndim - 1)
    s = list(x.shape)
    s[ax] = integer(d, 0, 4) if x.shape[ax] else 0
    return [x, _index(d, x.shape[ax], tuple(s))], {"axis": ax}


def _take_along_ref(x, indices, axis):
    grids = list(np.indices(indices.shape, sparse=True))
    grids[axis] = indices
    return x[tuple(grids)]


case("take_along_axis", _take_along, _take_along_ref)


def _gather_nd(d):
    x = _any(d, min_dims=1, min_side=1)
    m = integer(d, 1, x.ndim)
    batch = shape(d, 0, 2)
    cols = [arr(d, "int64", batch + (1,), 0, x.shape[i] - 1) for i in range(m)]
    return [x, np.concatenate(cols, -1).astype(pick(d, INT))], {}


case("gather_nd", _gather_nd, lambda x, indices: x[tuple(np.moveaxis(indices, -1, 0))])


def _scatter(distinct, dtypes, special=False):
    def draw(d):
        dtype = pick(d, dtypes)
        x = arr(d, dtype, shape(d, 1, 3, 1, 4), special=special and boolean(d))
        m = integer(d, 0, x.ndim)  # no index columns: every update covers all of x
        grid = list(np.ndindex(*x.shape[:m]))
        rows = d.draw(st.lists(st.sampled_from(grid), max_size=5, unique=distinct))
        idx = np.array(rows, dtype=pick(d, INT)).reshape(len(rows), m)
        upd = arr(d, dtype, (len(rows),) + x.shape[m:], special=special and boolean(d))
        return [x, idx, upd], {}
    return draw


def _scatter_ref(fold):
    """Each update folded into its place in turn (`fold` None: written over it)."""
    def ref(x, indices, updates):
        out = x.copy()
        for row, u in zip(indices, updates):
            out[tuple(row)] = u if fold is None else fold(out[tuple(row)], u)
        return out
    return ref


case("scatter_nd", _scatter(True, ANY), _scatter_ref(None))
case("scatter_add", _scatter(False, NUM), _scatter_ref(np.add))
case("scatter_mul", _scatter(False, NUM), _scatter_ref(np.multiply))
case("scatter_max", _scatter(False, NUM, special=True), _scatter_ref(np.maximum))
case("scatter_min", _scatter(False, NUM, special=True), _scatter_ref(np.minimum))
case("embedding", lambda d: (lambda w: ([_index(d, w.shape[0], shape(d, 0, 2)), w], {}))(
    arr(d, pick(d, ANY), shape(d, 2, 2, 1))), lambda indices, weight: weight[indices])

# ---- sorting ----


def _orderable(d):
    """Numbers to order; floats sometimes full of NaN (either sign bit), infinities and
    zeros of both signs, whose order the IR pins (NaN largest, ties kept)."""
    dtype = pick(d, NUM)
    if dtype in FLOAT and boolean(d):
        x = d.draw(hnp.arrays(dtype, shape(d, 1), elements=st.sampled_from(
            [np.nan, np.inf, 0.0, 1.0, 2.5]))).astype(dtype)
        return np.where(arr(d, "bool", x.shape), -x, x)  # -NaN, -inf, -0.0 among them
    return arr(d, dtype, shape(d, 1), -3, 3)


def _sortable(d, extra):
    x = _orderable(d)
    return [x], {"axis": integer(d, -x.ndim, x.ndim - 1), **extra(d, x)}


def _stable_order(x, axis, descending):
    """The IR's order, written independently: along `axis`, by (NaN last, value, index)
    ascending, or (NaN first, value descending, index) descending; -0.0 ties with 0.0."""
    def line(v):
        keys = [((not np.isnan(e)) if descending else bool(np.isnan(e)),
                 0 if np.isnan(e) else (-e if descending else e), i) for i, e in enumerate(v)]
        return np.array([k[2] for k in sorted(keys)], np.int64)
    return np.apply_along_axis(line, axis % x.ndim, x) if x.size else \
        np.zeros(x.shape, np.int64)


def _same_values(got, want):
    """Equal, NaN to NaN, and with the same sign bits on the numbers (0.0 vs -0.0)."""
    np.testing.assert_array_equal(got, want)
    if want.dtype.kind == "f":
        number = ~np.isnan(want)
        np.testing.assert_array_equal(np.signbit(got[number]), np.signbit(want[number]))


def _sort_check(ops, attrs, outs, tol):
    x = ops[0]
    order = _stable_order(x, attrs["axis"], attrs["descending"])
    _same_values(outs[0], np.take_along_axis(x, order, attrs["axis"]))


def _argsort_check(ops, attrs, outs, tol):
    assert outs[0].dtype == np.int64
    np.testing.assert_array_equal(outs[0], _stable_order(ops[0], attrs["axis"],
                                                         attrs["descending"]))


def _top_k_check(ops, attrs, outs, tol):
    x, (vals, idx), axis = ops[0], outs, attrs["axis"]
    order = np.take(_stable_order(x, axis, attrs["largest"]), np.arange(attrs["k"]), axis=axis)
    assert vals.dtype == x.dtype and idx.dtype == np.int64
    np.testing.assert_array_equal(idx, order)
    _same_values(vals, np.take_along_axis(x, order, axis))


case("sort", lambda d: _sortable(d, lambda d, x: {"descending": boolean(d)}),
     check=_sort_check)
case("argsort", lambda d: _sortable(d, lambda d, x: {"descending": boolean(d)}),
     check=_argsort_check)


def _searchsorted_draw(d):
    """Rows sorted in NumPy's order (NaN last), integer-valued so that x ties with them."""
    dtype = pick(d, NUM)
    special = dtype in FLOAT and boolean(d)

    def values(shp):
        v = arr(d, dtype, shp, -3, 3, integral=True)
        if special:  # some NaN and infinities among them
            odd = d.draw(hnp.arrays(dtype, shp, elements=st.sampled_from([np.nan, np.inf,
                                                                          -np.inf])))
            v = np.where(arr(d, "bool", shp), odd, v)
        return v
    lead = shape(d, 0, 2, 1, 3) if boolean(d) else ()
    ordered = np.sort(values(lead + (integer(d, 0, 5),)), axis=-1)
    x = values(lead + (integer(d, 0, 4),) if lead else shape(d, 0, 2))
    return [ordered, x], {"side": pick(d, ["left", "right"])}


def _searchsorted_ref(ordered, x, side):
    """Python's bisect on (is NaN, value) keys: NumPy's order, written independently."""
    find = bisect.bisect_left if side == "left" else bisect.bisect_right

    def key(v):
        return (1, 0.0) if v != v else (0, v)
    out = np.zeros(x.shape, np.int64)
    for i in np.ndindex(*x.shape):
        row = ordered if ordered.ndim == 1 else ordered[i[:-1]]
        out[i] = find([key(v) for v in row], key(x[i]))
    return out


case("searchsorted", _searchsorted_draw, _searchsorted_ref)


def _top_k_draw(d):
    x = _orderable(d)
    ax = integer(d, -x.ndim, x.ndim - 1)
    return [x], {"k": integer(d, 0, x.shape[ax]), "axis": ax, "largest": boolean(d)}


case("top_k", _top_k_draw, check=_top_k_check)
