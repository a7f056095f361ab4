"""`ivy-opt` as a user runs it: good IR in, IR out; bad IR in, one clean error out."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

IVY_OPT = Path(sys.executable).with_name("ivy-opt")

GOOD = """func.func @f(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %b = ivy.exp %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %c = ivy.exp %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %d = ivy.add %b, %c : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %d : tensor<2x3xf32>
}
"""


def _run(tmp_path: Path, text: str, *args: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "in.mlir"
    path.write_text(text)
    return subprocess.run([str(IVY_OPT), str(path), *args], capture_output=True, text=True,
                          timeout=60)


def test_good_input_runs_passes(tmp_path: Path) -> None:
    proc = _run(tmp_path, GOOD, "-p", "canonicalize,cse,dce")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("ivy.exp") == 1


def test_ivy_passes_are_registered(tmp_path: Path) -> None:
    proc = _run(tmp_path, GOOD, "-p", "decompose")
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("text, expected", [
    (GOOD.replace("%b, %c", "%b %c"), "in.mlir:4:19"),
    (GOOD.replace("ivy.exp %a :", "ivy.exp %a {fast = true} :", 1), "no attribute 'fast'"),
    (GOOD.replace("ivy.exp", "ivy.nonsense", 1), "ivy.nonsense"),
    (GOOD.replace("2x3xf32", "2x3xi32"), "ivy.exp: operand 'x' must have a float or complex dtype"),
    (GOOD.replace("-> tensor<2x3xf32>\n  %c", "-> tensor<2x3xf64>\n  %c"), "in.mlir:"),
])
def test_bad_input_is_a_clean_error(tmp_path: Path, text: str, expected: str) -> None:
    proc = _run(tmp_path, text)
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr + proc.stdout
    assert proc.stderr.startswith("ivy-opt: error:")
    assert expected in proc.stderr


def test_missing_file_is_a_clean_error(tmp_path: Path) -> None:
    proc = subprocess.run([str(IVY_OPT), str(tmp_path / "nope.mlir")], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
