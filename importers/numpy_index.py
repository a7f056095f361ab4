"""Indexing of traced NumPy arrays: `x[key]` and `x[key] = v` (`get_item`/`set_item`,
the session's indexing handlers), the view step of basic indexing, and the indexing
functions of the `INDEX` table (`np.take`, `np.take_along_axis`, `np.copyto`).

Basic indexing (ints, slices with any step, None, Ellipsis) makes a view: one `slice`,
`squeeze` and `expand_dims`, recorded as an `IndexStep` so writes through it reach the
parent. Advanced indexing follows NumPy's rules: integer arrays (constant or traced)
and constant boolean masks (turned into integer arrays here, as NumPy does) broadcast
together; their result dims go where the first one was when they are adjacent, else in
front. One array index is a `take`; several are a `gather_nd`. A boolean mask computed
from traced data selects a data-dependent number of elements: a `TraceError`, except
for assignment `x[mask] = v`, which is a `where`.

Assignment is functional: a block of unit-step slices is spliced in with `concat`;
other static keys scatter into the flat positions NumPy itself computes from the key
(the last write to a repeated position wins, as in NumPy).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.ir import SSAValue

from ivy_ir.dialect.types import INT64_MIN

from .common import Rule, Unmapped, spec_of
from .numpy_array import NpArray, Session
from .numpy_context import Call
from .numpy_shape import PermuteStep

Entry = Any
"""One normalised index item: None, an int, a slice, an int ndarray or an int NpArray."""


def _shape(v: SSAValue) -> tuple[int, ...]:
    return spec_of(v).shape  # type: ignore[return-value]


# ---- the view step ----

@dataclass(frozen=True)
class IndexStep:
    """A basic index: per input dim an int or a concrete (start, stop, step), and the
    positions in the result of the axes that None adds."""

    items: tuple[int | tuple[int, int, int], ...]
    new_axes: tuple[int, ...]

    def apply(self, s: Session, x: SSAValue) -> SSAValue:
        shape = _shape(x)
        bounds = [_op_bounds((i, i + 1, 1) if isinstance(i, int) else i) for i in self.items]
        if any(b != (0, n, 1) for b, n in zip(bounds, shape)):
            x = s.emit("slice", x, start=[b[0] for b in bounds], stop=[b[1] for b in bounds],
                       step=[b[2] for b in bounds])
        drop = [d for d, i in enumerate(self.items) if isinstance(i, int)]
        if drop:
            x = s.emit("squeeze", x, axis=drop)
        if self.new_axes:
            x = s.emit("expand_dims", x, axis=list(self.new_axes))
        return x

    def put(self, s: Session, x: SSAValue, new: SSAValue) -> SSAValue:
        shape = _shape(x)
        bounds = [(i, i + 1, 1) if isinstance(i, int) else i for i in self.items]
        region = tuple(len(range(*b)) for b in bounds)
        if 0 in region:
            return x
        if _shape(new) != region:
            new = s.emit("reshape", new, shape=list(region))
        if all(b[2] == 1 for b in bounds):
            return _put_block(s, x, new, [(b[0], b[1]) for b in bounds], 0)
        key = tuple(slice(*b) if b[1] >= 0 else slice(b[0], None, b[2]) for b in bounds)
        return scatter_positions(s, x, np.arange(int(np.prod(shape))).reshape(shape)[key], new)


def _op_bounds(b: tuple[int, int, int]) -> tuple[int, int, int]:
    """`slice.indices` bounds as the slice op reads them: -1 there means "before index
    0" (an open stop, or for a start an empty range), where the op reads the last index."""
    if not range(*b):
        return (0, 0, 1)
    return (b[0], INT64_MIN if b[1] < 0 else b[1], b[2])


# ---- keys ----

