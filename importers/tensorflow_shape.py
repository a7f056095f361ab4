"""TF shape ops -> ivy ops: static shape queries, reshapes, transposes, joining and
splitting, padding, tiling, static slices, and creation from static shapes.

Shapes are static per trace, so every shape-like operand (a `Reshape` target, a
`StridedSlice` bound, `Pad` widths) is either known at import time or the op is
reported as unsupported; output shapes come from TF's own shape inference. Shape
queries (`Shape`, `Size`, `Rank`) are known arrays read off TF's static types; with
dynamic dims (`tensorflow_dims`), `Shape` and `Size` of a value whose sizes are followed
are `Sizes` holding size expressions, which `tensorflow_sizes` folds.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ivy_ir.dialect.symbolic import SymDim
from ivy_ir.dialect.types import INT64_MAX, INT64_MIN, numpy_dtype

from .common import Rule, Unmapped
from .tensorflow_ctx import Ctx, sizes_value


def _shape_of(c: Ctx, x: Any) -> tuple[int | SymDim, ...]:
    """The sizes of `x`: static ones, or dynamic ones as expressions of the input dims
    where the importer follows them (`tensorflow_dims`)."""
    spec = c.spec_or_none(x)
    if spec is None:
        raise Unmapped("dynamic shape")
    if None not in spec.shape:
        return spec.shape  # type: ignore[return-value]
    sizes = c.symbolic_shape(x)
    if sizes is None:
        at = next((i for i, v in enumerate(c.inputs) if v is x), None)
        made_by = "an op" if at is None else c.op.inputs[at].op.type
        raise Unmapped(f"dynamic shape: the sizes of a {made_by} result {spec} have no "
                       "expression in the input dims (sizes are followed only through ops "
                       "whose result sizes follow from their operands')")
    return sizes


def _vector(sizes: tuple[int | SymDim, ...], dtype: str) -> Any:
    entries = np.empty(len(sizes), dtype=object)
    entries[:] = sizes
    return sizes_value(entries, dtype)


def _shape(c: Ctx, x: Any, **_: Any) -> Any:
    return _vector(_shape_of(c, x), c.out.dtype)


def _shape_n(c: Ctx, *xs: Any, **_: Any) -> list[Any]:
    return [_vector(_shape_of(c, x), out.dtype) for x, out in zip(xs, c.outs)]


def _size(c: Ctx, x: Any, **_: Any) -> Any:
    total: Any = 1
    for d in _shape_of(c, x):
        total = total * d
    return sizes_value(np.array(total, dtype=object), c.out.dtype)


def _rank(c: Ctx, x: Any, **_: Any) -> np.ndarray:
    return np.asarray(c.rank(x), np.int32)


def _broadcast_args(c: Ctx, s0: Any, s1: Any, **_: Any) -> np.ndarray:
    shape = np.broadcast_shapes(tuple(c.ints(s0, "shape")), tuple(c.ints(s1, "shape")))
    return np.asarray(shape, numpy_dtype(c.out.dtype))


def _to_shape(op: str) -> Rule:
    """Reshape and BroadcastTo, whose shape operand is known at import time; one that
    keeps the shape is the identity."""
    def rule(c: Ctx, x: Any, shape: Any, **_: Any) -> Any:
        target = c.ints(shape, "shape")
        if list(c.spec(x).shape) == target:
            return c.operand(x)
        return c.emit(op, x, shape=target)
    return rule


def _transpose(c: Ctx, x: Any, perm: Any, **_: Any) -> Any:
    return c.emit("permute_dims", x, axes=c.ints(perm, "perm"))


def _expand_dims(c: Ctx, x: Any, dim: Any, **_: Any) -> Any:
    return c.emit("expand_dims", x, axis=c.ints(dim, "axis"))


def _squeeze(c: Ctx, x: Any, *, squeeze_dims: list[int], **_: Any) -> Any:
    rank = c.rank(x)
    axes = [a % rank for a in squeeze_dims] or \
        [i for i, d in enumerate(c.spec(x).shape) if d == 1]
    return c.emit("squeeze", x, axis=axes)


def _concat(c: Ctx, xs: tuple[Any, ...], axis_: Any) -> Any:
    (axis,) = c.ints(axis_, "axis")
    parts = [c.operand(x) for x in xs]
    return parts[0] if len(parts) == 1 else c.emit("concat", parts, axis=axis)


def _pack(c: Ctx, *xs: Any, axis: int, **_: Any) -> Any:
    return c.emit("stack", list(xs), axis=axis)


def _unpack(c: Ctx, x: Any, *, num: int, axis: int, **_: Any) -> list[Any]:
    axis %= c.rank(x)
    parts = c.emit_all("split", x, sizes=[1] * num, axis=axis)
    return [c.emit("squeeze", p, axis=[axis]) for p in parts]


def _split(c: Ctx, x: Any, axis_: Any, sizes: list[int] | None, num_split: int) -> list[Any]:
    axis = c.ints(axis_, "axis")[0] % c.rank(x)
    dim = c.spec(x).shape[axis]
    if dim is None and (sizes is None or -1 in sizes):
        raise Unmapped("split of a dynamic dim into parts of unknown size")
    if sizes is None:
        sizes = [dim // num_split] * num_split
    elif -1 in sizes:
        sizes[sizes.index(-1)] = dim - (sum(sizes) + 1)
    return c.emit_all("split", x, sizes=sizes, axis=axis)


def _split_v(c: Ctx, x: Any, size_splits: Any, axis: Any, *, num_split: int,
             **_: Any) -> list[Any]:
    return _split(c, x, axis, c.ints(size_splits, "size_splits"), num_split)


def _tile(c: Ctx, x: Any, multiples: Any, **_: Any) -> Any:
    return c.emit("tile", x, reps=c.ints(multiples, "multiples"))


def _pad(c: Ctx, x: Any, paddings: Any, *value: Any, **_: Any) -> Any:
    widths = c.ints(paddings, "paddings")
    fill = float(c.static(value[0], "pad value")) if value else 0.0
    return c.emit("pad", x, pad_width=widths, value=fill)


def _mirror_pad(c: Ctx, x: Any, paddings: Any, *, mode: str, **_: Any) -> Any:
    widths = c.ints(paddings, "paddings")
    if mode == "REFLECT":
        return c.emit("pad", x, pad_width=widths, mode="reflect")
    # SYMMETRIC repeats the edge element: per axis, flipped edge slices around x
    shape = list(c.spec(x).shape)
    x = c.operand(x)
    for axis, (lo, hi) in enumerate(zip(widths[::2], widths[1::2])):
        if not lo and not hi:
            continue
        if shape[axis] is None:
            raise Unmapped("symmetric padding of a dynamic dim")
        parts = [_edge(c, x, shape, axis, 0, lo)] if lo else []
        parts.append(x)
        if hi:
            parts.append(_edge(c, x, shape, axis, shape[axis] - hi, shape[axis]))
        x = c.emit("concat", parts, axis=axis)
        shape[axis] += lo + hi
    return x


def _edge(c: Ctx, x: Any, shape: list[int], axis: int, start: int, stop: int) -> Any:
    starts, stops = [0] * len(shape), list(shape)
    starts[axis], stops[axis] = start, stop
    part = c.emit("slice", x, start=starts, stop=stops, step=[1] * len(shape))
    return c.emit("flip", part, axis=[axis])


def strided_index(c: Ctx, begin: Any, end: Any, strides: Any,
                  masks: dict[str, int]) -> tuple[Any, ...]:
    """A StridedSlice as the NumPy basic index it mirrors (masks resolved)."""
    bounds = zip(c.ints(begin, "begin"), c.ints(end, "end"), c.ints(strides, "strides"))
    index: list[Any] = []
    for i, (b, e, s) in enumerate(bounds):
        bit = 1 << i
        if masks["ellipsis"] & bit:
            index.append(Ellipsis)
        elif masks["new_axis"] & bit:
            index.append(None)
        elif masks["shrink_axis"] & bit:
            index.append(b)
        else:
            index.append(slice(None if masks["begin"] & bit else b,
                               None if masks["end"] & bit else e, s))
    return tuple(index)


def _strided_slice(c: Ctx, x: Any, begin: Any, end: Any, strides: Any, *, begin_mask: int = 0,
                   end_mask: int = 0, ellipsis_mask: int = 0, new_axis_mask: int = 0,
                   shrink_axis_mask: int = 0, **_: Any) -> Any:
    """Per input axis one (start, stop, step) of an `ivy.slice`, then one reshape that
    drops the shrunk axes and inserts the new ones (a squeeze and an expand_dims where a
    dim is dynamic)."""
    masks = {"begin": begin_mask, "end": end_mask, "ellipsis": ellipsis_mask,
             "new_axis": new_axis_mask, "shrink_axis": shrink_axis_mask}
    index = list(strided_index(c, begin, end, strides, masks))
    shape = c.spec(x).shape
    if Ellipsis not in index:
        index.append(Ellipsis)
    at = index.index(Ellipsis)
    consumed = sum(1 for v in index if v is not None and v is not Ellipsis)
    index[at:at + 1] = [slice(None)] * (len(shape) - consumed)
    start, stop, step, out_shape = [], [], [], []
    shrunk, new = [], []
    dims = iter(enumerate(shape))
    for v in index:
        if v is None:
            new.append(len(out_shape))
            out_shape.append(1)
            continue
        axis, dim = next(dims)
        if isinstance(v, slice):
            out_shape.append(None if dim is None else len(range(*v.indices(dim))))
            s = 1 if v.step is None else v.step
            start.append(v.start if v.start is not None else INT64_MIN if s > 0 else INT64_MAX)
            stop.append(v.stop if v.stop is not None else INT64_MAX if s > 0 else INT64_MIN)
            step.append(s)
        else:  # an index into a dynamic dim counts from its end when negative
            first = v if dim is None else v % dim
            shrunk.append(axis)
            start.append(first)
            stop.append(INT64_MAX if first == -1 else first + 1)
            step.append(1)
    x = c.operand(x)
    full = all(a == INT64_MIN and b == INT64_MAX and s == 1 for a, b, s in zip(start, stop, step))
    if not full:
        x = c.emit("slice", x, start=start, stop=stop, step=step)
    if None in shape:
        if shrunk:
            x = c.emit("squeeze", x, axis=shrunk)
        return c.emit("expand_dims", x, axis=new) if new else x
    sliced = [len(range(*slice(a, b, s).indices(d)))
              for a, b, s, d in zip(start, stop, step, shape)]
    if out_shape != sliced:
        x = c.emit("reshape", x, shape=out_shape)
    return x


def _slice(c: Ctx, x: Any, begin: Any, size: Any, **_: Any) -> Any:
    start, sizes = c.ints(begin, "begin"), c.ints(size, "size")
    stop = [(INT64_MAX if d is None else d) if n == -1 else b + n
            for b, n, d in zip(start, sizes, c.spec(x).shape)]
    return c.emit("slice", x, start=start, stop=stop, step=[1] * len(start))


def _reverse(c: Ctx, x: Any, axis: Any, **_: Any) -> Any:
    axes = c.axes(axis, c.rank(x))
    return c.emit("flip", x, axis=axes) if axes else c.operand(x)


def _roll(c: Ctx, x: Any, shift: Any, axis: Any, **_: Any) -> Any:
    shifts, axes = c.ints(shift, "shift"), c.ints(axis, "axis")
    x = c.operand(x)
    return c.emit("roll", x, shift=shifts, axis=[a % c.rank(x) for a in axes])


def _range(c: Ctx, *bounds: Any, **_: Any) -> Any:
    start, stop, step = (float(c.static(v, "range bound")) for v in bounds)
    return c.emit("arange", start=start, stop=stop, step=step, dtype=c.out.dtype)


def _linspace(c: Ctx, start: Any, stop: Any, num: Any, **_: Any) -> Any:
    first, last = (float(c.static(v, "linspace bound")) for v in (start, stop))
    (n,) = c.ints(num, "num")
    return c.emit("linspace", start=first, stop=last, num=n, dtype=c.out.dtype)


def _fill(c: Ctx, dims: Any, value: Any, **_: Any) -> Any:
    shape = c.ints(dims, "dims")
    if isinstance(value, np.ndarray) and float(value) == value:
        return c.emit("full", shape=shape, fill_value=float(value), dtype=c.out.dtype)
    return c.emit("broadcast_to", value, shape=shape)


def _like(op: str) -> Rule:
    return lambda c, x, **_: c.emit(op, x)


SHAPE: dict[str, Rule] = {
    "Shape": _shape, "ShapeN": _shape_n, "Size": _size, "Rank": _rank,
    "BroadcastArgs": _broadcast_args, "Reshape": _to_shape("reshape"),
    "BroadcastTo": _to_shape("broadcast_to"), "Transpose": _transpose,
    "ExpandDims": _expand_dims, "Squeeze": _squeeze,
    "ConcatV2": lambda c, *xs, **_: _concat(c, xs[:-1], xs[-1]),
    "Concat": lambda c, axis, *xs, **_: _concat(c, xs, axis), "Pack": _pack, "Unpack": _unpack,
    "Split": lambda c, axis, x, *, num_split, **_: _split(c, x, axis, None, num_split),
    "SplitV": _split_v, "Tile": _tile, "Pad": _pad, "PadV2": _pad, "MirrorPad": _mirror_pad,
    "StridedSlice": _strided_slice, "Slice": _slice, "ReverseV2": _reverse, "Roll": _roll,
    "Range": _range, "LinSpace": _linspace, "Fill": _fill,
    "ZerosLike": _like("zeros_like"), "OnesLike": _like("ones_like"),
}
"""TF raw op -> rule: shapes, joining and splitting, padding, tiling, static slices and
creation."""
