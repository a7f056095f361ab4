"""ATen advanced indexing and scatter-style updates onto ivy gathers, scatters and `where`.

Integer index tensors may be negative in torch; constant ones are normalized at import
time, others with one `where`. A boolean index gives a result whose size depends on the
mask's values: a constant mask's `nonzero` is known at import, another one's is an
`ivy.argwhere` whose `?` rows index the gather; assignments through a boolean mask
(`x[mask] = v`) keep x's shape and become a `where` for any mask.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from xdsl.ir import SSAValue

from ivy_ir.dialect.types import INT64_MAX

from .common import Rule, Unmapped, size_value, spec_of
from .torch_ctx import Ctx


def _normalized(c: Ctx, idx: SSAValue, x: SSAValue, axis: int) -> SSAValue:
    """An int64 index tensor in [0, size) for torch's index values in [-size, size),
    size that of `axis` of x, the op's first argument (a dynamic one read when it runs)."""
    size = spec_of(x).shape[axis]
    size = c.arg_sizes(0)[axis] if size is None else size
    known = c.known(idx)
    if known is not None and isinstance(size, int):
        return c.const(np.asarray(known, np.int64) % max(size, 1), "int64")
    idx = c.cast(idx, "int64")
    negative = c.emit("less", idx, c.const(0, "int64"))
    return c.emit("where", negative, c.emit("add", idx, size_value(c, size)), idx)


def _items(c: Ctx, x: SSAValue, indices: list[Any]) -> list[SSAValue | None]:
    """One normalized int64 index tensor (or None) per indexed dim of x."""
    items: list[SSAValue | None] = []
    for idx in indices:
        if idx is None:
            items.append(None)
            continue
        if spec_of(idx).dtype in ("bool", "uint8"):
            mask = c.known(idx)
            if mask is not None:
                items += [c.const(a.astype(np.int64), "int64") for a in np.nonzero(mask)]
                continue
            rows = c.emit("argwhere", idx)  # (count, mask rank): `?` rows
            items += [c.emit("take", rows, c.const(np.int64(j), "int64"), axis=1)
                      for j in range(spec_of(idx).rank)]
            continue
        items.append(_normalized(c, idx, x, len(items)))
    return items


def _broadcast_stack(c: Ctx, idxs: list[SSAValue]) -> tuple[SSAValue, tuple[int, ...]]:
    """Index tensors broadcast together and stacked on a new last axis (gather_nd form);
    with dynamic sizes, broadcast by adding zeros of each other's shape, which needs no
    size spelled out."""
    if any(None in spec_of(i).shape for i in idxs):
        zeros = [c.emit("zeros_like", i) for i in idxs]
        zero = functools.reduce(lambda a, b: c.emit("add", a, b), zeros)
        full = [c.emit("add", i, zero) for i in idxs]
        return c.emit("stack", full, axis=-1), spec_of(full[0]).shape
    shape = tuple(np.broadcast_shapes(*(spec_of(i).shape for i in idxs)))
    full = [i if spec_of(i).shape == shape else
            c.emit("broadcast_to", i, shape=list(shape)) for i in idxs]
    return c.emit("stack", full, axis=-1), shape


def _index(c: Ctx, x: SSAValue, indices: list[Any]) -> SSAValue:
    items = _items(c, x, indices)
    adv = [i for i, it in enumerate(items) if it is not None]
    if len(adv) == 1:
        return c.emit("take", x, items[adv[0]], axis=adv[0])
    rank = spec_of(x).rank
    rest = [d for d in range(rank) if d not in adv]
    stacked, bshape = _broadcast_stack(c, [items[i] for i in adv])
    moved = c.emit("permute_dims", x, axes=adv + rest) if adv + rest != list(range(rank)) else x
    out = c.emit("gather_nd", moved, stacked)
    p, nb = adv[0], len(bshape)
    if adv == list(range(p, p + len(adv))) and p > 0:
        # adjacent index tensors put their broadcast dims where the first one stood
        axes = [nb + i for i in range(p)] + list(range(nb)) + \
            [nb + i for i in range(p, len(rest))]
        out = c.emit("permute_dims", out, axes=axes)
    return out


