"""The committed op reference is exactly what the registry generates."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_ops_md_is_current() -> None:
    spec = importlib.util.spec_from_file_location("gen_op_table",
                                                  ROOT / "scripts" / "gen_op_table.py")
    assert spec is not None and spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    committed = (ROOT / "docs" / "ops.md").read_text()
    assert committed == gen.render(), "docs/ops.md is stale: run scripts/gen_op_table.py"