def _entries(s: Session, key: Any, shape: tuple[int, ...]) -> list[Entry]:
    """The key as one entry per input dim (plus None), Ellipsis expanded and constant
    boolean masks replaced by their integer positions, checked as NumPy checks it."""
    items: list[Any] = []
    for k in key if isinstance(key, tuple) else (key,):
        if isinstance(k, slice) and k.step is not None and k.step == 0:
            raise ValueError(f"{s.where}: slice step cannot be zero")
        if k is None or k is Ellipsis or isinstance(k, slice):
            items.append(k)
        elif isinstance(k, (bool, np.bool_)):
            raise s.trace_error("a boolean scalar index is not supported while tracing")
        elif isinstance(k, (int, np.integer)):
            items.append(int(k))
        elif isinstance(k, NpArray):
            if k.dtype.kind == "b":
                raise s.trace_error(
                    "boolean mask indexing with a mask computed from traced data selects a "
                    "data-dependent number of elements; use np.where(mask, x, other) or a "
                    "constant mask")
            if k.dtype.kind not in "iu":
                raise IndexError(f"{s.where}: arrays used as indices must be of integer "
                                 "(or boolean) type")
            items.append(k)
        else:
            arr = np.asarray(k)
            if arr.size == 0 and arr.dtype.kind == "f":
                arr = arr.astype(np.int64)
            if arr.dtype.kind == "b":
                items.append(("mask", arr))
            elif arr.dtype.kind in "iu":
                items.append(arr)
            else:
                raise IndexError(f"{s.where}: only integers, slices (`:`), ellipsis (`...`), "
                                 "numpy.newaxis (`None`) and integer or boolean arrays are "
                                 "valid indices")
    used = sum(it[1].ndim if isinstance(it, tuple) else 1 for it in items
               if it is not None and it is not Ellipsis)
    ellipses = [i for i, it in enumerate(items) if it is Ellipsis]
    if len(ellipses) > 1:
        raise IndexError(f"{s.where}: an index can only have a single ellipsis ('...')")
    if used > len(shape):
        raise IndexError(f"{s.where}: too many indices for array: array is "
                         f"{len(shape)}-dimensional, but {used} were indexed")
    fill = [slice(None)] * (len(shape) - used)
    if ellipses:
        items[ellipses[0]:ellipses[0] + 1] = fill
    else:
        items += fill
    out: list[Entry] = []
    dim = 0
    for it in items:
        if isinstance(it, tuple):
            mask = it[1]
            for j, (m, n) in enumerate(zip(mask.shape, shape[dim:])):
                if m != n:
                    raise IndexError(f"{s.where}: boolean index did not match indexed array "
                                     f"along axis {dim + j}; size of axis is {n} but size of "
                                     f"corresponding boolean axis is {m}")
            out += list(np.nonzero(mask))
            dim += mask.ndim
        else:
            out.append(it)
            dim += it is not None
    return out


def _basic(s: Session, entries: list[Entry], shape: tuple[int, ...]) -> IndexStep:
    items: list[int | tuple[int, int, int]] = []
    new_axes: list[int] = []
    out_pos = 0
    dims = iter(shape)
    for e in entries:
        if e is None:
            new_axes.append(out_pos)
            out_pos += 1
            continue
        n = next(dims)
        if isinstance(e, int):
            if not -n <= e < n:
                raise IndexError(f"{s.where}: index {e} is out of bounds for axis {len(items)} "
                                 f"with size {n}")
            items.append(e % n)
        else:
            items.append(e.indices(n))
            out_pos += 1
    return IndexStep(tuple(items), tuple(new_axes))


def _is_array(e: Entry) -> bool:
    return isinstance(e, (np.ndarray, NpArray))


def index_value(s: Session, e: Entry, n: int, axis: int) -> SSAValue | np.ndarray:
    """An index array for an axis of size `n` in [0, n): constants checked and wrapped
    here, traced ones wrapped by ops (NumPy accepts negative indices)."""
    if isinstance(e, NpArray):
        v = s.cast(e.value, np.int64)
        if e.dtype.kind == "u":
            return v
        zero, size = s.lift(0, np.int64), s.lift(n, np.int64)
        return s.emit("where", s.emit("less", v, zero), s.emit("add", v, size), v)
    arr = np.asarray(e, dtype=np.int64)
    bad = arr[(arr < -n) | (arr >= n)]
    if bad.size:
        raise IndexError(f"{s.where}: index {bad.flat[0]} is out of bounds for axis {axis} "
                         f"with size {n}")
    return np.where(arr < 0, arr + n, arr)