def _index_select(c: Ctx, x: SSAValue, dim: int, index: SSAValue) -> SSAValue:
    out = c.emit("take", x, _normalized(c, index, x, dim), axis=dim)
    shape = list(c.out.shape)
    return out if list(spec_of(out).shape) == shape else c.emit("reshape", out, shape=shape)


def _gather(c: Ctx, x: SSAValue, dim: int, index: SSAValue, sparse_grad: bool = False) -> SSAValue:
    # torch lets the index be smaller than x in the other dims: it reads that corner
    rank = spec_of(x).rank
    dim %= rank
    ishape, xshape = spec_of(index).shape, spec_of(x).shape
    if any(i != s for d, (i, s) in enumerate(zip(ishape, xshape)) if d != dim):
        stop = [INT64_MAX if d == dim else ishape[d] for d in range(rank)]
        x = c.emit("slice", x, start=[0] * rank, stop=stop, step=[1] * rank)
    return c.emit("take_along_axis", x, _normalized(c, index, x, dim), axis=dim)


def _where_along(c: Ctx, x: SSAValue, dim: int, picked: list[int], src: SSAValue) -> SSAValue:
    """x with positions `picked` of axis `dim` replaced by the matching slices of `src`
    (src holds len(picked) slices along dim, in order)."""
    shape = spec_of(x).shape
    rank, size = len(shape), shape[dim]
    mask = np.zeros(size, bool)
    mask[picked] = True
    source = np.zeros(size, np.int64)
    source[picked] = np.arange(len(picked))
    src = c.cast(src, spec_of(x).dtype)
    if list(picked) != list(range(size)):
        src = c.emit("take", src, c.const(source, "int64"), axis=dim)
    elif spec_of(src).shape == shape:
        return src
    keep = c.const(mask.reshape([1] * dim + [size] + [1] * (rank - dim - 1)), "bool")
    return c.emit("where", keep, src, x)


def _select_scatter(c: Ctx, x: SSAValue, src: SSAValue, dim: int, index: int) -> SSAValue:
    dim %= spec_of(x).rank
    src = c.emit("expand_dims", src, axis=[dim])
    return _where_along(c, x, dim, [index % spec_of(x).shape[dim]], src)


def _slice_scatter(c: Ctx, x: SSAValue, src: SSAValue, dim: int = 0, start: Any = None,
                   end: Any = None, step: int = 1) -> SSAValue:
    dim %= spec_of(x).rank
    picked = list(range(*slice(start, end, step).indices(spec_of(x).shape[dim])))
    return _where_along(c, x, dim, picked, src)


def _index_put(c: Ctx, x: SSAValue, indices: list[Any], values: SSAValue,
               accumulate: bool = False) -> SSAValue:
    dtype = spec_of(x).dtype
    values = c.cast(values, dtype)
    n_values = int(np.prod(spec_of(values).shape))
    masks = [i for i in indices if i is not None and spec_of(i).dtype in ("bool", "uint8")]
    if masks:
        if len(indices) != 1 or n_values != 1 or accumulate:
            raise Unmapped("with a boolean mask and more than one value (data-dependent)")
        mask = c.cast(indices[0], "bool")
        k, rank = spec_of(mask).rank, spec_of(x).rank
        if k < rank:
            mask = c.emit("reshape", mask, shape=list(spec_of(mask).shape) + [1] * (rank - k))
        return c.emit("where", mask, c.emit("reshape", values, shape=[]), x)
    items = _items(c, x, indices)
    adv = [i for i, it in enumerate(items) if it is not None]
    shape, rank = list(spec_of(x).shape), spec_of(x).rank
    rest = [d for d in range(rank) if d not in adv]
    stacked, bshape = _broadcast_stack(c, [items[i] for i in adv])
    # the values broadcast to x[indices]'s shape: adjacent index tensors put their
    # broadcast dims where the first one stood, others put them first; the scatter wants
    # them first, over x with the indexed dims moved to the front
    p, nb = adv[0], len(bshape)
    if adv != list(range(p, p + len(adv))):
        p = 0
    target = [shape[d] for d in rest[:p]] + list(bshape) + [shape[d] for d in rest[p:]]
    if list(spec_of(values).shape) != target:
        values = c.emit("broadcast_to", values, shape=target)
    if p:
        values = c.emit("permute_dims", values, axes=list(range(p, p + nb)) + list(range(p))
                        + list(range(p + nb, len(target))))
    moved = adv + rest
    if moved != list(range(rank)):
        x = c.emit("permute_dims", x, axes=moved)
    out = c.emit("scatter_add" if accumulate else "scatter_nd", x, stacked, values)
    if moved != list(range(rank)):
        out = c.emit("permute_dims", out, axes=[int(a) for a in np.argsort(moved)])
    return out


