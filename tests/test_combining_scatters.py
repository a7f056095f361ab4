"""The combining scatters (`scatter_add`, `scatter_mul`, `scatter_max`, `scatter_min`):
their meaning where the frameworks' own scatters differ (NaN, no index columns),
gradients where an update is exactly zero or an index repeats, and the source ops that
import onto them (JAX's `x.at[i].max/min/multiply/subtract` and segment reductions,
TF's tensor scatters and segment ops, NumPy's `ufunc.at`, torch's `scatter_reduce`,
ONNX's scatter reductions). Random draws of every dtype are in the op table
(`tests/op_refs_shape.py`); these are the cases a draw rarely hits."""

from __future__ import annotations

import numpy as np
import pytest
from differential import run_compiled

import ivy_ir
from ivy_ir.core.tracer import OPS as F

TARGETS = ("numpy", "jax", "torch", "tensorflow", "onnx")
X = np.array([1.0, np.nan, 3.0, -0.0, 5.0], np.float32)
AT = np.array([[0], [0], [1], [2], [2], [4]], np.int64)
UPDATES = np.array([np.nan, 2.0, 7.0, np.nan, 1.0, 0.0], np.float32)


def _fold(fold, x, indices, updates):
    out, n, depth = x.copy(), int(np.prod(indices.shape[:-1])), indices.shape[-1]
    for row, u in zip(indices.reshape(n, depth), updates.reshape(n, *x.shape[depth:])):
        out[tuple(row)] = fold(out[tuple(row)], u)
    return out


FOLDS = {"scatter_add": np.add, "scatter_mul": np.multiply, "scatter_max": np.maximum,
         "scatter_min": np.minimum}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("op", sorted(FOLDS))
def test_a_nan_in_x_or_an_update_makes_its_place_nan(op, target):
    """TF's and onnxruntime's max/min scatters skip NaN (onnxruntime then also loses
    x's value behind it: max(3, NaN, 1) gave 1); the registry's max is NaN-propagating."""
    got = run_compiled(op, [X, AT, UPDATES], {}, target)[0][0]
    np.testing.assert_array_equal(got, _fold(FOLDS[op], X, AT, UPDATES))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("op", ["scatter_nd", *sorted(FOLDS)])
def test_index_rows_without_columns_update_all_of_x(op, target):
    """Indices of shape (2, 2, 0): four updates, each the whole of x. JAX, torch and TF
    returned x unchanged for every scatter here (even `scatter_nd`)."""
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    updates = np.arange(24, dtype=np.int32).reshape(2, 2, 2, 3) - 10
    indices = np.zeros((2, 2, 0), np.int64)
    got = run_compiled(op, [x, indices, updates], {}, target)[0][0]
    want = updates[-1, -1] if op == "scatter_nd" else _fold(FOLDS[op], x, indices, updates)
    np.testing.assert_array_equal(got, want)


def _product_gradients(x, at, updates):
    """d sum(scatter_mul(x, at, updates)) by the definition: each factor's derivative is
    the product of the others (no division, so zeros are exact)."""
    gx, gu = np.zeros_like(x), np.zeros_like(updates)
    for place in range(len(x)):
        rows = [i for i, (p,) in enumerate(at) if p == place]
        factors = [x[place]] + [updates[i] for i in rows]
        for k, i in enumerate([None, *rows]):
            others = np.prod([f for j, f in enumerate(factors) if j != k], axis=0)
            if i is None:
                gx[place] = others
            else:
                gu[i] = others
    return gx, gu


@pytest.mark.parametrize("target", ["jax", "torch", "tensorflow"])
def test_product_gradients_with_zero_updates_and_repeated_places(target):
    """JAX refuses scatter_mul gradients on repeated indices: its lowering carries its
    own derivative. Places 0 and 2 hold one and two zero updates."""
    x = np.array([[1.5, -2.0], [0.5, 3.0], [2.0, -1.0]])
    at = np.array([[0], [2], [0], [2], [2], [1]])
    updates = np.array([[0.0, 2.0], [0.0, -0.5], [3.0, 0.0], [0.0, 1.5], [4.0, 2.5],
                        [0.0, 0.25]])
    compiled = ivy_ir.compile(lambda x, u: F.scatter_mul(x, at, u), target=target,
                              args=(x, updates), source="ivy")
    want = _product_gradients(x, at, updates)
    got = _gradients(target, compiled, x, updates)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=0)


