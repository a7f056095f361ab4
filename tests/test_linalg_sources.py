"""Linear-algebra functions that the sources compose from factorizations and products
(pseudo-inverse, rank, condition number, powers, cross products, Vandermonde matrices,
triangular and Cholesky solves), imported from NumPy and torch, against the source
itself on every target. One program per source holds all its cases (the compositions
are `ivy_ir/core/linalg_compositions.py`, shared with the facade's traced
`ivy.linalg.*`)."""

from __future__ import annotations

import numpy as np
import pytest
from differential import matches_on_targets, to_numpy

import ivy_ir

TARGETS = ["numpy", "jax", "torch", "tensorflow"]
RNG = np.random.default_rng(12)
A = (RNG.standard_normal((2, 4, 4)) + 4 * np.eye(4)).astype(np.float32)
B = RNG.standard_normal((2, 4, 3)).astype(np.float32)
RANK_TWO = (RNG.standard_normal((4, 2)) @ RNG.standard_normal((2, 3))).astype(np.float32)
TOL = np.array([0.05, 0.5], np.float32)  # torch: one relative tolerance per matrix


def _numpy_program():
    def program(a, b, r):
        return (np.linalg.pinv(b), np.linalg.pinv(r, rcond=1e-4), np.linalg.matrix_rank(a),
                np.linalg.matrix_rank(r), np.linalg.eigvalsh(a + np.swapaxes(a, -1, -2)),
                np.linalg.matrix_power(a, 3), np.linalg.matrix_power(a, -2),
                np.linalg.cond(a), np.cross(b[..., :3, 0], b[..., :3, 1]),
                np.cross(b[:, :3], b[:, 1:], axis=1), np.vander(b[0, :, 0]),
                np.vander(b[1, :, 1], 6, increasing=True), np.linalg.matrix_rank(b[0, :, 0]),
                np.linalg.matrix_rank(b[0, :, 0] * 0), np.linalg.matrix_rank(b[1, 0, 0]))
    args = (A.astype(np.float64), B.astype(np.float64), RANK_TWO.astype(np.float64))
    return program, args, [np.asarray(w) for w in program(*args)]  # ranks of vectors: ints


def _torch_program():
    import torch

    def program(a, b, r, tol):
        spd = a @ a.mT
        low = torch.linalg.cholesky(spd)
        return (torch.linalg.pinv(b), torch.linalg.pinv(r, rtol=1e-4),
                torch.linalg.solve_triangular(a, b, upper=True),
                torch.linalg.solve_triangular(a, b.mT, upper=False, left=False,
                                              unitriangular=True),
                torch.cholesky_solve(b, low), torch.cholesky_solve(b, low.mT, upper=True),
                torch.cholesky_inverse(low), torch.linalg.pinv(b, rtol=tol),
                torch.linalg.matrix_exp(a * 0.3))

    class Program(torch.nn.Module):
        def forward(self, a, b, r, tol):
            return program(a, b, r, tol)

    args = tuple(torch.tensor(x) for x in (A, B, RANK_TWO, TOL))
    return Program(), args, [t.numpy() for t in program(*args)]


PROGRAMS = {"numpy": _numpy_program, "torch": _torch_program}


@pytest.mark.parametrize("source", sorted(PROGRAMS))
def test_composed_linear_algebra_matches_the_source_on_every_target(source):
    fn, args, want = PROGRAMS[source]()
    module = ivy_ir.trace(fn, args, source=source)
    plain = [np.asarray(a.numpy() if hasattr(a, "numpy") else a) for a in args]
    tol = {"rtol": 1e-9, "atol": 1e-9} if source == "numpy" else {"rtol": 2e-4, "atol": 2e-5}
    matches_on_targets(module, plain, want, TARGETS, **tol)


@pytest.mark.parametrize("features", [(4, 4), (6, 3)])
def test_an_orthogonal_parametrization_runs_on_every_target(features):
    """torch's `orthogonal` parametrization (a square weight the exponential of a
    skew-symmetric matrix, `torch.linalg.matrix_exp`; another Q from geqrf's reflectors,
    `torch.linalg.householder_product`): outputs, and JAX's gradient with respect to the
    parameter against torch autograd."""
    torch = pytest.importorskip("torch")
    jax = pytest.importorskip("jax")
    orthogonal = torch.nn.utils.parametrizations.orthogonal
    torch.manual_seed(0)
    model = torch.nn.Sequential(orthogonal(torch.nn.Linear(*features)), torch.nn.Tanh())
    x = torch.randn(3, features[0])
    want = model(x).detach().numpy()
    for target in TARGETS:
        got = ivy_ir.compile(model, target=target, args=(x,))(x.numpy())
        np.testing.assert_allclose(to_numpy(got), want, rtol=1e-5, atol=1e-6, err_msg=target)
    c = ivy_ir.compile(model, target="jax", args=(x,))
    grads = jax.grad(lambda p: c.apply(p, x.numpy()).sum())(c.params)
    model(x).sum().backward()
    for name, p in model.named_parameters():
        np.testing.assert_allclose(np.asarray(grads[name]), p.grad.numpy(), rtol=1e-4,
                                   atol=1e-6, err_msg=name)


def test_jax_householder_product_matches_on_every_target():
    jax = pytest.importorskip("jax")
    taus = RNG.standard_normal((2, 2)).astype(np.float32)
    def fn(a, t):
        return (jax.lax.linalg.householder_product(a, t),)
    matches_on_targets(ivy_ir.trace(fn, (B, taus), source="jax"), [B, taus],
                       [np.asarray(fn(B, taus)[0])], TARGETS, rtol=1e-5, atol=1e-6)
