"""What all importers share: source detection, the unsupported-op report, `ivy-ir import`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ivy
import ivy_ir
from importers import detect_source

IVY_IR = Path(sys.executable).with_name("ivy-ir")


def _numpy_program(x):
    return np.tanh(x) * 2


def _ivy_program(x):
    return ivy.tanh(x) * 2


def test_detects_the_source_from_the_code_and_arguments():
    import jax.numpy as jnp
    import tensorflow as tf
    import torch

    x = np.ones((2, 3), np.float32)
    assert detect_source(_numpy_program, (x,)) == "numpy"
    assert detect_source(_ivy_program, (x,)) == "ivy"
    assert detect_source(lambda a: a + 1, (x,)) == "ivy"
    assert detect_source(lambda a: a + 1, (torch.ones(2),)) == "torch"
    assert detect_source(lambda a: a + 1, (jnp.ones(2),)) == "jax"
    assert detect_source(lambda a: a + 1, (tf.ones(2),)) == "tensorflow"
    assert detect_source(torch.nn.Linear(2, 2), (x,)) == "torch"
    assert detect_source(lambda p, a: a @ p["w"], (x,), {"w": jnp.ones((3, 3))}) == "jax"
    assert detect_source(lambda a: torch.relu(a), (x,)) == "torch"
    assert detect_source(jnp.tanh, (x,)) == "jax"
    assert detect_source(tf.nn.gelu, (x,)) == "tensorflow"
    assert detect_source(torch.nn.functional.gelu, (x,)) == "torch"
    assert detect_source(np.tanh, (x,)) == "numpy"
    with pytest.raises(TypeError, match="got the class Linear; pass an instance"):
        detect_source(torch.nn.Linear, (x,))


def test_unsupported_report_lists_every_op_with_counts_and_locations():
    err = ivy_ir.UnsupportedOpsError("torch", {"aten.foo": ["m.py:3", "m.py:9"],
                                               "aten.bar": ["m.py:5"]})
    assert isinstance(err, ivy_ir.TraceError)
    assert str(err).splitlines() == [
        "3 torch ops of 2 kinds cannot be imported (no mapping to the ivy dialect):",
        "  aten.bar (x1): m.py:5",
        "  aten.foo (x2): m.py:3, m.py:9",
    ]


def test_unknown_source_is_refused():
    with pytest.raises(ValueError, match="unknown source 'mxnet'"):
        ivy_ir.trace(_ivy_program, (np.ones(2, np.float32),), source="mxnet")


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(IVY_IR), *args], capture_output=True, text=True, timeout=120)


PROGRAM = '''
import numpy as np

def model(x, w):
    return np.maximum(x @ w, 0.0)

def uses_unmapped(x):
    return np.unwrap(x) + np.unwrap(x) + np.i0(x)

def example_args():
    rng = np.random.default_rng(0)
    return rng.standard_normal((2, 3)), rng.standard_normal((3, 4))
'''


def test_cli_import_prints_ir_and_target_source(tmp_path):
    path = tmp_path / "prog.py"
    path.write_text(PROGRAM)
    proc = _cli("import", str(path))
    assert proc.returncode == 0, proc.stderr
    assert "ivy.matmul" in proc.stdout and "tensor<2x4xf64>" in proc.stdout
    proc = _cli("import", f"{path}:model", "--arg", "f32[5,3]", "--arg", "f32[3,2]",
                "--target", "torch")
    assert proc.returncode == 0, proc.stderr
    assert "torch.matmul" in proc.stdout or "@" in proc.stdout
    assert "ivy.matmul" not in proc.stdout


def test_cli_import_lists_unsupported_ops(tmp_path):
    path = tmp_path / "prog.py"
    path.write_text(PROGRAM)
    proc = _cli("import", f"{path}:uses_unmapped", "--arg", "f64[4]", "--list-unsupported")
    assert proc.returncode == 1
    assert "numpy.unwrap (x2)" in proc.stdout and "numpy.i0 (x1)" in proc.stdout
    assert f"{path.name}:8" in proc.stdout
    proc = _cli("import", f"{path}:model", "--list-unsupported")
    assert proc.returncode == 0 and "every op is supported" in proc.stdout


@pytest.mark.parametrize("args, message", [
    (["nope.py"], "no such file: nope.py"),
    (["{path}:missing"], "defines no 'missing'"),
    (["{path}:model", "--arg", "f32(2)"], "bad --arg 'f32(2)'"),
    (["{path}:model", "--arg", "complex32[2]"], "bad --arg 'complex32[2]'"),
])
def test_cli_import_errors_are_clean(tmp_path, args, message):
    path = tmp_path / "prog.py"
    path.write_text(PROGRAM)
    proc = _cli("import", *[a.format(path=path) for a in args])
    assert proc.returncode == 1
    assert message in proc.stderr and "Traceback" not in proc.stderr


def test_new_input_shapes_retrace_every_source():
    """A compiled program called with other shapes re-imports from its source."""
    import jax.numpy as jnp
    import tensorflow as tf
    import torch

    torch.manual_seed(0)
    lin = torch.nn.Linear(3, 4).eval()
    programs = {
        "torch": (lin, lambda x: lin(torch.from_numpy(x)).detach().numpy()),
        "jax": (lambda x: jnp.tanh(x) * 2, lambda x: np.asarray(jnp.tanh(x) * 2)),
        "tensorflow": (tf.function(lambda x: tf.nn.relu(x) - 1),
                       lambda x: (tf.nn.relu(x) - 1).numpy()),
        "numpy": (_numpy_program, _numpy_program),
    }
    rng = np.random.default_rng(0)
    small, big = rng.standard_normal((2, 3), np.float32), rng.standard_normal((5, 3), np.float32)
    for source, (fn, native) in programs.items():
        c = ivy_ir.compile(fn, target="numpy", args=(small,))
        np.testing.assert_allclose(c(big), native(big), rtol=1e-5, atol=1e-6, err_msg=source)
