"""The Array API standard's own conformance suite against `ivy` on the NumPy backend.

Runs the unmodified suite (../shared/array-api-tests, 2024.12, 5 examples per test) in a
subprocess, as `scripts/array_api.py` does for every backend, and holds the NumPy
backend to its goal: at least as many passes as `array_api_strict` (1,335), and no
failure outside the causes docs/array_api.md explains (special cases of NumPy's own
ufuncs and array operators, which `ivy` does not wrap). Hypothesis runs derandomized, so
the count does not wander between runs.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import array_api  # noqa: E402

EXPLAINED = ("test_special_cases.py",)


@pytest.mark.skipif(not array_api.SUITE.is_dir(), reason="no ../shared/array-api-tests here")
@pytest.mark.skipif(importlib.util.find_spec("ndindex") is None, reason="needs ndindex")
def test_numpy_backend_conformance():
    report = array_api.run("numpy", array_api.SUITE, 5, ["--hypothesis-derandomize"])
    counts, failures = array_api.summarize("numpy", report)
    unexplained = [i for ids in failures.values() for i in ids
                   if not any(e in i for e in EXPLAINED)]
    assert not unexplained, "\n".join(unexplained)
    assert counts["passed"] >= 1335, counts


@pytest.mark.skipif(not array_api.SUITE.is_dir(), reason="no ../shared/array-api-tests here")
@pytest.mark.skipif(importlib.util.find_spec("ndindex") is None, reason="needs ndindex")
def test_jax_backend_passes_every_complex_special_case_of_the_unary_functions():
    """The suite's special cases of the unary functions of complex arguments (their ids
    read `real(x_i)`) on the JAX backend, which the JAX target's kernel puts in
    (`ivy_ir/core/complex_cases.py`): XLA's own functions miss about thirty."""
    report = array_api.run("jax", array_api.SUITE, 5, [
        "--hypothesis-derandomize", "-k", "test_special_cases and test_unary and real"])
    counts, failures = array_api.summarize("jax", report)
    assert not failures, "\n".join(failures)
    assert counts["passed"] >= 128, counts  # every complex case of the 2024.12 text
