"""What is generated from the registry is committed as generated: the op reference and
the lit round-trip tests (so a new op cannot go without either)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _script(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_ops_md_is_current() -> None:
    committed = (ROOT / "docs" / "ops.md").read_text()
    assert committed == _script("gen_op_table").render(), \
        "docs/ops.md is stale: run scripts/gen_op_table.py"


def test_lit_round_trips_are_current() -> None:
    # (hand-written files may stand beside the generated ones)
    want = _script("gen_roundtrip_lit").render_all()
    stale = sorted(p.name for p, text in want.items() if not p.exists() or p.read_text() != text)
    assert not stale, f"stale lit round trips {stale}: run scripts/gen_roundtrip_lit.py"
