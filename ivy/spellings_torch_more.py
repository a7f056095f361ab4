"""More kernels of the torch spellings (`spellings_torch.py`): reductions and scans,
searching and sets, manipulation, linear algebra; the same rules as in
`spellings_torch_kernels.py`, whose helpers they share."""

from __future__ import annotations

from typing import Any

from .spellings_torch_kernels import (
    Tensor,
    UniqueAll,
    UniqueCounts,
    UniqueInverse,
    _compute_dtype,
    accumulation_dtype,
    lacks,
    numpy_fallback,
    pair,
    promote,
    torch,
)

# ---- reductions and scans -------------------------------------------------------------

def _axes(x: Tensor, axis: Any, keepdims: bool) -> tuple[Tensor, Any, bool]:
    """Reducing no axes reduces a new unit axis (torch reads `dim=()` as all)."""
    if axis == () or axis == []:
        return x.unsqueeze(-1), -1, False
    return x, axis, keepdims


def reduce(name: str, fn: Any, x: Tensor, axis: Any, keepdims: bool,
           **kwargs: Any) -> Tensor:
    """`fn(x, dim=axis, keepdim=keepdims)`: max, min, mean, var, std, argmax, argmin."""
    if lacks(x.dtype):
        return numpy_fallback(name, x, axis=axis, keepdims=keepdims, **kwargs)
    x, axis, keepdims = _axes(x, axis, keepdims)
    return fn(x, dim=axis, keepdim=keepdims, **kwargs)


def truth(fn: Any, x: Tensor, axis: Any, keepdims: bool) -> Tensor:
    """`all`/`any` always give bool (torch gives uint8 for uint8)."""
    x, axis, keepdims = _axes(x if x.dtype is torch.bool else x != 0, axis, keepdims)
    return fn(x, dim=axis, keepdim=keepdims)


def count_nonzero(x: Tensor, axis: Any, keepdims: bool) -> Tensor:
    x, axis, keepdims = _axes(x != 0, axis, keepdims)
    return torch.sum(x, dim=axis, keepdim=keepdims, dtype=torch.int64)


def _work(x: Tensor, dtype: Any) -> tuple[Tensor, Any, Any]:
    """`x` in the dtype an accumulation computes in, that dtype, and the result's."""
    out_dtype = accumulation_dtype(x.dtype, dtype)
    work = _compute_dtype(out_dtype)
    return (x if x.dtype is work else x.to(work)), work, out_dtype


def sum_(x: Tensor, axis: Any, dtype: Any, keepdims: bool) -> Tensor:
    x, work, out_dtype = _work(x, dtype)
    x, axis, keepdims = _axes(x, axis, keepdims)
    out = torch.sum(x, dim=axis, keepdim=keepdims, dtype=work)
    return out if out.dtype is out_dtype else out.to(out_dtype)


def prod(x: Tensor, axis: Any, dtype: Any, keepdims: bool) -> Tensor:
    """torch.prod reduces one dim (or all) at a time."""
    x, work, out_dtype = _work(x, dtype)
    x, axis, keepdims = _axes(x, axis, keepdims)
    if axis is None:
        out = torch.prod(x, dtype=work)
        if keepdims:
            out = out.reshape((1,) * x.ndim)
    else:
        out = x
        for a in sorted({a % x.ndim for a in ((axis,) if isinstance(axis, int) else axis)},
                        reverse=True):
            out = torch.prod(out, dim=a, keepdim=keepdims, dtype=work)
    return out if out.dtype is out_dtype else out.to(out_dtype)


def cumulative(name: str, fn: Any, x: Tensor, axis: Any, dtype: Any,
               include_initial: bool) -> Tensor:
    """`cumulative_sum`/`_prod`: `axis` may be None for 1-d input; `include_initial`
    starts with the identity (0 or 1)."""
    if axis is None:
        if x.ndim != 1:
            raise ValueError(f"{name}: axis is required for {x.ndim}-d input")
        axis = 0
    x, work, out_dtype = _work(x, dtype)
    out = fn(x, dim=axis, dtype=work)
    if include_initial:
        shape = list(out.shape)
        shape[axis] = 1
        init = torch.full(shape, 0 if fn is torch.cumsum else 1, dtype=work,
                          device=out.device)
        out = torch.cat([init, out], dim=axis)
    return out if out.dtype is out_dtype else out.to(out_dtype)


