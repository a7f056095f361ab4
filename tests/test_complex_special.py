"""Special values of the complex elementary functions (`ivy_ir/core/complex_cases.py`,
docs/semantics.md) on every target, compiled and through the `ivy` facade.

Three checks: values the Array API standard's text gives (written out here by hand,
the independent oracle; the standard's own suite runs on the facade in
`test_array_api.py`), every target's compiled program against the NumPy target on a
grid of every pair of special and ordinary parts, and each backend's facade function
against the same. The sign of a zero or an infinity is compared wherever the standard
fixes it: not beside a NaN part, nor where both input parts are infinite or NaN (the
standard leaves those signs to the library).
"""

from __future__ import annotations

import cmath
import contextlib
import math
import warnings

import numpy as np
import pytest
from differential import run_compiled

import ivy
from ivy_ir.core.complex_cases import CLASSES, FUNCTIONS
from ivy_ir.core.complex_kernel import value_is
from ivy_ir.core.reference_special import complex_ops

TARGETS = ("numpy", "jax", "torch", "tensorflow")
inf, nan, pi = math.inf, math.nan, math.pi
PARTS = (-inf, -2.5, -1.0, -0.5, -0.0, 0.0, 0.5, 1.0, 2.5, inf, nan)
GRID = [complex(a, b) for a in PARTS for b in PARTS]

STANDARD = [
    # (function, argument, the standard's value): each a bullet of its special cases
    ("exp", complex(-inf, inf), 0j), ("exp", complex(inf, nan), complex(inf, nan)),
    ("exp", complex(-inf, 2.5), 0 * cmath.exp(2.5j)), ("exp", complex(nan, 0.0), complex(nan, 0.0)),
    ("expm1", complex(-inf, inf), -1 + 0j), ("expm1", complex(-inf, nan), -1 + 0j),
    ("expm1", complex(inf, 0.0), complex(inf, 0.0)), ("expm1", complex(inf, inf), complex(inf, nan)),
    ("log", complex(-0.0, 0.0), complex(-inf, pi)), ("log", complex(nan, inf), complex(inf, nan)),
    ("log", complex(-inf, inf), complex(inf, 3 * pi / 4)),
    ("log1p", complex(-1.0, 0.0), complex(-inf, 0.0)), ("log1p", complex(inf, nan), complex(inf, nan)),
    ("log1p", complex(-inf, 2.5), complex(inf, pi)),
    ("sqrt", complex(-4.0, -0.0), complex(0.0, -2.0)), ("sqrt", complex(nan, inf), complex(inf, inf)),
    ("sqrt", complex(-inf, 2.5), complex(0.0, inf)), ("sqrt", complex(inf, -2.5), complex(inf, -0.0)),
    ("sinh", complex(inf, 0.0), complex(inf, 0.0)), ("sinh", complex(nan, 0.0), complex(nan, 0.0)),
    ("cosh", complex(0.0, 0.0), 1 + 0j), ("cosh", complex(inf, 2.5), inf * cmath.exp(2.5j)),
    ("tanh", complex(inf, 2.5), 1 + 0j), ("tanh", complex(inf, -2.5), complex(1.0, -0.0)),
    ("tanh", complex(0.0, nan), complex(0.0, nan)), ("tanh", complex(-2.5, -0.0),
                                                     complex(math.tanh(-2.5), -0.0)),
    ("asinh", complex(inf, 2.5), complex(inf, 0.0)), ("asinh", complex(2.5, inf), complex(inf, pi / 2)),
    ("acosh", complex(0.0, 0.0), complex(0.0, pi / 2)), ("acosh", complex(-inf, 2.5), complex(inf, pi)),
    ("atanh", complex(1.0, 0.0), complex(inf, 0.0)), ("atanh", complex(nan, inf), complex(0.0, pi / 2)),
    ("acos", complex(0.0, 0.0), complex(pi / 2, -0.0)), ("acos", complex(0.5, 0.0),
                                                          complex(math.acos(0.5), -0.0)),
    ("acos", complex(nan, inf), complex(nan, -inf)), ("acos", complex(-inf, 2.5), complex(pi, -inf)),
    ("sin", complex(0.0, inf), complex(0.0, inf)), ("cos", complex(0.0, inf), complex(inf, -0.0)),
    ("tan", complex(2.5, inf), complex(0.0, 1.0)), ("atan", complex(0.0, 1.0), complex(0.0, inf)),
    ("asin", complex(inf, 2.5), complex(pi / 2, inf)), ("log2", complex(inf, nan), complex(inf, nan)),
    ("log10", complex(-inf, 0.0), complex(inf, pi / math.log(10))),
]


