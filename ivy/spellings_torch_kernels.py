"""Kernels the torch spellings call (`spellings_torch.py`): the standard's semantics
where one torch call does not give them.

Where torch and the standard part ways:
- default dtypes: torch creates float32 from Python floats; the facade's
  `default_dtypes()` are float64/int64/complex128, so creation infers those;
- promotion: torch lets a 0-d tensor of the same kind yield to the other operand
  (`float32[3] + float64[]` is float32) and takes no Python scalar first (`2 - x`);
  operands of different dtypes are promoted on the standard's lattice (`dtypes.py`)
  and Python scalars take the array's dtype, as the standard says;
- uint16/uint32/uint64: torch stores them but has almost no kernels for them, so
  functions on them run on the NumPy backend (CPU) and come back as tensors;
- accumulations (`sum`, `prod`, `cumulative_*`, `trace`) of unsigned integers give the
  default unsigned integer (uint64), which torch computes in int64 (same bits);
- reducing no axes (`axis=()`) reduces nothing, where torch reads `dim=()` as all.
"""

from __future__ import annotations

import builtins
import functools
import importlib
from collections import namedtuple
from typing import Any

import numpy as np

from .dtypes import NAMES, result_type_names


class _Lazy:
    """A module imported on its first attribute access (importing `ivy` loads no
    framework); each attribute read is then cached on the proxy."""

    def __init__(self, name: str):
        self.__dict__["_name"] = name

    def __getattr__(self, attr: str) -> Any:
        value = self.__dict__[attr] = getattr(importlib.import_module(self._name), attr)
        return value


torch: Any = _Lazy("torch")
Tensor = Any  # torch.Tensor, which annotations cannot name before torch is imported

_LACKING_NAMES = ("uint16", "uint32", "uint64")
"""Dtypes torch stores but (as of 2.x) has no arithmetic, comparison or reduction
kernels for: functions on them run on NumPy."""


class _Computed(dict):
    """Each dtype torch computes in, to itself; those it lacks, to None. Filled on
    first sight of each dtype, so `COMPUTED[a.dtype] is b.dtype` is one C lookup that
    says two tensors need neither promotion nor the NumPy fallback."""

    def __missing__(self, dtype: Any) -> Any:
        if not isinstance(dtype, torch.dtype):  # a tracer's, or another framework's
            raise TypeError(f"not a torch dtype: {dtype!r}")
        value = self[dtype] = None if str(dtype)[6:] in _LACKING_NAMES else dtype
        return value


COMPUTED = _Computed()


def lacks(dtype: Any) -> bool:
    return COMPUTED[dtype] is None


@functools.cache
def _names() -> dict[Any, str]:
    return {getattr(torch, n): n for n in NAMES if isinstance(getattr(torch, n, None),
                                                              torch.dtype)}


@functools.cache
def _by_name() -> dict[str, Any]:
    return {n: d for d, n in _names().items()}


_SCALARS = (bool, int, float, complex)
UniqueAll = namedtuple("UniqueAll", "values indices inverse_indices counts")
UniqueCounts = namedtuple("UniqueCounts", "values counts")
UniqueInverse = namedtuple("UniqueInverse", "values inverse_indices")


# ---- dtypes and promotion ------------------------------------------------------------

def scalar_dtype(value: Any) -> Any:
    """The standard's default dtype of a Python scalar."""
    if isinstance(value, bool):
        return torch.bool
    if isinstance(value, int):
        return torch.int64
    if isinstance(value, complex):
        return torch.complex128
    if isinstance(value, float):
        return torch.float64
    raise TypeError(f"expected a Python scalar, got {type(value).__name__}")


def promote(a: Any, b: Any) -> Any:
    """The standard's promotion of two dtypes (torch's where it defines none)."""
    try:
        return _by_name()[result_type_names(_names()[a], _names()[b])]
    except (TypeError, KeyError):
        return torch.promote_types(a, b)


