"""Standard functions without an op of their own, traced: each composition of registry
ops (`ivy/composites.py`) must compute what the backend's native function computes, on
the NumPy and JAX targets; data-dependent functions refuse to be traced."""

from __future__ import annotations

import numpy as np
import pytest

import ivy
import ivy_ir

X = np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 7.5
EDGES = np.array([np.inf, -np.inf, np.nan, -0.0, 0.0, 1e30], np.float32).repeat(4).reshape(
    2, 3, 4) * np.where(np.arange(24).reshape(2, 3, 4) % 2, 1, -1).astype(np.float32)
"""Infinities, NaN of both signs, zeros of both signs and huge values, for the functions
whose special cases a composition has to keep."""
SPD = (np.eye(3) * 40).astype(np.float32)
R = (np.random.default_rng(8).standard_normal((2, 3, 4)) * 3).astype(np.float32)
"""Added to X (whose rows are an arithmetic grid: rank 2) for full-rank matrices."""


def _rank_one(a):
    """A 3 x 4 matrix of rank 1 per stack entry: a column times a row."""
    return ivy.matmul(ivy.add(a, R)[:, :, :1], ivy.add(a, R)[:, :1, :])


def _symmetric(a):
    """A symmetric 3 x 3 stack from X (eigvalsh reads one triangle; the standard asks for
    symmetric input)."""
    b = a[:, :, :3]
    return ivy.add(b, ivy.matrix_transpose(b))


LINALG_RTOL = 2e-5
"""The singular-value functions on JAX: XLA's float32 SVD is a few units off LAPACK's."""

CASES = {
    "matrix_transpose": lambda a: ivy.matrix_transpose(a),
    "linalg.matrix_transpose": lambda a: ivy.linalg.matrix_transpose(a),
    "moveaxis": lambda a: ivy.moveaxis(a, (0, 1), (-1, 0)),
    "unstack": lambda a: ivy.unstack(a, axis=1),
    "cumulative_sum": lambda a: ivy.cumulative_sum(a, axis=2, include_initial=True),
    "cumulative_prod": lambda a: ivy.cumulative_prod(a[0, 0], dtype=ivy.float64),
    "diff": lambda a: ivy.diff(a, axis=1, n=2, prepend=a[:, :1]),
    "tensordot": lambda a: ivy.tensordot(a, a, axes=([1, 2], [1, 2])),
    "tensordot-int": lambda a: ivy.tensordot(a[0], a[1, :, :, None], axes=2),
    "linalg.trace": lambda a: ivy.linalg.trace(a[:, :, :3], offset=1),
    "meshgrid-xy": lambda a: ivy.meshgrid(a[0, 0], a[0, :, 0], a[1, 1, :2]),
    "meshgrid-ij": lambda a: ivy.meshgrid(a[0, 0], a[0, :, 0], indexing="ij"),
    "broadcast_arrays": lambda a: ivy.broadcast_arrays(a[0, :, :1], a[0, 0], a),
    "positive": lambda a: ivy.positive(a),
    "signbit": lambda a: ivy.signbit(ivy.multiply(a, EDGES)),
    "copysign": lambda a: ivy.copysign(a, ivy.multiply(a[::-1], EDGES)),
    "hypot": lambda a: ivy.hypot(ivy.multiply(a, EDGES), a[::-1]),
    "logaddexp": lambda a: ivy.logaddexp(ivy.multiply(a, EDGES), a[::-1]),
    "count_nonzero": lambda a: ivy.count_nonzero(ivy.multiply(a, EDGES), axis=(0, 2)),
    "count_nonzero-all": lambda a: ivy.count_nonzero(ivy.round(ivy.divide(a, 4)),
                                                     keepdims=True),
    "asarray": lambda a: ivy.asarray(a, dtype=ivy.float64),
    "empty_like": lambda a: ivy.multiply(ivy.empty_like(a, dtype=ivy.int32), 0),
    "linalg.svdvals": lambda a: ivy.linalg.svdvals(ivy.add(a, R)),
    "linalg.eigvalsh": lambda a: ivy.linalg.eigvalsh(ivy.add(SPD, _symmetric(a))),
    "linalg.matrix_rank": lambda a: ivy.linalg.matrix_rank(_rank_one(a)),
    "linalg.matrix_rank-rtol": lambda a: ivy.linalg.matrix_rank(ivy.add(a, R), rtol=0.3),
    "linalg.pinv": lambda a: ivy.linalg.pinv(ivy.add(a, R)),
    "linalg.pinv-rank-deficient": lambda a: ivy.linalg.pinv(_rank_one(a), rtol=1e-3),
    "linalg.matrix_power-5": lambda a: ivy.linalg.matrix_power(ivy.divide(a[:, :, :3], 9), 5),
    "linalg.matrix_power-0": lambda a: ivy.linalg.matrix_power(a[:, :, :3], 0),
    "linalg.matrix_power--2": lambda a: ivy.linalg.matrix_power(ivy.add(SPD, _symmetric(a)),
                                                                -2),
    "linalg.cross": lambda a: ivy.linalg.cross(a[:, :, :3], a[0, :, 1:]),
    "linalg.cross-axis": lambda a: ivy.linalg.cross(a[:, :, :3], a[:, :, 1:], axis=1),
}


