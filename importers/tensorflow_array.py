"""TF array ops -> ivy ops: shapes, slicing, gathers and scatters, creation, and the
graph plumbing (identities, constants, variables, function calls).

Shapes are static per trace, so every shape-like operand (a `Reshape` target, a
`StridedSlice` bound, `Pad` widths) is either known at import time or the op is
reported as unsupported; output shapes come from TF's own shape inference.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from importers.tensorflow_math import axes_of
from importers.tensorflow_walk import Handler, OpCtx, Unmapped, VarRef
from ivy_ir.dialect.types import INT64_MAX, INT64_MIN, numpy_dtype


def _identity(c: OpCtx) -> list[Any]:
    # Identity, IdentityN, StopGradient, ...: values pass through (known arrays stay known)
    return [c.raw(i) for i in range(c.n_inputs)]


def _const(c: OpCtx) -> np.ndarray:
    import tensorflow as tf

    if c.outs[0] is None:
        raise Unmapped(f"constant of dtype {c.op.outputs[0].dtype.name}")
    return np.asarray(tf.make_ndarray(c.op.get_attr("value")))


def _shape_of(c: OpCtx, i: int) -> tuple[int, ...]:
    spec = c.ins[i]
    if spec is None or None in spec.shape:
        raise Unmapped("dynamic shape")
    return spec.shape  # type: ignore[return-value]


def _shape(c: OpCtx) -> np.ndarray:
    return np.asarray(_shape_of(c, 0), numpy_dtype(c.outs[0].dtype))


def _shape_n(c: OpCtx) -> list[np.ndarray]:
    return [np.asarray(_shape_of(c, i), numpy_dtype(c.outs[i].dtype)) for i in range(c.n_inputs)]


def _size(c: OpCtx) -> np.ndarray:
    return np.asarray(int(np.prod(_shape_of(c, 0))), numpy_dtype(c.outs[0].dtype))


def _rank(c: OpCtx) -> np.ndarray:
    return np.asarray(c.rank(0), np.int32)


def _broadcast_args(c: OpCtx) -> np.ndarray:
    shape = np.broadcast_shapes(tuple(c.ints(0, "shape")), tuple(c.ints(1, "shape")))
    return np.asarray(shape, numpy_dtype(c.outs[0].dtype))


def _to_shape(op: str) -> Handler:
    """Reshape and BroadcastTo, whose shape operand is known at import time; one that
    keeps the shape is the identity."""
    def handler(c: OpCtx) -> Any:
        shape = c.ints(1, "shape")
        if list(c.ins[0].shape) == shape:
            return c.x(0)
        return c.emit(op, [c.x(0)], shape=shape)
    return handler


def _where(c: OpCtx) -> np.ndarray:
    # the coordinates of the true elements: only for a condition known at import time
    return np.argwhere(c.static(0, "condition")).astype(np.int64)


def _transpose(c: OpCtx) -> Any:
    return c.emit("permute_dims", [c.x(0)], axes=c.ints(1, "perm"))


def _expand_dims(c: OpCtx) -> Any:
    return c.emit("expand_dims", [c.x(0)], axis=c.ints(1, "axis"))


def _squeeze(c: OpCtx) -> Any:
    rank = c.rank(0)
    axes = [a % rank for a in c.attr("squeeze_dims")] or \
        [i for i, d in enumerate(c.ins[0].shape) if d == 1]
    return c.emit("squeeze", [c.x(0)], axis=axes)


def _concat(first_axis: bool) -> Handler:
    """ConcatV2 (axis last) and Concat (axis first)."""
    def handler(c: OpCtx) -> Any:
        items = range(1, c.n_inputs) if first_axis else range(c.n_inputs - 1)
        (axis,) = c.ints(0 if first_axis else c.n_inputs - 1, "axis")
        xs = [c.x(i) for i in items]
        return xs[0] if len(xs) == 1 else c.emit("concat", [xs], axis=axis)
    return handler


def _pack(c: OpCtx) -> Any:
    return c.emit("stack", [[c.x(i) for i in range(c.n_inputs)]], axis=c.attr("axis"))


def _unpack(c: OpCtx) -> list[Any]:
    axis = c.attr("axis") % c.rank(0)
    parts = c.emit_all("split", [c.x(0)], sizes=[1] * c.attr("num"), axis=axis)
    return [c.emit("squeeze", [p], axis=[axis]) for p in parts]


def _split_sizes(c: OpCtx, value: int, axis_in: int, sizes: list[int] | None) -> list[Any]:
    axis = c.ints(axis_in, "axis")[0] % c.rank(value)
    dim = c.ins[value].shape[axis]
    if sizes is None:
        n = c.attr("num_split")
        sizes = [dim // n] * n
    elif -1 in sizes:
        sizes[sizes.index(-1)] = dim - (sum(sizes) + 1)
    return c.emit_all("split", [c.x(value)], sizes=sizes, axis=axis)


def _tile(c: OpCtx) -> Any:
    return c.emit("tile", [c.x(0)], reps=c.ints(1, "multiples"))


def _pad(c: OpCtx) -> Any:
    widths = c.ints(1, "paddings")
    value = 0.0
    if c.n_inputs > 2:
        value = float(c.static(2, "pad value"))
    return c.emit("pad", [c.x(0)], pad_width=widths, value=value)


def _mirror_pad(c: OpCtx) -> Any:
    widths = c.ints(1, "paddings")
    if c.attr("mode") == "REFLECT":
        return c.emit("pad", [c.x(0)], pad_width=widths, mode="reflect")
    # SYMMETRIC repeats the edge element: per axis, flipped edge slices around x
    x, shape = c.x(0), list(c.ins[0].shape)
    for axis, (lo, hi) in enumerate(zip(widths[::2], widths[1::2])):
        if not lo and not hi:
            continue
        parts = [_edge(c, x, shape, axis, 0, lo)] if lo else []
        parts.append(x)
        if hi:
            parts.append(_edge(c, x, shape, axis, shape[axis] - hi, shape[axis]))
        x = c.emit("concat", [parts], axis=axis)
        shape[axis] += lo + hi
    return x


def _edge(c: OpCtx, x: Any, shape: list[int], axis: int, start: int, stop: int) -> Any:
    starts, stops = [0] * len(shape), list(shape)
    starts[axis], stops[axis] = start, stop
    part = c.emit("slice", [x], start=starts, stop=stops, step=[1] * len(shape))
    return c.emit("flip", [part], axis=[axis])


def strided_index(c: OpCtx) -> tuple[Any, ...]:
    """A StridedSlice as the NumPy basic index it mirrors (masks resolved)."""
    begin, end, strides = (c.ints(i, name) for i, name in
                           ((1, "begin"), (2, "end"), (3, "strides")))
    masks = {m: c.attr(f"{m}_mask") for m in ("begin", "end", "ellipsis", "new_axis",
                                              "shrink_axis")}
    index: list[Any] = []
    for i, (b, e, s) in enumerate(zip(begin, end, strides)):
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


def _strided_slice(c: OpCtx) -> Any:
    """Per input axis one (start, stop, step) of an `ivy.slice`, then one reshape that
    drops the shrunk axes and inserts the new ones."""
    index = list(strided_index(c))
    shape = c.ins[0].shape
    if Ellipsis not in index:
        index.append(Ellipsis)
    at = index.index(Ellipsis)
    consumed = sum(1 for v in index if v is not None and v is not Ellipsis)
    index[at:at + 1] = [slice(None)] * (len(shape) - consumed)
    start, stop, step, out_shape = [], [], [], []
    dims = iter(shape)
    for v in index:
        if v is None:
            out_shape.append(1)
            continue
        dim = next(dims)
        if isinstance(v, slice):
            out_shape.append(len(range(*v.indices(dim))))
            s = 1 if v.step is None else v.step
            start.append(v.start if v.start is not None else INT64_MIN if s > 0 else INT64_MAX)
            stop.append(v.stop if v.stop is not None else INT64_MAX if s > 0 else INT64_MIN)
            step.append(s)
        else:
            first = v % dim
            start.append(first)
            stop.append(first + 1)
            step.append(1)
    x = c.x(0)
    full = all(a == INT64_MIN and b == INT64_MAX and s == 1 for a, b, s in zip(start, stop, step))
    if not full:
        x = c.emit("slice", [x], start=start, stop=stop, step=step)
    sliced = [len(range(*slice(a, b, s).indices(d)))
              for a, b, s, d in zip(start, stop, step, shape)]
    if out_shape != sliced:
        x = c.emit("reshape", [x], shape=out_shape)
    return x


def _slice(c: OpCtx) -> Any:
    begin, size = c.ints(1, "begin"), c.ints(2, "size")
    shape = c.ins[0].shape
    stop = [d if n == -1 else b + n for b, n, d in zip(begin, size, shape)]
    return c.emit("slice", [c.x(0)], start=begin, stop=stop, step=[1] * len(begin))


def _gather(c: OpCtx) -> Any:
    if c.attr("batch_dims", 0):
        raise Unmapped("batch_dims")
    (axis,) = c.ints(2, "axis")
    return c.emit("take", [c.x(0), _index(c, 1)], axis=axis % c.rank(0))


def _index(c: OpCtx, i: int) -> Any:
    # registry index operands are int32/int64
    return c.x(i) if c.ins[i].dtype in ("int32", "int64") else c.cast(c.x(i), "int64")


def _resource_gather(c: OpCtx) -> Any:
    if c.attr("batch_dims", 0):
        raise Unmapped("batch_dims")
    ref = c.raw(0)
    if not isinstance(ref, VarRef):
        raise Unmapped("gather from a resource that is not a captured variable")
    return c.emit("take", [c.walker.read_variable(ref), _index(c, 1)], axis=0)


def _gather_nd(c: OpCtx) -> Any:
    if c.attr("batch_dims", 0):
        raise Unmapped("batch_dims")
    return c.emit("gather_nd", [c.x(0), _index(c, 1)])


def _scatter_nd(c: OpCtx) -> Any:
    # TF's ScatterNd sums the updates of repeated indices into zeros
    zeros = c.emit("zeros", shape=c.ints(2, "shape"), dtype=c.outs[0].dtype)
    return c.emit("scatter_add", [zeros, _index(c, 0), c.x(1)])


def _tensor_scatter(op: str, negate: bool = False) -> Handler:
    def handler(c: OpCtx) -> Any:
        updates = c.emit("negative", [c.x(2)]) if negate else c.x(2)
        return c.emit(op, [c.x(0), _index(c, 1), updates])
    return handler


def _reverse(c: OpCtx) -> Any:
    axes = axes_of(c, 1)
    return c.emit("flip", [c.x(0)], axis=axes) if axes else c.x(0)


def _roll(c: OpCtx) -> Any:
    shift, axis = c.ints(1, "shift"), c.ints(2, "axis")
    return c.emit("roll", [c.x(0)], shift=shift, axis=[a % c.rank(0) for a in axis])


def _range(c: OpCtx) -> Any:
    start, stop, step = (float(c.static(i, "range bound")) for i in range(3))
    return c.emit("arange", start=start, stop=stop, step=step, dtype=c.outs[0].dtype)


def _linspace(c: OpCtx) -> Any:
    start, stop = (float(c.static(i, "linspace bound")) for i in range(2))
    (num,) = c.ints(2, "num")
    return c.emit("linspace", start=start, stop=stop, num=num, dtype=c.outs[0].dtype)


def _fill(c: OpCtx) -> Any:
    shape, value = c.ints(0, "dims"), c.raw(1)
    if isinstance(value, np.ndarray) and float(value) == value:
        return c.emit("full", shape=shape, fill_value=float(value), dtype=c.outs[0].dtype)
    return c.emit("broadcast_to", [c.x(1)], shape=shape)


def _like(op: str) -> Handler:
    return lambda c: c.emit(op, [c.x(0)])


def _one_hot(c: OpCtx) -> Any:
    (depth,) = c.ints(1, "depth")
    out, axis = c.outs[0], c.attr("axis")
    on, off = c.raw(2), c.raw(3)
    indices = _index(c, 0)
    if isinstance(on, np.ndarray) and isinstance(off, np.ndarray) and on == 1 and off == 0:
        return c.emit("one_hot", [indices], depth=depth, dtype=out.dtype, axis=axis)
    hot = c.emit("one_hot", [indices], depth=depth, dtype="bool", axis=axis)
    return c.emit("where", [hot, c.x(2), c.x(3)])


def _top_k(c: OpCtx) -> list[Any]:
    (k,) = c.ints(1, "k")
    values, indices = c.emit_all("top_k", [c.x(0)], k=k, axis=-1, largest=True)
    return [values, c.cast(indices, c.outs[1].dtype)]


def _band_part(c: OpCtx) -> Any:
    # keep lower diagonals up to num_lower and upper ones up to num_upper (< 0: all)
    (lower,), (upper,) = c.ints(1, "num_lower"), c.ints(2, "num_upper")
    x = c.x(0)
    if lower >= 0:
        x = c.emit("triu", [x], k=-lower)
    if upper >= 0:
        x = c.emit("tril", [x], k=upper)
    return x


def _matrix_diag(c: OpCtx) -> Any:
    """MatrixDiag(V2/V3) of the main diagonal into a square matrix (tf.linalg.diag,
    tf.eye): the diagonal selected onto an eye mask, other cells the padding value."""
    if c.n_inputs > 1:
        k, rows, cols = c.ints(1, "k"), c.ints(2, "num_rows"), c.ints(3, "num_cols")
        n = c.ins[0].shape[-1]
        if k != [0] or rows[0] not in (-1, n) or cols[0] not in (-1, n):
            raise Unmapped("off-diagonal or rectangular output")
    dtype = c.ins[0].dtype
    n = c.ins[0].shape[-1]
    pad = c.x(4) if c.n_inputs > 4 else c.const(0, dtype)
    eye = c.emit("eye", n_rows=n, dtype="bool")
    return c.emit("where", [eye, c.emit("expand_dims", [c.x(0)], axis=[-1]), pad])


def _matrix_diag_part(c: OpCtx) -> Any:
    # the main diagonal (k = 0) of a square or wide/tall matrix
    if c.n_inputs > 1 and c.ints(1, "k") != [0]:
        raise Unmapped("off-diagonal band")
    return c.emit("diagonal", [c.x(0)])


def _read_variable(c: OpCtx) -> Any:
    ref = c.raw(0)
    if not isinstance(ref, VarRef):
        raise Unmapped("read of a resource that is not a captured variable")
    return c.walker.read_variable(ref)


def _call(c: OpCtx) -> list[Any]:
    """(Stateful)PartitionedCall: the called function's body, inlined."""
    graph = c.walker.function_graph(c.op, c.attr("f").name)
    return c.walker.run(graph, [c.raw(i) for i in range(c.n_inputs)])


