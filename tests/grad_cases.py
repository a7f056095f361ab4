"""Inputs and losses for the gradient tests (`test_gradients.py`).

`prepare(name, data)` draws an example from the reference table (`CASES`: shapes,
attributes and integer/bool operands are kept) and replaces every differentiable operand
by float64 values chosen away from the op's kinks, ties and domain edges:

* by default, distinct magnitudes in [0.3, 2] with random signs (so no value sits at 0,
  and max/min/sort/top_k/max_pool/vector_norm(inf) see no ties);
* per op, a domain (sqrt/log/acosh/atanh/...), points to stay away from (clip bounds,
  relu6/hard_sigmoid/hardswish corners, softplus threshold), interleaved lattices for
  maximum/minimum, `remainder` with x/y away from integers, and linear-algebra inputs
  with well-separated spectra (see `_FIX`).

`loss_terms(name, outs, attrs)` lists the (float) arrays whose fixed random-weighted sum
is differentiated: every float result, except for the factorizations, which only
expose sign-invariant functions: qr -> |diag r| and q[..., :k]**2; svd -> s,
u[..., :k]**2 and vh[..., :k, :]**2; eigh -> eigenvalues and eigenvectors**2.
"""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np
from differential import flatten
from hypothesis import strategies as st
from op_refs_common import CASES

from ivy_ir.dialect import SPECS

FLOATING = {"any", "castable", "num", "real", "inexact", "float"}
"""Operand classes that admit real floats (gradients are taken in float64)."""
# ops whose input is read as a symmetric matrix: gradients are compared on the
# symmetric part (frameworks differ in which triangle they read / how they symmetrize)
SYMMETRIC = {"cholesky", "eigh"}


def differentiable_ops() -> list[str]:
    """Every registry op with a gradient: not `nondiff`, with a float-capable operand."""
    return sorted(n for n, s in SPECS.items() if not s.has("nondiff") and not s.regions and any(
        a.dtype_class in FLOATING | {"mask"} for a in s.operands))


def distinct(rng: Any, shp: tuple[int, ...], lo: float = 0.3, hi: float = 2.0,
             signed: bool = True) -> np.ndarray:
    """Values whose magnitudes lie in [lo, hi], pairwise >= (hi-lo)/(2n) apart."""
    n = math.prod(shp)
    mags = lo + (hi - lo) * (rng.permutation(n) + 0.5 + rng.uniform(-0.25, 0.25, n)) / max(n, 1)
    signs = rng.choice([-1.0, 1.0], n) if signed else np.ones(n)
    return (mags * signs).reshape(shp)


def away(x: np.ndarray, points: list[float], margin: float = 0.05) -> np.ndarray:
    """Push values within `margin` of a kink point to `margin` from it."""
    x = x.copy()
    for p in points:
        near = np.abs(x - p) < margin
        x[near] = p + margin * np.where(x[near] >= p, 1.0, -1.0)
    return x


def _lattice(rng: Any, shp: tuple[int, ...], offset: float) -> np.ndarray:
    return np.asarray(rng.integers(-2, 3, shp) + offset + rng.uniform(-0.1, 0.1, shp))


def _orthogonal(rng: Any, batch: tuple[int, ...], n: int) -> np.ndarray:
    q, r = np.linalg.qr(rng.standard_normal(batch + (n, n)))
    return q * np.sign(np.diagonal(r, axis1=-2, axis2=-1))[..., None, :]


def _spectrum(rng: Any, batch: tuple[int, ...], k: int, lo: float, hi: float,
              signed: bool) -> np.ndarray:
    """Per batch entry, k values separated by >= (hi-lo)/(2k) (distinct, away from 0)."""
    return distinct(rng, (math.prod(batch), k), lo, hi, signed).reshape(batch + (k,)) \
        if k else np.zeros(batch + (0,))


# ---- per-op adjustments: fix(rng, ops, attrs) -> (ops, attrs), ops already float64 ----

def _domain(lo: float, hi: float, signed: bool = False, idx: int = 0) -> Any:
    def fix(rng, ops, attrs):
        ops[idx] = distinct(rng, ops[idx].shape, lo, hi, signed)
        return ops, attrs
    return fix


def _kinks(points: list[float], hi: float = 8.0) -> Any:
    def fix(rng, ops, attrs):
        ops[0] = away(distinct(rng, ops[0].shape, 0.3, hi), points)
        return ops, attrs
    return fix


def _softplus(rng, ops, attrs):
    ops[0] = away(distinct(rng, ops[0].shape, 0.3, 3.0), [attrs["threshold"] / attrs["beta"]])
    return ops, attrs


