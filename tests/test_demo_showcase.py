"""`ivy-ir demo` (the showcase): both torch models of examples/torch_models.py come out
of every target matching torch eager, the report has every column, and the chart is
written. One quick run (two timing rounds, no torch.compile) through the CLI serves
every test; the numbers are checked here, not just the exit code."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("torch")

from ivy_ir import demo_showcase  # noqa: E402
from ivy_ir.cli import main  # noqa: E402

MODELS = {"cnn", "transformer"}
RUNNERS = {"torch eager", *(f"ivy_ir -> {t}" for t in demo_showcase.TARGETS)}


@pytest.fixture(scope="module")
def shown(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("showcase") / "demo.png"
    results: list[demo_showcase.Showcase] = []
    real = demo_showcase.run

    def keep(*args: Any, **kwargs: Any) -> demo_showcase.Showcase:
        results.append(real(*args, **kwargs))
        return results[-1]

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(demo_showcase, "run", keep)
        # --threads 0: leave the other tests' thread pools and environment alone
        code = main(["demo", "--quick", "--threads", "0", "--out", str(out)])
    return {"code": code, "result": results[0], "out": out}


def test_every_target_matches_torch_eager_on_both_models(shown: dict[str, Any]) -> None:
    rows = shown["result"].rows
    assert {r.model for r in rows} == MODELS
    for model in MODELS:
        mine = {r.runner: r for r in rows if r.model == model}
        assert set(mine) == RUNNERS, model
        for r in mine.values():
            assert not r.note, (model, r.runner, r.note)
            assert 0 <= r.err <= 1e-5, (model, r.runner, r.err)
            assert r.ok
            assert r.ms > 0 and r.ratio > 0
        assert mine["torch eager"].ratio == 1.0
    assert shown["code"] == 0


def test_the_report_has_every_column_and_the_ir_summary(shown: dict[str, Any]) -> None:
    text = shown["result"].text
    headers = [line for line in text.splitlines() if line.strip().startswith("runner")]
    assert len(headers) == len(MODELS)
    for column in demo_showcase.COLUMNS:
        assert all(column in h for h in headers), column
    assert text.count("after the default passes") == len(MODELS)
    assert "ivy.conv" in text and "ivy.linear" in text
    assert "batch norms folded" in text
    assert "all outputs match torch eager" in text


def test_the_speed_chart_is_written(shown: dict[str, Any]) -> None:
    out: Path = shown["out"]
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_mismatch_fails_the_run() -> None:
    row = demo_showcase.Row("cnn", "ivy_ir -> jax", ok=False)
    assert not demo_showcase.Showcase([demo_showcase.Row("cnn", "torch eager"), row]).ok


def test_the_block_demo_is_still_there(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "block"]) == 0
    assert "-> OK" in capsys.readouterr().out
