"""The special-function ops beyond the differential sweep: the NumPy reference's own
float64 kernels (`ivy_ir/core/reference_special.py`) against Python's `math.lgamma` and
mpmath across their ranges; the poles, infinities, NaN and signed zeros on every target
against what XLA gives; and `population_count` at the ends of every integer dtype.

Each target compiles one program holding every op, so the file runs in seconds."""

from __future__ import annotations

import math

import jax
import numpy as np
import pytest

import ivy.ops as F
import ivy_ir
from ivy_ir.core.reference_special import bessel_i0e, digamma, lgamma
from lowerings import LoweringError

mpmath = pytest.importorskip("mpmath")  # a dependency of torch's sympy

TARGETS = ["numpy", "jax", "torch", "tensorflow"]
rng = np.random.default_rng(5)
GRID = np.concatenate([
    np.linspace(-30, 30, 601) + 0.013,  # across the poles, off them
    rng.uniform(0, 3, 200),
    1 + rng.choice([-1, 1], 100) * 10 ** rng.uniform(-15, -2, 100),  # the roots 1 and 2
    2 + rng.choice([-1, 1], 100) * 10 ** rng.uniform(-15, -2, 100),
    10 ** rng.uniform(-300, 300, 200), -(10 ** rng.uniform(-300, 14, 200)) - 0.25,
    [7.999999999999999, 8.0, 2.5, 1.5, 0.5, 2.2250738585072014e-308, -5e-324]])
"""Float64 points: both sides of every branch of the kernels, tiny and huge values, and
the roots of lgamma at 1 and 2 approached to within an ulp."""


def _mp(fn, x: np.ndarray) -> np.ndarray:
    with mpmath.workdps(40):
        return np.array([float(fn(mpmath.mpf(float(v)))) for v in x])


def test_lgamma_matches_math_lgamma():
    want = np.array([math.lgamma(v) for v in GRID])
    # math.lgamma is accurate to ~2e-15 absolutely near the roots 1 and 2 (it gives 0.0
    # for lgamma(2 - 2**-52) = -9.4e-17), so the comparison allows that much
    np.testing.assert_allclose(lgamma(GRID), want, rtol=1e-13, atol=4e-15)


def test_lgamma_is_relatively_accurate_above_zero():
    x = GRID[GRID > 0]
    want = _mp(lambda v: mpmath.log(mpmath.gamma(v)), x)
    np.testing.assert_allclose(lgamma(x), want, rtol=2e-15, atol=0)


def test_digamma_matches_mpmath():
    # relative to 1e-13 but at the roots (1.4616..., one in each (-n - 1, -n)), where
    # the recurrence leaves an absolute error of a few 1e-16
    np.testing.assert_allclose(digamma(GRID), _mp(mpmath.digamma, GRID), rtol=1e-13,
                               atol=4e-15)


def test_bessel_i0e_matches_mpmath():
    x = np.concatenate([GRID, np.linspace(29.5, 30.5, 101), -np.linspace(29.5, 30.5, 101)])
    want = _mp(lambda v: mpmath.besseli(0, v) * mpmath.exp(-abs(v)), x)
    np.testing.assert_allclose(bessel_i0e(x), want, rtol=5e-15, atol=0)


SPECIAL = np.array([0.0, -0.0, -1.0, -2.0, -np.inf, np.inf, np.nan, -2.5, 0.5, 1.0, 2.0,
                    -27.0, 1e30])
"""Poles, infinities, NaN and signed zeros (lgamma: +inf at the poles and -inf;
digamma: NaN there, as XLA; torch's own digamma(+-0) is -+inf)."""


def _special(a):
    return F.lgamma(a), F.digamma(a), F.bessel_i0e(a), F.cbrt(a)


def _xla(x: np.ndarray) -> list[np.ndarray]:
    with jax.enable_x64(x.dtype == np.float64):
        return [np.asarray(jax.jit(f)(x)) for f in (jax.lax.lgamma, jax.lax.digamma,
                                                      jax.lax.bessel_i0e, jax.lax.cbrt)]