ARRAY_OPS: dict[str, Handler] = {
    **dict.fromkeys(("Identity", "IdentityN", "StopGradient", "PreventGradient", "Snapshot",
                     "EnsureShape", "CheckNumerics"), _identity),
    "Const": _const, "Shape": _shape, "ShapeN": _shape_n, "Size": _size, "Rank": _rank,
    "BroadcastArgs": _broadcast_args, "Reshape": _to_shape("reshape"),
    "BroadcastTo": _to_shape("broadcast_to"), "Where": _where, "Transpose": _transpose,
    "ExpandDims": _expand_dims, "Squeeze": _squeeze, "ConcatV2": _concat(False),
    "Concat": _concat(True), "Pack": _pack, "Unpack": _unpack,
    "Split": lambda c: _split_sizes(c, 1, 0, None),
    "SplitV": lambda c: _split_sizes(c, 0, 2, c.ints(1, "size_splits")),
    "Tile": _tile, "Pad": _pad, "PadV2": _pad, "MirrorPad": _mirror_pad,
    "StridedSlice": _strided_slice, "Slice": _slice, "GatherV2": _gather,
    "ResourceGather": _resource_gather, "GatherNd": _gather_nd, "ScatterNd": _scatter_nd,
    "TensorScatterUpdate": _tensor_scatter("scatter_nd"),
    "TensorScatterAdd": _tensor_scatter("scatter_add"),
    "TensorScatterSub": _tensor_scatter("scatter_add", negate=True),
    "ReverseV2": _reverse, "Roll": _roll, "Range": _range, "LinSpace": _linspace,
    "Fill": _fill, "ZerosLike": _like("zeros_like"), "OnesLike": _like("ones_like"),
    "OneHot": _one_hot, "TopKV2": _top_k, "MatrixBandPart": _band_part,
    **dict.fromkeys(("MatrixDiag", "MatrixDiagV2", "MatrixDiagV3"), _matrix_diag),
    **dict.fromkeys(("MatrixDiagPart", "MatrixDiagPartV2", "MatrixDiagPartV3"),
                    _matrix_diag_part),
    "ReadVariableOp": _read_variable, "PartitionedCall": _call,
    "StatefulPartitionedCall": _call,
}