@pytest.mark.parametrize("target", ["numpy", "jax"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_composite_matches_the_native_function(name, target):
    f = CASES[name]
    want = f(X)  # eager: the NumPy backend's own function
    got = ivy_ir.compile(f, target=target, args=(X,))(X)
    want = list(want) if isinstance(want, (list, tuple)) else [want]
    got = list(got) if isinstance(got, (list, tuple)) else [got]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert np.asarray(g).dtype == np.asarray(w).dtype, name
        rtol = LINALG_RTOL if name.startswith(("linalg.svdvals", "linalg.pinv")) else 1e-6
        np.testing.assert_allclose(np.asarray(g), w, rtol=rtol, atol=1e-7, err_msg=name)


@pytest.mark.parametrize("name", ["nonzero", "unique_values", "unique_counts",
                                  "unique_inverse", "unique_all"])
def test_data_dependent_functions_refuse_tracing(name):
    with pytest.raises(TypeError, match=f"ivy.{name}: the shape of its result depends on"):
        ivy_ir.trace(lambda a: getattr(ivy, name)(a), (X,))


def test_functions_without_ops_say_so_when_traced():
    with pytest.raises(TypeError, match="ivy.to_numpy has no op in the ivy dialect yet"):
        ivy_ir.trace(lambda a: ivy.to_numpy(a), (X,))


def test_searchsorted_traces_to_its_op_and_refuses_a_sorter():
    ordered = np.sort(X.ravel())
    fn = ivy_ir.compile(lambda a: ivy.searchsorted(ordered, a, side="right"), "numpy",
                        args=(X,))
    np.testing.assert_array_equal(fn(X), np.searchsorted(ordered, X, side="right"))
    with pytest.raises(TypeError, match="tracing does not support sorter"):
        ivy_ir.trace(lambda a: ivy.searchsorted(a[0, 0], a, sorter=ivy.argsort(a[0, 0])),
                     (X,))


def test_torch_set_globally_binds_torchs_own_functions_of_one_array_and_still_traces():
    """With torch set, `ivy.sqrt` is `torch.sqrt` itself; torch hands a tracer back
    (`Tracer.__torch_function__`), so traced code records ops. Functions of two arrays
    keep our frame (its dtype test and promotion), and `tensor <op> tracer` records."""
    torch = pytest.importorskip("torch")
    x = np.array([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0], [1.0, 2.0, 5.0]], np.float32)
    ones = torch.ones(3)
    with ivy.torch.use:
        assert ivy.sqrt is torch.sqrt and ivy.linalg.inv is torch.linalg.inv
        assert ivy.add is not torch.add and ivy.linear is not torch.nn.functional.linear

        def f(a):
            return ivy.sqrt(ivy.abs(a)) + ivy.floor(a) * ones - ivy.linalg.inv(a)[0] \
                + (ones - ivy.sin(a))

        compiled = ivy_ir.compile(f, target="numpy", args=(x,), source="ivy")
        for op in ("ivy.sqrt", "ivy.floor", "ivy.inv", "ivy.sin", "ivy.subtract"):
            assert op in compiled.ir, op
        np.testing.assert_allclose(compiled(x), f(torch.from_numpy(x)).numpy(), rtol=1e-5)
        with pytest.raises(TypeError, match=r"torch's cumsum\(\) was called on a traced "
                                            r"array at .*test_facade_traced.py"):
            ivy_ir.trace(lambda a: torch.cumsum(a, 0), (x,), source="ivy")


def test_numpy_set_globally_binds_numpys_own_functions_and_still_traces():
    """With NumPy set, `ivy.add` is `np.add` itself (no frame of ours); NumPy hands a
    tracer back (`__array_ufunc__`/`__array_function__`), so traced code records ops,
    and `ndarray <op> tracer` keeps recording the operator's op."""
    x = np.array([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]], np.float32)
    with ivy.numpy.use:
        assert ivy.add is np.add and ivy.linalg.inv is np.linalg.inv
        assert ivy.sum is not np.sum  # keywords differ from the standard's: ours

        def f(a):
            return ivy.where(ivy.greater(a, 0), ivy.sqrt(ivy.abs(a)), ivy.round(a)) \
                + np.arange(3, dtype=np.float32) * a - ivy.sum(a, axis=0)

        compiled = ivy_ir.compile(f, target="numpy", args=(x,))
        for op in ("ivy.where", "ivy.sqrt", "ivy.abs", "ivy.round", "ivy.multiply"):
            assert op in compiled.ir, op
        np.testing.assert_allclose(compiled(x), f(x), rtol=1e-6)


def test_factorizations_name_their_results_when_traced():
    """The standard's named tuples (`.logabsdet`, `.eigenvalues`, `.R`, `.S`) traced as
    eagerly (they were plain tuples)."""
    a = (np.eye(3) * 3 + np.arange(9).reshape(3, 3) / 10).astype(np.float32)

    def f(x):
        return (ivy.linalg.slogdet(x).logabsdet,
                ivy.linalg.eigh(ivy.add(x, ivy.matrix_transpose(x))).eigenvalues,
                ivy.linalg.qr(x).R, ivy.linalg.svd(x).S)
    for got, want in zip(ivy_ir.compile(f, target="numpy", args=(a,))(a), f(a), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
