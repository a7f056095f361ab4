"""uint16 and uint32 on the torch target. torch has almost no kernels for them, so every
op but those listed as native in `lowerings/torch_semantics.py` computes in int64 and
casts back (`Widening` in `lowerings/target.py`). Each op runs alone, built straight
from the registry (no facade promotion, no passes folding it away), on values at the
ends of the range and where arithmetic wraps, and must equal the NumPy target exactly.
JAX's random number generator is such uint32 arithmetic, and must run on every target.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
import torch
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Region

import ivy_ir
from ivy_ir.core.module import Module
from ivy_ir.core.tracer import OPS as F
from ivy_ir.dialect import OP_CLASSES, TensorSpec
from lowerings import get_target

DTYPES = ("uint16", "uint32")
POOL = {"kernel": [2, 2], "strides": [1, 1], "padding": [0, 0, 0, 0]}


def cases(dtype: str) -> dict[str, tuple[list[Any], dict[str, Any]]]:
    """case -> (operands, attributes); a case is named `op` or `op:variant`."""
    top, bits = int(np.iinfo(dtype).max), np.iinfo(dtype).bits
    x = np.array([[0, 1, 2, 7], [top // 2, top // 2 + 1, top - 1, top]], dtype)
    y = np.array([[top, 0, 3, 2], [top // 2 + 1, 1, top, 0]], dtype)  # zero divisors
    counts = np.array([[0, 1, bits - 1, bits], [bits + 1, 2 * bits, 63, top]], dtype)
    square = np.array([[top, 1, 2], [3, top - 1, 5], [6, 7, top // 2 + 1]], dtype)
    idx = np.array([[3, 0], [1, 1]])
    rows = np.array([[1], [0], [1]])
    updates = np.array([[top, 1, 2, 3], [4, 5, 6, 7], [top, top, 0, 1]], dtype)
    return {
        **{op: ([x], {}) for op in ("abs", "negative", "sign", "square", "bitwise_invert",
                                    "relu")},
        **{op: ([x, y], {}) for op in (
            "add", "subtract", "floor_divide", "remainder", "maximum", "minimum", "less",
            "less_equal", "greater", "greater_equal")},
        **{op: ([x, counts], {}) for op in ("bitwise_left_shift", "bitwise_right_shift",
                                            "pow")},
        **{op: ([x], {"axis": None}) for op in ("sum", "prod", "min", "max", "argmax",
                                                "argmin")},
        **{f"{op}:axis": ([x], {"axis": [1]}) for op in ("sum", "prod", "min", "max")},
        "argmax:axis": ([x], {"axis": 1, "keepdims": True}),
        "cumsum": ([x], {"axis": 1}),
        "cumprod": ([x], {"axis": 1}),
        "matmul": ([x, y.T.copy()], {}),
        "tensordot": ([x, y], {"axes_x": [0, 1], "axes_y": [0, 1]}),
        "vecdot": ([x, y], {"axis": -1}),
        "einsum": ([[x, y]], {"equation": "ij,ij->i"}),
        "tril": ([square], {"k": 0}),
        "triu": ([square], {"k": -1}),
        "flip": ([x], {"axis": [1]}),
        "take_along_axis": ([x, idx], {"axis": 1}),
        "scatter_nd": ([np.concatenate([x, x]), rows, updates], {}),
        "scatter_add": ([np.concatenate([x, x]), rows, updates], {}),  # repeated row: wraps
        "top_k": ([x[:, ::-1].copy()], {"k": 3}),
        "top_k:smallest": ([x], {"k": 2, "axis": 0, "largest": False}),
        "top_k:ties": ([np.array([[5, 5, 5, 1], [top, 1, top, top]], dtype)], {"k": 2}),
        "max_pool": ([x.reshape(1, 1, 2, 4)], POOL),
        "arange": ([], {"start": top - 5.0, "stop": top + 1.0, "dtype": dtype}),
        "arange:down": ([], {"start": float(top), "stop": 0.0, "step": -(top // 3.0),
                             "dtype": dtype}),
        # native ops with an attribute their fast path cannot take
        "eye": ([], {"n_rows": 3, "n_cols": 4, "dtype": dtype}),
        "slice": ([x], {"start": [1, 3], "stop": [-(2**63), -(2**63)], "step": [-1, -2]}),
        "pad": ([x[0]], {"pad_width": [2, 3], "mode": "edge"}),
        "pad:reflect": ([x[1]], {"pad_width": [3, 1], "mode": "reflect"}),
        "clip": ([x], {"min": 1.0, "max": top - 1.5}),
    }


def one_op(name: str, operands: list[Any], attrs: dict[str, Any]
           ) -> tuple[Module, list[np.ndarray]]:
    """A program of the op alone, its array operands as inputs."""
    block, inputs = Block(), []

    def arg(a: np.ndarray) -> Any:
        inputs.append(a)
        return block.insert_arg(TensorSpec.of(a).to_xdsl(), len(block.args))
    args = [[arg(a) for a in o] if isinstance(o, list) else arg(o) for o in operands]
    op = OP_CLASSES[name].build(*args, **attrs)
    block.add_op(op)
    block.add_op(func.ReturnOp(*op.results))
    fn = func.FuncOp("main", ([a.type for a in block.args], [r.type for r in op.results]),
                     Region(block))
    return Module(ModuleOp([fn]), returns_sequence=True), inputs


def run(module: Module, inputs: list[np.ndarray], target: str) -> list[np.ndarray]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's division by zero
        out = ivy_ir.lower(module, target)(*inputs)
    return [np.asarray(o) for o in out]


def check(got: list[np.ndarray], want: list[np.ndarray], what: str) -> None:
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype, f"{what}: dtype {g.dtype} != {w.dtype}"
        np.testing.assert_array_equal(g, w, err_msg=what)


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_case_equals_numpy(dtype: str) -> None:
    """Each op on the range's ends: wrapping sums, negations and products, shifts by the
    width and past it, division by zero, unsigned order above 2**(bits-1)."""
    failures = []
    for case, (operands, attrs) in cases(dtype).items():
        name = case.partition(":")[0]
        module, inputs = one_op(name, operands, attrs)
        want = run(module, inputs, "numpy")
        try:
            got = run(module, inputs, "torch")
            if name == "top_k":  # indices at ties are torch's choice: check what they pick
                axis = attrs.get("axis", -1)
                assert got[1].dtype == want[1].dtype, f"index dtype {got[1].dtype}"
                assert (np.diff(np.sort(got[1], axis), axis=axis) > 0).all(), "repeated index"
                got[1], want[1] = np.take_along_axis(inputs[0], got[1], axis), want[0]
            check(got, want, case)
        except Exception as exc:  # collect all, so one run names every failing case
            failures.append(f"{case}: {' '.join(str(exc).split())[:300]}")
    assert not failures, "\n".join(failures)


def test_native_ops_keep_the_fast_path() -> None:
    """Ops torch runs in uint32 itself are emitted without casts (a slice by positive
    steps stays a view); the others cast up and back, and do not run in place
    (`Tensor.add_` has no uint32 kernel either)."""
    x = np.array([1, 2**32 - 1], np.uint32)
    native = ivy_ir.lower(ivy_ir.trace(lambda a: F.reshape(F.multiply(a, a), shape=[2, 1]),
                                       args=(x,)), "torch")
    assert "int64" not in native.source
    module, _ = one_op("slice", [x], {"start": [1], "stop": [2], "step": [1]})
    assert "int64" not in ivy_ir.lower(module, "torch").source
    widened = ivy_ir.lower(ivy_ir.trace(lambda a: F.add(F.add(a, a), a), args=(x,)), "torch")
    assert widened.source.count(".to(torch.int64)") >= 2
    assert "add_(" not in widened.source
    np.testing.assert_array_equal(widened(x).numpy(), x * np.uint32(3))


def test_a_threefry_round_wraps_as_numpy() -> None:
    """A Threefry-2x32 round (add, rotate, xor), fused by the torch lowering into one
    expression, on words near 2**32: JAX's generator runs so on torch."""
    def round_(a, b):
        for r in (13, 15, 26, 6):
            a = F.add(a, b)
            b = F.bitwise_xor(F.bitwise_or(F.bitwise_left_shift(b, np.uint32(r)),
                                           F.bitwise_right_shift(b, np.uint32(32 - r))), a)
        return a, b
    rng = np.random.default_rng(0)
    a, b = (rng.integers(2**32 - 2**20, 2**32, 64, dtype=np.uint32) for _ in range(2))
    module = ivy_ir.trace(round_, args=(a, b), source="ivy")
    check(run(module, [a, b], "torch"), run(module, [a, b], "numpy"), "threefry round")


def test_unsigned_tensors_in_and_out() -> None:
    """The compiled call takes torch.uint32 tensors and NumPy uint32 arrays, returns
    torch.uint32, and retraces for uint16 input."""
    x = np.array([2**32 - 1, 5, 2**31], np.uint32)
    c = ivy_ir.compile(lambda a: F.subtract(a, F.add(a, a)), "torch", args=(x,))
    want = np.negative(x)
    for given in (x, torch.from_numpy(x)):
        out = c(given)
        assert out.dtype == torch.uint32
        np.testing.assert_array_equal(out.numpy(), want)
    small = np.array([65535, 1], np.uint16)
    out = c(torch.from_numpy(small))
    assert out.dtype == torch.uint16
    np.testing.assert_array_equal(out.numpy(), np.negative(small))


def test_the_native_table_names_registry_ops() -> None:
    widening = get_target("torch").widening
    assert widening is not None and set(widening.native) <= set(ivy_ir.list_ops())
