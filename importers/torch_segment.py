"""ATen segment reductions, masked, strided and windowed gathers and pairwise distances,
composed from registry gathers, the combining scatters and cumulative sums.

Bag and segment ids come from `cumsum` over the boundary offsets, so offsets stay
run-time tensors; each reduction is then one scatter of the rows onto their bag or
place, started from the reduction's identity where the input's own value is not to
count.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import SSAValue

from ivy_ir.dialect.types import FLOATS

from .common import Rule, Unmapped, spec_of
from .torch_ctx import Ctx
from .torch_index import scatter_along
from .torch_nn import max_pool

EMBEDDING_BAG_MODES = ("sum", "mean", "max")
"""`_embedding_bag`'s `mode` argument, by number."""


def _lowest(dtype: str, highest: bool = False) -> float:
    """The identity of max (or min): -inf for floats, the dtype's extreme for integers."""
    if dtype in FLOATS:
        return float("inf") if highest else float("-inf")
    if dtype == "bool":
        raise Unmapped("on bool tensors")
    info = np.iinfo(np.dtype(dtype))
    return info.max if highest else info.min


def _segment_ids(c: Ctx, offsets: SSAValue, n: int) -> SSAValue:
    """The bag of each of `n` positions, for bags starting at `offsets` (the first at 0):
    one count per bag start, summed up to each position, minus one."""
    offsets = c.cast(offsets, "int64")
    starts = c.emit("scatter_add", c.emit("zeros", shape=[n + 1], dtype="int64"),
                    c.emit("expand_dims", offsets, axis=[1]),
                    c.emit("ones", shape=[spec_of(offsets).shape[0]], dtype="int64"))
    ids = c.emit("cumsum", c.emit("slice", starts, start=[0], stop=[n], step=[1]), axis=0)
    return c.emit("subtract", ids, c.const(1, "int64"))


def _embedding_bag(c: Ctx, weight: SSAValue, indices: SSAValue, offsets: SSAValue,
                   scale_grad_by_freq: bool = False, mode: int = 0, sparse: bool = False,
                   per_sample_weights: Any = None, include_last_offset: bool = False,
                   padding_idx: Any = -1) -> list[Any]:
    """`nn.EmbeddingBag`: the rows of `weight` picked by `indices`, reduced per bag.

    Bag b holds the positions from offsets[b] up to the next offset, the last bag up to
    the end: with `include_last_offset` the extra last offset is len(indices) by torch's
    contract (for other values torch's own kernels disagree), so it is dropped. Rows
    at `padding_idx` take part in no bag (nor in a mean's count); an empty bag gives
    zeros in every mode. `scale_grad_by_freq` and `sparse` change only gradients.
    Results 1-3 (offset2bag, bag_size, max_indices) are autograd's bookkeeping, whose
    layout torch leaves per-kernel, and are not imported."""
    if spec_of(indices).rank != 1:
        raise Unmapped("indices of rank other than 1 (F.embedding_bag flattens them)")
    n = spec_of(indices).shape[0]
    bags = spec_of(offsets).shape[0] - int(include_last_offset)
    if include_last_offset:
        offsets = c.emit("slice", offsets, start=[0], stop=[bags], step=[1])
    dtype, dim = spec_of(weight).dtype, spec_of(weight).shape[1]
    ids = _segment_ids(c, offsets, n)
    indices = c.cast(indices, "int64")
    padded = padding_idx is not None and padding_idx >= 0
    valid = c.emit("not_equal", indices, c.const(padding_idx if padded else -1, "int64"))
    rows = c.emit("embedding", indices, weight)
    if per_sample_weights is not None:
        rows = c.emit("multiply", rows,
                      c.emit("expand_dims", c.cast(per_sample_weights, dtype), axis=[1]))
    kind = EMBEDDING_BAG_MODES[mode]
    zero = c.const(0, dtype)
    # padding rows go to bag 0 as the reduction's identity
    target = c.emit("expand_dims", c.emit("where", valid, ids, c.const(0, "int64")), axis=[1])
    fill = _lowest(dtype) if kind == "max" else 0
    rows = c.emit("where", c.emit("expand_dims", valid, axis=[1]), rows, c.const(fill, dtype))
    out = c.emit("scatter_max" if kind == "max" else "scatter_add",
                 c.emit("full", shape=[bags, dim], fill_value=fill, dtype=dtype), target, rows)
    if kind == "sum":
        return [out, None, None, None]
    count = c.emit("scatter_add", c.emit("zeros", shape=[bags], dtype=dtype), target,
                   c.cast(valid, dtype))
    if kind == "max":  # an empty bag gives zeros
        out = c.emit("where", c.emit("greater", c.emit("expand_dims", count, axis=[1]), zero),
                     out, zero)
    else:
        out = c.emit("divide", out, c.emit("expand_dims", c.emit(
            "maximum", count, c.const(1, dtype)), axis=[1]))
    return [out, None, None, None]


