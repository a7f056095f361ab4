"""Creation kernels of the torch spellings (`spellings_torch.py`): the facade's default
dtypes where torch would take its own (float32 from Python floats), empty ranges where
torch refuses a step pointing away, NumPy-style `endpoint`; the same rules as in
`spellings_torch_kernels.py`, whose helpers they share."""

from __future__ import annotations

import builtins
from typing import Any

from .spellings_torch_kernels import Tensor, lacks, pair, scalar_dtype, torch


def _python_kind(obj: Any, depth: int = 0) -> int:
    """0 bool, 1 int, 2 float, 3 complex: the widest kind of Python scalar in a
    (nested) sequence; -1 when it holds anything else (torch infers those)."""
    if isinstance(obj, bool):
        return 0
    if isinstance(obj, int):
        return 1
    if isinstance(obj, float):
        return 2
    if isinstance(obj, complex):
        return 3
    if isinstance(obj, (list, tuple)) and depth < 64:
        kinds = [_python_kind(i, depth + 1) for i in obj]
        return -1 if -1 in kinds else builtins.max(kinds, default=2)
    return -1


_KIND_DTYPE = ("bool", "int64", "float64", "complex128")


def asarray(obj: Any, dtype: Any, device: Any, copy: Any) -> Tensor:
    """Python scalars and sequences take the facade's default dtypes (torch's own
    default float is float32); arrays and buffers keep theirs."""
    if dtype is None and not isinstance(obj, torch.Tensor):
        kind = _python_kind(obj)
        if kind >= 0:
            dtype = getattr(torch, _KIND_DTYPE[kind])
            if kind == 1:
                _check_int64(obj)
    try:
        return torch.asarray(obj, dtype=dtype, device=device, copy=copy)
    except TypeError:
        if not isinstance(obj, (list, tuple)):
            raise
    # torch reads no uint64 0-d tensors inside sequences: their Python values then
    return torch.asarray(_items(obj), dtype=dtype, device=device, copy=copy)


def _items(obj: Any) -> Any:
    if isinstance(obj, (list, tuple)):
        return [_items(i) for i in obj]
    return obj.item() if isinstance(obj, torch.Tensor) else obj


def _check_int64(obj: Any) -> None:
    if isinstance(obj, (list, tuple)):
        for i in obj:
            _check_int64(i)
    elif not -2**63 <= obj < 2**63:
        raise OverflowError(f"{obj} does not fit the default integer dtype (int64)")


def full(shape: Any, fill_value: Any, dtype: Any, device: Any) -> Tensor:
    shape = (shape,) if isinstance(shape, int) else shape
    if dtype is None:
        dtype = scalar_dtype(fill_value)
    return torch.full(shape, fill_value, dtype=dtype, device=device)


def arange(start: Any, stop: Any, step: Any, dtype: Any, device: Any) -> Tensor:
    """An empty result where the range is (torch refuses a step pointing away)."""
    if stop is None:
        start, stop = 0, start
    if dtype is None:
        ints = all(isinstance(v, int) for v in (start, stop, step))
        dtype = torch.int64 if ints else torch.float64
    if (stop - start) * step <= 0:
        return torch.empty(0, dtype=dtype, device=device)
    if lacks(dtype):
        return torch.arange(start, stop, step, dtype=torch.int64, device=device).to(dtype)
    return torch.arange(start, stop, step, dtype=dtype, device=device)


def eye(n_rows: int, n_cols: Any, k: int, dtype: Any, device: Any) -> Tensor:
    n_cols = n_rows if n_cols is None else n_cols
    dtype = dtype or torch.float64
    if k >= n_cols or -k >= n_rows:  # no diagonal in range (k may pass int64's)
        return torch.zeros(n_rows, n_cols, dtype=dtype, device=device)
    if k == 0 and not lacks(dtype):
        return torch.eye(n_rows, n_cols, dtype=dtype, device=device)
    rows = torch.arange(n_rows, device=device)[:, None]
    return (torch.arange(n_cols, device=device) - rows == k).to(dtype)


def linspace(start: Any, stop: Any, num: int, dtype: Any, device: Any,
             endpoint: bool) -> Tensor:
    """Computed in double precision, then cast; `endpoint=False` drops the last of
    num + 1 points (torch always includes `stop`)."""
    if isinstance(start, torch.Tensor) or isinstance(stop, torch.Tensor):
        return _linspace_arrays(start, stop, num, dtype, device, endpoint)
    cplx = isinstance(start, complex) or isinstance(stop, complex) or (
        dtype is not None and dtype.is_complex)
    work = torch.complex128 if cplx else torch.float64
    out = torch.linspace(start, stop, num if endpoint else num + 1, dtype=work,
                         device=device)
    return (out if endpoint else out[:-1]).to(dtype or work)


def _linspace_arrays(start: Any, stop: Any, num: int, dtype: Any, device: Any,
                     endpoint: bool) -> Tensor:
    """Array ends (the Ivy papers' use, as NumPy's `axis=-1`): the points of each pair
    of elements along a new last axis."""
    lo, hi = pair(start, stop)
    work = lo.dtype if lo.is_floating_point() or lo.is_complex() else torch.float64
    lo, hi = lo.to(work), hi.to(work)
    steps = torch.arange(num, dtype=work, device=device or lo.device)
    div = num - 1 if endpoint else num
    out = lo[..., None] + (hi - lo)[..., None] * (steps / div if div > 0 else steps * 0)
    if endpoint and num > 1:
        out[..., -1] = hi
    return out.to(dtype or work)


def from_dlpack(x: Any, device: Any, copy: Any) -> Tensor:
    out = torch.from_dlpack(x)
    if device is not None:
        out = out.to(device)
    return out.clone() if copy else out


def one_hot(indices: Tensor, depth: int, dtype: Any, axis: int) -> Tensor:
    """Out-of-range indices give rows of zeros (as NumPy's comparison does, where
    `F.one_hot` raises); the new axis is last unless asked elsewhere."""
    out = (indices.unsqueeze(-1) == torch.arange(depth, device=indices.device)).to(dtype)
    return out if axis == -1 else torch.movedim(out, -1, axis)

