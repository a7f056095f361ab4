"""Shared machinery of the differential tests: tolerances, running an op through
`ivy_ir.compile` on a target, and comparing against the independent references of
`op_refs_*.py`.

The tolerance table is the one place that says how close a target must come to the
reference: per dtype, with per-op and per-(target, op) overrides for ops whose float32
results legitimately differ more (different summation orders, fused kernels).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import op_refs_bits  # noqa: F401  (fill CASES)
import op_refs_data  # noqa: F401
import op_refs_elementwise  # noqa: F401
import op_refs_fft  # noqa: F401
import op_refs_linalg  # noqa: F401
import op_refs_nn  # noqa: F401
import op_refs_recurrent  # noqa: F401
import op_refs_shape  # noqa: F401
import op_refs_special  # noqa: F401
import op_refs_strings  # noqa: F401
from op_refs_common import CASES

import ivy.ops as F
import ivy_ir
from ivy_ir.dialect import SPECS, dtype_name
from lowerings import get_target
from lowerings.runtime import host_array

# dtype -> (rtol, atol); integer and bool results must match exactly
TOL: dict[str, tuple[float, float]] = {
    "float32": (1e-5, 1e-5),
    "float64": (1e-10, 1e-12),
    "complex64": (1e-5, 1e-5),
    "complex128": (1e-10, 1e-12),
    "int32": (0, 0), "int64": (0, 0), "bool": (0, 0),
}
# (target, op) -> dtype -> (rtol, atol), for targets whose kernels round differently
TARGET_TOL: dict[tuple[str, str], dict[str, tuple[float, float]]] = {}


def tol(name: str, dtype: str, target: str = "numpy") -> tuple[float, float]:
    override = TARGET_TOL.get((target, name)) or CASES[name].tol or {}
    return override.get(dtype, TOL.get(dtype, (0, 0)))


def flatten(name: str, operands: list[Any]) -> tuple[list[np.ndarray], Any]:
    """The array inputs of a compiled call and a function rebuilding the operands."""
    flat: list[np.ndarray] = []
    layout: list[int | None] = []
    for spec, v in zip(SPECS[name].operands, operands):
        if v is None:
            layout.append(None)
        elif spec.variadic:
            layout.append(len(v))
            flat += v
        else:
            layout.append(-1)
            flat.append(v)

    def rebuild(xs: tuple[Any, ...]) -> list[Any]:
        it = iter(xs)
        return [None if n is None else next(it) if n == -1 else [next(it) for _ in range(n)]
                for n in layout]
    return flat, rebuild


def to_numpy(value: Any) -> np.ndarray:
    """A target's array as NumPy (torch tensors may need grad detached; TF's text is
    decoded into `str`)."""
    return host_array(value)


def as_list(out: Any) -> list[np.ndarray]:
    items = list(out) if isinstance(out, (list, tuple)) else [out]
    return [to_numpy(o) for o in items]


def compile_op(name: str, operands: list[Any], attrs: dict[str, Any], target: str
               ) -> tuple[ivy_ir.Compiled, list[np.ndarray]]:
    fn = getattr(F, name)
    flat, rebuild = flatten(name, operands)
    return ivy_ir.compile(lambda *xs: fn(*rebuild(xs), **attrs), target, args=tuple(flat)), flat


def run_compiled(name: str, operands: list[Any], attrs: dict[str, Any], target: str
                 ) -> tuple[list[np.ndarray], list[tuple[tuple[int, ...], str]]]:
    compiled, flat = compile_op(name, operands, attrs, target)
    got = as_list(compiled(*flat))
    ir_types = [(tuple(t.shape), t.dtype) for t in compiled.ir_module.outputs]
    return got, ir_types


def compare(name: str, got: np.ndarray, want: np.ndarray, what: str,
            target: str = "numpy") -> None:
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != expected {want.dtype}"
    assert got.shape == want.shape, f"{what}: shape {got.shape} != expected {want.shape}"
    rtol, atol = tol(name, want.dtype.name, target)
    if want.dtype.kind in "fc":
        wide = np.complex128 if want.dtype.kind == "c" else np.float64
        np.testing.assert_allclose(got.astype(wide), want.astype(wide), rtol=rtol,
                                   atol=atol, equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def check_against_reference(name: str, operands: list[Any], attrs: dict[str, Any],
                            results: dict[str, list[np.ndarray]],
                            ir_types: list[tuple[tuple[int, ...], str]], target: str) -> None:
    """Compare each labelled run (eager, compiled...) with the op's reference."""
    case = CASES[name]
    if case.check is not None:
        table = {dt: tol(name, dt, target) for dt in TOL}
        for label, outs in results.items():
            try:
                case.check(operands, attrs, outs, table[outs[0].dtype.name])
            except AssertionError as e:
                raise AssertionError(f"{label}: {e}") from e
            assert ir_types == [(o.shape, o.dtype.name) for o in outs], label
        return
    want = as_list(case.ref(*operands, **attrs))
    for label, outs in results.items():
        assert len(outs) == len(want), f"{label}: {len(outs)} results, expected {len(want)}"
        for i, w in enumerate(want):
            assert _fits(ir_types[i], w), \
                f"IR result {i} type {ir_types[i]} != expected {(w.shape, w.dtype.name)}"
            compare(name, outs[i], w, f"{label} result {i}", target)


def _fits(ir_type: tuple[tuple[int | None, ...], str], want: np.ndarray) -> bool:
    """Whether an IR result type admits `want`: a `?` dim any size, and the text dtype
    `string` NumPy's object arrays of `str`."""
    shape, dtype = ir_type
    return len(shape) == want.ndim and all(d is None or d == n for d, n in zip(shape, want.shape)) \
        and dtype == ("string" if want.dtype == object else want.dtype.name)


# XLA (by design, on CPU and GPU) and TensorFlow's oneDNN CPU kernels treat subnormal
# floats as zero: on these targets the matrix flushes subnormal inputs before computing
# both the reference and the target
FLUSHES_SUBNORMALS = {"jax", "tensorflow"}


def flush_subnormals(operands: list[Any]) -> list[Any]:
    """Operands with every subnormal float replaced by a zero of the same sign."""
    def flush(a: Any) -> Any:
        if isinstance(a, list):
            return [flush(i) for i in a]
        if not isinstance(a, np.ndarray) or a.dtype.kind != "f":
            return a
        tiny = np.finfo(a.dtype).tiny
        return np.where(np.abs(a) < tiny, np.copysign(np.zeros_like(a), a), a).astype(a.dtype)
    return [flush(a) for a in operands]


def unsupported_dtypes(name: str, operands: list[Any], target: str) -> set[str]:
    """Dtypes of the operands that the registry declares unsupported for `target`, but
    for those its ops run on the host through NumPy (text on torch and JAX)."""
    gaps = SPECS[name].unsupported.get(target, frozenset()) - get_target(target).host_dtypes
    flat, _ = flatten(name, operands)
    return {dtype_name(np.asarray(a).dtype) for a in flat} & gaps


def matches_on_targets(module: Any, args: list[Any], want: list[np.ndarray],
                       targets: list[str], rtol: float, atol: float) -> None:
    """`module` compiled for each target gives `want` on `args`: every result, its dtype
    and its values (a source's own outputs, for the importer tests of one program)."""
    for target in targets:
        got = ivy_ir.compile(module, target=target)(*args)
        assert len(got) == len(want)
        for i, (g, w) in enumerate(zip(got, want)):
            g = to_numpy(g)
            assert g.dtype == w.dtype, (target, i)
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=f"{target} #{i}")
