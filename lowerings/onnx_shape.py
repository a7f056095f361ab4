"""ONNX export rules of creation, shape, indexing and sorting ops.

Ops whose result depends on attributes only (`arange`, `eye`, `linspace`...) are
evaluated once by the NumPy reference and stored as constants, so they cannot differ
from it; where a size in them is symbolic, it is computed in the graph. Shapes the IR
knows statically are written as constants; the rules that need a static dimension say
so through `onnx.py`'s checks before anything is built.
"""

from __future__ import annotations

import numpy as np
from onnx import numpy_helper

from ivy_ir.core.evaluate import evaluate
from ivy_ir.core.rules import SCATTER_COMBINES, reshape_target
from ivy_ir.dialect.symbolic import SymDim
from ivy_ir.dialect.types import numpy_dtype

from .onnx_graph import OnnxContext
from .onnx_math import FLOATS, OnnxRule, all_axes

INT64_MIN = np.iinfo(np.int64).min


def _evaluated(c: OnnxContext) -> str:
    """An attribute-only op, evaluated by the reference and kept as a constant; a filled
    array of symbolic size is a `ConstantOfShape` of its size computed at run time."""
    if None in c.out.shape:
        fill = {"zeros": 0, "ones": 1}.get(c.op.SPEC.name, c.attrs.get("fill_value"))
        value = np.full([1], fill, numpy_dtype(c.out.dtype))
        return c.node("ConstantOfShape", [c.b.ints(c.attrs["shape"])],
                      value=numpy_helper.from_array(value))
    return c.b.const(evaluate(c.op.SPEC, [], c.attrs), c.out.dtype)


def _arange(c: OnnxContext) -> str:
    """A symbolic bound: `Range` in float64 over the bounds computed in the graph, cast
    to the dtype, as NumPy's `arange(...).astype(dtype)` (ONNX's element count,
    max(ceil((stop - start) / step), 0), is NumPy's too)."""
    if None not in c.out.shape:
        return _evaluated(c)

    def bound(v: float | SymDim) -> str:
        if not isinstance(v, SymDim):
            return c.b.const(v, "float64")
        return c.b.cast(c.node("Reshape", [c.b.ints([v]), c.b.ints([])]), "float64")

    a = c.attrs
    points = c.node("Range", [bound(a["start"]), bound(a["stop"]), bound(a["step"])])
    return points if c.out.dtype == "float64" else c.b.cast(points, c.out.dtype)


def _constant(c: OnnxContext) -> str:
    value = np.asarray(c.attrs["value"], dtype=numpy_dtype(c.out.dtype)).reshape(c.out.shape)
    return c.b.const(value)


def _filled(value: float | None) -> OnnxRule:
    """zeros_like/ones_like/full_like: a scalar of the result dtype expanded to x's shape."""
    def rule(c: OnnxContext) -> str:
        fill = c.attrs["fill_value"] if value is None else value
        return c.node("Expand", [c.b.const(fill, c.out.dtype), c.node("Shape", [c.x])])
    return rule


def _triangle(lower: bool) -> OnnxRule:
    """A mask of the kept triangle selects x or zero (any dtype): a constant where the
    matrix sizes are static, else `col - row <= k` (`>= k` for the upper one) over
    `Range`s to x's sizes (a causal mask of a dynamic length)."""
    def rule(c: OnnxContext) -> str:
        n, m = c.x_type.shape[-2:]
        k = c.attrs["k"]
        if n is None or m is None:
            rows, cols = (_positions(c, c.x_type.rank + i) for i in (-2, -1))
            offset = c.node("Sub", [cols, c.node("Unsqueeze", [rows, c.b.ints([1])])])
            keep = c.node("LessOrEqual" if lower else "GreaterOrEqual",
                          [offset, c.b.const(k, "int64")])
        else:
            keep = c.b.const(np.tri(n, m, k, dtype=bool) if lower else
                             ~np.tri(n, m, k - 1, dtype=bool))
        zero = c.b.const(np.zeros((), numpy_dtype(c.out.dtype)))
        if c.out.dtype == "bool":
            return c.node("And", [c.x, keep])
        return c.node("Where", [keep, c.x, zero])
    return rule


