"""The 2021 paper's drone planner (examples/drone_motion_planning.py, appendix A.3)
reaches a collision-free path on torch, JAX and TensorFlow, and once more compiled to
JAX with ivy_ir; the runs agree iteration by iteration. `ivy-ir demo drone` draws it."""

from __future__ import annotations

import runpy
from pathlib import Path

import numpy as np
import pytest

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "drone_motion_planning.py"
RUNS = {"torch": ("torch", False), "jax": ("jax", False), "tensorflow": ("tensorflow", False),
        "compiled-jax": ("jax", True)}


@pytest.fixture(scope="module")
def histories():
    plan = runpy.run_path(str(EXAMPLE))["plan"]
    return {name: plan(fw, compiled=compiled, verbose=False) for name, (fw, compiled)
            in RUNS.items()}


@pytest.mark.parametrize("run", list(RUNS))
def test_planner_reaches_a_collision_free_path(histories, run):
    history = histories[run]
    assert history["collision_free"], f"{run}: still colliding after {history['iterations']}"
    assert history["min_sdf"][0] < 0 < 0.1 <= history["min_sdf"][-1]  # it started in a box
    assert history["cost"][-1] < history["cost"][0] / 10


@pytest.mark.parametrize("run", ["jax", "tensorflow", "compiled-jax"])
def test_frameworks_agree_iteration_by_iteration(histories, run):
    reference, other = histories["torch"], histories[run]
    np.testing.assert_allclose(other["cost"][:10], reference["cost"][:10], rtol=0, atol=1e-4)
    np.testing.assert_allclose(other["poses"][9], reference["poses"][9], atol=1e-4)
    assert other["iterations"] == reference["iterations"]


def test_demo_cli_prints_iterations_and_writes_the_picture(tmp_path, capsys):
    from ivy_ir.cli import main
    out = tmp_path / "drone.png"
    assert main(["demo", "drone", "--framework", "torch", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "iteration 0, cost = " in printed and "collision-free path found!" in printed
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
