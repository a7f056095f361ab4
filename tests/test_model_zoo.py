"""The model zoo's CI subset (`model_zoo.CI`): one model of each family (timm,
torchvision, BERT, GPT-2, a batch of kornia functions, a `keras.applications` model,
a Keras special-layer model, Flax NNX in training mode) on all four targets against
its source, as `scripts/zoo.py` checks the whole zoo. Also: `docs/zoo.md` lists
exactly the zoo's models, so a model added or removed without a new run of the
script fails here, and the zoo keeps the coverage issue 17 asks for.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from model_zoo import BY_NAME, CI, FAMILIES, MODELS, TARGETS
from model_zoo_core import check_target, leaves, missing

DOC = Path(__file__).resolve().parent.parent / "docs" / "zoo.md"


@cache
def _source(name: str) -> tuple[Any, list[Any]]:
    """The built model and its source's outputs, once for the four targets."""
    built = BY_NAME[name].build()
    return built, leaves(built.reference())


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", CI)
def test_model_matches_its_source(name: str, target: str) -> None:
    model = BY_NAME[name]
    reason = model.not_run or missing(model)
    if reason:
        pytest.skip(reason)
    built, want = _source(name)
    row = check_target(model, built, want, target)
    assert row.status == "pass", f"{row.error} (raised at {row.where or 'the check'})"


def test_the_doc_lists_every_model_of_the_zoo() -> None:
    listed = re.findall(r"^\| `([^`]+)` \|", DOC.read_text(), re.MULTILINE)
    assert listed == [m.name for m in MODELS], \
        "docs/zoo.md is stale: run .venv/bin/python scripts/zoo.py"


def test_every_failure_in_the_doc_is_diagnosed() -> None:
    """Each failure of `docs/zoo.md` carries its cause (`model_zoo_failures.DIAGNOSES`)."""
    undiagnosed = re.findall(r"^\d+\. `([^`]+)` .*Cause: not diagnosed$", DOC.read_text(),
                             re.MULTILINE)
    assert not undiagnosed, f"diagnose {undiagnosed} in tests/model_zoo_failures.py"


def test_the_zoo_covers_issue_17() -> None:
    """The acceptance counts: 15 timm, 8 torchvision, the named transformers families,
    30 kornia functions, every `keras.applications` model, each special Keras layer,
    Flax linen and NNX with dropout in training mode."""
    counts = {family: len(models) for family, models in FAMILIES.items()}
    assert counts["timm"] >= 15 and counts["torchvision"] >= 8 and counts["kornia"] >= 30
    assert {"bert", "roberta", "distilbert", "t5_encoder", "t5_decoder", "gpt2", "llama",
            "qwen2", "mistral", "vit", "clip", "whisper_encoder"} <= BY_NAME.keys()
    keras = pytest.importorskip("keras")
    assert {n for n in dir(keras.applications) if n[0].isupper()} == \
        {m.name for m in FAMILIES["keras.applications"]}
    assert {"keras_resizing", "keras_dilated_conv", "keras_upsampling2d",
            "keras_multi_input_list"} <= BY_NAME.keys()
    assert {m.needs for m in FAMILIES["flax"]} == {"flax.linen", "flax.nnx"}
