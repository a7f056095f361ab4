"""uint64 on the torch target. torch 2.13 has the dtype but almost no kernels for it, and
no wider dtype to compute in, so its ops run on the same bits read as int64
(`Reinterpreting` in `lowerings/target.py`, the table in `lowerings/torch_semantics.py`):
orders on sign-flipped keys, quotients, right shifts and powers through the kernels of
`lowerings/torch_unsigned_kernels.py`. Each op runs alone and must equal the NumPy
target exactly on values above 2**63 and where arithmetic wraps.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch
from test_torch_unsigned import cases, check, one_op, run

import ivy_ir
from ivy_ir.core.tracer import OPS as F

TOP = 2**64 - 1
HALF = 2**63
# every pair of these: 0, 1, the ends of each half, and values around 2**32 and 2**63
EDGES = np.array([0, 1, 2, 3, 7, 2**32 - 1, 2**32, 2**32 + 1, HALF - 2, HALF - 1, HALF,
                  HALF + 1, HALF + 3, TOP - 2, TOP - 1, TOP, 12345678901234567891],
                 np.uint64)
X, Y = (a.ravel().copy() for a in np.meshgrid(EDGES, EDGES))


def uint64_cases() -> dict[str, tuple[list[Any], dict[str, Any]]]:
    """The uint16/uint32 sweep's cases (tests/test_torch_unsigned.py) in uint64; arange
    below 2**63 (its float bounds near 2**64 have no exact uint64 value)."""
    return {**{k: v for k, v in cases("uint64").items() if not k.startswith("arange")},
            "arange": ([], {"start": 2.0**53, "stop": 2.0**62, "step": 2.0**60,
                            "dtype": "uint64"})}


@pytest.mark.parametrize("case", sorted(uint64_cases()))
def test_each_case_equals_numpy(case: str) -> None:
    name = case.partition(":")[0]
    operands, attrs = uint64_cases()[case]
    module, inputs = one_op(name, operands, attrs)
    want, got = run(module, inputs, "numpy"), run(module, inputs, "torch")
    if name == "top_k":  # indices at ties are torch's choice: check the values they pick
        axis = attrs.get("axis", -1)
        assert got[1].dtype == want[1].dtype
        got[1], want[1] = np.take_along_axis(inputs[0], got[1], axis), want[0]
    check(got, want, case)


@pytest.mark.parametrize("name", [
    "add", "subtract", "multiply", "floor_divide", "remainder", "pow", "maximum", "minimum",
    "less", "less_equal", "greater", "greater_equal", "equal", "bitwise_left_shift",
    "bitwise_right_shift", "bitwise_xor"])
def test_binary_ops_on_every_pair_of_edges(name: str) -> None:
    """Every pair of edge values: divisors of 2**63 and more, zero divisors (0, as NumPy),
    quotients whose halved estimate is one short, shift counts past 63, exponents of
    2**63 and more."""
    module, inputs = one_op(name, [X, Y], {})
    check(run(module, inputs, "torch"), run(module, inputs, "numpy"), name)


def test_random_quotients_equal_numpy() -> None:
    """Quotients and remainders of random 64-bit words by divisors of every size."""
    rng = np.random.default_rng(0)
    x = rng.integers(0, 2**64, 4096, dtype=np.uint64, endpoint=False)
    y = x >> rng.integers(0, 64, 4096).astype(np.uint64) | np.uint64(1)
    for name in ("floor_divide", "remainder"):
        module, inputs = one_op(name, [x, y[::-1].copy()], {})
        check(run(module, inputs, "torch"), run(module, inputs, "numpy"), name)


@pytest.mark.parametrize("name", ["abs", "negative", "sign", "square", "bitwise_invert",
                                  "relu"])
def test_unary_ops_on_edges(name: str) -> None:
    module, inputs = one_op(name, [EDGES], {})
    check(run(module, inputs, "torch"), run(module, inputs, "numpy"), name)


def test_reinterprets_the_bits() -> None:
    """uint64 tensors in and out; the program views their bits (no copy, no conversion)
    and a comparison flips the sign bits rather than widening."""
    x = np.array([TOP, 5, HALF], np.uint64)
    c = ivy_ir.compile(lambda a: F.maximum(F.add(a, a), a), "torch", args=(x,))
    assert ".to(torch.int64)" not in c.source and ".view(torch.int64)" in c.source
    out = c(torch.from_numpy(x.view(np.int64)).view(torch.uint64))
    assert out.dtype == torch.uint64
    np.testing.assert_array_equal(out.numpy(), np.maximum(x + x, x))
