"""The layering is a contract. `lint-imports` (in the test command) checks the layers
of pyproject.toml, that no framework is imported below the importers and lowerings, and
that no package has an import cycle; this file checks what import-linter cannot see."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("ivy", "ivy_ir", "importers", "lowerings")
LAZY = frozenset({"torch", "jax", "jaxlib", "tensorflow", "keras", "flax", "ml_dtypes",
                  "onnx", "onnxruntime", "matplotlib", "transformers"})
"""Optional frameworks (and the plotting library): the only modules a function may import (when first needed)."""
BELOW_API = ("importers", "lowerings", "ivy_ir/passes", "ivy_ir/core", "ivy_ir/dialect")


def _sources() -> list[Path]:
    return sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py"))


def _nested_imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """Import statements inside a function or class body (not at module level, where
    `if`/`try` blocks still count as module level)."""
    found = []
    for scope in ast.walk(tree):
        if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found += [n for n in ast.walk(scope) if isinstance(n, (ast.Import, ast.ImportFrom))]
    return found


def _roots(node: ast.Import | ast.ImportFrom) -> set[str]:
    if isinstance(node, ast.ImportFrom):
        return {"." if node.level else (node.module or "").split(".")[0]}
    return {a.name.split(".")[0] for a in node.names}


def test_function_level_imports_only_load_frameworks_with_a_reason() -> None:
    bad = []
    for path in _sources():
        text = path.read_text()
        lines = text.splitlines()
        for node in _nested_imports(ast.parse(text)):
            where = f"{path.relative_to(ROOT)}:{node.lineno}"
            if not _roots(node) <= LAZY:
                bad.append(f"{where}: imports {sorted(_roots(node))} inside a function")
            elif "#" not in lines[node.lineno - 1]:
                bad.append(f"{where}: a lazy framework import needs a one-line reason")
    assert not bad, "\n".join(bad)


def test_below_the_api_nothing_imports_the_ivy_ir_package() -> None:
    """`import ivy_ir` means the public API (its __init__ re-exports it), so it is as
    much off limits below the API as `ivy_ir.api` itself (which import-linter checks)."""
    bad = []
    for path in _sources():
        if not str(path.relative_to(ROOT)).startswith(BELOW_API):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            plain = isinstance(node, ast.Import) and any(a.name == "ivy_ir" for a in node.names)
            named = isinstance(node, ast.ImportFrom) and node.module == "ivy_ir" and \
                any(not (ROOT / "ivy_ir" / a.name).is_dir() for a in node.names)
            if plain or named:
                bad.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not bad, "below the public API: " + ", ".join(bad)


@pytest.mark.parametrize("module", ["lowerings", "importers.common", "ivy_ir.core.tracer",
                                    "ivy_ir.passes", "ivy_ir.dialect", "ivy", "ivy_ir.cli"])
def test_any_module_imports_first_in_a_fresh_interpreter(module: str) -> None:
    """Importing a lower module runs ivy_ir/__init__ (and so the API) first: that must
    work whichever module a user or tool imports first."""
    done = subprocess.run([sys.executable, "-c", f"import {module}"], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
