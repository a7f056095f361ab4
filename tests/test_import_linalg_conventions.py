"""`svd`, `eigh` and `qr` imported from every source mean the IR's ops on every target.

The frameworks sign singular and eigen vectors each their own way; the IR fixes one
rule (ops.spec: each vector's largest-magnitude component positive, a singular pair
signed by its column of u) and every importer maps its source's factorizations onto
it. So one program, written in NumPy, torch, JAX or TF and compiled to any target,
gives the same factors: they rebuild the input, follow the sign rule, equal the NumPy
target's result for the NumPy source, and their singular/eigen values are the source's
own. Inputs are Gaussian (no repeated values, no near-ties in the sign rule), batched,
tall and wide, with full and reduced shapes; empty matrices run on every target too.
"""

from __future__ import annotations

import functools
from typing import Any

import jax.numpy as jnp
import numpy as np
import pytest
import tensorflow as tf
import torch
from differential import as_list

import ivy.ops as F
import ivy_ir

TARGETS = ["numpy", "jax", "torch", "tensorflow"]
RNG = np.random.default_rng(7)
X = RNG.standard_normal((2, 4, 3)).astype(np.float32)  # tall, batched: svd full, qr reduced
Y = RNG.standard_normal((3, 5)).astype(np.float32)  # wide: svd reduced, qr complete
_A = RNG.standard_normal((2, 3, 3))
S = (_A + np.swapaxes(_A, -1, -2)).astype(np.float32)  # symmetric, batched: eigh
NAMES = ("u", "s", "vh", "u_r", "s_r", "vh_r", "w", "v", "q", "r", "q_c", "r_c")
"""What every source program returns, in the IR's layout (vh, not v)."""


def _numpy(x: Any, y: Any, s: Any) -> tuple[Any, ...]:
    return (*np.linalg.svd(x), *np.linalg.svd(y, full_matrices=False), *np.linalg.eigh(s),
            *np.linalg.qr(x), *np.linalg.qr(y, mode="complete"))


def _torch(x: Any, y: Any, s: Any) -> tuple[Any, ...]:
    u, sv, v = torch.svd(y)  # reduced, and V where linalg.svd gives Vh
    return (*torch.linalg.svd(x), u, sv, v.mT, *torch.linalg.eigh(s), *torch.linalg.qr(x),
            *torch.linalg.qr(y, mode="complete"))


def _jax(x: Any, y: Any, s: Any) -> tuple[Any, ...]:
    return (*jnp.linalg.svd(x), *jnp.linalg.svd(y, full_matrices=False),
            *jnp.linalg.eigh(s), *jnp.linalg.qr(x), *jnp.linalg.qr(y, mode="complete"))


def _tensorflow(x: Any, y: Any, s: Any) -> tuple[Any, ...]:
    sv, u, v = tf.linalg.svd(x, full_matrices=True)  # (s, u, v)
    sv_r, u_r, v_r = tf.linalg.svd(y)
    return (u, sv, tf.linalg.adjoint(v), u_r, sv_r, tf.linalg.adjoint(v_r),
            *tf.linalg.eigh(s), *tf.linalg.qr(x), *tf.linalg.qr(y, full_matrices=True))


SOURCES = {"numpy": (_numpy, np.asarray), "torch": (_torch, torch.from_numpy),
           "jax": (_jax, jnp.asarray), "tensorflow": (_tensorflow, tf.constant)}


@functools.cache
def _run(source: str, target: str) -> dict[str, np.ndarray]:
    fn, to_source = SOURCES[source]
    args = tuple(to_source(a) for a in (X, Y, S))
    compiled = ivy_ir.compile(fn, target, args=args, source=source)
    return dict(zip(NAMES, as_list(compiled(X, Y, S))))


def _native(source: str) -> dict[str, np.ndarray]:
    fn, to_source = SOURCES[source]
    return dict(zip(NAMES, as_list(fn(*(to_source(a) for a in (X, Y, S))))))


def _close(got: np.ndarray, want: np.ndarray, what: str) -> None:
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5, err_msg=what)


def _signed(v: np.ndarray, what: str) -> None:
    """Each column's first largest-magnitude component is positive."""
    flat = np.moveaxis(v, -2, -1).reshape(-1, v.shape[-2])
    picks = flat[np.arange(len(flat)), np.abs(flat).argmax(axis=-1)]
    assert (picks > 0).all(), f"{what}: a vector's largest component is negative"


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("source", list(SOURCES))
def test_factors_mean_the_ir_ops(source: str, target: str) -> None:
    got, native = _run(source, target), _native(source)
    where = f"{source} -> {target}"
    k = X.shape[-1]
    _close((got["u"][..., :k] * got["s"][..., None, :]) @ got["vh"], X, f"{where}: u s vh")
    _close((got["u_r"] * got["s_r"][..., None, :]) @ got["vh_r"], Y, f"{where}: reduced svd")
    _close(got["v"] * got["w"][..., None, :] @ np.swapaxes(got["v"], -1, -2), S,
           f"{where}: v w v^T")
    _close(got["q"] @ got["r"], X, f"{where}: q r")
    _close(got["q_c"] @ got["r_c"], Y, f"{where}: complete q r")
    for name in ("u", "u_r", "v"):
        _signed(got[name], f"{where}: {name}")
    for name in ("s", "s_r", "w"):
        _close(got[name], native[name], f"{where}: {name} against {source}'s own")
    reference = _run("numpy", "numpy")
    for name in NAMES:
        _close(got[name], reference[name], f"{where}: {name} against numpy -> numpy")


def _factorizations(a: Any) -> tuple[Any, ...]:
    outs = [*F.svd(a), *F.svd(a, full_matrices=False), *F.qr(a), *F.qr(a, mode="complete")]
    if a.shape[-1] == a.shape[-2]:
        outs += F.eigh(a)
    return tuple(outs)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (2, 0, 0), (0, 2, 2)])
def test_empty_matrices(target: str, shape: tuple[int, ...]) -> None:
    a = np.zeros(shape, np.float32)
    got = as_list(ivy_ir.compile(_factorizations, target, args=(a,))(a))
    want = [*np.linalg.svd(a), *np.linalg.svd(a, full_matrices=False), *np.linalg.qr(a),
            *np.linalg.qr(a, mode="complete")]
    want += np.linalg.eigh(a) if shape[-1] == shape[-2] else []
    assert [g.shape for g in got] == [w.shape for w in want]
    # vh of a (0, 3) matrix is a basis of R^3: the sign rule makes it the identity
    if shape == (0, 3):
        _close(got[2], np.eye(3, dtype=np.float32), f"{target}: vh")