def _positions(c: OnnxContext, axis: int) -> str:
    """0, 1, ... along `axis` of x, to its size when the graph runs."""
    size = c.node("Reshape", [c.node("Shape", [c.x], start=axis, end=axis + 1), c.b.ints([])])
    return c.node("Range", [c.b.const(0, "int64"), size, c.b.const(1, "int64")])


def _one_hot(c: OnnxContext) -> str:
    """indices == arange(depth), the depth axis at `axis` (out-of-range: all zeros)."""
    axis, rank = c.attrs["axis"], c.out.rank
    depth = np.arange(c.attrs["depth"]).reshape((-1,) + (1,) * (rank - 1 - axis))
    idx = c.node("Unsqueeze", [c.args["indices"], c.b.ints([axis])])
    hot = c.node("Equal", [idx, c.b.const(depth.astype(numpy_dtype(c.x_type.dtype)))])
    return c.b.cast(hot, c.out.dtype)


def _reshape(c: OnnxContext) -> str:
    shape = reshape_target(c.out.shape)
    target = shape if None not in shape else c.attrs["shape"]
    return c.node("Reshape", [c.x, c.b.ints(target)], allowzero=int(0 in target))


def _squeeze(c: OnnxContext) -> str:
    axes = c.attrs["axis"]
    return c.node("Squeeze", [c.x, c.b.ints(axes)]) if axes else c.node("Identity", [c.x])


def _stack(c: OnnxContext) -> str:
    axis = c.b.ints([c.attrs["axis"]])
    return c.node("Concat", [c.node("Unsqueeze", [x, axis]) for x in c.args["xs"]],
                  axis=c.attrs["axis"])


def _split(c: OnnxContext) -> list[str]:
    sizes = c.attrs["sizes"]
    if len(sizes) == 1:
        return [c.node("Identity", [c.x])]
    outs = c.node("Split", [c.x, c.b.ints(sizes)], len(sizes), axis=c.attrs["axis"])
    return list(outs)


def _flip(c: OnnxContext) -> str:
    axes = all_axes(c)
    if not axes:
        return c.node("Identity", [c.x])
    k = len(axes)
    return c.node("Slice", [c.x, c.b.ints([-1] * k), c.b.ints([INT64_MIN] * k),
                            c.b.ints(axes), c.b.ints([-1] * k)])


def _take_range(c: OnnxContext, x: str, axis: int, start: int, stop: int) -> str:
    return c.node("Slice", [x, c.b.ints([start]), c.b.ints([stop]), c.b.ints([axis])])


def _roll(c: OnnxContext) -> str:
    """Each (shift, axis) pair as two slices concatenated (pairs may repeat an axis)."""
    x, axes, shape = c.x, c.attrs["axis"], c.x_type.shape
    if axes is None:
        x, axes, shape = c.node("Reshape", [x, c.b.ints([-1])]), [0] * len(c.attrs["shift"]), \
            (int(np.prod(c.x_type.shape, dtype=np.int64)),)
    for shift, axis in zip(c.attrs["shift"], axes):
        n = shape[axis]
        s = shift % n if n else 0
        if s:
            x = c.node("Concat", [_take_range(c, x, axis, n - s, n),
                                  _take_range(c, x, axis, 0, n - s)], axis=axis)
    if c.attrs["axis"] is None:
        return c.node("Reshape", [x, c.b.ints(c.x_type.shape)], allowzero=1)
    return x if x != c.x else c.node("Identity", [x])


def _tile(c: OnnxContext) -> str:
    reps, rank = list(c.attrs["reps"]), c.x_type.rank
    x = c.x
    if len(reps) > rank:
        x = c.node("Unsqueeze", [x, c.b.ints(range(len(reps) - rank))])
    reps = [1] * (rank - len(reps)) + reps
    return c.node("Tile", [x, c.b.ints(reps)])


