"""Shared pieces of the op reference table: the `Case` record and input strategies.

Each case draws valid operands and attributes for one registry op from a hypothesis
`DataObject` and computes the expected results independently, with NumPy (in float64
where precision matters) or torch, never through our lowering.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

# the dtypes the references draw: the ones every framework runs with one semantics. The
# unsigned and complex dtypes of each op's class (uint16/32/64, complex64/128) are swept
# against NumPy by tests/dtype_sweep.py instead, where the frameworks' kernels differ
FLOAT = ["float32", "float64"]
INT = ["int32", "int64"]
NUM = FLOAT + INT
ANY = NUM + ["bool"]
INTBOOL = INT + ["bool"]

# name -> Case; filled by the op_refs_* modules
CASES: dict[str, Case] = {}


@dataclass
class Case:
    """draw(d) -> (operands, attrs); ref(*operands, **attrs) -> expected result(s).

    `check(operands, attrs, outs, tol)` replaces the value comparison for results that
    are only defined up to sign, order of ties, etc. `kind="random"` marks random ops.
    `tol` maps a dtype name to (rtol, atol) and overrides the module-wide table.
    """

    draw: Callable[[Any], tuple[list[Any], dict[str, Any]]]
    ref: Callable[..., Any] | None = None
    check: Callable[..., None] | None = None
    tol: dict[str, tuple[float, float]] | None = None
    kind: str = "plain"


def case(name: str, draw: Callable[..., Any], ref: Callable[..., Any] | None = None,
         **kw: Any) -> None:
    assert name not in CASES, name
    CASES[name] = Case(draw, ref, **kw)


def pick(d: Any, choices: list[Any]) -> Any:
    return d.draw(st.sampled_from(choices))


def integer(d: Any, lo: int, hi: int) -> int:
    return d.draw(st.integers(lo, hi))


def boolean(d: Any) -> bool:
    return d.draw(st.booleans())


def shape(d: Any, min_dims: int = 0, max_dims: int = 3, min_side: int = 0,
          max_side: int = 4) -> tuple[int, ...]:
    return d.draw(hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side,
                                   max_side=max_side))


def bshapes(d: Any, n: int = 2, min_dims: int = 0, max_dims: int = 3, min_side: int = 0,
            max_side: int = 4) -> tuple[tuple[int, ...], ...]:
    """n independently drawn, mutually broadcast-compatible shapes."""
    return d.draw(hnp.mutually_broadcastable_shapes(
        num_shapes=n, min_dims=min_dims, max_dims=max_dims, min_side=min_side,
        max_side=max_side)).input_shapes


def arr(d: Any, dtype: str, shp: tuple[int, ...], lo: float = -10, hi: float = 10,
        integral: bool = False, special: bool = False) -> np.ndarray:
    """An array of `dtype`; floats in [lo, hi] (integer-valued with `integral`)."""
    if dtype == "bool":
        return d.draw(hnp.arrays(np.bool_, shp, elements=st.booleans()))
    if dtype.startswith("int") or integral:
        a = d.draw(hnp.arrays(np.int64, shp, elements=st.integers(math.ceil(lo), math.floor(hi))))
        return a.astype(dtype)
    if special:
        el = st.floats(allow_nan=True, allow_infinity=True, width=32)
    else:
        el = st.floats(lo, hi, allow_nan=False, allow_infinity=False)
    return d.draw(hnp.arrays(np.float64, shp, elements=el)).astype(dtype)


def axes_subset(d: Any, rank: int, allow_none: bool = True) -> list[int] | None:
    if allow_none and boolean(d):
        return None
    chosen = d.draw(st.lists(st.integers(0, max(rank - 1, 0)), unique=True, max_size=rank)) \
        if rank else []
    return [a - rank if boolean(d) else a for a in chosen]


def f64(x: Any) -> np.ndarray:
    return np.asarray(x, dtype=np.float64)


def like(v: Any, x: np.ndarray) -> np.ndarray:
    """A float64 reference result cast back to the dtype of `x`."""
    return np.asarray(v).astype(x.dtype)


def well_conditioned(d: Any, dtype: str, batch: tuple[int, ...], n: int) -> np.ndarray:
    a = arr(d, "float64", batch + (n, n), -1, 1)
    return (a + np.eye(n) * (n + 2)).astype(dtype)


def spd(d: Any, dtype: str, batch: tuple[int, ...], n: int) -> np.ndarray:
    a = arr(d, "float64", batch + (n, n), -1, 1)
    return (a @ np.swapaxes(a, -1, -2) + np.eye(n) * n).astype(dtype)


def symmetric(d: Any, dtype: str, batch: tuple[int, ...], n: int) -> np.ndarray:
    a = arr(d, "float64", batch + (n, n), -3, 3)
    return ((a + np.swapaxes(a, -1, -2)) / 2).astype(dtype)