def trace(x: Tensor, offset: int, dtype: Any) -> Tensor:
    x, work, out_dtype = _work(x, dtype)
    out = torch.diagonal(x, offset, -2, -1).sum(-1, dtype=work)
    return out if out.dtype is out_dtype else out.to(out_dtype)


# ---- searching, sets, manipulation ----------------------------------------------------

def _numpy_unique(x: Tensor) -> bool:
    """torch has no unique for complex numbers, nor for the dtypes it lacks."""
    return x.is_complex() or lacks(x.dtype)


def unique_values(x: Tensor) -> Tensor:
    return numpy_fallback("unique_values", x) if _numpy_unique(x) else torch.unique(x)


def unique_all(x: Tensor) -> UniqueAll:
    """torch gives no first-occurrence indices: the least flat index per value."""
    if _numpy_unique(x):
        return UniqueAll(*numpy_fallback("unique_all", x))
    values, inverse, counts = torch.unique(x, return_inverse=True, return_counts=True)
    flat = inverse.reshape(-1)
    first = torch.full((values.shape[0],), flat.shape[0], dtype=torch.int64,
                       device=x.device)
    first = first.scatter_reduce(0, flat, torch.arange(flat.shape[0], device=x.device),
                                 "amin")
    return UniqueAll(values, first, inverse.reshape(x.shape), counts)


def unique_counts(x: Tensor) -> UniqueCounts:
    if _numpy_unique(x):
        return UniqueCounts(*numpy_fallback("unique_counts", x))
    return UniqueCounts(*torch.unique(x, return_counts=True))


def unique_inverse(x: Tensor) -> UniqueInverse:
    if _numpy_unique(x):
        return UniqueInverse(*numpy_fallback("unique_inverse", x))
    values, inverse = torch.unique(x, return_inverse=True)
    return UniqueInverse(values, inverse.reshape(x.shape))


def searchsorted(x1: Tensor, x2: Any, side: str, sorter: Any) -> Tensor:
    a, b = pair(x1, x2)
    if lacks(a.dtype):
        return numpy_fallback("searchsorted", a, b, side=side, sorter=sorter)
    return torch.searchsorted(a, b, side=side, sorter=sorter)


def squeeze(x: Tensor, axis: Any) -> Tensor:
    """An axis of size other than 1 is an error (torch would leave it)."""
    for a in (axis,) if isinstance(axis, int) else axis:
        if x.shape[a] != 1:
            raise ValueError(f"squeeze: axis {a} has size {x.shape[a]}, not 1")
    return torch.squeeze(x, axis)


def diff(x: Tensor, axis: int, n: int, prepend: Any, append: Any) -> Tensor:
    if lacks(x.dtype):
        ends = {k: v for k, v in (("prepend", prepend), ("append", append)) if v is not None}
        return numpy_fallback("diff", x, axis=axis, n=n, **ends)
    return torch.diff(x, n=n, dim=axis, prepend=prepend, append=append)


def reshape(x: Tensor, shape: Any, copy: Any) -> Tensor:
    """`copy=True` always copies; `copy=False` never does (ValueError where it must)."""
    if copy:
        return torch.reshape(x, shape).clone()
    try:
        return x.view(shape)
    except RuntimeError as exc:
        raise ValueError(f"reshape: cannot reshape without a copy ({exc})") from None


def flip(x: Tensor, axis: Any) -> Tensor:
    dims = tuple(range(x.ndim)) if axis is None else (axis,) if isinstance(axis, int) \
        else axis
    if lacks(x.dtype):
        return numpy_fallback("flip", x, axis=axis)
    return torch.flip(x, dims)


def take(x: Tensor, indices: Tensor, axis: Any) -> Tensor:
    if axis is None:
        x, axis = x.reshape(-1), 0
    return x[(slice(None),) * (axis % x.ndim) + (indices,)]