def _advanced(s: Session, x: SSAValue, entries: list[Entry]) -> SSAValue:
    if any(e is None for e in entries):
        x = s.emit("expand_dims", x, axis=[i for i, e in enumerate(entries) if e is None])
        entries = [slice(None) if e is None else e for e in entries]
    shape = _shape(x)
    bounds = [e.indices(n) if isinstance(e, slice) else (0, n, 1)
              for e, n in zip(entries, shape)]
    if any(b != (0, n, 1) for b, n in zip(bounds, shape)):
        x = IndexStep(tuple(bounds), ()).apply(s, x)
        shape = _shape(x)
    adv = [d for d, e in enumerate(entries) if not isinstance(e, slice)]
    idx = [index_value(s, entries[d], shape[d], d) for d in adv]
    if len(adv) == 1 and _is_array(entries[adv[0]]):
        return s.emit("take", x, s.lift(idx[0]), axis=adv[0])
    shapes = [i.shape if isinstance(i, np.ndarray) else _shape(i) for i in idx]
    try:
        common = np.broadcast_shapes(*shapes)
    except ValueError:
        raise IndexError(f"{s.where}: shape mismatch: indexing arrays could not be broadcast "
                         f"together with shapes {' '.join(map(str, shapes))}") from None
    if all(isinstance(i, np.ndarray) for i in idx):
        indices = s.lift(np.stack([np.broadcast_to(i, common) for i in idx], axis=-1))
    else:
        parts = [s.lift(i) for i in idx]
        parts = [p if _shape(p) == common else s.emit("broadcast_to", p, shape=list(common))
                 for p in parts]
        indices = s.emit("stack", parts, axis=-1)
    rest = [d for d in range(len(shape)) if d not in adv]
    x = PermuteStep(tuple(adv + rest)).apply(s, x)
    out = s.emit("gather_nd", x, indices)
    first, nb = adv[0], len(common)
    if adv == list(range(first, first + len(adv))) and first > 0:
        rank = nb + len(rest)
        out = PermuteStep(tuple(range(nb, nb + first)) + tuple(range(nb))
                          + tuple(range(nb + first, rank))).apply(s, out)
    return out


def get_item(a: NpArray, key: Any) -> NpArray:
    """`a[key]`: a view for a basic key, a new array for an advanced one."""
    s = a.session
    entries = _entries(s, key, a.shape)
    if not any(_is_array(e) for e in entries):
        return a.view(_basic(s, entries, a.shape))
    return s.new(_advanced(s, a.value, entries))


# ---- assignment ----

def _put_block(s: Session, x: SSAValue, v: SSAValue, region: list[tuple[int, int]],
               d: int) -> SSAValue:
    """`x` with the block `region` (unit-step [lo, hi) per dim from `d` on) set to `v`."""
    if d == len(region):
        return v
    lo, hi = region[d]
    n = _shape(x)[d]
    if (lo, hi) == (0, n):
        return _put_block(s, x, v, region, d + 1)

    def part(a: int, b: int) -> SSAValue:
        shape = _shape(x)
        start = [a if i == d else 0 for i in range(len(shape))]
        stop = [b if i == d else shape[i] for i in range(len(shape))]
        return s.emit("slice", x, start=start, stop=stop, step=[1] * len(shape))

    rest_full = all(region[k] == (0, _shape(x)[k]) for k in range(d + 1, len(region)))
    parts = [part(0, lo)] if lo > 0 else []
    parts.append(v if rest_full else _put_block(s, part(lo, hi), v, region, d + 1))
    parts += [part(hi, n)] if hi < n else []
    return s.emit("concat", parts, axis=d) if len(parts) > 1 else parts[0]


def scatter_positions(s: Session, x: SSAValue, positions: np.ndarray,
                      v: SSAValue) -> SSAValue:
    """`x` with the flat `positions` (shape of `v` after broadcasting) set to `v`; of
    repeated positions the last write wins, as in NumPy."""
    shape = _shape(x)
    if _shape(v) != positions.shape:
        v = s.emit("broadcast_to", v, shape=list(positions.shape))
    flat = positions.reshape(-1)
    updates = s.emit("reshape", v, shape=[flat.size])
    if np.unique(flat).size != flat.size:
        _, first_from_end = np.unique(flat[::-1], return_index=True)
        keep = np.sort(flat.size - 1 - first_from_end)
        flat = flat[keep]
        updates = s.emit("take", updates, s.lift(keep.astype(np.int64)), axis=0)
    size = int(np.prod(shape))
    flat_x = s.emit("reshape", x, shape=[size])
    out = s.emit("scatter_nd", flat_x, s.lift(flat.astype(np.int64)[:, None]), updates)
    return s.emit("reshape", out, shape=list(shape))


