"""Every registry op in the dtypes the differential references do not draw (the unsigned
ints wider than uint8 and the complex dtypes), built from its `op_examples.py` example
with the dtype swapped in, and run on a target against the NumPy lowering.

The references of `op_refs_*.py` draw float32/float64/int32/int64/bool, where the
frameworks agree on semantics; this sweep covers the rest of each op's dtype class. It
checks dtype support (the target runs the op, or the registry says it cannot) and the
values against NumPy, whose rules are the IR's reference semantics.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import pytest
from op_examples import example
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Region

import ivy_ir
from ivy_ir.core.module import Module
from ivy_ir.dialect import CONTROL, OP_CLASSES, SPECS, TensorSpec
from ivy_ir.dialect.spec import GROUPED_CLASSES
from ivy_ir.dialect.types import CLASS_MEMBERS, COMPLEX
from lowerings import LoweringError
from lowerings.runtime import host_array

NEW_DTYPES = ("uint16", "uint32", "uint64", "complex64", "complex128")
HALF_FLOATS: dict[str, tuple[Any, int, int]] = {
    "float16": (np.float16, 10, -14), "bfloat16": (ml_dtypes.bfloat16, 7, -126)}
"""Half float -> (NumPy type, mantissa bits, least normal exponent)."""
# ops whose example needs an attribute naming the dtype instead of an operand of it
DTYPE_ATTR_OPS = ("full", "zeros", "ones", "eye", "linspace", "arange", "one_hot",
                  "zeros_like", "ones_like", "full_like", "astype")
# ops left out, and why
SKIPPED = {
    "random_uniform": "random values are real floats (the rule refuses other dtypes)",
    "random_normal": "random values are real floats (the rule refuses other dtypes)",
    "threefry2x32": "defined on uint32 words only (op_refs_bits.py draws them)",
    **dict.fromkeys(CONTROL, "control flow: its bodies are programs, tested by tests/test_control_flow.py"),
}
SORTED = {("searchsorted", "sorted")}
"""Operands an op needs sorted along their last axis (anything else is undefined)."""
# (rtol, atol) against NumPy: transcendental complex kernels differ in the last bits
TOL = {"complex64": (2e-5, 2e-5), "complex128": (1e-11, 1e-12)}


def swapped(name: str, dtype: str) -> tuple[list[Any], dict[str, Any]] | None:
    """`name`'s example with its grouped operands (or its dtype attribute) in `dtype`;
    None when the op's class does not admit `dtype`."""
    types, attrs = example(name)
    if name == "bitcast":  # to a dtype of the same width
        attrs = {**attrs, "dtype": {"uint16": "int16", "uint32": "float32",
                                    "uint64": "int64"}.get(dtype, dtype)}
    if name in DTYPE_ATTR_OPS:
        return types, {**attrs, "dtype": dtype}
    grouped = [a for a in SPECS[name].operands if a.dtype_class in GROUPED_CLASSES]
    if not grouped or any(dtype not in CLASS_MEMBERS[a.dtype_class] for a in grouped):
        return None

    def swap(arg: Any, t: Any) -> Any:
        if t is None or arg.dtype_class not in GROUPED_CLASSES:
            return t
        return [s.with_(dtype=dtype) for s in t] if isinstance(t, list) else t.with_(dtype=dtype)
    return [swap(a, t) for a, t in zip(SPECS[name].operands, types)], attrs


def half_units(values: np.ndarray, dtype: str, least: float = 0.0) -> np.ndarray:
    """One unit in the last place of `dtype` at each of `values` (of magnitude `least`
    at least; subnormal steps below the normal range)."""
    _, bits, lowest = HALF_FLOATS[dtype]
    exponent = np.floor(np.log2(np.maximum(np.abs(values), least)))
    return np.exp2(np.maximum(exponent, lowest) - bits)


def ops_for(dtype: str) -> list[str]:
    return sorted(n for n in SPECS if n not in SKIPPED and swapped(n, dtype) is not None)


def values(spec: TensorSpec, cls: str, rng: np.random.Generator) -> np.ndarray:
    """Inputs valid for every op of the sweep: index operands 0 or 1 (every example's
    indexed dims hold at least 2), unsigned values 1..4 (no division by zero, no
    overflow), complex parts in [-2, 2] (off the branch cuts, almost surely)."""
    shape, dtype = spec.shape, spec.dtype
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if cls == "index":
        return rng.integers(0, 2, shape).astype(dtype)
    if dtype in COMPLEX:
        return (rng.uniform(-2, 2, shape) + 1j * rng.uniform(-2, 2, shape)).astype(dtype)
    if np.dtype(dtype).kind in "iu":
        return rng.integers(1, 5, shape).astype(dtype)
    return rng.uniform(0.5, 2, shape).astype(dtype)


def program(names: list[str], dtype: str) -> tuple[Module, list[np.ndarray], list[str]]:
    """One function holding each op of `names` in `dtype` on inputs of its own, returning
    every result; its inputs, and the op name of each result."""
    rng = np.random.default_rng(0)
    block, inputs, labels, results = Block(), [], [], []
    for name in names:
        types, attrs = swapped(name, dtype)  # type: ignore[misc]
        args: list[Any] = []
        for arg, t in zip(SPECS[name].operands, types):
            group = t if isinstance(t, list) else [t]
            vals = []
            for s in group:
                if s is None:
                    vals.append(None)
                    continue
                drawn = values(s, arg.dtype_class, rng)
                inputs.append(np.sort(drawn, axis=-1) if (name, arg.name) in SORTED else drawn)
                vals.append(block.insert_arg(s.to_xdsl(), len(block.args)))
            args.append(vals if isinstance(t, list) else vals[0])
        op = OP_CLASSES[name].build(*args, **attrs)
        block.add_op(op)
        results += op.results
        labels += [name] * len(op.results)
    block.add_op(func.ReturnOp(*results))
    fn = func.FuncOp("main", ([a.type for a in block.args], [r.type for r in results]),
                     Region(block))
    return Module(ModuleOp([fn]), returns_sequence=True), inputs, labels


def supported(names: list[str], dtype: str, target: str) -> list[str]:
    """`names` less the ops the registry declares `target` unable to run in `dtype`,
    after checking that a program of those fails to compile, naming each of them."""
    gaps = [n for n in names if dtype in SPECS[n].unsupported.get(target, ())]
    if gaps:
        module, inputs, _ = program(gaps, dtype)
        with pytest.raises(LoweringError) as err:
            run(module, inputs, target)
        assert all(f"ivy.{n} in " in str(err.value) for n in gaps)
    return [n for n in names if n not in gaps]


def run(module: Module, inputs: list[np.ndarray], target: str) -> list[np.ndarray]:
    out = ivy_ir.lower(module, target=target)(*inputs)
    return [host_array(o) for o in (out if isinstance(out, (list, tuple)) else [out])]


def compare(got: np.ndarray, want: np.ndarray, what: str) -> None:
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != {want.dtype}"
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    rtol, atol = TOL.get(want.dtype.name, (1e-5, 1e-6) if want.dtype.kind == "f" else (0, 0))
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)
