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


def _run_bytes(tmp_path: Path, data: bytes, *args: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "in.mlir"
    path.write_bytes(data)
    return subprocess.run([str(IVY_OPT), str(path), *args], capture_output=True, text=True,
                          timeout=60)


def _one_error_line(proc: subprocess.CompletedProcess[str], code: int, *words: str) -> str:
    """The run failed with `code`, printed nothing on stdout and no traceback, and its
    first stderr line is the one `ivy-opt: error:` line, holding `words`."""
    assert proc.returncode == code, proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert lines[0].startswith("ivy-opt: error: ")
    assert sum(line.startswith("ivy-opt:") for line in lines) == 1
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


def test_non_utf8_input_is_a_located_error(tmp_path: Path) -> None:
    proc = _run_bytes(tmp_path, b"func.func @f() {\n  \xff\xfe\n}\n")
    _one_error_line(proc, 1, "in.mlir:2:3:", "invalid UTF-8 (byte 0xff)")


def test_unterminated_string_does_not_hang(tmp_path: Path) -> None:
    # 40 characters after a stray quote took xDSL's lexer hours
    proc = _run(tmp_path, 'func.func @f() {\n  "' + "a" * 40 + "\n}\n")
    _one_error_line(proc, 1, "in.mlir:2:3:", "unterminated string literal")


def test_big_splat_is_refused_unless_allowed(tmp_path: Path) -> None:
    text = ("func.func @f() -> tensor<2000000xf32> {\n"
            "  %c = ivy.constant {value = dense<1.0> : tensor<2000000xf32>} : () -> tensor<2000000xf32>\n"
            "  func.return %c : tensor<2000000xf32>\n}\n")
    _one_error_line(_run(tmp_path, text), 1, "in.mlir:2:43:", "dense literal of 2000000 elements",
                    "--max-dense-elements")
    proc = _run(tmp_path, text, "--max-dense-elements", "2000000")
    assert proc.returncode == 0, proc.stderr
    assert "dense<1.000000e+00> : tensor<2000000xf32>" in proc.stdout


def test_verifier_failure_names_the_op_and_its_place(tmp_path: Path) -> None:
    proc = _run(tmp_path, GOOD.replace("2x3xf32", "2x3xi32"))
    _one_error_line(proc, 1, "in.mlir:2:8: ivy.exp: operand 'x' must have a float",
                    "(at 'ivy.exp')")


@pytest.mark.parametrize("pipeline, words", [
    ("{{{", ["-p '{{{' is not a pass pipeline", "Expected pass name"]),
    ("canonicalize{", ["is not a pass pipeline"]),
    (",,", ["-p ',,' names no pass"]),
    ("nonsense-pass", ["Unrecognized passes: ['nonsense-pass']", "presets: default"]),
])
def test_bad_pipeline_is_one_error_line(tmp_path: Path, pipeline: str, words: list[str]) -> None:
    _one_error_line(_run(tmp_path, GOOD, "-p", pipeline), 1, *words)


def test_unknown_option_is_one_error_line_without_usage(tmp_path: Path) -> None:
    proc = _run(tmp_path, GOOD, "--bogus")
    line = _one_error_line(proc, 2, "unrecognized arguments: --bogus")
    assert proc.stderr.strip() == line


def test_internal_error_is_one_line_and_status_70(monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from ivy_ir import opt

    def broken(argv: list[str] | None = None) -> None:
        raise KeyError("a bug")

    monkeypatch.setattr(opt, "run", broken)
    monkeypatch.delenv("IVY_OPT_TRACEBACK", raising=False)
    assert opt.main(["x.mlir"]) == 70
    err = capsys.readouterr().err
    assert err.startswith("ivy-opt: internal error: KeyError: 'a bug'")
    assert "Traceback" not in err
    monkeypatch.setenv("IVY_OPT_TRACEBACK", "1")
    assert opt.main(["x.mlir"]) == 70
    assert "Traceback" in capsys.readouterr().err
