"""Lax primitives the JAX importer closed late, each against `jax.jit` of the same
program on several targets: the special functions (`cbrt`, `population_count`,
`lgamma`, `digamma`, `bessel_i0e`), the comparisons in IEEE total order (`lt_to`,
`le_to`, `eq_to`: -0.0 before +0.0, NaNs ordered by sign and payload) and `sort` with
several keys or of bools. Two programs hold them all, each imported once and compiled
once per target."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.extend.core.primitives import eq_to_p, le_to_p, lt_to_p

import ivy_ir

TARGETS = ["numpy", "jax", "torch", "tensorflow"]


def _np(value) -> np.ndarray:
    return np.asarray(value.detach() if hasattr(value, "detach") else value)


def special(x, i):
    return (jnp.cbrt(x), jnp.bitwise_count(i), jax.lax.population_count(i),
            jax.scipy.special.gammaln(x), jax.scipy.special.digamma(x), jnp.i0(x),
            jnp.kaiser(9, 6.0))


VALUES = np.array([-27.0, -3.5, -0.5, -0.0, 0.0, 0.25, 1.0, 2.0, 7.5, 31.0, 800.0, np.nan],
                  np.float32)
WORDS = np.array([-(2**31), -1, 0, 1, 6, 2**31 - 1, 255, -256, 12345, 7, -7, 3], np.int32)


def _bits(words, dtype) -> np.ndarray:
    return np.array(words, dtype=f"uint{np.dtype(dtype).itemsize * 8}").view(dtype)


F32 = np.concatenate([np.array([0.0, -0.0, 1.5, -1.5, np.inf, -np.inf, 3e-39], np.float32),
                      _bits([0x7FC00000, 0x7FC00001, 0xFFC00000, 0xFFC00001, 0x7F800001],
                            np.float32)])
"""Signed zeros, infinities, a subnormal and NaNs of both signs and several payloads."""
F16 = np.concatenate([np.array([0.0, -0.0, -2.0, np.inf], np.float16),
                      _bits([0x7E00, 0xFE01], np.float16)])
INT = np.array([-(2**31), -1, 0, 1, 2**31 - 1], np.int32)
BOOL = np.array([False, True])


def _pairs(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    a, b = np.meshgrid(v, v, indexing="ij")
    return a.ravel(), b.ravel()


KEYS = (np.array([2.0, -0.0, 1.0, 0.0, 1.0, np.nan, 1.0, 0.0], np.float32),
        np.array([3, 1, 1, 2, 1, 0, 1, 2], np.int32),
        np.array([True, False, True, False, False, True, True, False]))
SORTED = np.array([-np.inf, -1.0, -0.0, 0.0, 2.0, 2.0, np.nan], np.float32)


def ordering(f32a, f32b, f16a, f16b, ia, ib, ba, bb, k0, k1, k2, sorted_, v):
    compared = [p.bind(a, b) for a, b in ((f32a, f32b), (f16a, f16b), (ia, ib), (ba, bb))
                for p in (lt_to_p, le_to_p, eq_to_p)]
    # (tests/test_jax_coverage.py runs digitize, histogram, interp, intersect1d and
    # setxor1d on the NumPy target)
    return (*compared, jnp.searchsorted(sorted_, v), jnp.lexsort((k0, k1, k2)),
            jax.lax.sort((k1, k2, k0), num_keys=2), jnp.extract(k2, k0, size=4),
            jnp.sort(k2))


ARGS = (*_pairs(F32), *_pairs(F16), *_pairs(INT), *_pairs(BOOL), *KEYS, SORTED,
        np.array([-2.0, -0.0, 0.0, 0.5, 2.0, np.nan, np.inf, 1.0], np.float32))


@functools.cache
def _imported(name: str) -> tuple[ivy_ir.Module, list[np.ndarray]]:
    """The program imported once, and JAX's own results."""
    fn, args = PROGRAMS[name]
    return ivy_ir.trace(fn, args), [np.asarray(w) for w in
                                    jax.tree_util.tree_leaves(jax.jit(fn)(*args))]


PROGRAMS = {"special": (special, (VALUES, WORDS)), "ordering": (ordering, ARGS)}


# ONNX refuses lgamma, digamma and bessel_i0e (tests/test_special_functions.py)
@pytest.mark.parametrize("name,target", [("special", t) for t in TARGETS]
                         + [("ordering", t) for t in [*TARGETS, "onnx"]])
