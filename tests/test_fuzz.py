"""The fuzz suite in CI: mutants of the lit tests' and generated programs' IR go to
`ivy_ir.parse`, to `ivy-opt` and, when they verify, to the four lowerings
(`scripts/fuzz.py` is the harness; run it with `--minutes N` for a longer search).

A fixed number of mutants, drawn deterministically, keeps the run to about half a
minute; each must end in a user error or a success, in time, with results of the
declared types.
"""

from __future__ import annotations

import functools
import random
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ivy_ir

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import fuzz  # noqa: E402

MUTANTS = 600


@functools.cache
def _corpus() -> list[str]:
    return fuzz.corpus()


@functools.cache
def _harness() -> fuzz.Harness:
    """Built on first use, not at collection: it imports and warms up every target."""
    return fuzz.Harness()


@settings(max_examples=MUTANTS, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(rng=st.randoms(use_true_random=True), flags=st.sampled_from(fuzz.OPT_FLAGS))
def _mutant_fails_cleanly_and_in_time(rng: random.Random, flags: tuple[str, ...]) -> None:
    text = fuzz.mutate(rng.choice(_corpus()), rng, _corpus())
    harness = _harness()
    before = len(harness.failures)
    harness.check(text, flags)
    new = harness.failures[before:]
    assert not new, f"{new} for ivy-opt {flags} on:\n{text[:3000]}"


def test_mutants_fail_cleanly_and_in_time() -> None:
    _mutant_fails_cleanly_and_in_time()
    # the mutants got past the parser into every lowering, and met every kind of error
    counts = _harness().counts
    assert counts[("parse", "ok")] >= 10 and counts[("parse", "user:IRError")] >= 200
    for target in fuzz.TARGETS:
        assert counts[(f"run:{target}", "ok")] >= 5, target
    assert counts[("ivy-opt", "user:ParseError")] >= 100
    assert counts[("ivy-opt", "user:PipelineError")] >= 5


def test_most_of_the_corpus_verifies() -> None:
    ok = 0
    corpus = _corpus()
    for text in corpus:
        try:
            ivy_ir.parse(text)
            ok += 1
        except ivy_ir.IRError:
            pass
    assert len(corpus) >= 100 and ok >= 0.7 * len(corpus)


def _spin() -> None:
    while True:
        pass


def _busy(seconds: float) -> None:
    """Work (not sleep) for `seconds` of this thread's CPU time, which SLOW measures."""
    start = time.thread_time()
    while time.thread_time() - start < seconds:
        pass


def test_harness_reports_internal_errors_and_slow_stages(monkeypatch: pytest.MonkeyPatch,
                                                         tmp_path: Path) -> None:
    harness = fuzz.Harness(targets=(), out=tmp_path)
    harness._timed("parse", "x = 1", lambda: {}["missing"], (ivy_ir.IRError,))
    harness._timed("lower:numpy", "y", lambda: None.shape, fuzz.LOWER_USER_ERRORS)  # type: ignore[attr-defined]
    monkeypatch.setattr(fuzz, "allowed_s", lambda text: 0.01)
    harness._timed("ivy-opt", "z", lambda: _busy(0.05), (ivy_ir.IRError,))
    first = iter([0.05])  # over budget once (a cache filled on first use), then not
    harness._timed("ivy-opt", "t", lambda: _busy(next(first, 0.0)), (ivy_ir.IRError,))
    monkeypatch.setattr(fuzz, "HANG_S", 0.2)
    harness._timed("parse", "w", _spin, (ivy_ir.IRError,))
    assert [f.split(": ")[:2] for f in harness.failures] == [
        ["parse", "INTERNAL:KeyError"], ["lower:numpy", "INTERNAL:AttributeError"],
        ["ivy-opt", "SLOW"], ["parse", "SLOW"]]
    written = sorted(p.read_text().splitlines()[0] for p in tmp_path.iterdir())
    assert written[0].startswith("// ivy-opt: SLOW: ") and len(written) == 4
    harness._timed("lower:numpy", "v", lambda: int("x"), fuzz.LOWER_USER_ERRORS)
    harness._timed("lower:numpy", "u", lambda: ivy_ir.parse("}"), fuzz.LOWER_USER_ERRORS)
    assert harness.failures[-1] == "lower:numpy: INTERNAL:ValueError: invalid literal for " \
                                   "int() with base 10: 'x'"
    assert harness.counts[("lower:numpy", "user:IRError")] == 1


def test_harness_counts_documented_data_errors_only_at_run_time(tmp_path: Path) -> None:
    """A framework refusing the values (docs/semantics.md: integer to a negative power,
    a singular matrix) is the program's meaning, not a crash; the same words while
    lowering, or other run-time errors, still count as internal."""
    harness = fuzz.Harness(targets=(), out=tmp_path)

    def refuse(message: str) -> None:
        raise RuntimeError(message)
    harness._timed("run:tensorflow", "a", lambda: refuse(
        "Integers to negative integer powers are not allowed"), fuzz.LOWER_USER_ERRORS)
    harness._timed("run:torch", "b", lambda: refuse(
        "linalg.cholesky: the input is not positive-definite"), fuzz.LOWER_USER_ERRORS)
    assert harness.counts[("run:tensorflow", "data:RuntimeError")] == 1
    assert harness.counts[("run:torch", "data:RuntimeError")] == 1
    assert not harness.failures
    harness._timed("lower:torch", "c", lambda: refuse("matrix is singular"),
                   fuzz.LOWER_USER_ERRORS)
    harness._timed("run:torch", "d", lambda: refuse("shape mismatch"), fuzz.LOWER_USER_ERRORS)
    assert [f.split(": ")[:2] for f in harness.failures] == [
        ["lower:torch", "INTERNAL:RuntimeError"], ["run:torch", "INTERNAL:RuntimeError"]]
