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


class _Inexact(dict):
    """Dtype -> whether it is a float or complex dtype (whose sums keep the dtype),
    filled on first sight of each dtype: one C lookup after that."""

    def __missing__(self, dtype: Any) -> bool:
        value = self[dtype] = bool(dtype.is_floating_point or dtype.is_complex)
        return value


INEXACT = _Inexact()


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


def binary(name: str, fn: Any, x1: Any, x2: Any) -> Tensor:
    """`fn` on promoted operands (the spellings' path for all but same-dtype tensors)."""
    if (type(x2) in _SCALARS and name in _TAKES_SCALAR and isinstance(x1, torch.Tensor)
            and _fits(x2, x1.dtype) and not lacks(x1.dtype)):
        return fn(x1, x2)
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
    gives (torch's complex expm1 makes them NaN); expm1(-0 + 0j) is +0 + 0j."""
    out = torch.where(torch.isfinite(x), torch.expm1(x), torch.exp(x) - 1)
    return torch.where(x == 0, torch.complex(torch.zeros_like(x.real), x.imag), out)


def log1p_complex(x: Tensor) -> Tensor:
    """Non-finite inputs as `log(1 + x)`, as for `expm1_complex`."""
    return torch.where(torch.isfinite(x), torch.log1p(x), torch.log(1 + x))


def acos_complex(x: Tensor) -> Tensor:
    """acos(+-0 + 0j) is pi/2 - 0j (C99's `cacos`); torch gives +0j."""
    out = torch.acos(x)
    return torch.where(x == 0, torch.complex(out.real, -x.imag), out)


def tanh_complex(x: Tensor) -> Tensor:
    """tanh(+-inf + yj) for finite y is +-1 + 0j with 0 signed as y (the standard);
    torch signs the zero as sin(2y), as C99 does."""
    out = torch.tanh(x)
    edge = torch.isinf(x.real) & torch.isfinite(x.imag)
    fixed = torch.complex(torch.sign(x.real), torch.copysign(torch.zeros_like(x.imag), x.imag))
    return torch.where(edge, fixed, out)


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
