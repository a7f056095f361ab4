"""ivy_ir's outputs run on the frameworks' own distributed engines (issue 18): each
scenario of examples/scale/ runs in a fresh process, since simulated device counts,
logical devices and gloo process groups must be set before the framework initialises.

A script prints one `<run>: ... max ... difference vs <reference> <value>` line per
distributed run and exits non-zero on a mismatch; the figures are checked again here
against the scenario's float32 tolerance. See docs/scale.md."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parents[1] / "examples" / "scale"
FIGURE = re.compile(r"^([\w. -]+?): .*max (?:parameter )?difference vs [\w ]+? "
                    r"([0-9.]+(?:e[+-]?\d+)?)", re.M)
ENV = {**os.environ, "JAX_PLATFORMS": "cpu", "TF_CPP_MIN_LOG_LEVEL": "2"}
"""The CPU platform is the one whose device count the JAX scripts simulate."""

SCENARIOS = {
    # script: (the runs it compares, tolerance, lines the output must hold)
    "jax_data_parallel.py": ({"jit-shardings", "shard_map"}, 1e-5, ["8 devices"]),
    "jax_tensor_parallel.py": (
        {"jit-shardings output", "jit-shardings gradients", "shard_map output",
         "placed c.params output"}, 1e-5,
        ["local fc1.weight shard (16, 32), fc2.weight shard (32, 16)"]),
    "torch_ddp.py": ({"ddp", "fsdp2"}, 1e-6, [
        "fsdp2: Dense_0.kernel rows held per process 8 of 16",
        # FSDP1 needs CUDA (or another accelerator) on this CPU-only torch build
        "fsdp1: RuntimeError: FSDP needs a non-CPU accelerator device, "
        "but no accelerator device is detected."]),
    "tf_mirrored.py": ({"fit", "strategy.run"}, 1e-6,
                       ["variables: MirroredVariable; per-replica batches [(8, 16)]"]),
}


IN_CI = {"jax_tensor_parallel.py"}
"""The scenario CI runs (about 10 s); the others take 20-30 s each in processes of their
own and are marked heavy (`pytest -m heavy tests/test_scale.py`)."""


@pytest.mark.parametrize("script", [s if s in IN_CI else pytest.param(s, marks=pytest.mark.heavy)
                                    for s in SCENARIOS])
def test_distributed_training_matches_one_device(script):
    runs, tolerance, lines = SCENARIOS[script]
    done = subprocess.run([sys.executable, str(SCRIPTS / script)], env=ENV,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{script} failed:\n{done.stdout}\n{done.stderr[-3000:]}"
    assert done.stdout.rstrip().endswith("OK"), done.stdout
    figures = {name: float(value) for name, value in FIGURE.findall(done.stdout)}
    assert set(figures) == runs, done.stdout
    assert all(value <= tolerance for value in figures.values()), figures
    for line in lines:
        assert line in done.stdout, f"{line!r} not in:\n{done.stdout}"
