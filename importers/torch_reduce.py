"""ATen reductions, scans, norms, softmax, sorting and the selections whose size the data
decides (`nonzero`, `masked_select`, `unique`) onto ivy ops.

Sums, products, means and scans compute in the dtype torch gives the result (int and
bool sums accumulate in int64); `max.dim`-style ops return (values, indices) pairs.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import SSAValue

from ivy_ir.dialect.types import FLOATS

from .common import Rule, Unmapped, spec_of
from .torch_ctx import Ctx, axis_list


def _reduce(op: str, cast_in: bool = True) -> Rule:
    """A reduction over `dim` (all dims when absent); sums and means compute in torch's
    result dtype (int and bool sums accumulate in int64)."""
    def emit(c: Ctx, x: SSAValue, dim: Any = None, keepdim: bool = False, *,
             dtype: Any = None) -> SSAValue:
        if cast_in:
            x = c.cast(x, c.out.dtype)
        return c.emit(op, x, axis=axis_list(dim, spec_of(x).rank), keepdims=keepdim)
    return emit


def _reduce_pair(op: str, arg_op: str) -> Rule:
    """`max.dim`/`min.dim`: (values, indices) along one dim."""
    def emit(c: Ctx, x: SSAValue, dim: int, keepdim: bool = False) -> list[SSAValue]:
        axis = dim % max(spec_of(x).rank, 1)
        values = c.emit(op, x, axis=[axis], keepdims=keepdim)
        return [values, c.emit(arg_op, x, axis=axis, keepdims=keepdim)]
    return emit


def _arg_reduce(op: str) -> Rule:
    def emit(c: Ctx, x: SSAValue, dim: int | None = None, keepdim: bool = False) -> SSAValue:
        if spec_of(x).rank == 0:
            return c.const(0, "int64")
        return c.emit(op, x, axis=dim, keepdims=keepdim)
    return emit


def _moment(op: str, overload: str) -> Rule:
    """var/std: `.default(x, unbiased)`, `.dim(x, dim, unbiased, keepdim)`,
    `.correction(x, dim, *, correction, keepdim)`."""
    def emit(c: Ctx, x: SSAValue, *args: Any, correction: Any = None,
             keepdim: bool = False) -> Any:
        x = c.float_in(x)
        rank = spec_of(x).rank
        if overload == "default":
            dim, corr = None, float(args[0] if args else True)
        elif overload == "dim":
            dim = args[0] if args else None
            corr = float(args[1] if len(args) > 1 else True)
            keepdim = args[2] if len(args) > 2 else keepdim
        else:
            dim = args[0] if args else None
            corr = 1.0 if correction is None else float(correction)
        axis = axis_list(dim, rank)
        return c.emit(op, x, axis=axis, keepdims=keepdim, correction=corr)
    return emit


def _moment_mean(op: str) -> Rule:
    """`var_mean`/`std_mean.correction`: (var or std, mean)."""
    def emit(c: Ctx, x: SSAValue, dim: Any = None, *, correction: Any = None,
             keepdim: bool = False) -> list[SSAValue]:
        x = c.float_in(x)
        axis = axis_list(dim, spec_of(x).rank)
        corr = 1.0 if correction is None else float(correction)
        return [c.emit(op, x, axis=axis, keepdims=keepdim, correction=corr),
                c.emit("mean", x, axis=axis, keepdims=keepdim)]
    return emit


def _scan(op: str) -> Rule:
    def emit(c: Ctx, x: SSAValue, dim: int, *, dtype: Any = None) -> SSAValue:
        x = c.cast(x, c.out.dtype)
        if spec_of(x).rank == 0:
            return x
        return c.emit(op, x, axis=dim)
    return emit


def _running_extreme(op: str) -> Rule:
    """cummax / cummin -> (values, indices): the index of the last element equal to the
    running value (torch's choice among ties), or of a NaN, which holds its own index
    and passes it on."""
    def emit(c: Ctx, x: SSAValue, dim: int) -> list[SSAValue]:
        spec = spec_of(x)
        if spec.rank == 0:
            return [x, c.emit("zeros", shape=[], dtype="int64")]
        dim %= spec.rank
        values = c.emit(op, x, axis=dim)
        hit = c.emit("equal", x, values)
        if spec.dtype in FLOATS:
            hit = c.emit("logical_or", hit, c.emit("isnan", x))
        n = spec.shape[dim]
        positions = c.const(np.arange(n).reshape([n if d == dim else 1
                                                  for d in range(spec.rank)]), "int64")
        last = c.emit("where", hit, positions, c.const(-1, "int64"))
        return [values, c.emit("cummax", last, axis=dim)]
    return emit


def _vector_norm(c: Ctx, x: SSAValue, ord: Any = 2, dim: Any = None, keepdim: bool = False,
                 *, dtype: Any = None) -> SSAValue:
    x = c.cast(x, c.out.dtype)
    return c.emit("vector_norm", x, ord=float(ord), axis=axis_list(dim, spec_of(x).rank),
                  keepdims=keepdim)


def _norm(c: Ctx, x: SSAValue, p: Any = 2, dim: Any = None, keepdim: bool = False,
          *, dtype: Any = None) -> SSAValue:
    if isinstance(p, str):
        raise Unmapped(f"norm p='{p}'")
    return _vector_norm(c, x, 2 if p is None else p, dim, keepdim)


def _logsumexp(c: Ctx, x: SSAValue, dim: Any, keepdim: bool = False) -> SSAValue:
    x = c.float_in(x)
    return c.emit("logsumexp", x, axis=axis_list(dim, spec_of(x).rank), keepdims=keepdim)


def _softmax(op: str) -> Rule:
    """`softmax.int(x, dim, dtype)` and `_softmax(x, dim, half_to_float)`."""
    def emit(c: Ctx, x: SSAValue, dim: int, extra: Any = None, *, dtype: Any = None) -> SSAValue:
        x = c.cast(x, c.out.dtype)
        if spec_of(x).rank == 0:  # a 0-d softmax is over one element
            y = c.emit(op, c.emit("reshape", x, shape=[1]), axis=0)
            return c.emit("reshape", y, shape=[])
        return c.emit(op, x, axis=dim)
    return emit


def _sort(c: Ctx, x: SSAValue, *args: Any, stable: Any = None, dim: int = -1,
          descending: bool = False) -> list[SSAValue]:
    """`sort.default(x, dim, descending)` and `sort.stable(x, *, stable, dim, descending)`."""
    if args:
        dim = args[0]
        descending = args[1] if len(args) > 1 else descending
    if spec_of(x).rank == 0:
        return [x, c.const(0, "int64")]
    return [c.emit("sort", x, axis=dim, descending=descending),
            c.emit("argsort", x, axis=dim, descending=descending)]


def _argsort(c: Ctx, x: SSAValue, *args: Any, stable: Any = None, dim: int = -1,
             descending: bool = False) -> SSAValue:
    return _sort(c, x, *args, dim=dim, descending=descending)[1]


def _topk(c: Ctx, x: SSAValue, k: int, dim: int = -1, largest: bool = True,
          sorted: bool = True) -> list[SSAValue]:
    return c.emit_all("top_k", x, k=k, axis=dim, largest=largest)


def _unique(c: Ctx, x: SSAValue, dim: int | None, return_inverse: bool,
            return_counts: bool) -> list[SSAValue]:
    """`torch.unique`: ascending whatever `sorted` says (torch's unsorted order is its
    hash table's, which no other target has); an output not asked for is empty."""
    rank = spec_of(x).rank
    values, _, inverse, counts = c.emit_all("unique", x, axis=None if dim is None
                                            else dim % rank, sorted=True)
    if dim is None:
        inverse = c.emit("reshape", inverse, shape=list(spec_of(x).shape))
    empty = c.emit("zeros", shape=[0], dtype="int64")
    return [values, inverse if return_inverse else empty, counts if return_counts else empty]


def _masked_select(c: Ctx, x: SSAValue, mask: SSAValue) -> SSAValue:
    xs, ms = spec_of(x).shape, spec_of(mask).shape
    if xs == ms:
        return c.emit("gather_nd", x, c.emit("argwhere", mask))
    if None in xs + ms:
        raise Unmapped("operands of different shapes with dynamic sizes")
    shape = list(np.broadcast_shapes(xs, ms))
    x = x if list(xs) == shape else c.emit("broadcast_to", x, shape=shape)
    mask = mask if list(ms) == shape else c.emit("broadcast_to", mask, shape=shape)
    return c.emit("gather_nd", x, c.emit("argwhere", mask))


REDUCE: dict[str, Rule] = {
    "sum": _reduce("sum"),
    "mean": _reduce("mean"),
    "prod": _reduce("prod"),
    "amax": _reduce("max", cast_in=False),
    "amin": _reduce("min", cast_in=False),
    "max.default": _reduce("max", cast_in=False),
    "min.default": _reduce("min", cast_in=False),
    "max.dim": _reduce_pair("max", "argmax"),
    "min.dim": _reduce_pair("min", "argmin"),
    "all": _reduce("all", cast_in=False),
    "any": _reduce("any", cast_in=False),
    "argmax": _arg_reduce("argmax"),
    "argmin": _arg_reduce("argmin"),
    **{f"{op}.{ov}": _moment(op, ov) for op in ("var", "std")
       for ov in ("default", "dim", "correction")},
    "var_mean.correction": _moment_mean("var"),
    "std_mean.correction": _moment_mean("std"),
    "cumsum": _scan("cumsum"),
    "cumprod": _scan("cumprod"),
    "logcumsumexp": _scan("logcumsumexp"),
    "cummax": _running_extreme("cummax"),
    "cummin": _running_extreme("cummin"),
    "logsumexp": _logsumexp,
    "linalg_vector_norm": _vector_norm,
    "norm": _norm,
    "sort": _sort,
    "argsort": _argsort,
    "topk": _topk,
    # a count only the values decide: the program's `?` rows (docs/onnx.md)
    "nonzero": lambda c, x: c.emit("argwhere", x),
    "masked_select": _masked_select,
    "_unique2": lambda c, x, sorted=True, return_inverse=False, return_counts=False:
        _unique(c, x, None, return_inverse, return_counts),
    "unique_dim": lambda c, x, dim, sorted=True, return_inverse=False, return_counts=False:
        _unique(c, x, dim, return_inverse, return_counts),
    "softmax": _softmax("softmax"),
    "_softmax": _softmax("softmax"),
    "log_softmax": _softmax("log_softmax"),
    "_log_softmax": _softmax("log_softmax"),
}
