"""The lax primitives reachable from `jax.numpy`, `jax.nn` and `jax.random` through the
JAX importer: every primitive imports (its examples import and match JAX on the NumPy
target) or is listed in `jax_coverage.GAPS` with its reason, every failing example is
explained, and the coverage table in `docs/import_matrix.md` is current.

Each example is classified once per session (`jax_coverage.classify` is cached), so the
tests share one pass over the examples."""

from __future__ import annotations

from pathlib import Path

from jax_coverage import FAILING, GAPS, classify, documented, gaps, render, unexplained
from jax_coverage_examples import EXAMPLES, NOT_TRACED, public_functions

DOC = Path(__file__).resolve().parents[1] / "docs" / "import_matrix.md"


def test_every_public_function_has_an_example_or_a_reason():
    public = set(public_functions())
    assert not set(EXAMPLES) & set(NOT_TRACED)
    assert sorted(public - set(EXAMPLES) - set(NOT_TRACED)) == [], \
        "new public functions: give each an example (or a reason in NOT_TRACED)"
    assert sorted((set(EXAMPLES) | set(NOT_TRACED)) - public) == []


def test_primitives_outside_the_gap_list_import():
    found = {p: c.status for p, c in gaps().items()}
    new = {p: f"{s} in {', '.join(gaps()[p].failing[:3])}: "
              f"{classify(gaps()[p].failing[0]).error}"
           for p, s in found.items() if p not in GAPS}
    assert new == {}, "primitives that do not import: fix, or list in GAPS"
    closed = sorted(set(GAPS) - set(found))
    assert closed == [], "these import now: drop them from GAPS"


def test_failing_examples_are_explained():
    failing = unexplained()
    assert {n: e for n, e in failing.items() if n not in FAILING} == {}, \
        "examples that fail with no primitive named: fix, or list in FAILING"
    assert sorted(set(FAILING) - set(failing)) == [], "these pass now: drop from FAILING"


def test_jax_coverage_section_in_docs_is_current():
    assert documented(DOC.read_text()) == render(), \
        "stale: run .venv/bin/python scripts/gen_import_matrix.py --jax-coverage-only"