def agree(got: complex, want: complex, arg: complex, rtol: float) -> bool:
    """`got` is `want` (NaN for NaN; signs where the standard fixes them, see above)."""
    no_finite_part = not (math.isfinite(arg.real) or math.isfinite(arg.imag))
    for g, w, other in ((got.real, want.real, want.imag), (got.imag, want.imag, want.real)):
        signs_open = no_finite_part or math.isnan(other)
        if math.isnan(w) or math.isnan(g):
            if not (math.isnan(w) and math.isnan(g)):
                return False
        elif math.isinf(w) or w == 0 or math.isinf(g) or g == 0:
            if signs_open and abs(g) != abs(w):
                return False
            if not signs_open and not (g == w and math.copysign(1, g) == math.copysign(1, w)):
                return False
        elif abs(g - w) > rtol * abs(w):
            return False
    return True


def mismatches(got: np.ndarray, want: np.ndarray, args: list[complex]) -> list[str]:
    rtol = 1e-13 if got.dtype == np.complex128 else 4e-6
    return [f"{a}: got {g}, want {w}" for a, g, w in zip(args, got.tolist(), want.tolist())
            if not agree(g, w, a, rtol)]


def compiled(op: str, args: list[complex], dtype: type, target: str) -> np.ndarray:
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got, _ = run_compiled(op, [np.array(args, dtype)], {}, target)
    assert got[0].dtype == dtype
    return got[0]


def test_every_class_the_tables_name_is_one_the_kernel_tests() -> None:
    v = np.array(PARTS)
    members = {c: value_is(complex_ops(), v, c) for c in CLASSES}
    assert members.pop("any") is None
    for cls, want in (("+0", [0.0]), ("-0", [-0.0]), ("unit", [-1.0, -0.5, -0.0, 0.0, 0.5, 1.0]),
                      ("nz", [-inf, -2.5, -1.0, -0.5, 0.5, 1.0, 2.5, inf, nan])):
        got = v[members[cls]]
        np.testing.assert_array_equal(got, want, err_msg=cls)
        assert np.signbit(got).tolist() == np.signbit(want).tolist(), cls
    for fn in FUNCTIONS.values():
        assert {c for case in fn.cases for c in case[:2]} <= set(CLASSES), fn


@pytest.mark.parametrize("target", TARGETS)
def test_the_standards_values_on_every_target(target: str) -> None:
    cases: dict[str, list[tuple[complex, complex]]] = {}
    for op, arg, want in STANDARD:  # one program per function, on all its cases at once
        cases.setdefault(op, []).append((arg, want))
    for dtype in (np.complex64, np.complex128):
        bad = []
        for op, pairs in cases.items():
            args, wants = zip(*pairs)
            got = compiled(op, list(args), dtype, target)
            bad += [f"{op}{m}" for m in mismatches(got, np.array(wants, dtype), list(args))]
        assert not bad, f"{target} {dtype.__name__}:\n" + "\n".join(bad)


@pytest.mark.parametrize("target", TARGETS[1:])
@pytest.mark.parametrize("op", sorted(FUNCTIONS))
def test_every_target_gives_the_numpy_targets_values(op: str, target: str) -> None:
    for dtype in (np.complex64, np.complex128):
        want = compiled(op, GRID, dtype, "numpy")
        bad = mismatches(compiled(op, GRID, dtype, target), want, GRID)
        assert not bad, f"{op} on {target} ({dtype.__name__}):\n" + "\n".join(bad)


@pytest.mark.parametrize("backend", TARGETS)
def test_the_facade_functions_give_the_same_values(backend: str) -> None:
    jax_x64 = (__import__("jax").enable_x64(True) if backend == "jax"
               else contextlib.nullcontext())
    bad = []
    with jax_x64, getattr(ivy, backend).use, np.errstate(all="ignore"):
        for dtype in (np.complex64, np.complex128):
            for op in sorted(FUNCTIONS):
                want = compiled(op, GRID, dtype, "numpy")
                got = ivy.to_numpy(getattr(ivy, op)(ivy.asarray(np.array(GRID, dtype))))
                assert got.dtype == dtype, (op, got.dtype)
                bad += [f"{op} {dtype.__name__} {m}" for m in mismatches(got, want, GRID)]
    assert not bad, "\n".join(bad[:40])