def test_matches_jax(name, target):
    module, want = _imported(name)
    args = PROGRAMS[name][1]
    got = [_np(g) for g in jax.tree_util.tree_leaves(
        list(ivy_ir.compile(module, target)(*args)))]
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want)):
        assert g.dtype == w.dtype and g.shape == w.shape, k
        # XLA's float32 lgamma/digamma are a few ulp off in places (lgamma(1) = 4.8e-7)
        np.testing.assert_allclose(g, w, rtol=2e-6, atol=1e-6, err_msg=f"{target} {k}")


SOLVES = {
    "solve": (lambda a, b: jnp.linalg.solve(a, b), (4, 4), (4, 3)),
    "solve a vector": (lambda a, b: jnp.linalg.solve(a, b[:, 0]), (4, 4), (4, 3)),
    "inv": (lambda a, b: jnp.linalg.inv(a) @ b, (4, 4), (4, 3)),
    "solve a batch": (lambda a, b: jnp.linalg.solve(a, b), (2, 4, 4), (2, 4, 3)),
    "inv of a batch": (lambda a, b: jnp.linalg.inv(a) @ b, (2, 3, 4, 4), (4, 3)),
    "vmap of vector solves": (jax.vmap(jnp.linalg.solve), (2, 4, 4), (2, 4)),
    "vmap of solves along rows": (jax.vmap(lambda a, b: jnp.linalg.solve(a, b.T)), (2, 4, 4),
                                  (2, 3, 4)),
}


@pytest.mark.parametrize("name", SOLVES)
@pytest.mark.parametrize("target", TARGETS)
def test_linear_solves_import_as_the_registry_solve(name, target):
    """`jnp.linalg.solve`/`inv` stage `lax.custom_linear_solve` with JAX's LU solver
    passed in: the importer reads the matrix off its `matvec` (batched under `vmap` or
    in a stack) and never imports the LU."""
    rng = np.random.default_rng(5)
    fn, sa, sb = SOLVES[name]
    a = (rng.standard_normal(sa) + 4 * np.eye(sa[-1])).astype(np.float32)
    b = rng.standard_normal(sb).astype(np.float32)
    module = ivy_ir.trace(fn, (a, b), source="jax")
    assert "lu" not in {op.name.removeprefix("ivy.") for op in module.entry.walk()}
    got = _np(ivy_ir.compile(module, target=target)(a, b))
    np.testing.assert_allclose(got, np.asarray(jax.jit(fn)(a, b)), rtol=1e-4, atol=1e-5)


GRADIENTS = {
    "solve": jax.grad(lambda a, b: (jnp.linalg.solve(a, b) ** 2).sum(), argnums=(0, 1)),
    "solve vectors": jax.grad(lambda a, b: jnp.sin(jax.vmap(jnp.linalg.solve)(
        a, b[..., 0])).sum(), argnums=(0, 1)),
    "inv": jax.grad(lambda a, b: (jnp.linalg.inv(a) @ b).sum()),
    "slogdet": jax.grad(lambda a, b: jnp.linalg.slogdet(a)[1].sum()),
    "det": jax.grad(lambda a, b: jnp.linalg.det(a).sum()),
}


@pytest.mark.parametrize("name", sorted(GRADIENTS))
def test_gradients_through_solves_and_determinants_import(name):
    """`jax.grad` through `jnp.linalg.solve`/`inv`/`slogdet`/`det` stages the transposed
    solve (a `custom_linear_solve` whose `matvec` applies the matrix from the right) and
    sums cotangents with `add_any`: imported, against `jax.jit` on every target."""
    rng = np.random.default_rng(7)
    a = (rng.standard_normal((2, 4, 4)) + 4 * np.eye(4)).astype(np.float32)
    b = rng.standard_normal((2, 4, 3)).astype(np.float32)
    fn = GRADIENTS[name]
    want = [np.asarray(w) for w in jax.tree_util.tree_leaves(jax.jit(fn)(a, b))]
    module = ivy_ir.trace(fn, (a, b), source="jax")
    for target in TARGETS:
        got = jax.tree_util.tree_leaves(ivy_ir.compile(module, target=target)(a, b))
        for g, w in zip(got, want, strict=True):
            np.testing.assert_allclose(_np(g), w, rtol=2e-4, atol=2e-5, err_msg=target)


FACTORED = {
    "det": lambda a: jnp.linalg.det(a),
    "slogdet": lambda a: jnp.linalg.slogdet(a),
    "lu_factor": lambda a: jax.scipy.linalg.lu_factor(a),
    "lu": lambda a: jax.scipy.linalg.lu(a),
    "lu_solve": lambda a: jax.scipy.linalg.lu_solve(jax.scipy.linalg.lu_factor(a),
                                                    jnp.arange(4.0, dtype=a.dtype)),
    "lax.linalg.lu": lambda a: jax.lax.linalg.lu(a),
}


