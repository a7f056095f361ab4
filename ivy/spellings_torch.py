"""PyTorch's spellings of the standard functions (see `spellings.py`): expressions over
the function's parameter names, calling `torch` and the kernels of
`spellings_torch_kernels.py` (by the names in its `KERNELS`, with a leading underscore).

torch's own functions already follow the standard for most arguments; the spellings
exist for where they do not (the kernels module lists how). Each elementwise function
takes one torch call when its operands are tensors of one dtype, and a kernel otherwise
(Python scalars, mixed or 0-d promotion), so the common call pays only that test; torch
refuses the dtypes it has no kernels for (uint16/32/64), and only such failing calls
look for them (`rescue.Rescued`) and compute in NumPy.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import spellings_torch_creation as _creation
from . import spellings_torch_kernels as _first
from . import spellings_torch_more as _more
from .rescue import Rescued


def _binary(name: str, call: str) -> Rescued:
    """`call(x1, x2)` for two operands of one dtype (tensors, subclasses such as
    `nn.Parameter` included), else the kernel that promotes (and takes Python scalars,
    which have no `dtype`) first; NumPy where torch has no kernel for that dtype."""
    return Rescued(f"{call}(x1, x2) if getattr(x1, 'dtype', 0) is getattr(x2, 'dtype', None) "
                   f"else _binary({name!r}, {call}, x1, x2)",
                   f"_lacking_fallback({name!r}, x1, x2)")


def _unary(name: str, call: str) -> Rescued:
    """`call(x)`, or NumPy where torch has no kernel for `x`'s dtype."""
    return Rescued(f"{call}(x)", f"_lacking_fallback({name!r}, x)")


BINARY = {
    "add": "torch.add", "atan2": "torch.atan2", "bitwise_and": "torch.bitwise_and",
    "bitwise_left_shift": "torch.bitwise_left_shift", "bitwise_or": "torch.bitwise_or",
    "bitwise_right_shift": "torch.bitwise_right_shift", "bitwise_xor": "torch.bitwise_xor",
    "copysign": "torch.copysign", "divide": "torch.divide", "equal": "torch.eq",
    "floor_divide": "_floor_divide", "greater": "torch.gt", "greater_equal": "torch.ge",
    "hypot": "torch.hypot", "less": "torch.lt", "less_equal": "torch.le",
    "logaddexp": "torch.logaddexp", "logical_and": "torch.logical_and",
    "logical_or": "torch.logical_or", "logical_xor": "torch.logical_xor",
    "maximum": "torch.maximum", "minimum": "torch.minimum", "multiply": "torch.multiply",
    "nextafter": "torch.nextafter", "not_equal": "torch.ne", "pow": "torch.pow",
    "remainder": "_remainder", "subtract": "torch.subtract",
    "matmul": "torch.matmul", "linalg.matmul": "torch.matmul", "linalg.outer": "torch.outer",
}
"""Standard functions of two arrays (or an array and a Python scalar) that promote."""

UNARY_INTEGRAL = {
    "abs": "torch.abs", "negative": "torch.negative", "bitwise_invert": "torch.bitwise_not",
    "square": "torch.square", "positive": "torch.positive",
}
"""Functions of one array that take integers, so meet the dtypes torch lacks."""

def _reduction(name: str, call: str, none: str = "", extra: str = "",
               keep: str = "keepdims") -> Rescued:
    """torch's reduction itself for one axis (or all, where torch reads None so), else the
    kernel (no axes, tuples of axes); torch refuses the dtypes it lacks, and only such a
    failing call goes to the kernel's NumPy fallback."""
    kernel = f"_reduce({name!r}, {call}, x, axis, keepdims{extra})"
    return Rescued(f"{call}(x, axis{extra}, {keep}) if {none}type(axis) is int else {kernel}",
                   f"{kernel} if _lacking(x) else NotImplemented")


_ACCUMULATE = ("torch.{n}(x, axis, keepdims) if {axis} and dtype is None "
               "and _accumulates_alike[x.dtype] else _{n}(x, axis, _dt(dtype), keepdims)")
"""`sum`/`prod` along one axis (`sum`: or all) where torch's result dtype is the
standard's (floats keep theirs, signed integers widen to int64); unsigned integers
widen to uint64 in the kernel."""