def set_item(a: NpArray, key: Any, value: Any) -> None:
    """`a[key] = value`: `a` (and every view of it) takes the updated contents."""
    s = a.session
    mask = key[0] if isinstance(key, tuple) and len(key) == 1 else key
    if isinstance(mask, NpArray) and mask.dtype.kind == "b":
        a.assign(_masked_assign(s, a, mask, value))
        return
    entries = _entries(s, key, a.shape)
    if any(isinstance(e, NpArray) for e in entries):
        raise s.trace_error("assignment through a traced index array is not supported (with "
                            "repeated indices its result depends on the data); use np.where "
                            "or np.add.at")
    dummy = a.dummy()
    try:
        dummy[key] = value.dummy() if isinstance(value, NpArray) else value
    except (ValueError, TypeError, IndexError, OverflowError) as exc:
        raise s.rethrow(exc, "assignment") from None
    v = s.lift(value, a.dtype)
    target = dummy[key].shape
    if not any(_is_array(e) for e in entries):
        step = _basic(s, entries, a.shape)
        if isinstance(value, NpArray) and value.is_view(a, step):
            return  # `x[k] op= v` already wrote through the view x[k]
        if not _shape(v):  # a scalar fills the region directly, no reshape needed
            target = tuple(1 if isinstance(i, int) else len(range(*i)) for i in step.items)
        if _shape(v) != target:
            v = s.emit("broadcast_to", v, shape=list(target))
        a.assign(step.put(s, a.value, v))
        return
    positions = np.arange(a.size).reshape(a.shape)[tuple(entries)]
    a.assign(scatter_positions(s, a.value, positions, v))


def _masked_assign(s: Session, a: NpArray, mask: NpArray, value: Any) -> SSAValue:
    """`x[mask] = v` for a traced mask: each selected element (or row, for a mask over
    leading dims) takes `v`, which must not depend on how many are selected."""
    if mask.shape != a.shape[:mask.ndim]:
        raise IndexError(f"{s.where}: boolean index of shape {mask.shape} does not match the "
                         f"indexed array of shape {a.shape}")
    rows = a.shape[mask.ndim:]
    vshape = value.shape if isinstance(value, NpArray) else np.shape(value)
    v = s.lift(value, a.dtype)
    if vshape and math.prod(vshape) == 1:  # one value for every selected element
        v, vshape = s.emit("reshape", v, shape=[]), ()
    try:
        ok = np.broadcast_shapes(vshape, rows) == rows
    except ValueError:
        ok = False
    if not ok:
        raise s.trace_error(f"x[mask] = v with a traced mask needs v to broadcast to one "
                            f"selected element {rows}; got shape {vshape}, which depends on "
                            "how many elements the mask selects")
    m = mask.value
    if rows:
        m = s.emit("expand_dims", m, axis=list(range(mask.ndim, a.ndim)))
    return s.emit("where", m, v, a.value)


# ---- indexing functions ----

def _take(c: Call, a: Any, indices: Any, axis: Any = None, out: Any = None,
          mode: str = "raise") -> NpArray:
    x = c.val(a)
    if axis is None:
        x, axis = c.emit("reshape", x, shape=[-1]), 0
    shape = spec_of(x).shape
    ax = int(axis) % len(shape)
    n = shape[ax]
    if mode != "raise":
        if isinstance(indices, NpArray):
            raise Unmapped("mode")
        idx = np.asarray(indices)
        indices = np.clip(idx, 0, n - 1) if mode == "clip" else np.mod(idx, n)
    idx = index_value(c.s, indices, n, ax)
    return c.new(c.emit("take", x, c.s.lift(idx), axis=ax))


def _take_along_axis(c: Call, arr: Any, indices: Any, axis: Any = -1) -> NpArray:
    x = c.val(arr)
    if axis is None:
        x, axis = c.emit("reshape", x, shape=[-1]), 0
    shape = spec_of(x).shape
    ax = int(axis) % len(shape)
    idx = index_value(c.s, indices, shape[ax], ax)
    return c.new(c.emit("take_along_axis", x, c.s.lift(idx), axis=ax))


def _copyto(c: Call, dst: Any, src: Any, casting: str = "same_kind", where: Any = True) -> None:
    if not isinstance(dst, NpArray):
        raise c.s.trace_error("numpy.copyto into a NumPy array cannot be traced")
    v = c.s.lift(src, dst.dtype)
    if where is not True:
        v = c.emit("where", c.s.lift(where, np.bool_), v, dst.value)
    if spec_of(v).shape != dst.shape:
        v = c.emit("broadcast_to", v, shape=list(dst.shape))
    dst.assign(v)
    return None


INDEX: dict[str, Rule] = {
    "take": _take, "take_along_axis": _take_along_axis, "copyto": _copyto,
}
"""NumPy function name -> its rule (see `numpy_context`)."""
