"""LU and what the sources derive from it (determinants' logs, solves with given
factors, triangular solves) imported from torch, TensorFlow and NumPy onto the
registry's `lu`, against the source itself on every target. One program per source
holds all its cases; the inputs include a singular matrix (sign 0, log |det| -inf, where
TF's own tf.linalg.lu refuses) and one of negative determinant."""

from __future__ import annotations

import numpy as np
import pytest
from differential import matches_on_targets

import ivy_ir

TARGETS = ["numpy", "jax", "torch", "tensorflow"]
RNG = np.random.default_rng(11)
M = RNG.standard_normal((4, 4)).astype(np.float32)
A = np.stack([M, M[[1, 0, 2, 3]]])  # determinants of both signs
SINGULAR = np.array([[1, 2, 3, 4], [2, 4, 6, 8], [0, 1, 0, 1], [1, 1, 1, 1]], np.float32)
B = RNG.standard_normal((2, 4, 3)).astype(np.float32)


def _torch_program():
    import torch

    def program(a, s, b):
        factors, pivots = torch.linalg.lu_factor(a)
        p, low, up = torch.linalg.lu(a)
        sign, logabs = torch.linalg.slogdet(a)
        s_sign, s_logabs = torch.linalg.slogdet(s)
        spd = a @ a.mT + torch.eye(4)
        return (factors, pivots, p, low, up, sign, logabs, s_sign, s_logabs, torch.logdet(spd),
                torch.linalg.lu_solve(factors, pivots, b),
                torch.linalg.lu_solve(factors, pivots, b, adjoint=True),
                torch.linalg.lu_solve(factors, pivots, b.mT, left=False))

    class Program(torch.nn.Module):
        def forward(self, a, s, b):
            return program(a, s, b)

    args = (torch.tensor(A), torch.tensor(SINGULAR), torch.tensor(B))
    return Program(), args, [t.numpy() for t in program(*args)]


def _tf_program():
    import tensorflow as tf

    noise = np.triu(RNG.standard_normal((4, 4)), 1).astype(np.float32)  # TF never reads it

    @tf.function
    def program(a, s, b):
        lu, perm = tf.linalg.lu(a)
        return (lu, perm, *tf.linalg.slogdet(a), *tf.linalg.slogdet(s),
                tf.linalg.lu_solve(lu, perm, b), tf.linalg.lu_matrix_inverse(lu, perm),
                tf.linalg.lu_reconstruct(lu, perm),
                tf.linalg.triangular_solve(tf.linalg.band_part(a, -1, 0) + noise
                                           + 4 * tf.eye(4), b),
                tf.linalg.triangular_solve(a + 4 * tf.eye(4), b, lower=False, adjoint=True),
                tf.linalg.set_diag(a, a[:, 0, :]), tf.math.invert_permutation(perm[0]))

    args = (A, SINGULAR, B)
    return program, args, [t.numpy() for t in program(*args)]


def _numpy_program():
    def program(a, s, b):
        return (*np.linalg.slogdet(a), *np.linalg.slogdet(s))
    args = (A.astype(np.float64), SINGULAR.astype(np.float64), B)
    return program, args, list(program(*args))


PROGRAMS = {"torch": _torch_program, "tensorflow": _tf_program, "numpy": _numpy_program}


@pytest.mark.parametrize("source", sorted(PROGRAMS))
def test_lu_results_match_the_source_on_every_target(source):
    fn, args, want = PROGRAMS[source]()
    assert np.prod(np.sign(np.linalg.det(A))) == -1
    module = ivy_ir.trace(fn, args, source=source)
    assert {"lu", "slogdet"} & {op.name.removeprefix("ivy.") for op in module.entry.walk()}
    plain = [np.asarray(a.numpy() if hasattr(a, "numpy") else a) for a in args]
    matches_on_targets(module, plain, want, TARGETS, rtol=1e-4, atol=2e-5)


def test_log_determinant_gradient_is_the_inverse_transpose():
    """Trainable through the factorization: d log|det x| / dx = x^-T, through torch's
    slogdet lowered to JAX (lax.linalg.lu's derivative) and to torch (lu_factor_ex's)."""
    import jax
    import torch

    class LogDet(torch.nn.Module):
        def forward(self, a):
            return torch.linalg.slogdet(a)[1].sum()

    x = A.astype(np.float64)
    want = np.swapaxes(np.linalg.inv(x), -1, -2)
    c = ivy_ir.compile(LogDet(), target="jax", args=(torch.tensor(A),))  # JAX: float32
    np.testing.assert_allclose(np.asarray(jax.grad(c)(A)), want, rtol=2e-5, atol=2e-6)
    c = ivy_ir.compile(LogDet(), target="torch", args=(torch.tensor(x),))
    t = torch.tensor(x, requires_grad=True)
    c(t).backward()
    np.testing.assert_allclose(t.grad.numpy(), want, rtol=1e-9)


def test_slogdet_decomposition_matches_the_native_function():
    """No target runs `slogdet` through its decomposition today (each has its own
    function, and ONNX, which would decompose, has no LU): the expansion, run on the
    NumPy target, against NumPy's own slogdet; both signs and a singular matrix."""
    from ivy_ir.core.tracer import OPS as F
    from ivy_ir.passes import run_pipeline

    x = np.concatenate([A, SINGULAR[None]]).astype(np.float64)
    module = ivy_ir.trace(lambda a: F.slogdet(a), (x,))
    expanded = run_pipeline(module, "decompose")
    ops = {op.name.removeprefix("ivy.") for op in expanded.entry.walk()}
    assert "slogdet" not in ops and "lu" in ops
    sign, logabs = ivy_ir.compile(expanded, target="numpy")(x)
    want_sign, want_logabs = np.linalg.slogdet(x)
    np.testing.assert_array_equal(sign, want_sign)
    np.testing.assert_allclose(logabs, want_logabs, rtol=1e-12)
