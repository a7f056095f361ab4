"""The running reductions `cummax`, `cummin` and `logcumsumexp`, imported from every
source that has them (torch's with the index of each running value, lax's with
`reverse`, TF's with `exclusive`/`reverse`, NumPy's ufunc `accumulate`) and run on
every target against the source. The op table (`tests/op_refs_elementwise.py`) draws
their values; this checks the spellings and torch's index rule (the last of tied
values; a NaN holds its own index and passes it on)."""

from __future__ import annotations

import numpy as np
import pytest

import ivy_ir

TARGETS = ("numpy", "jax", "torch", "tensorflow")
X = np.random.default_rng(8).standard_normal((3, 6)).astype(np.float32)
X[1, 2] = X[1, 5] = np.nan
X[2, 1] = X[2, 3] = X[2, 4] = 5.0  # ties


def _arrays(value):
    return [np.asarray(v) for v in value] if isinstance(value, (tuple, list)) \
        else [np.asarray(value)]


def _same(fn, arg, data=X):
    want = _arrays(fn(arg))
    for target in TARGETS:
        got = _arrays(ivy_ir.compile(fn, target=target, args=(arg,))(data))
        for g, w in zip(got, want, strict=True):
            assert g.dtype == w.dtype, target
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, equal_nan=True,
                                       err_msg=target)


@pytest.mark.parametrize("name", ["cummax", "cummin", "logcumsumexp"])
@pytest.mark.parametrize("dim", [0, 1])
def test_torch(name, dim):
    torch = pytest.importorskip("torch")
    fn = getattr(torch, name)
    _same(lambda t: tuple(fn(t, dim)) if name != "logcumsumexp" else fn(t, dim),
          torch.from_numpy(X))


@pytest.mark.parametrize("name", ["cummax", "cummin", "cumlogsumexp"])
def test_jax(name):
    jax = pytest.importorskip("jax")
    fn = getattr(jax.lax, name)
    _same(lambda t: (fn(t, 1), fn(t, 0, reverse=True)), jax.numpy.asarray(X))


def test_tensorflow():
    """TF's own cumulative logsumexp skips NaN (the IR's propagates it): NaN-free data."""
    tf = pytest.importorskip("tensorflow")
    finite = np.nan_to_num(X)
    _same(tf.function(lambda t: (tf.math.cumulative_logsumexp(t, 1),
                                 tf.math.cumulative_logsumexp(t, 0, exclusive=True,
                                                              reverse=True))),
          finite, finite)


@pytest.mark.parametrize("ufunc", ["maximum", "minimum", "logaddexp"])
def test_numpy_accumulate(ufunc):
    _same(lambda a: getattr(np, ufunc).accumulate(a, axis=1), X)