def _fits(value: Any, dtype: Any) -> bool:
    """Whether the standard converts Python scalar `value` to an array's `dtype`."""
    if isinstance(value, bool):
        return dtype is torch.bool
    if isinstance(value, int):
        return dtype is not torch.bool
    if isinstance(value, float):
        return dtype.is_floating_point or dtype.is_complex
    return dtype.is_complex


def _with_scalar(t: Tensor, value: Any) -> tuple[Tensor, Tensor]:
    """`t` and Python scalar `value` as tensors of one dtype: `t`'s where the standard
    says so, else the one torch would give (mixed kinds are left to implementations)."""
    dtype = t.dtype if _fits(value, t.dtype) else torch.result_type(t, value)
    return t.to(dtype), torch.asarray(value, dtype=dtype, device=t.device)


def pair(x1: Any, x2: Any) -> tuple[Tensor, Tensor]:
    """Two operands (tensors or Python scalars) as tensors of their promoted dtype."""
    t1, t2 = isinstance(x1, torch.Tensor), isinstance(x2, torch.Tensor)
    if t1 and t2:
        if x1.dtype is x2.dtype:
            return x1, x2
        dtype = promote(x1.dtype, x2.dtype)
        return x1.to(dtype), x2.to(dtype)
    if t1 and isinstance(x2, _SCALARS):
        return _with_scalar(x1, x2)
    if t2 and isinstance(x1, _SCALARS):
        b, a = _with_scalar(x2, x1)
        return a, b
    raise TypeError(f"expected arrays or Python scalars, got {type(x1).__name__} and "
                    f"{type(x2).__name__}")


def binary(name: str, fn: Any, x1: Any, x2: Any) -> Tensor:
    """`fn` on promoted operands (the spellings' path for all but same-dtype tensors)."""
    a, b = pair(x1, x2)
    if lacks(a.dtype):
        return numpy_fallback(name, a, b)
    return fn(a, b)


def accumulation_dtype(x: Any, dtype: Any) -> Any:
    """`sum`/`prod`/`trace`'s result dtype: integers widen to the default (unsigned)
    integer, other dtypes stay."""
    if dtype is not None:
        return dtype
    if x is torch.bool or x.is_signed and not (x.is_floating_point or x.is_complex):
        return torch.int64
    if not x.is_signed:
        return torch.uint64
    return x


def _compute_dtype(dtype: Any) -> Any:
    return torch.int64 if lacks(dtype) else dtype


# ---- the NumPy fallback for the dtypes torch lacks ----------------------------------

def numpy_fallback(name: str, *args: Any, **kwargs: Any) -> Any:
    """NumPy's `name` (NumPy 2 follows the standard) on tensors of dtypes torch has no
    kernels for, computed on the CPU and returned on the operands' device."""
    device = next((a.device for a in _tensors(args)), None)
    fn = functools.reduce(getattr, name.split("."), np)
    out = fn(*[_to_numpy(a) for a in args], **{k: _to_numpy(v) for k, v in kwargs.items()})
    return _from_numpy(out, device)


def _tensors(values: Any) -> Any:
    for v in values:
        if isinstance(v, torch.Tensor):
            yield v
        elif isinstance(v, (list, tuple)):
            yield from _tensors(v)


def _to_numpy(v: Any) -> Any:
    if isinstance(v, torch.Tensor):
        return v.detach().cpu().resolve_conj().numpy()
    if isinstance(v, (list, tuple)):
        return type(v)(_to_numpy(i) for i in v)
    return v


def _from_numpy(v: Any, device: Any) -> Any:
    if isinstance(v, (np.ndarray, np.generic)):
        return torch.from_numpy(np.array(v)).to(device)
    if isinstance(v, tuple) and hasattr(v, "_fields"):
        return type(v)(*(_from_numpy(i, device) for i in v))
    if isinstance(v, (list, tuple)):
        return type(v)(_from_numpy(i, device) for i in v)
    return v


# ---- creation ------------------------------------------------------------------------

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
    return torch.asarray(obj, dtype=dtype, device=device, copy=copy)


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
    if k == 0:
        return torch.eye(n_rows, n_cols, dtype=dtype, device=device)
    rows = torch.arange(n_rows, device=device)[:, None]
    return (torch.arange(n_cols, device=device) - rows == k).to(dtype)


