"""torch's core ATen op set through the torch importer: every op imports and matches
torch on the NumPy target, or is listed in `core_aten.MISSING` with its reason; the
coverage table in `docs/import_matrix.md` is current."""

from __future__ import annotations

from pathlib import Path

import pytest
from core_aten import DRAWS, MISSING, classify, documented, render
from core_aten_examples import EXAMPLES, core_ops

DOC = Path(__file__).resolve().parents[1] / "docs" / "import_matrix.md"


@pytest.mark.parametrize("name", list(core_ops()))
def test_core_op_imports_or_is_listed_missing(name):
    result = classify(name)
    if name in MISSING:
        assert result.status == "missing", f"aten.{name} imports now: drop it from MISSING"
    else:
        assert result.status != "missing", f"aten.{name}: {result.detail}"


def test_examples_name_core_ops():
    assert set(EXAMPLES) <= set(core_ops())
    assert set(MISSING) | set(DRAWS) <= set(core_ops())


def test_coverage_table_in_docs_is_current():
    assert documented(DOC.read_text()) == render(), \
        "stale: run .venv/bin/python scripts/gen_import_matrix.py"