def scatter_along(c: Ctx, op: str, x: SSAValue, dim: int, index: SSAValue, src: Any
                  ) -> SSAValue:
    """out[.., index[i..], ..] = src[i..] along `dim` (combined by the scatter `op`), as
    that scatter with every element's other coordinates spelled out: `index` may be
    smaller than x and src in every dim, and src a number."""
    rank, shape = spec_of(x).rank, spec_of(index).shape
    dim %= rank
    grid = np.indices(shape)
    coords = [c.emit("expand_dims", _normalized(c, index, x, dim),
                     axis=[rank]) if d == dim else c.const(grid[d][..., None], "int64")
              for d in range(rank)]
    if isinstance(src, SSAValue):
        src = c.cast(src, spec_of(x).dtype)
        if spec_of(src).shape != shape:
            src = c.emit("slice", src, start=[0] * rank, stop=list(shape), step=[1] * rank)
    else:
        src = c.emit("full", shape=list(shape), fill_value=float(src), dtype=spec_of(x).dtype)
    return c.emit(op, x, c.emit("concat", coords, axis=-1), src)


SCATTER_REDUCE = {None: "scatter_nd", "add": "scatter_add", "multiply": "scatter_mul"}
"""`aten.scatter`'s `reduce` argument -> the registry scatter."""


def _scatter(op: str | None) -> Rule:
    """scatter(x, dim, index, src|value, reduce=None|'add'|'multiply') and scatter_add."""
    def emit(c: Ctx, x: SSAValue, dim: int, index: SSAValue, src: Any,
             reduce: str | None = None) -> SSAValue:
        if reduce not in SCATTER_REDUCE:
            raise Unmapped(f"with reduce='{reduce}'")
        return scatter_along(c, op or SCATTER_REDUCE[reduce], x, dim, index, src)
    return emit


def _searchsorted(c: Ctx, ordered: SSAValue, x: Any, *, out_int32: bool = False,
                  right: bool = False, side: str | None = None, sorter: Any = None
                  ) -> SSAValue:
    """torch.searchsorted (`right` or `side`; a `sorter` permutation is refused)."""
    if sorter is not None:
        raise Unmapped("a sorter")
    dtype = spec_of(ordered).dtype
    x = c.cast(x, dtype) if isinstance(x, SSAValue) else c.const(x, dtype)
    found = c.emit("searchsorted", ordered, x, side=side or ("right" if right else "left"))
    return c.cast(found, "int32" if out_int32 else "int64")


def _bucketize(c: Ctx, x: Any, boundaries: SSAValue, *, out_int32: bool = False,
               right: bool = False) -> SSAValue:
    """torch.bucketize: the bucket of each x among 1-d `boundaries` (`right`: a value
    equal to a boundary goes above it), which is searchsorted with the other side."""
    return _searchsorted(c, boundaries, x, out_int32=out_int32, right=right)


INDEX: dict[str, Rule] = {
    **dict.fromkeys(("scatter.src", "scatter.value", "scatter.reduce", "scatter.value_reduce"),
                    _scatter(None)),
    "scatter_add": _scatter("scatter_add"),
    **dict.fromkeys(("searchsorted.Tensor", "searchsorted.Scalar"), _searchsorted),
    **dict.fromkeys(("bucketize.Tensor", "bucketize.Scalar"), _bucketize),
    "index.Tensor": _index,
    "index_select": _index_select,
    "gather": _gather,
    "select_scatter": _select_scatter,
    "slice_scatter": _slice_scatter,
    "index_put": _index_put,
}
