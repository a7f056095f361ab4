"""The import zoo: programs written natively in each source framework, and the
any-to-any matrix that imports each one and lowers it to every target.

A `ZooProgram` holds the program (a function or a model object), NumPy example inputs
and, for JAX-style `apply(params, x)` functions, a params pytree. Its reference output
is the source framework running the program itself (`NATIVE_RUNNERS`); every target's
compiled output must match it within the program's tolerance.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

SOURCES = ("torch", "jax", "tensorflow", "numpy")
TARGETS = ("numpy", "jax", "torch", "tensorflow")
F32_TOL = (1e-4, 1e-5)
"""(rtol, atol) for float32 programs: one kernel per op on both sides, different
summation orders and fused kernels (conv, attention, norms) between frameworks."""


@dataclass
class ZooProgram:
    name: str
    fn: Any
    args: tuple[np.ndarray, ...]
    params: Any = None
    rtol: float = F32_TOL[0]
    atol: float = F32_TOL[1]
    kwargs: dict[str, Any] | None = None


def _to_numpy(x: Any) -> np.ndarray:
    if hasattr(x, "detach"):
        x = x.detach().cpu()
    if hasattr(x, "numpy") and not isinstance(x, np.ndarray):
        return np.asarray(x.numpy())
    return np.asarray(x)


def _native(framework: str) -> Callable[[np.ndarray], Any]:
    if framework == "torch":
        import torch
        return torch.as_tensor
    if framework == "jax":
        import jax.numpy as jnp
        return jnp.asarray
    if framework == "tensorflow":
        import tensorflow as tf
        return tf.convert_to_tensor
    return np.asarray


def _tree_map(fn: Callable[[Any], Any], tree: Any) -> Any:
    if tree is None:
        return None
    if isinstance(tree, dict):
        return {k: _tree_map(fn, v) for k, v in tree.items()}
    if isinstance(tree, (list, tuple)):
        return type(tree)(_tree_map(fn, v) for v in tree)
    return fn(tree)


def native_args(framework: str, program: ZooProgram) -> tuple[tuple[Any, ...], Any]:
    """The program's inputs (and params) as the source framework's arrays."""
    conv = _native(framework)
    return tuple(conv(a) for a in program.args), _tree_map(conv, program.params)


def run_native(framework: str, program: ZooProgram) -> list[np.ndarray]:
    """The reference: the source framework running its own program."""
    args, params = native_args(framework, program)
    kwargs = program.kwargs or {}
    if framework == "torch":
        import torch
        with torch.no_grad():
            out = program.fn(*args, **kwargs)
    elif params is not None:
        out = program.fn(params, *args, **kwargs)
    else:
        out = program.fn(*args, **kwargs)
    return _outputs(out)


def import_program(framework: str, program: ZooProgram) -> tuple[Any, list[np.ndarray]]:
    """The program imported with `ivy_ir.trace` from the source's own tensors, and the
    source's own outputs (the reference)."""
    import ivy_ir

    args, params = native_args(framework, program)
    module = ivy_ir.trace(program.fn, args, program.kwargs, params=params)
    return module, run_native(framework, program)


def run_target(module: Any, target: str, program: ZooProgram,
               framework: str) -> list[np.ndarray]:
    """The imported program (an `ivy_ir.Module`) compiled for `target`, on the inputs as
    the source framework holds them (JAX without x64 holds a float64 input as float32),
    handed over as NumPy arrays."""
    import ivy_ir

    args = [_to_numpy(a) for a in native_args(framework, program)[0]]
    return _outputs(ivy_ir.compile(module, target=target)(*args))


def _outputs(out: Any) -> list[np.ndarray]:
    return [_to_numpy(o) for o in (out if isinstance(out, (tuple, list)) else [out])]


def zoo(framework: str) -> list[ZooProgram]:
    return importlib.import_module(f"zoo_{framework}").PROGRAMS


def assert_matches(got: list[np.ndarray], want: list[np.ndarray], program: ZooProgram,
                   where: str) -> float:
    """Compare outputs; returns the largest error relative to the tolerance (<= 1 passes)."""
    assert len(got) == len(want), f"{where}: {len(got)} outputs, expected {len(want)}"
    worst = 0.0
    for i, (g, w) in enumerate(zip(got, want)):
        assert g.shape == w.shape, f"{where} output {i}: shape {g.shape}, expected {w.shape}"
        if w.dtype.kind in "biu":
            np.testing.assert_array_equal(g, w, err_msg=f"{where} output {i}")
            continue
        assert g.dtype == w.dtype, f"{where} output {i}: dtype {g.dtype}, expected {w.dtype}"
        np.testing.assert_allclose(g, w, rtol=program.rtol, atol=program.atol,
                                   err_msg=f"{where} output {i}")
        if w.size:
            err = np.abs(g.astype(np.float64) - w) / (program.atol + program.rtol * np.abs(w))
            worst = max(worst, float(np.nanmax(err)))
    return worst