@pytest.mark.parametrize("name", sorted(FACTORED))
def test_lu_factorizations_import_onto_the_registry_lu(name):
    """XLA's `lu` (getrf), behind det, slogdet and scipy's LU functions, is the registry
    op: the same pivots on every target, and a singular matrix's determinant 0, not an
    error (TF's own tf.linalg.lu refuses it)."""
    rng = np.random.default_rng(6)
    a = rng.standard_normal((4, 4)).astype(np.float32)
    singular = np.array([[1, 2, 3, 4], [2, 4, 6, 8], [0, 1, 0, 1], [1, 1, 1, 1]], np.float32)
    fn = FACTORED[name]
    for x in (a, singular) if name in ("det", "slogdet", "lu_factor") else (a,):
        want = [np.asarray(w) for w in jax.tree_util.tree_leaves(jax.jit(fn)(x))]
        module = ivy_ir.trace(fn, (x,), source="jax")
        assert "lu" in {op.name.removeprefix("ivy.") for op in module.entry.walk()}
        for target in TARGETS:
            got = jax.tree_util.tree_leaves(ivy_ir.compile(module, target=target)(x))
            for g, w in zip(got, want, strict=True):
                np.testing.assert_allclose(_np(g), w, rtol=1e-4, atol=1e-5,
                                           err_msg=f"{target} {name}")


TRIANGULAR = {
    "lower": lambda a, b: jax.scipy.linalg.solve_triangular(a, b, lower=True),
    "upper, transposed": lambda a, b: jax.scipy.linalg.solve_triangular(a, b, trans=1),
    "unit diagonal": lambda a, b: jax.scipy.linalg.solve_triangular(a, b, lower=True,
                                                                    unit_diagonal=True),
    "from the right": lambda a, b: jax.lax.linalg.triangular_solve(
        a, jnp.swapaxes(b, -1, -2), left_side=False, lower=True),
    "cho_solve": lambda a, b: jax.scipy.linalg.cho_solve(
        jax.scipy.linalg.cho_factor(a @ jnp.swapaxes(a, -1, -2), lower=True), b),
}


@pytest.mark.parametrize("name", sorted(TRIANGULAR))
def test_triangular_solves_import_as_solves_of_their_triangle(name):
    """XLA reads only the named triangle (and not the diagonal when it is a unit one):
    the other triangle here is noise that a plain solve would read."""
    rng = np.random.default_rng(4)
    a = rng.standard_normal((3, 4, 4)).astype(np.float32) + 4 * np.eye(4, dtype=np.float32)
    b = rng.standard_normal((3, 4, 2)).astype(np.float32)
    fn = TRIANGULAR[name]
    want = np.asarray(jax.jit(fn)(a, b))
    module = ivy_ir.trace(fn, (jnp.asarray(a), jnp.asarray(b)))
    for target in TARGETS:
        got = _np(ivy_ir.compile(module, target=target)(a, b))
        np.testing.assert_allclose(got, want, rtol=2e-4, atol=2e-5, err_msg=target)


INTEGER_EDGES = {
    "float to uint8 saturates": (lambda x: x.astype(jnp.uint8),
                                 (np.array([-5.0, -0.5, 3.7, 255.9, 300.0, 725.0], np.float32),)),
    "float to int32 saturates, NaN is 0": (
        lambda x: x.astype(jnp.int32),
        (np.array([-3e9, 3e9, np.nan, np.inf, -np.inf, -7.9, -2.0 ** 31], np.float32),)),
    "float16 to int64 of infinities": (lambda x: x.astype(jnp.int64),
                                       (np.array([np.inf, -np.inf, 65504, -3.5], np.float16),)),
    "integer division and remainder by zero": (
        lambda x, y: jnp.stack([x // y, x % y, jax.lax.div(x, y), jax.lax.rem(x, y)]),
        (np.array([-7, 0, 7, 9], np.int32), np.array([0, 0, 0, 2], np.int32))),
    "unsigned division by zero": (lambda x, y: jax.lax.div(x, y),
                                  (np.array([7, 0, 9], np.uint8), np.array([0, 0, 2], np.uint8))),
}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case", sorted(INTEGER_EDGES))
def test_integer_edges_give_xlas_answers(case, target):
    """XLA saturates float -> int conversions (NaN to 0) and divides an integer by zero
    as all ones with the dividend as remainder; the IR's astype and floor_divide are
    NumPy's (wrapping; 0), so the JAX importer spells XLA's meaning out."""
    fn, args = INTEGER_EDGES[case]
    with jax.enable_x64(True):
        want = np.asarray(jax.jit(fn)(*args))
        compiled = ivy_ir.compile(fn, target=target, args=tuple(map(jnp.asarray, args)))
    got = _np(compiled(*args))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