def _clip(rng, ops, attrs):
    bounds = [b for b in (attrs["min"], attrs["max"]) if b is not None]
    lo, hi = (min(bounds) - 2, max(bounds) + 2) if bounds else (-2, 2)
    ops[0] = away(np.asarray(rng.uniform(lo, hi, ops[0].shape)), bounds + [0.0])
    return ops, attrs


def _max_min(rng, ops, attrs):  # x on the integers, y on the half-integers: |x - y| >= 0.3
    ops[0], ops[1] = _lattice(rng, ops[0].shape, 0.0), _lattice(rng, ops[1].shape, 0.5)
    return ops, attrs


def _remainder(rng, ops, attrs):  # one divisor value c; x/c at least 0.1 from an integer
    c = rng.choice([-1.0, 1.0]) * rng.uniform(0.7, 1.5)
    ops[1] = np.full(ops[1].shape, c)
    ops[0] = np.asarray(c * (rng.integers(-3, 3, ops[0].shape)
                             + rng.uniform(0.1, 0.9, ops[0].shape)))
    return ops, attrs


def _pow(rng, ops, attrs):
    ops[0] = distinct(rng, ops[0].shape, 0.5, 2.0, signed=False)
    return ops, attrs


def _spread(rng, ops, attrs):  # var/std: at least two elements per reduced group
    x = ops[0]
    axes = range(x.ndim) if attrs["axis"] is None else attrs["axis"]
    if math.prod(x.shape[a] for a in axes) < 2:
        ops[0] = distinct(rng, (3,) + x.shape)
        attrs = {**attrs, "axis": [0], "correction": 0.0}
    return ops, attrs


def _astype(rng, ops, attrs):  # float32 -> float64: the cast has derivative 1
    ops[0] = ops[0].astype(np.float32)
    return ops, {**attrs, "dtype": "float64"}


def _batch_norm(rng, ops, attrs):
    ops[2] = distinct(rng, ops[2].shape, 0.2, 2.0, signed=False)
    return ops, attrs


def _square_batch(x: np.ndarray) -> tuple[tuple[int, ...], int]:
    return x.shape[:-2], x.shape[-1]


def _well_conditioned(rng, ops, attrs):
    b, n = _square_batch(ops[0])
    ops[0] = rng.uniform(-1, 1, ops[0].shape) + np.eye(n) * (n + 2)
    return ops, attrs


def _moderate(rng, ops, attrs):
    ops[0] = rng.uniform(-1, 1, ops[0].shape)  # |x| <= n: exponentials of moderate size
    return ops, attrs


def _cholesky(rng, ops, attrs):
    b, n = _square_batch(ops[0])
    a = rng.uniform(-1, 1, ops[0].shape)
    ops[0] = a @ np.swapaxes(a, -1, -2) + np.eye(n) * n
    return ops, attrs


def _eigh(rng, ops, attrs):  # eigenvalues at least 0.3 apart
    b, n = _square_batch(ops[0])
    q, lam = _orthogonal(rng, b, n), _spectrum(rng, b, n, 0.3, 3.0, True)
    ops[0] = (q * lam[..., None, :]) @ np.swapaxes(q, -1, -2)
    return ops, attrs


def _svd(rng, ops, attrs):  # singular values in [0.5, 3], at least 0.3 apart
    m, n = ops[0].shape[-2:]
    b, k = ops[0].shape[:-2], min(m, n)
    s = _spectrum(rng, b, k, 0.5, 3.0, False)
    u, v = _orthogonal(rng, b, m)[..., :k], _orthogonal(rng, b, n)[..., :k]
    ops[0] = (u * s[..., None, :]) @ np.swapaxes(v, -1, -2)
    return ops, attrs


def _matrix_norm(rng, ops, attrs):
    ops, attrs = _svd(rng, ops, attrs)
    if attrs["ord"] in ("1", "-1", "inf", "-inf"):  # distinct, nonzero entries and sums
        for _ in range(100):
            x = distinct(rng, ops[0].shape)
            sums = np.sort(np.concatenate([np.abs(x).sum(-1), np.abs(x).sum(-2)], -1), -1)
            if sums.shape[-1] < 2 or np.diff(sums, axis=-1).min() > 0.05:
                break
        ops[0] = x
    return ops, attrs


def _lu(rng, ops, attrs):  # the rows of l u shuffled, |l| <= 1/2: every pivot is clear
    b, n = _square_batch(ops[0])
    low = np.tril(rng.uniform(-0.5, 0.5, ops[0].shape), -1) + np.eye(n)
    up = np.triu(rng.uniform(-2, 2, ops[0].shape), 1) + \
        np.eye(n) * rng.choice([-1, 1], b + (1, n)) * rng.uniform(1, 2, b + (1, n))
    ops[0] = (low @ up)[..., rng.permutation(n), :]
    return ops, attrs