def _gradients(target, compiled, *args):
    if target == "jax":
        import jax
        with jax.enable_x64(True):
            return jax.grad(lambda *a: compiled(*a).sum(), argnums=(0, 1))(*args)
    if target == "torch":
        import torch
        tensors = [torch.tensor(a, requires_grad=True) for a in args]
        compiled(*tensors).sum().backward()
        return [t.grad.numpy() for t in tensors]
    import tensorflow as tf
    variables = [tf.Variable(a) for a in args]
    with tf.GradientTape() as tape:
        total = tf.reduce_sum(compiled(*variables))
    return [g.numpy() for g in tape.gradient(total, variables)]


SOURCE_TARGETS = ("numpy", "jax", "torch", "tensorflow")
RNG = np.random.default_rng(5)
DATA = RNG.standard_normal((6, 3)).astype(np.float32)
INTS = RNG.integers(-9, 9, (6, 3)).astype(np.int32)
IDS = np.array([0, 2, -1, 2, 4, 0])  # a negative id: dropped by TF's segment ops


def _same(fn, args, source, want):
    module = ivy_ir.trace(fn, args, source=source)
    for target in SOURCE_TARGETS:
        got = np.asarray(ivy_ir.compile(module, target=target)(*map(np.asarray, args)))
        assert got.dtype == want.dtype, target
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=0, err_msg=target)


JAX_PROGRAMS = {  # jax, x, updates -> result
    "max": lambda jax, x, u: x.at[IDS[:4] % 5].max(u[:4]),
    "min_of_columns": lambda jax, x, u: x.at[:, np.array([1, 1, 0])].min(u[:5]),
    "multiply": lambda jax, x, u: x.at[np.array([0, 3, 0, 1])].multiply(u[:4]),
    "subtract": lambda jax, x, u: x.at[np.array([0, 3, 0, 1])].subtract(u[:4]),
    "max_dropping_out_of_range": lambda jax, x, u: x.at[np.array([0, 7, -1])].max(
        u[:3], mode="drop"),
    "segment_max": lambda jax, x, u: jax.ops.segment_max(u, IDS % 5, num_segments=5),
}


@pytest.mark.parametrize("name", sorted(JAX_PROGRAMS))
def test_jax_combining_updates_import(name):
    jax = pytest.importorskip("jax")
    fn = (lambda program: lambda x, u: program(jax, x, u))(JAX_PROGRAMS[name])
    args = (jax.numpy.asarray(RNG.standard_normal((5, 3)).astype(np.float32)),
            jax.numpy.asarray(DATA))
    _same(fn, args, "jax", np.asarray(fn(*args)))


TF_KINDS = ("sum", "prod", "max", "min")


@pytest.mark.parametrize("kind", TF_KINDS)
@pytest.mark.parametrize("data", [DATA, INTS], ids=["float32", "int32"])
def test_tf_segment_reductions_import(kind, data):
    """Unsorted (negative ids dropped, an empty segment the identity: the lowest finite
    value for max) and sorted (an empty segment 0); tensor scatters of max and min."""
    tf = pytest.importorskip("tensorflow")
    unsorted = getattr(tf.math, f"unsorted_segment_{kind}")
    sorted_ = getattr(tf.math, f"segment_{kind}")
    programs = [lambda d: unsorted(d, IDS, 6),
                lambda d: sorted_(d, np.array([0, 0, 2, 2, 2, 5]))]
    if kind in ("max", "min"):
        scatter = getattr(tf, f"tensor_scatter_nd_{kind}")
        programs.append(lambda d: scatter(tf.zeros((5, 3), d.dtype),
                                          np.array([[0], [2], [0]]), d[:3]))
    for fn in programs:
        _same(tf.function(fn), (data,), "tensorflow", fn(tf.constant(data)).numpy())


def test_tf_segment_means_import():
    tf = pytest.importorskip("tensorflow")
    for fn in (lambda d: tf.math.segment_mean(d, np.array([0, 0, 2, 2, 2, 5])),
               lambda d: tf.math.unsorted_segment_mean(d, IDS, 6)):
        _same(tf.function(fn), (DATA,), "tensorflow", fn(tf.constant(DATA)).numpy())


@pytest.mark.parametrize("ufunc", ["subtract", "multiply", "maximum", "minimum"])
def test_numpy_ufunc_at_imports(ufunc):
    def fn(x, u):
        a = x.copy()
        getattr(np, ufunc).at(a, np.array([0, 3, 0, 1]), u[:4])
        getattr(np, ufunc).at(a, (np.array([2, 2]), 1), u[:2, 0])
        return a
    x = RNG.standard_normal((5, 3))
    _same(fn, (x, DATA.astype(np.float64)), "numpy", fn(x, DATA.astype(np.float64)))
