"""The differential matrix: every registry op on every framework target against the
independent references, with the dtype-aware tolerances of `differential.py`.

Each example compiles the op for the target (jit/tf.function as users get it) and runs
it on the drawn inputs. Where the registry declares the op unsupported in a dtype on a
target (`unsupported=` in ops.spec), compiling must fail with an error naming both.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pytest
from differential import (
    FLUSHES_SUBNORMALS,
    as_list,
    check_against_reference,
    compile_op,
    flush_subnormals,
    run_compiled,
    unsupported_dtypes,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_refs_common import CASES

from lowerings import LoweringError

TARGETS = ["jax", "torch", "tensorflow"]
PLAIN = sorted(n for n, c in CASES.items() if c.kind == "plain")
RANDOM = sorted(n for n, c in CASES.items() if c.kind == "random")
# IVY_TARGET_EXAMPLES=50 for a deeper (slower) run
SETTINGS = settings(max_examples=int(os.environ.get("IVY_TARGET_EXAMPLES", "4")),
                    deadline=None, suppress_health_check=list(HealthCheck))


@pytest.mark.parametrize("name", PLAIN)
@pytest.mark.parametrize("target", TARGETS)
@SETTINGS
@given(data=st.data())
def test_op_on_target(target: str, name: str, data: Any) -> None:
    operands, attrs = CASES[name].draw(data)
    if target in FLUSHES_SUBNORMALS:
        operands = flush_subnormals(operands)
    gaps = unsupported_dtypes(name, operands, target)
    if gaps:
        with pytest.raises(LoweringError, match=rf"(?s){target} target cannot run.*ivy\.{name} in"):
            compile_op(name, operands, attrs, target)
        return
    got, ir_types = run_compiled(name, operands, attrs, target)
    check_against_reference(name, operands, attrs, {target: got}, ir_types, target)


@pytest.mark.parametrize("name", RANDOM)
@pytest.mark.parametrize("target", TARGETS)
@settings(max_examples=3, deadline=None)
@given(data=st.data())
def test_random_op_on_target(target: str, name: str, data: Any) -> None:
    operands, attrs = CASES[name].draw(data)
    compiled, flat = compile_op(name, operands, attrs, target)
    a, b = as_list(compiled(*flat))[0], as_list(compiled(*flat))[0]
    assert a.shape == tuple(attrs["shape"]) and a.dtype.name == attrs["dtype"]
    np.testing.assert_array_equal(a, b)  # the same key gives the same stream
    if name == "random_uniform":
        assert ((a >= attrs.get("low", 0.0)) & (a < attrs.get("high", 1.0))).all()
    if a.size >= 4:
        other = np.asarray(flat[0] + 1, dtype=flat[0].dtype)
        assert not np.array_equal(as_list(compiled(other))[0], a)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name,params,mean,std", [
    ("random_uniform", {"low": -2.0, "high": 4.0}, 1.0, 6 / np.sqrt(12)),
    ("random_normal", {"mean": 3.0, "std": 2.0}, 3.0, 2.0),
])
def test_random_moments_on_target(target: str, name: str, params: dict, mean: float,
                                  std: float) -> None:
    n = 200_000
    key = np.asarray(7, "int64")
    compiled, _ = compile_op(name, [key], {"shape": [n], "dtype": "float32", **params}, target)
    x = as_list(compiled(key))[0].astype(np.float64)
    assert abs(x.mean() - mean) < 5 * std / np.sqrt(n)
    assert abs(x.std() - std) < 0.02 * std


@pytest.mark.parametrize("target", ["numpy", *TARGETS, "onnx"])
def test_layer_norm_of_a_constant_row_is_zero(target: str) -> None:
    # a float32 mean of 4.9497 is not 4.9497; 1 / sqrt(eps) made the residual 1.5e-4
    x = np.full((2, 3), 4.9497, np.float32)
    got, _ = run_compiled("layer_norm", [x, None, None], {"axis": [0, 1], "eps": 1e-5}, target)
    np.testing.assert_array_equal(got[0], np.zeros_like(x))


@pytest.mark.parametrize("target", ["numpy", *TARGETS])
def test_solve_of_a_vector_against_a_batch_of_one_matrix(target: str) -> None:
    # torch read the (1, 1) column of a (1, 1, 1) batch as a batch of vectors
    a, b = np.full((1, 1, 1), 2.0), np.array([3.0])
    got, _ = run_compiled("solve", [a, b], {}, target)
    np.testing.assert_allclose(got[0], [[1.5]])
