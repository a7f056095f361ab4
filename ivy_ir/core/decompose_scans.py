"""Decompositions of the running reductions that not every framework has a kernel for:
`cummax`, `cummin` (NumPy's ufunc `accumulate`, `lax.cummax`, `torch.cummax`; TF and
ONNX have none) and `logcumsumexp` (ONNX has none).

Each is the doubling scan of Hillis and Steele: after step s every element holds the
fold of the 2^s elements up to it, so an axis of n takes ceil(log2 n) elementwise
steps, each combining the running result with itself shifted along the axis. max and
min are idempotent: the first elements are combined with themselves, so no identity
value is needed (an integer dtype's largest one is not exact as the float a `full`
takes). NaN propagates as in `maximum` and `minimum`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..dialect.dtypes import HALF
from .tracer import OPS as F


def _along(x: Any, axis: int, start: int, stop: int) -> Any:
    rank = x.ndim
    return F.slice(x, start=[start if d == axis else 0 for d in range(rank)],
                   stop=[stop if d == axis else x.shape[d] for d in range(rank)],
                   step=[1] * rank)


def _doubling(x: Any, axis: int, combine: Callable[[Any, Any], Any], head: Any = None) -> Any:
    """The running fold of x along `axis` by the associative `combine`; `head(shift)`
    fills the first `shift` places of the shifted operand (default: those places of
    the running result itself, for an idempotent `combine`)."""
    n = x.shape[axis]
    if not isinstance(n, int):
        raise NotImplementedError("a running reduction along a dynamic axis")
    y, shift = x, 1
    while shift < n:
        first = _along(y, axis, 0, shift) if head is None else head(shift)
        y = combine(y, F.concat([first, _along(y, axis, 0, n - shift)], axis=axis))
        shift *= 2
    return y


def cummax(x: Any, axis: int) -> Any:
    return _doubling(x, axis, F.maximum)


def cummin(x: Any, axis: int) -> Any:
    return _doubling(x, axis, F.minimum)


def logaddexp(x1: Any, x2: Any) -> Any:
    """log(exp(x1) + exp(x2)) = m + log1p(exp(-|x1 - x2|)), m the larger; an infinite m
    is the answer itself (|x1 - x2| is NaN there when both are). The facade's traced
    `ivy.logaddexp` too (the standard's parameter names)."""
    m = F.maximum(x1, x2)
    return F.where(F.isinf(m), m, F.add(m, F.log1p(F.exp(F.negative(F.abs(
        F.subtract(x1, x2)))))))


def logcumsumexp(x: Any, axis: int) -> Any:
    if x.dtype in HALF:  # computed in float32, rounded once
        return F.astype(logcumsumexp(F.astype(x, dtype="float32"), axis), dtype=x.dtype)

    def empty(shift: int) -> Any:
        return F.full_like(_along(x, axis, 0, shift), fill_value=float("-inf"))
    return _doubling(x, axis, logaddexp, empty)


SCANS = {"cummax": cummax, "cummin": cummin, "logcumsumexp": logcumsumexp}
"""These decompositions by op (`decompose.py` registers them)."""