def linspace(start: Any, stop: Any, num: int, dtype: Any, device: Any,
             endpoint: bool) -> Tensor:
    """Computed in double precision, then cast; `endpoint=False` drops the last of
    num + 1 points (torch always includes `stop`)."""
    cplx = isinstance(start, complex) or isinstance(stop, complex) or (
        dtype is not None and dtype.is_complex)
    work = torch.complex128 if cplx else torch.float64
    out = torch.linspace(start, stop, num if endpoint else num + 1, dtype=work,
                         device=device)
    return (out if endpoint else out[:-1]).to(dtype or work)


def from_dlpack(x: Any, device: Any, copy: Any) -> Tensor:
    out = torch.from_dlpack(x)
    if device is not None:
        out = out.to(device)
    return out.clone() if copy else out


# ---- elementwise ---------------------------------------------------------------------

def floor_divide(a: Tensor, b: Tensor) -> Tensor:
    """Infinite operands follow the standard (`inf // 2` is inf, `1 // -inf` is -0)
    rather than Python's `//`, which torch copies."""
    out = torch.floor_divide(a, b)
    if a.is_floating_point():
        out = torch.where(torch.isinf(a) | torch.isinf(b), torch.floor(a / b), out)
    return out


def remainder(a: Tensor, b: Tensor) -> Tensor:
    """A zero result takes the divisor's sign (`-0 % 5` is +0, `0 % -5` is -0)."""
    out = torch.remainder(a, b)
    if a.is_floating_point():
        out = torch.where(out == 0, torch.copysign(out, b), out)
    return out


def expm1_complex(x: Tensor) -> Tensor:
    """Non-finite inputs as `exp(x) - 1`, whose special values (C99's) the standard
    gives; torch's complex expm1 makes them NaN."""
    return torch.where(torch.isfinite(x), torch.expm1(x), torch.exp(x) - 1)


def log1p_complex(x: Tensor) -> Tensor:
    """Non-finite inputs as `log(1 + x)`, as for `expm1_complex`."""
    return torch.where(torch.isfinite(x), torch.log1p(x), torch.log(1 + x))


def acos_complex(x: Tensor) -> Tensor:
    """acos(+-0 + 0j) is pi/2 - 0j (C99's `cacos`); torch gives +0j."""
    out = torch.acos(x)
    return torch.where(x == 0, torch.complex(out.real, -x.imag), out)


def nonzero(x: Tensor) -> tuple[Tensor, ...]:
    if x.ndim == 0:
        raise ValueError("nonzero: a 0-d array has no axes to index")
    return torch.nonzero(x, as_tuple=True)


def round_(x: Tensor) -> Tensor:
    if x.is_complex():
        return torch.complex(torch.round(x.real), torch.round(x.imag))
    return torch.round(x) if not lacks(x.dtype) else x.clone()


def clip(x: Tensor, lo: Any, hi: Any) -> Tensor:
    """The result keeps `x`'s dtype (torch would promote to a float bound's)."""
    if lo is None and hi is None:
        return x.clone()
    if lacks(x.dtype):
        return numpy_fallback("clip", x, lo, hi)
    lo, hi = (b.to(x.dtype) if isinstance(b, torch.Tensor) else b for b in (lo, hi))
    if isinstance(lo, torch.Tensor) != isinstance(hi, torch.Tensor) and None not in (lo, hi):
        lo, hi = (b if isinstance(b, torch.Tensor) else
                  torch.asarray(b, dtype=x.dtype, device=x.device) for b in (lo, hi))
    out = torch.clamp(x, lo, hi)
    return out if out.dtype is x.dtype else out.to(x.dtype)


def where(condition: Any, x1: Any, x2: Any) -> Tensor:
    a, b = pair(x1, x2)
    if lacks(a.dtype):
        return numpy_fallback("where", condition, a, b)
    return torch.where(condition, a, b)


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

