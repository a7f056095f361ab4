"""Differential test of every registry op on the NumPy target.

For each op of `ivy_ir.dialect.SPECS` the table in `op_refs_*.py` draws valid inputs
and attributes and computes the expected results independently (NumPy in float64,
math, torch). Every example runs the op eagerly (`F.<op>`) and compiled
(`ivy_ir.compile(..., "numpy")`) and compares dtype, shape (also against the IR's
result types) and values within the tolerances below.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import op_refs_elementwise  # noqa: F401  (fill CASES)
import op_refs_linalg  # noqa: F401
import op_refs_nn  # noqa: F401
import op_refs_shape  # noqa: F401
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_refs_common import CASES

import ivy_ir
from ivy_ir import functional as F
from ivy_ir.dialect import SPECS

# dtype -> (rtol, atol); integer and bool results must match exactly
TOL: dict[str, tuple[float, float]] = {
    "float32": (1e-5, 1e-5),
    "float64": (1e-10, 1e-12),
    "int32": (0, 0), "int64": (0, 0), "bool": (0, 0),
}

# IVY_OPS_EXAMPLES=200 for a deeper (slower) run
SETTINGS = settings(max_examples=int(os.environ.get("IVY_OPS_EXAMPLES", "20")), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much])


def _tol(name: str, dtype: str) -> tuple[float, float]:
    override = CASES[name].tol or {}
    return override.get(dtype, TOL.get(dtype, (0, 0)))


def _flatten(name: str, operands: list[Any]) -> tuple[list[np.ndarray], Any]:
    """The array inputs of a compiled call and a function rebuilding the operands."""
    flat: list[np.ndarray] = []
    layout: list[int | None] = []
    for spec, v in zip(SPECS[name].operands, operands):
        if v is None:
            layout.append(None)
        elif spec.variadic:
            layout.append(len(v))
            flat += v
        else:
            layout.append(-1)
            flat.append(v)

    def rebuild(xs: tuple[Any, ...]) -> list[Any]:
        it = iter(xs)
        return [None if n is None else next(it) if n == -1 else [next(it) for _ in range(n)]
                for n in layout]
    return flat, rebuild


def _as_list(out: Any) -> list[np.ndarray]:
    items = list(out) if isinstance(out, (list, tuple)) else [out]
    return [np.asarray(o) for o in items]


def run_both(name: str, operands: list[Any], attrs: dict[str, Any]):
    fn = getattr(F, name)
    eager = _as_list(fn(*operands, **attrs))
    flat, rebuild = _flatten(name, operands)
    compiled = ivy_ir.compile(lambda *xs: fn(*rebuild(xs), **attrs), "numpy", args=tuple(flat))
    got = _as_list(compiled(*flat))
    ir_types = [(tuple(t.shape), t.dtype) for t in compiled.ir_module.outputs]
    return eager, got, ir_types


def _compare(name: str, got: np.ndarray, want: np.ndarray, what: str) -> None:
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != expected {want.dtype}"
    assert got.shape == want.shape, f"{what}: shape {got.shape} != expected {want.shape}"
    rtol, atol = _tol(name, want.dtype.name)
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol,
                                   atol=atol, equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


PLAIN = sorted(n for n, c in CASES.items() if c.kind == "plain")
RANDOM = sorted(n for n, c in CASES.items() if c.kind == "random")


@pytest.mark.parametrize("name", PLAIN)
@SETTINGS
@given(data=st.data())
def test_op(name: str, data: Any) -> None:
    case = CASES[name]
    operands, attrs = case.draw(data)
    eager, compiled, ir_types = run_both(name, operands, attrs)
    if case.check is not None:
        tol = case.tol or TOL
        for label, outs in (("eager", eager), ("compiled", compiled)):
            try:
                case.check(operands, attrs, outs, tol[outs[0].dtype.name])
            except AssertionError as e:
                raise AssertionError(f"{label}: {e}") from e
        assert ir_types == [(o.shape, o.dtype.name) for o in compiled]
        return
    want = _as_list(case.ref(*operands, **attrs))
    assert len(eager) == len(want) and len(compiled) == len(want)
    for i, w in enumerate(want):
        assert ir_types[i] == (w.shape, w.dtype.name), \
            f"IR result {i} type {ir_types[i]} != expected {(w.shape, w.dtype.name)}"
        _compare(name, eager[i], w, f"eager result {i}")
        _compare(name, compiled[i], w, f"compiled result {i}")


@pytest.mark.parametrize("name", RANDOM)
@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_random_op(name: str, data: Any) -> None:
    operands, attrs = CASES[name].draw(data)
    key = operands[0]
    fn = getattr(F, name)
    a, b = _as_list(fn(key, **attrs))[0], _as_list(fn(key, **attrs))[0]
    assert a.shape == tuple(attrs["shape"]) and a.dtype.name == attrs["dtype"]
    np.testing.assert_array_equal(a, b)  # same key, same stream
    _, compiled, ir_types = run_both(name, [key], attrs)
    assert ir_types == [(tuple(attrs["shape"]), attrs["dtype"])]
    assert compiled[0].shape == a.shape and compiled[0].dtype == a.dtype
    np.testing.assert_array_equal(compiled[0], a)  # same key, same stream, compiled too
    if name == "random_uniform":
        assert ((a >= attrs.get("low", 0.0)) & (a < attrs.get("high", 1.0))).all()
    if a.size >= 4:  # a different key gives a different stream
        other = np.asarray(key + 1, dtype=key.dtype)
        assert not np.array_equal(_as_list(fn(other, **attrs))[0], a)


@pytest.mark.parametrize("name,params,mean,std", [
    ("random_uniform", {"low": -2.0, "high": 4.0}, 1.0, 6 / np.sqrt(12)),
    ("random_normal", {"mean": 3.0, "std": 2.0}, 3.0, 2.0),
])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_random_moments(name: str, params: dict, mean: float, std: float, dtype: str) -> None:
    n = 200_000
    x = np.asarray(getattr(F, name)(np.asarray(7, "int64"), shape=[n], dtype=dtype, **params))
    assert x.shape == (n,) and x.dtype == np.dtype(dtype)
    assert abs(x.mean() - mean) < 5 * std / np.sqrt(n)
    assert abs(x.std() - std) < 0.02 * std
    if name == "random_uniform":
        assert x.min() >= params["low"] and x.max() < params["high"]


def test_every_op_has_a_reference() -> None:
    missing = sorted(set(SPECS) - set(CASES))
    assert not missing, f"ops without an entry in tests/op_refs_*.py: {missing}"
    assert not sorted(set(CASES) - set(SPECS)), "entries for ops not in the registry"