def _np(value) -> np.ndarray:
    return np.asarray(value.detach() if hasattr(value, "detach") else value)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_special_values_on_every_target(target: str, dtype: str):
    x = SPECIAL.astype(dtype)
    got = [_np(r) for r in ivy_ir.compile(_special, target, args=(x,))(x)]
    for name, g, w in zip(("lgamma", "digamma", "bessel_i0e", "cbrt"), got, _xla(x)):
        assert g.dtype == w.dtype, name
        # XLA's float32 kernels are a few ulp off in places (lgamma(1) = 4.8e-7)
        np.testing.assert_allclose(g, w, rtol=2e-6, atol=1e-6, err_msg=f"{target} {name}")
        assert np.array_equal(np.isinf(g), np.isinf(w)) and np.array_equal(
            np.isnan(g), np.isnan(w)), f"{target} {name}: {g} vs {w}"
    assert list(np.signbit(got[3][:2])) == [False, True], f"{target}: cbrt(-0.0) is -0.0"


INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


def _ends(dtype: str) -> np.ndarray:
    info = np.iinfo(dtype)
    return np.array([info.min, info.max, 0, 1, info.max // 3, info.min + 1] +
                    ([-1, -2, -(2 ** (info.bits - 2))] if info.min else [2, 3, 2 ** 7]),
                    dtype=dtype)


@pytest.mark.parametrize("target", [*TARGETS, "onnx"])
def test_population_count_at_the_ends_of_every_dtype(target: str):
    xs = [_ends(d) for d in INTS]
    compiled = ivy_ir.compile(lambda *a: [F.population_count(v) for v in a], target,
                              args=tuple(xs))
    for x, got in zip(xs, compiled(*xs)):
        got = _np(got)
        want = np.array([(int(v) % 2 ** (8 * x.itemsize)).bit_count() for v in x], x.dtype)
        assert got.dtype == x.dtype
        np.testing.assert_array_equal(got, want, err_msg=f"{target} {x.dtype}")


def test_onnx_exports_cbrt_and_refuses_the_gamma_and_bessel_functions():
    x = SPECIAL.astype(np.float32)
    got = ivy_ir.compile(lambda a: F.cbrt(a), "onnx", args=(x,))(x)
    # the value, not the sign of zero: onnxruntime's Where gives +0.0 for a -0.0
    np.testing.assert_allclose(got, np.cbrt(x.astype(np.float64)).astype(np.float32),
                               rtol=1.2e-7, atol=0)
    for op in (F.lgamma, F.digamma, F.bessel_i0e):
        with pytest.raises(LoweringError, match="ONNX has no gamma, digamma or Bessel"):
            ivy_ir.compile(lambda a, op=op: op(a), "onnx", args=(x,))


def _torch_program(x):
    import torch
    return (torch.lgamma(x), torch.digamma(x), torch.special.psi(x), torch.special.i0e(x),
            torch.special.gammaln(x))


def _tf_program(x, i):
    import tensorflow as tf
    return (tf.math.lgamma(x), tf.math.digamma(x), tf.math.special.bessel_i0e(x),
            tf.raw_ops.PopulationCount(x=i))


def _numpy_program(x, i):
    return np.cbrt(x), np.bitwise_count(i)


@pytest.mark.parametrize("source", ["torch", "tensorflow", "numpy"])
def test_other_importers_map_them(source: str):
    """torch's digamma keeps its own signed pole at 0 (-1/x), the registry op's is NaN;
    TF's PopulationCount and NumPy's bitwise_count count in uint8 (NumPy: the bits of
    |x|)."""
    x = SPECIAL[np.isfinite(SPECIAL) | np.isnan(SPECIAL)].astype(np.float32)
    i = _ends("int16")
    if source == "torch":
        import torch
        fn, args = _torch_program, (torch.from_numpy(x),)
    elif source == "tensorflow":
        fn, args = _tf_program, (x, i)
    else:
        fn, args = _numpy_program, (x, i)
    want = [_np(w) for w in fn(*args)]
    got = [_np(g) for g in ivy_ir.compile(fn, "numpy", args=args, source=source)(*args)]
    for k, (g, w) in enumerate(zip(got, want, strict=True)):
        assert g.dtype == w.dtype, k
        np.testing.assert_allclose(g, w, rtol=2e-6, atol=1e-6, err_msg=f"{source} {k}")