def _repeat(c: OnnxContext) -> str:
    """Each element `repeats` times: a new axis after `axis`, tiled, then merged."""
    x, axis = c.x, c.attrs["axis"]
    if axis is None:
        x, axis = c.node("Reshape", [x, c.b.ints([-1])]), 0
    rank = 1 if c.attrs["axis"] is None else c.x_type.rank
    grown = c.node("Unsqueeze", [x, c.b.ints([axis + 1])])
    reps = [1] * (axis + 1) + [c.attrs["repeats"]] + [1] * (rank - axis - 1)
    tiled = c.node("Tile", [grown, c.b.ints(reps)])
    return c.node("Reshape", [tiled, c.b.ints(reshape_target(c.out.shape))], allowzero=1)


def _pad(c: OnnxContext) -> str:
    pw = c.attrs["pad_width"]
    if not pw:
        return c.node("Identity", [c.x])
    pads = list(pw[::2]) + list(pw[1::2])
    mode = c.attrs["mode"]
    value = [c.b.const(c.attrs["value"], c.x_type.dtype)] if mode == "constant" else []
    return c.node("Pad", [c.x, c.b.ints(pads), *value], mode=mode)


def _bounds(start: int, stop: int, step: int, dim: int | None) -> tuple[int, int, int]:
    """Python's slice bounds in ONNX's terms, resolved where the size is static: ONNX
    clamps a start before the axis into it under a negative step, where Python gives
    nothing, and reads an end of -1 as the last element."""
    if dim is None or not isinstance(stop, int):  # a symbolic stop: computed in the graph
        return start, stop, step
    first, last, step = slice(start, stop, step).indices(dim)
    if not range(first, last, step):
        return 0, 0, 1
    return first, INT64_MIN if last < 0 else last, step


def _slice(c: OnnxContext) -> str:
    a = c.attrs
    if not a["start"]:
        return c.node("Identity", [c.x])
    bounds = [_bounds(*b, d) for b, d in zip(zip(a["start"], a["stop"], a["step"]),
                                              c.x_type.shape)]
    starts, stops, steps = zip(*bounds)
    return c.node("Slice", [c.x, c.b.ints(starts), c.b.ints(stops),
                            c.b.ints(range(len(starts))), c.b.ints(steps)])


def _int64(c: OnnxContext, name: str) -> str:
    return c.args[name] if c.in_types[name].dtype == "int64" else c.b.cast(c.args[name], "int64")


def _take_along_axis(c: OnnxContext) -> str:
    """GatherElements on x and indices broadcast to the result's shape off the axis."""
    axis, out = c.attrs["axis"], c.out.shape
    x_shape = list(out)
    x_shape[axis] = c.x_type.shape[axis]
    x = c.node("Expand", [c.x, c.b.ints(x_shape)])
    idx = c.node("Expand", [c.args["indices"], c.b.ints(out)])
    return c.node("GatherElements", [x, idx], axis=axis)


def _scatter(reduction: str | None) -> OnnxRule:
    def rule(c: OnnxContext) -> str:
        idx, upd = _int64(c, "indices"), c.args["updates"]
        out = c.node("ScatterND", [c.x, idx, upd], reduction=reduction)
        if reduction not in ("max", "min") or c.out.dtype not in FLOATS:
            return out
        # onnxruntime's max/min scatters skip NaN (and lose x's value behind one): a
        # place that x or one of its updates makes NaN is NaN, counted by a scatter-add
        flags = [c.b.cast(c.node("IsNaN", [v]), c.out.dtype) for v in (c.x, upd)]
        nans = c.node("ScatterND", [flags[0], idx, flags[1]], reduction="add")
        return c.node("Where", [c.node("Greater", [nans, c.scalar(0)]), c.scalar(np.nan), out])
    return rule


