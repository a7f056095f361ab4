"""gather and the scatters (set, add, sub, mul, max, min) with their dimension numbers ->
take, take_along_axis, gather_nd, scatter_nd and the combining scatters.

Every pattern goes through one normal form: the operand permuted so that the indexed
dims come first, and full element indices `(batch..., window..., k)`. Batching dims
become extra index components (an iota), window dims of an indexed axis become index
offsets, and partial windows of other axes become an index component starting at 0.
`x[i]`, `jnp.take` and `x.at[i].set/add` then need no extra op; `take_along_axis` has
its own direct form. Out-of-range modes are reproduced exactly: CLIP clamps the
indices, FILL_OR_DROP fills gathered rows (and drops scattered windows by sending them
to a padding slot that is cut off afterwards).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ivy_ir.core.rules import SCATTER_COMBINES
from ivy_ir.dialect.types import numpy_dtype

from .common import Rule, Unmapped
from .jax_ctx import Ctx, Value
from .jax_shape import iota, static_slice


@dataclass
class _Plan:
    """A gather/scatter in normal form over operand `x` of shape `shape`."""

    dims: list[int]         # operand dims addressed by the index components, in order
    windowed: list[int]     # of `dims`, those keeping a window axis (not collapsed)
    rest: list[int]         # operand dims taken whole, in operand order
    base: Value             # (batch..., k) window start indices
    bounds: list[int]       # largest valid start per component
    batch: tuple[int, ...]  # batch shape of the indices
    sizes: list[int]        # window size per component

    def labels(self) -> list[tuple[str, int]]:
        """Axis labels of `gather_nd(permuted x, full indices)`: batch, window, rest."""
        return [("b", i) for i in range(len(self.batch))] + \
            [("o", d) for d in self.windowed] + [("o", d) for d in self.rest]


def _mode(ctx: Ctx, mode: Any) -> str:
    mode = str(mode)
    for name in ("CLIP", "FILL_OR_DROP", "PROMISE_IN_BOUNDS"):
        if name in mode:
            return name
    raise Unmapped(f"{ctx.primitive} in mode {mode}")


def _plan(ctx: Ctx, shape: tuple[int, ...], idx: Value, index_map: tuple[int, ...],
          collapsed: tuple[int, ...], sizes: list[int], batching: tuple[int, ...],
          idx_batching: tuple[int, ...]) -> _Plan:
    idx = ctx.cast(idx, "int64") if ctx.spec(idx).dtype not in ("int32", "int64") else idx
    dtype = ctx.spec(idx).dtype
    batch = ctx.spec(idx).shape[:-1]
    parts, dims = [idx], list(index_map)
    for od, q in zip(batching, idx_batching):  # batching dim: the batch position itself
        parts.append(_expand_last(ctx, iota(ctx, batch, q, dtype)))
        dims.append(od)
    collapsed = tuple(collapsed) + tuple(batching)
    for d in range(len(shape)):  # partial windows of unindexed axes start at 0
        if d not in dims and (d in collapsed or sizes[d] < shape[d]):
            parts.append(np.zeros(batch + (1,), numpy_dtype(dtype)))
            dims.append(d)
    base = parts[0] if len(parts) == 1 else _concat_last(ctx, parts)
    return _Plan(dims, [d for d in dims if d not in collapsed],
                 [d for d in range(len(shape)) if d not in dims], base,
                 [shape[d] - sizes[d] for d in dims], batch, [sizes[d] for d in dims])


def _expand_last(ctx: Ctx, v: Value) -> Value:
    known = ctx.known(v)
    return known[..., None] if known is not None else ctx.emit("expand_dims", v, axis=[-1])


def _concat_last(ctx: Ctx, parts: list[Value]) -> Value:
    if all(ctx.known(p) is not None for p in parts):
        return np.concatenate(parts, axis=-1)
    batch = ctx.spec(parts[0]).shape[:-1]
    parts = [ctx.emit("broadcast_to", p, shape=list(batch) + [ctx.spec(p).shape[-1]])
             if ctx.spec(p).shape[:-1] != batch else p for p in parts]
    return ctx.emit("concat", parts, axis=-1)


def _valid(ctx: Ctx, plan: _Plan) -> Value | None:
    """Batch-shaped mask of in-range windows, or None when all are known to be."""
    known = ctx.known(plan.base)
    bounds = np.asarray(plan.bounds, known.dtype if known is not None else
                        numpy_dtype(ctx.spec(plan.base).dtype))
    if known is not None:
        ok = np.all((known >= 0) & (known <= bounds), axis=-1)
        return None if ok.all() else ok
    inside = ctx.emit("logical_and", ctx.emit("greater_equal", plan.base, np.zeros_like(bounds)),
                      ctx.emit("less_equal", plan.base, bounds))
    return ctx.emit("all", inside, axis=[-1])


def _clamp(ctx: Ctx, plan: _Plan) -> Value:
    known = ctx.known(plan.base)
    if known is not None:
        return np.clip(known, 0, np.asarray(plan.bounds, known.dtype))
    bounds = np.asarray(plan.bounds, numpy_dtype(ctx.spec(plan.base).dtype))
    low = ctx.emit("maximum", plan.base, np.zeros_like(bounds))
    return ctx.emit("minimum", low, bounds)


def _elements(ctx: Ctx, plan: _Plan, base: Value) -> Value:
    """Per-element indices `(batch..., window..., k)`: window offsets added to starts."""
    if not plan.windowed:
        return base
    wsizes = [plan.sizes[plan.dims.index(d)] for d in plan.windowed]
    offsets = np.zeros(wsizes + [len(plan.dims)], numpy_dtype(ctx.spec(base).dtype))
    for i, d in enumerate(plan.windowed):
        shape = [1] * len(wsizes)
        shape[i] = wsizes[i]
        offsets[..., plan.dims.index(d)] += np.arange(wsizes[i]).reshape(shape)
    known = ctx.known(base)
    new_shape = list(plan.batch) + [1] * len(wsizes) + [len(plan.dims)]
    if known is not None and known.size * offsets.size <= 4096:
        return known.reshape(new_shape) + offsets
    return ctx.emit("add", ctx.emit("reshape", base, shape=new_shape), offsets)


def _order(current: list[tuple[str, int]], positions: tuple[int, ...],
           offset_dims: list[int]) -> list[int]:
    """Permutation from `current` labels to the layout JAX uses: operand window dims at
    `positions`, batch dims elsewhere in order."""
    rank = len(current)
    windows, batches = iter(("o", d) for d in offset_dims), iter(
        ("b", i) for i in range(rank - len(offset_dims)))
    desired = [next(windows) if p in positions else next(batches) for p in range(rank)]
    return [current.index(label) for label in desired]


def _permute(ctx: Ctx, x: Value, axes: list[int]) -> Value:
    return x if axes == sorted(axes) else ctx.emit("permute_dims", x, axes=axes)


def _fill_value(fill: Any, dtype: np.dtype) -> np.ndarray:
    if fill is not None:
        return np.asarray(fill, dtype)
    if dtype.kind == "f" or dtype.name == "bfloat16":
        return np.asarray(np.nan, dtype)
    if dtype.kind == "b":
        return np.asarray(True)
    return np.asarray(np.iinfo(dtype).min if dtype.kind == "i" else np.iinfo(dtype).max, dtype)


def _gather(ctx: Ctx, x: Value, idx: Value, *, dimension_numbers: Any,
            slice_sizes: Sequence[int], mode: Any = None, fill_value: Any = None,
            **_: Any) -> Value:
    dn = dimension_numbers
    shape, sizes = ctx.spec(x).shape, list(slice_sizes)
    mode = _mode(ctx, mode)
    direct = _take_along_axis(ctx, x, idx, dn, slice_sizes, mode, fill_value)
    if direct is not None:
        return direct
    plan = _plan(ctx, shape, idx, tuple(dn.start_index_map), tuple(dn.collapsed_slice_dims),
                 sizes, tuple(dn.operand_batching_dims), tuple(dn.start_indices_batching_dims))
    valid = _valid(ctx, plan) if mode == "FILL_OR_DROP" else None
    base = _clamp(ctx, plan) if mode == "CLIP" or valid is not None else plan.base
    current = plan.labels()
    if len(plan.dims) == 1 and not plan.windowed:  # one indexed axis: take
        axis = plan.dims[0]
        index = base[..., 0] if ctx.known(base) is not None else ctx.emit("squeeze", base,
                                                                        axis=[-1])
        out = ctx.emit("take", x, index, axis=axis)
        current = [("o", d) for d in plan.rest if d < axis] + current[:len(plan.batch)] + \
            [("o", d) for d in plan.rest if d > axis]
    else:
        moved = _permute(ctx, x, plan.dims + plan.rest)
        out = ctx.emit("gather_nd", moved, _elements(ctx, plan, base))
    offsets = sorted(plan.windowed + plan.rest)
    out = _permute(ctx, out, _order(current, tuple(dn.offset_dims), offsets))
    if valid is None:
        return out
    keep = ctx.emit("expand_dims", valid, axis=list(dn.offset_dims)) if dn.offset_dims \
        else valid
    return ctx.emit("where", keep, out, _fill_value(fill_value, numpy_dtype(ctx.spec(x).dtype)))


def _take_along_axis(ctx: Ctx, x: Value, idx: Value, dn: Any, sizes: Sequence[int],
                     mode: str, fill_value: Any) -> Value | None:
    """The gather `jnp.take_along_axis` stages: one indexed axis, every other index dim
    batched with the same operand dim, unindexed operand dims broadcast whole."""
    shape = ctx.spec(x).shape
    if len(dn.start_index_map) != 1 or tuple(dn.collapsed_slice_dims) != \
            tuple(dn.start_index_map) or not dn.operand_batching_dims or mode == "CLIP":
        return None
    axis = dn.start_index_map[0]
    offsets = [d for d in range(len(shape)) if d != axis and d not in dn.operand_batching_dims]
    if list(dn.offset_dims) != offsets or any(sizes[d] != shape[d] for d in offsets):
        return None
    positions = [p for p in range(len(shape)) if p not in offsets]
    for q, p in enumerate(positions):  # index batch dim q lands at output position p
        paired = q in dn.start_indices_batching_dims
        want = dn.operand_batching_dims[list(dn.start_indices_batching_dims).index(q)] \
            if paired else axis
        if p != want:
            return None
    idx = ctx.cast(idx, "int64") if ctx.spec(idx).dtype not in ("int32", "int64") else idx
    plan = _Plan([axis], [], [], idx, [shape[axis] - 1], ctx.spec(idx).shape[:-1], [1])
    valid = _valid(ctx, plan) if mode == "FILL_OR_DROP" else None
    base = _clamp(ctx, plan) if valid is not None else plan.base
    index = base[..., 0] if ctx.known(base) is not None else ctx.emit("squeeze", base, axis=[-1])
    if offsets:
        index = ctx.emit("expand_dims", index, axis=offsets)
    out = ctx.emit("take_along_axis", x, index, axis=axis)
    if valid is None:
        return out
    keep = ctx.emit("expand_dims", valid, axis=offsets) if offsets else valid
    return ctx.emit("where", keep, out, _fill_value(fill_value, numpy_dtype(ctx.spec(x).dtype)))


def _scatter(op: str) -> Rule:
    def rule(ctx: Ctx, x: Value, idx: Value, updates: Value, *, dimension_numbers: Any,
             mode: Any = None, **_: Any) -> Value:
        dn = dimension_numbers
        shape, ushape = ctx.spec(x).shape, ctx.spec(updates).shape
        inserted = tuple(dn.inserted_window_dims) + tuple(dn.operand_batching_dims)
        window = iter(ushape[p] for p in dn.update_window_dims)
        sizes = [1 if d in inserted else next(window) for d in range(len(shape))]
        plan = _plan(ctx, shape, idx, tuple(dn.scatter_dims_to_operand_dims),
                     tuple(dn.inserted_window_dims), sizes, tuple(dn.operand_batching_dims),
                     tuple(dn.scatter_indices_batching_dims))
        mode = _mode(ctx, mode)
        valid = _valid(ctx, plan) if mode == "FILL_OR_DROP" else None
        base = _clamp(ctx, plan) if mode == "CLIP" else plan.base
        offsets = sorted(plan.windowed + plan.rest)
        order = _order(plan.labels(), tuple(dn.update_window_dims), offsets)
        updates = _permute(ctx, updates, [int(i) for i in np.argsort(order)])
        moved = _permute(ctx, x, plan.dims + plan.rest)
        k = len(plan.dims)
        if valid is not None:  # dropped windows land in a padding slot cut off below
            width = [q for size in plan.sizes for q in (0, size)]
            moved = ctx.emit("pad", moved, pad_width=width + [0, 0] * len(plan.rest))
            slot = np.asarray([shape[d] for d in plan.dims],
                              numpy_dtype(ctx.spec(base).dtype))
            base = ctx.emit("where", _expand_last(ctx, valid), base, slot)
        out = ctx.emit(op, moved, _elements(ctx, plan, base), updates)
        if valid is not None:
            out = static_slice(ctx, out, [0] * (k + len(plan.rest)),
                               [shape[d] for d in plan.dims + plan.rest])
        return _permute(ctx, out, [int(i) for i in np.argsort(plan.dims + plan.rest)])
    return rule


INDEX: dict[str, Rule] = {
    "gather": _gather,
    "scatter": _scatter("scatter_nd"),
    **{f"scatter-{op.removeprefix('scatter_')}": _scatter(op) for op in SCATTER_COMBINES},
    "scatter-sub": lambda ctx, x, idx, updates, **kw: _scatter("scatter_add")(
        ctx, x, idx, ctx.emit("negative", updates), **kw),
}
"""Indexing lax primitive name -> rule."""
