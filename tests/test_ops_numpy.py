"""Differential test of every registry op on the NumPy target.

For each op of `ivy_ir.dialect.SPECS` the table in `op_refs_*.py` draws valid inputs
and attributes and computes the expected results independently (NumPy in float64,
math, torch). Every example runs the op eagerly (`F.<op>`) and compiled
(`ivy_ir.compile(..., "numpy")`) and compares dtype, shape (also against the IR's
result types) and values within the tolerances of `differential.py`.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pytest
from differential import as_list, check_against_reference, run_compiled
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_refs_common import CASES

import ivy.ops as F
from ivy_ir.dialect import CONTROL, SPECS

# IVY_OPS_EXAMPLES=200 for a deeper (slower) run
SETTINGS = settings(max_examples=int(os.environ.get("IVY_OPS_EXAMPLES", "20")), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much])


def run_both(name: str, operands: list[Any], attrs: dict[str, Any]):
    eager = as_list(getattr(F, name)(*operands, **attrs))
    compiled, ir_types = run_compiled(name, operands, attrs, "numpy")
    return eager, compiled, ir_types


PLAIN = sorted(n for n, c in CASES.items() if c.kind == "plain")
RANDOM = sorted(n for n, c in CASES.items() if c.kind == "random")


@pytest.mark.parametrize("name", PLAIN)
@SETTINGS
@given(data=st.data())
def test_op(name: str, data: Any) -> None:
    operands, attrs = CASES[name].draw(data)
    eager, compiled, ir_types = run_both(name, operands, attrs)
    check_against_reference(name, operands, attrs, {"eager": eager, "compiled": compiled},
                            ir_types, "numpy")


@pytest.mark.parametrize("name", RANDOM)
@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_random_op(name: str, data: Any) -> None:
    operands, attrs = CASES[name].draw(data)
    key = operands[0]
    fn = getattr(F, name)
    a, b = as_list(fn(key, **attrs))[0], as_list(fn(key, **attrs))[0]
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
        assert not np.array_equal(as_list(fn(other, **attrs))[0], a)


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
    missing = sorted(set(SPECS) - set(CASES) - CONTROL)  # their bodies are programs:
    # tests/test_control_flow.py runs them on every target against NumPy references
    assert not missing, f"ops without an entry in tests/op_refs_*.py: {missing}"
    assert not sorted(set(CASES) - set(SPECS)), "entries for ops not in the registry"