TORCH_SPELLINGS: dict[str, str | Rescued] = {
    # creation: the facade's default dtypes (float64, int64, complex128), not torch's
    "asarray": "torch.asarray(obj, dtype=_dt(dtype), device=device, copy=copy) "
               "if type(obj) is torch.Tensor else _asarray(obj, _dt(dtype), device, copy)",
    "arange": "_arange(start, stop, step, _dt(dtype), device)",
    "empty": "torch.empty(shape, dtype=_dt(dtype) or torch.float64, device=device)",
    "empty_like": "torch.empty_like(x, dtype=_dt(dtype), device=device)",
    "eye": "_eye(n_rows, n_cols, k, _dt(dtype), device)",
    "from_dlpack": "_from_dlpack(x, device, copy)",
    "full": "_full(shape, fill_value, _dt(dtype), device)",
    "full_like": "torch.full_like(x, fill_value, dtype=_dt(dtype), device=device)",
    "linspace": "_linspace(start, stop, num, _dt(dtype), device, endpoint)",
    "meshgrid": "list(torch.meshgrid(*arrays, indexing=indexing))",
    "ones": "torch.ones(shape, dtype=_dt(dtype) or torch.float64, device=device)",
    "zeros": "torch.zeros(shape, dtype=_dt(dtype) or torch.float64, device=device)",
    **{n: f"torch.{n}(x) if dtype is None and device is None else "
          f"torch.{n}(x, dtype=_dt(dtype), device=device)" for n in ("ones_like", "zeros_like")},
    "astype": "x.to(device=device, dtype=_dt(dtype), copy=copy)",
    **{n: f"torch.{n}(x, k) if _computed[x.dtype] else _numpy_fallback({n!r}, x, k=k)"
       for n in ("tril", "triu")},
    # elementwise
    **{name: _binary(name, call) for name, call in BINARY.items()},
    **{name: _unary(name, call) for name, call in UNARY_INTEGRAL.items()},
    "conj": "torch.conj_physical(x)",
    "real": "torch.real(x)",
    "imag": "torch.imag(x)",
    "signbit": "torch.signbit(x)",
    # torch.sign maps NaN to 0: |x| clamped to 1 and rounded up keeps NaN (and is 1
    # for every other nonzero), times torch's sign (+0 for -0, as the standard asks);
    # four cheap passes, where torch's isnan and where cost ~4x sign's own
    "sign": "torch.abs(x).clamp_(max=1).ceil_().mul_(torch.sign(x)) if x.is_floating_point() "
            "else torch.sgn(x) if _computed[x.dtype] else _numpy_fallback('sign', x)",
    "round": Rescued("torch.round(x)", "_round(x)"),
    "clip": "_clip(x, min, max)",
    "where": "torch.where(condition, x1, x2) if type(x1) is type(x2) is torch.Tensor and "
             "_computed[x1.dtype] is x2.dtype else _where(condition, x1, x2)",
    # manipulation
    "broadcast_arrays": "list(torch.broadcast_tensors(*arrays))",
    "concat": "_concat(arrays, axis)",
    "stack": "_stack(arrays, axis)",
    "expand_dims": "torch.unsqueeze(x, axis)",
    "flip": "_flip(x, axis)",
    "moveaxis": "torch.movedim(x, source, destination)",
    "repeat": "_repeat(x, repeats, axis)",
    "reshape": "torch.reshape(x, shape) if copy is None else _reshape(x, shape, copy)",
    "roll": "torch.roll(x, shift, axis)",
    "squeeze": "_squeeze(x, axis)",
    "unstack": "torch.unbind(x, axis)",
    "matrix_transpose": "x.mT",
    "linalg.matrix_transpose": "x.mT",
    # indexing, searching, sets, sorting
    "take": "_take(x, indices, axis)",
    "take_along_axis": "_take_along_axis(x, indices, axis)",
    "argmax": _reduction("argmax", "torch.argmax"),
    "argmin": _reduction("argmin", "torch.argmin"),
    "count_nonzero": "_count_nonzero(x, axis, keepdims)",
    "nonzero": "_nonzero(x)",
    "searchsorted": "_searchsorted(x1, x2, side, sorter)",
    "unique_all": "_unique_all(x)",
    "unique_counts": "_unique_counts(x)",
    "unique_inverse": "_unique_inverse(x)",
    "unique_values": "_unique_values(x)",
    # statistics
    "max": _reduction("max", "torch.amax", "axis is None or "),
    "min": _reduction("min", "torch.amin", "axis is None or "),
    "mean": _reduction("mean", "torch.mean", "axis is None or "),
    **{n: _reduction(n, f"torch.{n}", extra=", correction=correction", keep="keepdim=keepdims")
       for n in ("std", "var")},
    "sum": _ACCUMULATE.format(n="sum", axis="(axis is None or type(axis) is int)"),
    "prod": _ACCUMULATE.format(n="prod", axis="type(axis) is int"),
    "all": "_truth(torch.all, x, axis, keepdims)",
    "any": "_truth(torch.any, x, axis, keepdims)",
    "cumulative_sum": "_cumulative('cumulative_sum', torch.cumsum, x, axis, _dt(dtype), "
                      "include_initial)",
    "cumulative_prod": "_cumulative('cumulative_prod', torch.cumprod, x, axis, _dt(dtype), "
                       "include_initial)",
    "diff": "_diff(x, axis, n, prepend, append)",
    # registry ops a one-op program would otherwise run (signature key and lookup per call)
    "cumsum": "torch.cumsum(x, axis, dtype=x.dtype) if _computed[x.dtype] else "
              "_numpy_fallback('cumsum', x, axis=axis)",
    "one_hot": "_one_hot(indices, depth, _dt(dtype), axis)",
    "scatter_add": "x.index_put(indices.unbind(-1), updates, accumulate=True) if "
                   "indices.shape[-1] else x + updates.sum(0, dtype=x.dtype)",
    # linear algebra
    "tensordot": "_tensordot(x1, x2, axes)",
    "linalg.tensordot": "_tensordot(x1, x2, axes)",
    "vecdot": "_vecdot(x1, x2, axis)",
    "linalg.vecdot": "_vecdot(x1, x2, axis)",
    "linalg.cholesky": "torch.linalg.cholesky(x, upper=upper)",
    "linalg.cross": "_cross(x1, x2, axis)",
    "linalg.det": "torch.linalg.det(x)",
    "linalg.diagonal": "torch.diagonal(x, offset, -2, -1)",
    "linalg.eigh": "torch.linalg.eigh(x)",
    "linalg.eigvalsh": "torch.linalg.eigvalsh(x)",
    "linalg.inv": "torch.linalg.inv(x)",
    "linalg.matrix_norm": "torch.linalg.matrix_norm(x, ord=ord, keepdim=keepdims)",
    "linalg.matrix_power": "torch.linalg.matrix_power(x, n)",
    "linalg.matrix_rank": "torch.linalg.matrix_rank(x, rtol=rtol)",
    "linalg.pinv": "torch.linalg.pinv(x, rtol=rtol)",
    "linalg.qr": "torch.linalg.qr(x, mode=mode)",
    "linalg.slogdet": "torch.linalg.slogdet(x)",
    "linalg.solve": "_solve(x1, x2)",
    "linalg.svd": "torch.linalg.svd(x, full_matrices=full_matrices)",
    "linalg.svdvals": "torch.linalg.svdvals(x)",
    "linalg.trace": "_trace(x, offset, _dt(dtype))",
    "linalg.vector_norm": "_vector_norm(x, axis, keepdims, ord)",
    # fft
    **{f"fft.{n}": f"torch.fft.{n}(x, n=n, dim=axis, norm=norm)"
       for n in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")},
    **{f"fft.{n}": f"torch.fft.{n}(x, s=s, dim=axes, norm=norm)"
       for n in ("fftn", "ifftn", "rfftn", "irfftn")},
    **{f"fft.{n}": f"torch.fft.{n}(n, d=d, dtype=_dt(dtype) or torch.float64, "
                   "device=device)" for n in ("fftfreq", "rfftfreq")},
    **{f"fft.{n}": f"torch.fft.{n}(x, dim=axes)" for n in ("fftshift", "ifftshift")},
}

TORCH_SKIP_RULES: frozenset[str] = frozenset()

_KERNEL_FUNCTIONS = {**vars(_first), **vars(_creation), **vars(_more)}

TORCH_KERNELS: dict[str, Callable[..., Any]] = {
    "_computed": _first.COMPUTED,
    "_accumulates_alike": _first.ACCUMULATES_ALIKE,
    **{"_" + name.rstrip("_"): _KERNEL_FUNCTIONS[name] for name in (
        "binary", "numpy_fallback", "lacking_fallback", "lacking", "asarray", "full", "arange",
        "eye", "linspace", "from_dlpack", "floor_divide", "remainder", "round_", "clip", "where",
        "reduce", "truth", "count_nonzero", "sum_", "prod", "cumulative", "trace", "nonzero",
        "searchsorted", "unique_values", "unique_all", "unique_counts", "unique_inverse",
        "squeeze", "diff", "reshape", "flip", "take", "take_along_axis", "repeat", "concat",
        "stack", "solve", "vecdot", "cross", "tensordot", "vector_norm", "one_hot")},
}
"""What the spellings call, by the names they call it (`sum_` as `_sum`)."""

