"""NumPy programs with strided views and closed-over tables, on every target against NumPy.

Basic indexing (steps of either sign, Ellipsis, np.newaxis, int and slice mixes, also of
closed-over constants and through writes into views) and closed-over tables indexed by
traced ids (`wte[ids]`, `np.take`, `.take`) as a global, a closure cell, a default
argument, a helper's global and an attribute of `self`: each program is compiled for
every target and compared with NumPy running the same function, dtype and shape
included. Plain functions that only slice go through the `ivy` facade tracer, as source
detection decides; the same keys are checked there too.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ivy_ir
from importers import detect_source
from lowerings.runtime import host_array

TARGETS = ("numpy", "jax", "torch", "tensorflow")
HERE = "tests/test_import_numpy_views.py"
RNG = np.random.default_rng(0)
X = RNG.standard_normal((6, 9)).astype(np.float32)
X3 = RNG.standard_normal((4, 5, 6)).astype(np.float32)
WTE = RNG.standard_normal((50, 8)).astype(np.float32)
TABLE = np.arange(60.0).reshape(6, 10)
TINY = np.arange(6, dtype=np.int16)


def _line(fn, marker: str) -> int:
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, text in enumerate(lines) if marker in text)


def _check(fn, *args, target: str, source: str | None = None):
    """Compile `fn` for `target` and compare with NumPy's own result."""
    c = ivy_ir.compile(fn, target, args=args, source=source)
    got, want = c(*args), fn(*args)
    got = got if isinstance(got, (tuple, list)) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        g, w = host_array(g), np.asarray(w)
        assert (g.dtype, g.shape) == (w.dtype, w.shape), f"result {i}"
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6, err_msg=f"result {i}")
    return c


# ---- strided views ----

