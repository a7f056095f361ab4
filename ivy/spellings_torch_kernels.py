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
  functions on them run on NumPy 2 (which follows the standard) on the CPU and come
  back as tensors on the operands' device;
- accumulations (`sum`, `prod`, `cumulative_*`, `trace`) of unsigned integers give the
  default unsigned integer (uint64), which torch computes in int64 (same bits);
- reducing no axes (`axis=()`) reduces nothing, where torch reads `dim=()` as all.
"""

from __future__ import annotations

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


class _AccumulatesAlike(dict):
    """Dtype -> whether torch's own `sum`/`prod` give the standard's result dtype: floats
    and complex keep theirs, bool and signed integers widen to int64 (the default
    integer); unsigned ones do not (the standard widens them to uint64). Filled on first
    sight of each dtype: one C lookup after that."""

    def __missing__(self, dtype: Any) -> bool:
        value = self[dtype] = bool(dtype.is_floating_point or dtype.is_complex
                                   or dtype.is_signed or dtype is torch.bool)
        return value


ACCUMULATES_ALIKE = _AccumulatesAlike()


def lacks(dtype: Any) -> bool:
    return COMPUTED[dtype] is None


def lacking(x: Any) -> bool:
    """Whether `x` is a tensor of a dtype torch has no kernels for."""
    return isinstance(x, torch.Tensor) and lacks(x.dtype)


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


@functools.cache
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


_TAKES_SCALAR = frozenset({
    "add", "subtract", "multiply", "divide", "equal", "not_equal", "less", "less_equal",
    "greater", "greater_equal", "pow", "bitwise_and", "bitwise_or", "bitwise_xor",
    "bitwise_left_shift", "bitwise_right_shift", "copysign"})
"""Functions whose torch call takes a Python scalar second and, where its kind fits the
tensor's dtype, keeps that dtype (as the standard asks) without making a tensor of it."""


_CLAMPS = {"maximum": "min", "minimum": "max"}
"""The bound a Python scalar gives `torch.clamp` in place of the tensor `torch.maximum` /
`torch.minimum` would need (the same values, NaN included, without a 0-d tensor)."""


class _Keeps(dict):
    """(Python scalar type, dtype) -> whether a scalar of that type keeps a tensor's
    dtype (`_fits`) and torch computes in it: one lookup per call after the first."""

    def __missing__(self, key: tuple[type, Any]) -> bool:
        kind, dtype = key
        value = self[key] = _fits(kind(), dtype) and not lacks(dtype)
        return value


_KEEPS = _Keeps()


def _scalar_fits(t: Any, value: Any) -> bool:
    """Whether `t` is a tensor whose dtype Python scalar `value` keeps, with kernels."""
    return (type(value) in _SCALARS and isinstance(t, torch.Tensor)
            and _KEEPS[type(value), t.dtype])


def binary(name: str, fn: Any, x1: Any, x2: Any) -> Tensor:
    """`fn` on promoted operands (the spellings' path for all but same-dtype tensors)."""
    if name in _TAKES_SCALAR and _scalar_fits(x1, x2):
        return fn(x1, x2)
    bound = _CLAMPS.get(name)
    if bound is not None:
        if _scalar_fits(x1, x2) and x1.dtype is not torch.bool:
            return torch.clamp(x1, **{bound: x2})
        if _scalar_fits(x2, x1) and x2.dtype is not torch.bool:
            return torch.clamp(x2, **{bound: x1})
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


def lacking_fallback(name: str, *args: Any) -> Any:
    """`numpy_fallback` for a call that failed on a tensor of a dtype torch has no kernels
    for; NotImplemented where the failure had another cause (the caller's retry)."""
    if any(lacks(a.dtype) for a in _tensors(args)):
        return numpy_fallback(name, *args)
    return NotImplemented


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


def nonzero(x: Tensor) -> tuple[Tensor, ...]:
    if x.ndim == 0:
        raise ValueError("nonzero: a 0-d array has no axes to index")
    if lacks(x.dtype):
        return numpy_fallback("nonzero", x)
    return torch.nonzero(x, as_tuple=True)


def round_(x: Any) -> Any:
    """`round`'s rescue: torch rounds every real dtype but has no complex kernel; any
    other failure is not this case (NotImplemented)."""
    if isinstance(x, torch.Tensor) and x.is_complex():
        return torch.complex(torch.round(x.real), torch.round(x.imag))
    return NotImplemented


_BOUNDS = frozenset({int, float, type(None)})
"""Bounds `torch.clamp` takes as they are (tensors are cast to `x`'s dtype first)."""


def clip(x: Tensor, lo: Any, hi: Any) -> Tensor:
    """The result keeps `x`'s dtype (torch would promote to a float bound's)."""
    if lo is None and hi is None:
        return x.clone()
    if lacks(x.dtype):
        return numpy_fallback("clip", x, lo, hi)
    if type(lo) in _BOUNDS and type(hi) in _BOUNDS:
        out = torch.clamp(x, lo, hi)
        return out if out.dtype is x.dtype else out.to(x.dtype)
    lo, hi = (b.to(x.dtype) if isinstance(b, torch.Tensor) else b for b in (lo, hi))
    if isinstance(lo, torch.Tensor) != isinstance(hi, torch.Tensor) and None not in (lo, hi):
        lo, hi = (b if isinstance(b, torch.Tensor) else
                  torch.asarray(b, dtype=x.dtype, device=x.device) for b in (lo, hi))
    out = torch.clamp(x, lo, hi)
    return out if out.dtype is x.dtype else out.to(x.dtype)


def where(condition: Any, x1: Any, x2: Any) -> Tensor:
    """A Python scalar that keeps the tensor's dtype goes to torch as it is: a 0-d
    tensor of it would cost a conversion and a slower broadcast."""
    if _scalar_fits(x1, x2) or _scalar_fits(x2, x1):
        return torch.where(condition, x1, x2)
    a, b = pair(x1, x2)
    if lacks(a.dtype):
        return numpy_fallback("where", condition, a, b)
    return torch.where(condition, a, b)
