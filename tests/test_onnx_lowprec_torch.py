"""float4_e2m1fn on torch, which has no one-value-per-byte float4 tensor: carried as a
uint8 tensor of ml_dtypes' byte (`lowerings/torch_storage.py`, the format shared with
TF's carried dtypes in `lowerings/storage.py`). Bit for bit against the NumPy target
(ml_dtypes): every code read into every kind, the TF tests' sweep of values written from
every kind (ties, subnormals, overflow, NaN, inf, -0.0), and the call boundary (ml_dtypes
arrays in, out, buffers and constants). The sweep and casts are the TF tests' own.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from test_onnx_lowprec_tf import (
    READ_INTO,
    WRITE_FROM,
    _bits,
    _cast,
    _every_code,
    _pairs,
    written_values,
)

import ivy_ir
from ivy_ir.dialect.dtypes import numpy_dtype
from lowerings.runtime import host_array
from lowerings.torch_storage import CARRIED

NAMES = tuple(sorted(CARRIED))


def _agree(src: str, dst: str, x: np.ndarray) -> None:
    """astype(x, dst) on torch equals the NumPy target's bit for bit, dtype included."""
    module = _cast(src, dst, len(x))
    want = ivy_ir.lower(module, target="numpy")(x)
    got = host_array(ivy_ir.lower(module, target="torch")(x))
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    bad = np.nonzero(_bits(got) != _bits(want))[0]
    assert not len(bad), f"{src} -> {dst} at {x[bad[:5]]}: {got[bad[:5]]}, want {want[bad[:5]]}"


@pytest.mark.parametrize(("name", "dst"), _pairs(NAMES, (*READ_INTO, "int4", "uint4")))
def test_every_code_reads(name: str, dst: str) -> None:
    _agree(name, dst, _every_code(name))


@pytest.mark.parametrize(("src", "name"), _pairs((*WRITE_FROM, "int4", "uint4", "int2"), NAMES))
def test_values_write(src: str, name: str) -> None:
    _agree(src, name, written_values(src))


def test_call_boundary_buffers_and_constants() -> None:
    """An ml_dtypes input, a buffer and an inline constant of float4 go in; float4
    results come out as ml_dtypes arrays, the input returned as it is included."""
    text = ("func.func @f(%x: tensor<4xf32>, %q: tensor<4xf4E2M1FN>, "
            "%p: tensor<8xf4E2M1FN> {ivy.buffer = \"w\"}) -> (tensor<4xf4E2M1FN>, "
            "tensor<4xf32>, tensor<4xf4E2M1FN>, tensor<8xf32>) {\n"
            "  %a = ivy.astype %x {dtype = f4E2M1FN} : (tensor<4xf32>) -> tensor<4xf4E2M1FN>\n"
            "  %b = ivy.astype %q {dtype = f32} : (tensor<4xf4E2M1FN>) -> tensor<4xf32>\n"
            "  %c = ivy.astype %p {dtype = f32} : (tensor<8xf4E2M1FN>) -> tensor<8xf32>\n"
            "  func.return %a, %b, %q, %c : tensor<4xf4E2M1FN>, tensor<4xf32>, "
            "tensor<4xf4E2M1FN>, tensor<8xf32>\n}\n")
    x = np.array([1.0, -0.0, 3e5, 0.1], np.float32)
    q = np.array([0, 1, 9, 15], np.uint8).view(numpy_dtype("float4_e2m1fn"))
    params = {"w": _every_code("float4_e2m1fn")[8:]}
    want = ivy_ir.lower(ivy_ir.parse(text), target="numpy", params=params)(x, q)
    got = ivy_ir.lower(ivy_ir.parse(text), target="torch", params=params)(x, q)
    for g, w in zip(got, want, strict=True):
        assert host_array(g).dtype == w.dtype
        np.testing.assert_array_equal(_bits(host_array(g)), _bits(w))


def test_constant_folded_into_the_program() -> None:
    """A float4 constant the program holds (hoisted as bytes) reads back exactly."""
    values = _every_code("float4_e2m1fn")
    module = ivy_ir.trace(lambda a: a, args=(values,))
    got: Any = ivy_ir.lower(module, target="torch")(values)
    np.testing.assert_array_equal(_bits(host_array(got)), _bits(values))