def sliced(x, y):
    return (x[::2, 1::3] * 2 + x[1::2, ::-1][:, :x.shape[1] // 3], x[::-2, -1:0:-3],
            x[-2::-1, 7:-12:-2], x[4:1, ::2], x[..., ::-1], x[None, ::2, None, 1],
            x[-1, 2::2], x[-7::-1], y[1, ..., ::2], y[..., 1, None, ::-2],
            y[::-1, None, 2:, -1], y[-5:-7:-1, 1])


def views(x, y):
    return (*sliced(x, y), x[np.newaxis, ::-3], x[[0, -1], ::-2], x[1::2, [1, 3, -1]],
            x[:, :5] + TABLE[::2, 1::2][:3, :5].sum(), x + TABLE[:, ::-1][:, :9])


def writes(x):
    y = x.copy()
    y[::2, ::-3] = 0.0
    v = y[1::2, ::-1]
    v[:, 1] += 5.0
    y[..., None][::-1, 2, 0] = -1.0
    y[-1, 1::4] = np.arange(2.0)
    return y, v


@pytest.mark.parametrize("target", TARGETS)
def test_strided_views_match_numpy(target):
    assert detect_source(sliced, (X, X3)) == "ivy"  # slicing alone is facade code
    _check(sliced, X, X3, target=target)
    _check(views, X, X3, target=target)
    _check(writes, X, target=target)


# ---- closed-over tables indexed by traced ids ----

def global_table(ids):
    return WTE[ids].sum(-1)


def _closure():
    table = np.linspace(-1.0, 1.0, 80).reshape(20, 4)

    def lookup(ids):
        return table[ids] * 2 + table[::-2][ids % 10]
    return lookup


class Embedding:
    def __init__(self):
        self.wte = np.linspace(0.0, 1.0, 150).reshape(30, 5)
        self.pos = {"table": np.linspace(1.0, 2.0, 35).reshape(7, 5)}

    def embed(self, ids):
        return self.wte[ids] + self.pos["table"][:ids.shape[-1]]

    def __call__(self, ids):
        return self.wte.take(ids, axis=0)


def taken(ids):
    return np.take(WTE, ids, axis=0), np.take(WTE[:, ::2], ids, axis=0), TINY[ids % 6] * 3


def default_table(ids, table=WTE):
    return table[ids, 1::2], table[1:, None][ids]


def via_helper(x, ids):
    return x @ WTE.T + global_table(ids)[:, None]


IDS = np.array([[1, 2], [3, 49]])
PROGRAMS = [
    ("global", global_table, (IDS,)),
    ("global, negative int8 ids", global_table, (np.array([-1, 0, -50, 7], np.int8),)),
    ("closure", _closure(), (np.array([3, -4, 19], np.int32),)),
    ("method", Embedding().embed, (np.array([[0, 29], [-30, 5]], np.int16),)),
    ("callable object", Embedding(), (np.array([[0, 29, 1]], np.uint16),)),
    ("np.take", taken, (np.array([[[0], [49]], [[7], [20]]], np.uint8),)),
    ("default argument", default_table, (np.array([4, -2], np.int64),)),
    ("helper", via_helper, (X[:2, :8], np.array([5, 6], np.uint32))),
]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("fn,args", [p[1:] for p in PROGRAMS], ids=[p[0] for p in PROGRAMS])
def test_closed_over_tables_indexed_by_traced_ids_match_numpy(fn, args, target):
    assert detect_source(fn, args) == "numpy"
    _check(fn, *args, target=target)


def test_a_closed_over_table_is_a_buffer_and_stays_a_plain_array():
    c = ivy_ir.compile(global_table, "jax", args=(IDS,))
    assert list(c.params) == ["const0"] and "ivy.take %const0" in c.ir
    np.testing.assert_array_equal(host_array(c.params["const0"]), WTE)
    ones = {"const0": np.ones_like(WTE)}
    np.testing.assert_array_equal(host_array(c.apply(ones, IDS)), np.full((2, 2), 8.0))
    emb = Embedding()
    ivy_ir.trace(emb.embed, (IDS % 30,))
    assert type(WTE) is np.ndarray and global_table.__globals__["WTE"] is WTE
    assert type(emb.wte) is np.ndarray and type(emb.pos["table"]) is np.ndarray
    assert ivy_ir.trace(lambda ids: TINY[ids], (IDS % 6,)).params == {}  # small: inline


def test_arithmetic_alone_on_closed_over_arrays_stays_facade_code():
    assert detect_source(lambda a: a + WTE, (X,)) == "ivy"


# ---- errors name the user's line ----

def test_bad_static_indices_and_view_shapes_name_the_line():
    def traced(x):
        return x[::2, 9]

    def facade(x):
        return x[-7]

    def constant(ids):
        return WTE[ids] + TABLE[[1, 6]].sum()

    def zero_step(x):
        return x[::0]

    def mismatch(x):
        return x[::2, 1::3] * 2 + x[1::2, ::-1][:, :x.shape[1] // 3 + 1]
    with pytest.raises(IndexError, match=rf"{HERE}:{_line(traced, 'x[::2, 9]')}: index 9 is "
                                         "out of bounds for axis 1 with size 9"):
        ivy_ir.trace(traced, (X,), source="numpy")
    with pytest.raises(IndexError, match=rf"index -7 is out of bounds for axis 0 with size 6 "
                                         rf"at {HERE}:{_line(facade, 'x[-7]')}"):
        ivy_ir.trace(facade, (X,))
    with pytest.raises(IndexError, match=rf"{HERE}:{_line(constant, 'TABLE[')}: index 6 is out "
                                         "of bounds for axis 0 with size 6"):
        ivy_ir.trace(constant, (IDS,))
    line = _line(zero_step, "::0")
    with pytest.raises(ValueError, match=rf"{HERE}:{line}: slice step cannot be zero"):
        ivy_ir.trace(zero_step, (X,), source="numpy")
    with pytest.raises(ValueError, match=rf"slice step cannot be zero at {HERE}:{line}"):
        ivy_ir.trace(zero_step, (X,))
    with pytest.raises(ValueError, match=rf"ivy\.add: shapes \(3, 3\) and \(3, 4\) do not "
                                         rf"broadcast at {HERE}:{_line(mismatch, ' + ')}"):
        ivy_ir.trace(mismatch, (X,))


# ---- random slice keys ----

def _entry(n: int) -> st.SearchStrategy:
    bound = st.none() | st.integers(-n - 2, n + 2)
    step = st.none() | st.integers(-3, 3).filter(bool)
    return st.integers(-n, n - 1) | st.builds(slice, bound, bound, step)


@st.composite
def _keys(draw, shape: tuple[int, ...]) -> tuple:
    """A basic index of an array of `shape`: ints and slices, maybe an Ellipsis in
    place of some trailing dims, maybe np.newaxis entries."""
    used = draw(st.integers(0, len(shape)))
    key = [draw(_entry(n)) for n in shape[:used]]
    if used < len(shape) and draw(st.booleans()):
        key.append(Ellipsis)
    for _ in range(draw(st.integers(0, 2))):
        key.insert(draw(st.integers(0, len(key))), None)
    return tuple(key)


@pytest.mark.parametrize("source", ["numpy", "ivy"])
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(keys=st.lists(_keys((4, 5, 3)), min_size=1, max_size=5))
def test_random_slice_keys_match_numpy_on_every_target(source, keys):
    """Reads of every key, and for NumPy programs writes through them in turn."""
    x = np.arange(60, dtype=np.float32).reshape(4, 5, 3)

    def program(a):
        outs = [a[k] for k in keys]
        if source == "numpy":  # writes through views too (the facade has no setitem)
            y = a.copy()
            for k in keys:
                v = y[k]
                v *= 2.0
                y[k] = v + 1.0
            outs.append(y)
        return tuple(outs)
    for target in TARGETS:
        _check(program, x, target=target, source=source)