def unique_all(x: Tensor) -> UniqueAll:
    """torch gives no first-occurrence indices: the least flat index per value."""
    values, inverse, counts = torch.unique(x, return_inverse=True, return_counts=True)
    flat = inverse.reshape(-1)
    first = torch.full((values.shape[0],), flat.shape[0], dtype=torch.int64,
                       device=x.device)
    first = first.scatter_reduce(0, flat, torch.arange(flat.shape[0], device=x.device),
                                 "amin")
    return UniqueAll(values, first, inverse.reshape(x.shape), counts)


def unique_counts(x: Tensor) -> UniqueCounts:
    return UniqueCounts(*torch.unique(x, return_counts=True))


def unique_inverse(x: Tensor) -> UniqueInverse:
    values, inverse = torch.unique(x, return_inverse=True)
    return UniqueInverse(values, inverse.reshape(x.shape))


def searchsorted(x1: Tensor, x2: Any, side: str, sorter: Any) -> Tensor:
    a, b = pair(x1, x2)
    if lacks(a.dtype):
        return numpy_fallback("searchsorted", a, b, side=side, sorter=sorter)
    return torch.searchsorted(a, b, side=side, sorter=sorter)


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
    if isinstance(repeats, torch.Tensor) and repeats.dtype is not torch.int64:
        repeats = repeats.long()
    return torch.repeat_interleave(x, repeats, dim=axis)


def concat(arrays: Any, axis: Any) -> Tensor:
    arrays = list(arrays)
    if any(lacks(a.dtype) for a in arrays):
        return numpy_fallback("concat", arrays, axis=axis)
    dtype = arrays[0].dtype
    for a in arrays[1:]:
        if a.dtype is not dtype:
            dtype = promote(dtype, a.dtype)
    arrays = [a if a.dtype is dtype else a.to(dtype) for a in arrays]
    if axis is None:
        return torch.cat([a.reshape(-1) for a in arrays])
    return torch.cat(arrays, dim=axis)


def stack(arrays: Any, axis: int) -> Tensor:
    arrays = list(arrays)
    dtype = arrays[0].dtype
    for a in arrays[1:]:
        if a.dtype is not dtype:
            dtype = promote(dtype, a.dtype)
    return torch.stack([a if a.dtype is dtype else a.to(dtype) for a in arrays], dim=axis)


# ---- linear algebra -------------------------------------------------------------------

def solve(x1: Tensor, x2: Tensor) -> Tensor:
    """`x2` is one vector only when 1-d; torch also reads a stack of M vectors as such
    when it has one dim fewer than `x1`."""
    a, b = pair(x1, x2)
    if b.ndim == 1:
        return torch.linalg.solve(a, b.unsqueeze(-1)).squeeze(-1)
    if b.ndim == a.ndim - 1:
        b = b.unsqueeze(0)
    return torch.linalg.solve(a, b)


def vecdot(x1: Tensor, x2: Tensor, axis: int) -> Tensor:
    """conj(x1) . x2 over `axis`; torch's vecdot takes no integers."""
    a, b = pair(x1, x2)
    if a.is_floating_point() or a.is_complex():
        return torch.linalg.vecdot(a, b, dim=axis)
    if lacks(a.dtype):
        return numpy_fallback("vecdot", a, b, axis=axis)
    a, b = torch.broadcast_tensors(a, b)
    return torch.sum(a * b, dim=axis, dtype=a.dtype)


def tensordot(x1: Tensor, x2: Tensor, axes: Any) -> Tensor:
    a, b = pair(x1, x2)
    if lacks(a.dtype):
        return numpy_fallback("tensordot", a, b, axes=axes)
    if not isinstance(axes, int):
        axes = [list(axes[0]), list(axes[1])]
    return torch.tensordot(a, b, dims=axes)


def matrix_norm(x: Tensor, keepdims: bool, ord: Any) -> Tensor:  # noqa: A002
    return torch.linalg.matrix_norm(x, ord=ord, keepdim=keepdims)


def vector_norm(x: Tensor, axis: Any, keepdims: bool, ord: Any) -> Tensor:  # noqa: A002
    x, axis, keepdims = _axes(x, axis, keepdims)
    return torch.linalg.vector_norm(x, ord, dim=axis, keepdim=keepdims)