_FIX: dict[str, Any] = {
    "sqrt": _domain(0.2, 4.0), "rsqrt": _domain(0.2, 4.0), "log": _domain(0.2, 4.0),
    "log2": _domain(0.2, 4.0), "log10": _domain(0.2, 4.0), "acosh": _domain(1.2, 4.0),
    "atanh": _domain(0.05, 0.9, True), "asin": _domain(0.05, 0.9, True),
    "erfinv": _domain(0.05, 0.9, True),
    # between the poles -1 and 0, and above 0
    "lgamma": _domain(0.3, 0.9, True), "digamma": _domain(0.3, 0.9, True),
    "acos": _domain(0.05, 0.9, True), "log1p": _domain(0.05, 0.9, True),
    "tan": _domain(0.05, 1.2, True), "pow": _pow, "remainder": _remainder,
    "maximum": _max_min, "minimum": _max_min, "clip": _clip, "softplus": _softplus,
    "relu6": _kinks([0.0, 6.0]), "hard_sigmoid": _kinks([-3.0, 3.0]),
    "hardswish": _kinks([-3.0, 3.0]), "var": _spread, "std": _spread, "astype": _astype,
    "batch_norm": _batch_norm, "inv": _well_conditioned, "det": _well_conditioned,
    "solve": _well_conditioned, "matrix_exp": _moderate, "cholesky": _cholesky, "eigh": _eigh,
    "svd": _svd,
    "qr": _svd, "matrix_norm": _matrix_norm, "lu": _lu, "slogdet": _lu,
}


def prepare(name: str, data: Any) -> tuple[list[Any], dict[str, Any], Any]:
    """(operands, attrs, rng) for one gradient example of `name`."""
    operands, attrs = CASES[name].draw(data)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    ops: list[Any] = []
    for spec, v in zip(SPECS[name].operands, operands):
        float_mask = spec.dtype_class == "mask" and v is not None and v.dtype.kind == "f"
        if v is None or not (spec.dtype_class in FLOATING or float_mask):
            ops.append(v)
        elif spec.variadic:
            ops.append([distinct(rng, a.shape) for a in v])
        else:
            ops.append(distinct(rng, np.shape(v)))
    if name in _FIX:
        ops, attrs = _FIX[name](rng, ops, attrs)
    return ops, attrs, rng


def diff_inputs(name: str, operands: list[Any]) -> list[int]:
    """Positions, among the flat compiled inputs, of the float (differentiated) ones."""
    flat, _ = flatten(name, operands)
    return [i for i, a in enumerate(flat) if np.asarray(a).dtype.kind == "f"]


def loss_terms(name: str, outs: list[Any], attrs: dict[str, Any]) -> list[Any]:
    """The arrays whose weighted sum is the loss (native arrays of any target)."""
    if name == "qr":
        q, r = outs
        k = min(q.shape[-2], r.shape[-1])
        return [q[..., :, :k] ** 2] + [abs(r[..., i, i]) for i in range(k)]
    if name == "svd":
        u, s, vh = outs
        k = s.shape[-1]
        return [s, u[..., :, :k] ** 2, vh[..., :k, :] ** 2]
    if name == "eigh":
        return [outs[0], outs[1] ** 2]
    return outs


def symmetric_part(g: np.ndarray) -> np.ndarray:
    return (g + np.swapaxes(g, -1, -2)) / 2


# ---- tolerances: |got - want| <= rtol * |want| + atol * scale, elementwise, where
# scale = max(1, max |want| of that operand, |loss|) ----
TOL = {
    "fd": (1e-6, 1e-7),      # autodiff target vs central finite differences (NumPy, f64)
    "cross": (1e-8, 1e-10),  # autodiff target vs autodiff target
}
EPS = 1e-6  # finite-difference step: h = EPS * max(1, |x|) (the step actually taken is used)
TARGETS = os.environ.get("IVY_GRAD_TARGETS", "jax,torch,tensorflow").split(",")
"""The autodiff targets compared (IVY_GRAD_TARGETS=jax,tensorflow restricts them)."""


def close(got: np.ndarray, want: np.ndarray, kind: str, loss_value: float) -> str | None:
    rtol, atol = TOL[kind]
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    if got.shape != want.shape:
        return f"shape {got.shape} != {want.shape}"
    if got.size == 0:
        return None
    scale = max(1.0, float(np.abs(want).max()), abs(loss_value))
    err = np.abs(got - want) - (rtol * np.abs(want) + atol * scale)
    if np.isfinite(got).all() and (err <= 0).all():
        return None
    worst = np.unravel_index(np.argmax(np.where(np.isfinite(err), err, np.inf)), err.shape)
    return (f"max |diff| {np.nanmax(np.abs(got - want)):.3g} at {worst}: got "
            f"{got[worst]!r}, want {want[worst]!r} (scale {scale:.3g})")