def _embedding_bag_public(c: Ctx, weight: SSAValue, indices: SSAValue, offsets: SSAValue,
                          scale_grad_by_freq: bool = False, mode: int = 0,
                          sparse: bool = False, per_sample_weights: Any = None,
                          include_last_offset: bool = False, padding_idx: Any = None
                          ) -> list[Any]:
    """`aten.embedding_bag`: `padding_idx` None (no padding) where `_embedding_bag` says -1."""
    return _embedding_bag(c, weight, indices, offsets, scale_grad_by_freq, mode, sparse,
                          per_sample_weights, include_last_offset,
                          -1 if padding_idx is None else padding_idx)


SCATTER_REDUCE = {"sum": "scatter_add", "mean": "scatter_add", "prod": "scatter_mul",
                  "amax": "scatter_max", "amin": "scatter_min"}
"""`scatter_reduce`'s `reduce` -> the registry scatter that folds the values in."""


def _scatter_reduce(c: Ctx, x: SSAValue, dim: int, index: SSAValue, src: SSAValue,
                    reduce: str, include_self: bool = True) -> SSAValue:
    """out[.., index[.., i, ..], ..] reduced with src[.., i, ..] along `dim`. Without
    `include_self` the places an index reaches start from the reduction's identity; a
    mean divides by the count of values folded into each place (x's own one included)."""
    if reduce not in SCATTER_REDUCE:
        raise Unmapped(f"reduce='{reduce}'")
    dtype = spec_of(x).dtype
    if include_self and reduce != "mean":
        return scatter_along(c, SCATTER_REDUCE[reduce], x, dim, index, src)
    zeros = c.emit("zeros", shape=list(spec_of(x).shape), dtype=dtype)
    count = scatter_along(c, "scatter_add", zeros, dim, index, 1)
    hit = c.emit("greater", count, c.const(0, dtype))
    base = x
    if not include_self:
        identity = {"prod": 1, "amax": _lowest(dtype), "amin": _lowest(dtype, highest=True)}
        base = c.emit("where", hit, c.const(identity.get(reduce, 0), dtype), x)
    out = scatter_along(c, SCATTER_REDUCE[reduce], base, dim, index, src)
    if reduce != "mean":
        return out
    if include_self:
        count = c.emit("add", count, c.const(1, dtype))
    divide = "divide" if dtype in FLOATS else "floor_divide"
    return c.emit("where", hit, c.emit(divide, out, c.emit("maximum", count, c.const(1, dtype))),
                  x)