_TOPK_WIDENED = frozenset({"int8", "int16", "uint8", "uint16", "uint32"})
"""Dtypes onnxruntime's TopK has no kernel for, sorted as int64 (which keeps order)."""


def _topk(c: OnnxContext, k: str, largest: bool) -> list[str]:
    dtype = c.x_type.dtype
    x = c.b.cast(c.x, "int64") if dtype in _TOPK_WIDENED else c.x
    values, idx = c.node("TopK", [x, k], 2, axis=c.attrs["axis"], largest=int(largest),
                         sorted=1)
    return [c.b.cast(values, dtype) if dtype in _TOPK_WIDENED else values, idx]


def _axis_length(c: OnnxContext) -> str:
    axis = c.attrs["axis"]
    return c.node("Shape", [c.x], start=axis, end=axis + 1)


def _float_order(c: OnnxContext, descending: bool) -> str:
    """The stable order of a float x along the axis (ties keep their order both ways).
    onnxruntime's TopK misplaces NaN (every comparison with it is false), so floats sort
    with NaN as +inf, and a second TopK on the NaN flags (ties kept) moves the NaNs
    last, or first when descending, where the IR's sort puts them."""
    axis, length = c.attrs["axis"], _axis_length(c)
    nan = c.node("IsNaN", [c.x])
    tamed = c.node("Where", [nan, c.scalar(np.inf), c.x])
    order = c.node("TopK", [tamed, length], 2, axis=axis, largest=int(descending),
                   sorted=1)[1]
    flags = c.node("GatherElements", [c.b.cast(nan, "int32"), order], axis=axis)
    last = c.node("TopK", [flags, length], 2, axis=axis, largest=int(descending),
                  sorted=1)[1]
    return c.node("GatherElements", [order, last], axis=axis)


def _sort(indices: bool) -> OnnxRule:
    """TopK over the whole axis; floats through `_float_order`."""
    def rule(c: OnnxContext) -> str:
        if c.x_type.rank == 0:
            return c.b.const(np.zeros((), np.int64)) if indices else c.node("Identity", [c.x])
        descending = c.attrs["descending"]
        if c.x_type.dtype not in FLOATS:
            return _topk(c, _axis_length(c), descending)[int(indices)]
        order = _float_order(c, descending)
        return order if indices else c.node("GatherElements", [c.x, order], axis=c.attrs["axis"])
    return rule


def _top_k(c: OnnxContext) -> list[str]:
    """The first k of the stable sort (descending for the largest): floats through
    `_float_order`, so NaN counts as the largest value."""
    k, axis = c.b.ints([c.attrs["k"]]), c.attrs["axis"]
    if c.x_type.dtype in FLOATS:
        zero = c.b.ints([0])
        idx = c.node("Slice", [_float_order(c, c.attrs["largest"]), zero, k, c.b.ints([axis])])
        values = c.node("GatherElements", [c.x, idx], axis=axis)
    else:
        values, idx = _topk(c, k, c.attrs["largest"])
    return [values, idx if c.out_types[1].dtype == "int64" else c.b.cast(idx, c.out_types[1].dtype)]


def _argwhere(c: OnnxContext) -> str:
    """NonZero gives the indices as (rank, count); a float NaN is nonzero in both."""
    x = c.x if c.x_type.dtype == "bool" else c.b.cast(c.x, "bool")
    if c.x_type.rank:
        return c.node("Transpose", [c.node("NonZero", [x])], perm=[1, 0])
    # onnxruntime reads a 0-d x as one element, indexed along one axis; that column goes
    rows = c.node("Transpose", [c.node("NonZero", [c.node("Reshape", [x, c.b.ints([1])])])],
                  perm=[1, 0])
    return c.node("Slice", [rows, c.b.ints([0]), c.b.ints([0]), c.b.ints([1])])


UNIQUE_DTYPES = frozenset({"float32", "float64", "int64", "int8"})
"""The dtypes onnxruntime's Unique kernel takes; the others are widened exactly first."""