@pytest.mark.parametrize("backend", TARGETS)
def test_the_facade_functions_of_real_arrays_are_the_real_functions(backend: str) -> None:
    """The facade's kernels (`lowerings.complex_kernel`) call the function's own rule for
    real arguments, not the one the complex values are computed through (sinh for sin)."""
    x = np.array([-2.5, -1.0, -0.5, 0.0, 0.5, 0.9, 2.5], np.float32)
    with getattr(ivy, backend).use, np.errstate(all="ignore"):
        for op in sorted(FUNCTIONS):
            want = getattr(ivy.ops, op)(x)
            got = ivy.to_numpy(getattr(ivy, op)(ivy.asarray(x)))
            np.testing.assert_allclose(got, want, rtol=2e-6, equal_nan=True, err_msg=op)


@pytest.mark.parametrize("target", ["jax", "torch"])
def test_gradients_through_the_corrected_functions(target: str) -> None:
    """The reduction negates, never takes |b|: d/dt of sum(re + im)(exp(i t)) and of
    sqrt(-4 + i t) at t = +-0 is the framework's own."""
    t = np.array([0.0, -0.0, 1.5, -2.0])

    def program(v):  # noqa: ANN001, ANN202 (either framework's arrays)
        z = ivy.astype(v, ivy.complex128)
        w = ivy.exp(z * 1j) + ivy.sqrt(z * 1j - 4)
        return ivy.sum(ivy.real(w) + ivy.imag(w))
    import ivy_ir
    c = ivy_ir.compile(program, target, args=(t,))
    if target == "jax":
        import jax
        import jax.numpy as jnp
        with jax.enable_x64(True):
            got = np.asarray(jax.grad(c)(jnp.asarray(t)))
            own = np.asarray(jax.grad(lambda v: jnp.sum(
                (lambda w: w.real + w.imag)(jnp.exp(v * 1j) + jnp.sqrt(v * 1j - 4))))(
                    jnp.asarray(t)))
    else:
        import torch
        x = torch.tensor(t, requires_grad=True)
        c(x).backward()
        got = x.grad.numpy()
        y = torch.tensor(t, requires_grad=True)
        w = torch.exp(y * 1j) + torch.sqrt(y * 1j - 4)
        (w.real + w.imag).sum().backward()
        own = y.grad.numpy()
    np.testing.assert_allclose(got, own, rtol=1e-12)


@pytest.mark.parametrize("target", TARGETS)
def test_huge_and_tiny_complex_arguments(target: str) -> None:
    """log|z| without squaring the parts (TF's own complex log gives NaN past ~1e154);
    sinh(a) of a tiny real part kept (XLA's complex sinh and cosh, and so sin and cos,
    made it 0)."""
    args = [1e200 + 1e200j, 1e-200 - 1e-200j, 3e-170 + 4e-170j, -2e300 + 1j]
    tiny = [1e-20 + 1e-20j, 3e-170 - 4e-170j, 2.5 + 1e-30j, 1e-30 + 2.5j]
    for op in ("sinh", "cosh", "sin", "cos"):
        want = np.array([getattr(cmath, op)(z) for z in tiny])
        got = compiled(op, tiny, np.complex128, target)
        np.testing.assert_allclose(got.real, want.real, rtol=1e-14, atol=0, err_msg=op)
        np.testing.assert_allclose(got.imag, want.imag, rtol=1e-14, atol=0, err_msg=op)
    for op, base in (("log", math.e), ("log2", 2.0), ("log10", 10.0)):
        want = np.array([cmath.log(z) / math.log(base) for z in args])
        got = compiled(op, args, np.complex128, target)
        np.testing.assert_allclose(got, want, rtol=1e-14, err_msg=op)
        with getattr(ivy, target).use, (__import__("jax").enable_x64(True)
                                        if target == "jax" else contextlib.nullcontext()):
            eager = ivy.to_numpy(getattr(ivy, op)(ivy.asarray(np.array(args))))
        np.testing.assert_allclose(eager, want, rtol=1e-14, err_msg=f"ivy.{op}")