def take_along_axis(x: Tensor, indices: Tensor, axis: int) -> Tensor:
    if indices.dtype is not torch.int64:
        indices = indices.long()
    if lacks(x.dtype):
        return numpy_fallback("take_along_axis", x, indices, axis=axis)
    return torch.take_along_dim(x, indices, dim=axis)


def repeat(x: Tensor, repeats: Any, axis: Any) -> Tensor:
    if lacks(x.dtype):
        return numpy_fallback("repeat", x, repeats, axis=axis)
    if isinstance(repeats, torch.Tensor) and repeats.dtype is not torch.int64:
        repeats = repeats.long()
    return torch.repeat_interleave(x, repeats, dim=axis)


def _promoted(arrays: list[Tensor]) -> list[Tensor]:
    """`arrays` in the standard's promoted dtype of them all, folded in their order."""
    dtype = arrays[0].dtype
    for a in arrays[1:]:
        if a.dtype is not dtype:
            dtype = promote(dtype, a.dtype)
    return [a if a.dtype is dtype else a.to(dtype) for a in arrays]


def concat(arrays: Any, axis: Any) -> Tensor:
    arrays = list(arrays)
    dtypes = {a.dtype for a in arrays}  # one, mostly: then nothing to promote
    if any(map(lacks, dtypes)):
        return numpy_fallback("concat", arrays, axis=axis)
    if len(dtypes) > 1:
        arrays = _promoted(arrays)
    if axis is None:
        return torch.cat([a.reshape(-1) for a in arrays])
    return torch.cat(arrays, dim=axis)


def stack(arrays: Any, axis: int) -> Tensor:
    arrays = list(arrays)
    if len({a.dtype for a in arrays}) > 1:
        arrays = _promoted(arrays)
    return torch.stack(arrays, dim=axis)


# ---- linear algebra -------------------------------------------------------------------

def solve(x1: Tensor, x2: Tensor) -> Tensor:
    """`x2` is one vector only when 1-d; torch also reads a stack of M vectors as such
    when it has one dim fewer than `x1`."""
    a, b = pair(x1, x2)
    if b.ndim == 1:  # one column for every matrix, which torch cannot misread
        return torch.linalg.solve(a, b.unsqueeze(-1).expand(*a.shape[:-1], 1)).squeeze(-1)
    if b.ndim == a.ndim - 1:
        b = b.unsqueeze(0)
    return torch.linalg.solve(a, b)


def vecdot(x1: Tensor, x2: Tensor, axis: int) -> Tensor:
    """conj(x1) . x2 over `axis`; torch's vecdot takes no integers."""
    a, b = pair(x1, x2)
    if a.shape[axis] != b.shape[axis]:
        raise ValueError(f"vecdot: axis {axis} has sizes {a.shape[axis]} and "
                         f"{b.shape[axis]}")
    if a.is_floating_point() or a.is_complex():
        return torch.linalg.vecdot(a, b, dim=axis)
    if lacks(a.dtype):
        return numpy_fallback("vecdot", a, b, axis=axis)
    a, b = torch.broadcast_tensors(a, b)
    return torch.sum(a * b, dim=axis, dtype=a.dtype)


def cross(x1: Tensor, x2: Tensor, axis: int) -> Tensor:
    """The axes other than `axis` broadcast (torch wants equal ranks)."""
    a, b = torch.broadcast_tensors(*pair(x1, x2))
    if lacks(a.dtype):
        return numpy_fallback("linalg.cross", a, b, axis=axis)
    return torch.linalg.cross(a, b, dim=axis)


def tensordot(x1: Tensor, x2: Tensor, axes: Any) -> Tensor:
    a, b = pair(x1, x2)
    if lacks(a.dtype):
        return numpy_fallback("tensordot", a, b, axes=axes)
    if not isinstance(axes, int):
        axes = [list(axes[0]), list(axes[1])]
    return torch.tensordot(a, b, dims=axes)


def vector_norm(x: Tensor, axis: Any, keepdims: bool, ord: Any) -> Tensor:  # noqa: A002
    x, axis, keepdims = _axes(x, axis, keepdims)
    return torch.linalg.vector_norm(x, ord, dim=axis, keepdim=keepdims)
