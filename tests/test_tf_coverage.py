"""The TensorFlow raw ops Keras layers, `tf.image`, `tf.signal` and `tf.linalg` emit:
what imports (`tf_coverage`), and that its section of `docs/import_matrix.md` is
current."""

from __future__ import annotations

from pathlib import Path

import pytest
from tf_coverage import classify, documented, render

DOC = Path(__file__).resolve().parents[1] / "docs" / "import_matrix.md"


@pytest.mark.parametrize("name", ["Resizing bilinear", "Resizing nearest", "Conv1D dilated",
                                  "Conv2D dilated", "DepthwiseConv2D dilated",
                                  "UpSampling2D bilinear", "tf.linalg.inv"])
def test_programs_of_the_closed_gaps_import_whole(name):
    assert classify(name).missing == {}


def test_tf_coverage_section_in_docs_is_current():
    assert documented(DOC.read_text()) == render(), \
        "stale: run .venv/bin/python scripts/gen_import_matrix.py"