def _masked_scatter(c: Ctx, x: SSAValue, mask: SSAValue, source: SSAValue) -> SSAValue:
    """The k-th True of `mask` (row-major) takes `source`'s k-th element: k counted by a
    cumulative sum of the mask, the element taken from the flat source."""
    shape = list(spec_of(x).shape)
    flat = c.emit("reshape", c.emit("broadcast_to", c.cast(mask, "bool"), shape=shape),
                  shape=[-1])
    k = c.emit("subtract", c.emit("cumsum", c.cast(flat, "int64"), axis=0),
               c.const(1, "int64"))
    k = c.emit("maximum", k, c.const(0, "int64"))
    taken = c.emit("take", c.emit("reshape", c.cast(source, spec_of(x).dtype), shape=[-1]), k,
                   axis=0)
    return c.emit("reshape", c.emit("where", flat, taken,
                                    c.emit("reshape", x, shape=[-1])), shape=shape)


CDIST_MM_ABOVE = 25
"""torch's `cdist` takes the matrix-product route for p = 2 when either set has more
rows than this (compute_mode None or 0), or always (compute_mode 1)."""


def _cdist(c: Ctx, x1: SSAValue, x2: SSAValue, p: float, compute_mode: Any = None) -> SSAValue:
    """||x1[.., i, :] - x2[.., j, :]||_p, by the route torch takes: for p = 2 with many
    rows sqrt(|a|^2 - 2 a.b + |b|^2) (no (rows x rows x features) difference tensor, and
    torch's rounding), else the norm of the differences."""
    rows = max(spec_of(x1).shape[-2], spec_of(x2).shape[-2])
    if p == 2 and (compute_mode == 1 or compute_mode in (None, 0) and rows > CDIST_MM_ABOVE):
        dtype = spec_of(x1).dtype
        square = [c.emit("sum", c.emit("square", x), axis=[-1], keepdims=True) for x in (x1, x2)]
        cross = c.emit("matmul", x1, c.emit("permute_dims", x2, axes=_swap_last(x2)))
        d2 = c.emit("add", c.emit("subtract", square[0], c.emit(
            "multiply", cross, c.const(2, dtype))), c.emit("permute_dims", square[1],
                                                            axes=_swap_last(x2)))
        return c.emit("sqrt", c.emit("maximum", d2, c.const(0, dtype)))
    diff = c.emit("subtract", c.emit("expand_dims", x1, axis=[-2]),
                  c.emit("expand_dims", x2, axis=[-3]))
    return c.emit("vector_norm", diff, ord=float(p), axis=[-1])


def _swap_last(x: SSAValue) -> list[int]:
    rank = spec_of(x).rank
    return [*range(rank - 2), rank - 1, rank - 2]


def _pdist(c: Ctx, x: SSAValue, p: float = 2.0) -> SSAValue:
    """The distances of the row pairs i < j, in row-major order (the condensed form)."""
    first, second = np.triu_indices(spec_of(x).shape[0], k=1)
    diff = c.emit("subtract", c.emit("take", x, c.const(first, "int64"), axis=0),
                  c.emit("take", x, c.const(second, "int64"), axis=0))
    return c.emit("vector_norm", diff, ord=float(p), axis=[-1])


def _windows(size: list[int], out: list[int], kernel: list[int], strides: list[int],
             padding: list[int], dilation: list[int]) -> np.ndarray:
    """(outputs, kernel elements) flat input positions read by each pooling window, the
    window's positions inside the input first (in scan order), then `prod(size)` (a
    slot past the input) for each position in the padding."""
    grids = np.meshgrid(*(np.arange(o) for o in out), *(np.arange(k) for k in kernel),
                        indexing="ij")
    n = len(size)
    coords = [grids[d] * strides[d] - padding[d] + grids[n + d] * dilation[d] for d in range(n)]
    inside = np.logical_and.reduce([(0 <= q) & (q < s) for q, s in zip(coords, size)])
    flat = np.ravel_multi_index([np.clip(q, 0, s - 1) for q, s in zip(coords, size)], size)
    flat = np.where(inside, flat, int(np.prod(size))).reshape(int(np.prod(out)), -1)
    order = np.argsort(~inside.reshape(flat.shape), axis=1, kind="stable")
    return np.take_along_axis(flat, order, axis=1)