def _unique(c: OnnxContext) -> list[str]:
    dtype = c.x_type.dtype
    wide = dtype if dtype in UNIQUE_DTYPES else "int8" if dtype == "bool" else \
        "float32" if dtype in FLOATS else "int64"
    x = c.x if wide == dtype else c.b.cast(c.x, wide)
    outs = c.node("Unique", [x], 4, axis=c.attrs.get("axis"), sorted=int(c.attrs["sorted"]))
    return [outs[0] if wide == dtype else c.b.cast(outs[0], dtype), *outs[1:]]


def _non_max_suppression(c: OnnxContext) -> str:
    a = c.attrs
    inputs = [c.args["boxes"], c.args["scores"], c.b.ints([a["max_output_boxes_per_class"]]),
              c.b.const(np.array([a["iou_threshold"]], np.float32))]
    if a.get("score_threshold") is not None:
        inputs.append(c.b.const(np.array([a["score_threshold"]], np.float32)))
    return c.node("NonMaxSuppression", inputs, center_point_box=int(a["center_point_box"]))


def _diagonal(c: OnnxContext) -> str:
    """The two axes moved last and merged; the diagonal's flat positions gathered."""
    a1, a2, off, rank = c.attrs["axis1"], c.attrs["axis2"], c.attrs["offset"], c.x_type.rank
    rest = [i for i in range(rank) if i not in (a1, a2)]
    moved = c.node("Transpose", [c.x], perm=rest + [a1, a2])
    n, m = c.x_type.shape[a1], c.x_type.shape[a2]
    flat = c.node("Reshape", [moved, c.b.ints([c.x_type.shape[i] for i in rest] + [n * m])],
                  allowzero=1)
    rows = np.arange(max(0, -off), max(0, min(n, m - off)))
    return c.node("Gather", [flat, c.b.const((rows * m + rows + off).astype(np.int64))],
                  axis=rank - 2)


def _gather_nd(c: OnnxContext) -> str:
    return c.node("GatherND", [c.x, _int64(c, "indices")])


SHAPE_RULES: dict[str, OnnxRule] = {
    "constant": _constant,
    **{op: _evaluated for op in ("full", "zeros", "ones", "eye", "linspace")},
    "arange": _arange,
    "tril": _triangle(lower=True),
    "triu": _triangle(lower=False),
    "one_hot": _one_hot,
    "zeros_like": _filled(0.0),
    "ones_like": _filled(1.0),
    "full_like": _filled(None),
    "broadcast_to": lambda c: c.node("Expand", [c.x, c.b.ints(c.attrs["shape"])]),
    "reshape": _reshape,
    "permute_dims": lambda c: c.node("Transpose", [c.x], perm=list(c.attrs["axes"])),
    "expand_dims": lambda c: c.node("Unsqueeze", [c.x, c.b.ints(c.attrs["axis"])]),
    "squeeze": _squeeze,
    "concat": lambda c: c.node("Concat", c.args["xs"], axis=c.attrs["axis"]),
    "stack": _stack,
    "split": _split,
    "flip": _flip,
    "roll": _roll,
    "tile": _tile,
    "repeat": _repeat,
    "pad": _pad,
    "slice": _slice,
    "take": lambda c: c.node("Gather", [c.x, c.args["indices"]], axis=c.attrs["axis"]),
    "take_along_axis": _take_along_axis,
    "gather_nd": _gather_nd,
    "scatter_nd": _scatter(None),
    **{op: _scatter(op.removeprefix("scatter_")) for op in SCATTER_COMBINES},
    "sort": _sort(indices=False),
    "argsort": _sort(indices=True),
    "top_k": _top_k,
    "argwhere": _argwhere,
    "unique": _unique,
    "non_max_suppression": _non_max_suppression,
    "diagonal": _diagonal,
    "det": lambda c: c.node("Det", [c.x]),
    "embedding": lambda c: c.node("Gather", [c.args["weight"], c.args["indices"]], axis=0),
}


__all__ = ["SHAPE_RULES"]