def _max_pool_with_indices(n: int) -> Rule:
    """max_pool{n}d_with_indices: the values, and the flat input position (within its
    spatial plane) of each window's first maximum in scan order, as torch's kernel picks
    it: the window's inputs gathered, padding as the lowest value after them, argmax."""
    def emit(c: Ctx, x: SSAValue, kernel_size: Any, stride: Any = (), padding: Any = 0,
             dilation: Any = 1, ceil_mode: bool = False) -> list[Any]:
        values = max_pool(n)(c, x, kernel_size, stride, padding, dilation, ceil_mode)
        if not c.used(1):
            return [values, None]
        shape, dtype = list(spec_of(x).shape), spec_of(x).dtype
        lead, size, out = shape[:-n], shape[-n:], list(spec_of(values).shape[-n:])

        def each(v: Any) -> list[int]:
            v = [v] * n if isinstance(v, int) else list(v)
            return v * n if len(v) == 1 else v
        kernel = each(kernel_size)
        windows = _windows(size, out, kernel, each(stride) if stride not in ((), []) else
                           kernel, each(padding), each(dilation))
        plane = c.emit("reshape", x, shape=lead + [-1])
        pad = c.emit("full", shape=lead + [1], fill_value=_lowest(dtype), dtype=dtype)
        picked = c.emit("take", c.emit("concat", [plane, pad], axis=len(lead)),
                        c.const(windows.reshape(-1), "int64"), axis=len(lead))
        best = c.emit("argmax", c.emit("reshape", picked, shape=lead + list(windows.shape)),
                      axis=len(lead) + 1)
        first = c.const(np.arange(windows.shape[0]) * windows.shape[1], "int64")
        where = c.emit("take", c.const(windows.reshape(-1), "int64"),
                       c.emit("add", c.cast(best, "int64"), first), axis=0)
        return [values, c.emit("reshape", where, shape=lead + out)]
    return emit


def _as_strided(c: Ctx, x: SSAValue, size: list[int], stride: list[int],
                storage_offset: Any = None) -> SSAValue:
    """The storage under `x` read at `storage_offset + sum(i_d stride_d)`: a gather of x
    at constant positions, exact where every position read holds an element of x (its
    strides and offset, as torch recorded them, say which); a read of storage outside x
    (a view's base) has no value in the IR."""
    layout = c.layout(0)
    if layout is None:
        raise Unmapped("without a recorded layout of its input")
    strides, offset = layout
    shape = spec_of(x).shape

    def positions(start: int, dims: Any, steps: Any) -> np.ndarray:
        grid = np.indices(tuple(dims), dtype=np.int64).reshape(len(dims), -1)
        return start + (np.asarray(steps, np.int64)[:, None] * grid).sum(axis=0)
    held = positions(offset, shape, strides)
    order = np.argsort(held, kind="stable")
    wanted = positions(offset if storage_offset is None else storage_offset, size, stride)
    slot = np.clip(np.searchsorted(held[order], wanted), 0, max(len(held) - 1, 0))
    if len(held) == 0 or not np.array_equal(held[order][slot], wanted):
        raise Unmapped("reading storage outside its input (a view's base)")
    flat = c.emit("reshape", x, shape=[-1])
    out = c.emit("take", flat, c.const(order[slot], "int64"), axis=0)
    return c.emit("reshape", out, shape=list(size))


SEGMENT: dict[str, Rule] = {
    "as_strided": _as_strided,
    **{f"max_pool{n}d_with_indices": _max_pool_with_indices(n) for n in (2, 3)},
    "_embedding_bag": _embedding_bag,
    "_embedding_bag_forward_only": _embedding_bag,
    "embedding_bag.padding_idx": _embedding_bag_public,
    "embedding_bag.default": _embedding_bag_public,
    "scatter_reduce.two": _scatter_reduce,
    "masked_scatter": _masked_scatter,
    "_cdist_forward": _cdist,
    "_pdist_forward": _pdist,
}
