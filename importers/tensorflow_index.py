"""TF indexing ops -> ivy ops: gathers, scatters, segment reductions, `Where`, one-hot,
and selecting diagonals and bands of matrices.

Registry index operands are int32 or int64 (`Ctx.index` casts others). `Where` gives a
result whose size depends on the values of its condition, so it imports only when the
condition is known at import time (it is then folded).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ivy_ir.dialect.types import INT64_MAX

from .common import Rule, Unmapped
from .tensorflow_ctx import Ctx, VarRef


def _where(c: Ctx, condition: Any, **_: Any) -> np.ndarray:
    # the coordinates of the true elements: only for a condition known at import time
    return np.argwhere(c.static(condition, "condition")).astype(np.int64)


def _gather(c: Ctx, x: Any, indices: Any, axis: Any, *, batch_dims: int = 0, **_: Any) -> Any:
    if batch_dims:
        raise Unmapped("batch_dims")
    (dim,) = c.ints(axis, "axis")
    x = c.operand(x)
    return c.emit("take", x, c.index(indices), axis=dim % c.rank(x))


def _resource_gather(c: Ctx, ref: Any, indices: Any, *, batch_dims: int = 0, **_: Any) -> Any:
    if batch_dims:
        raise Unmapped("batch_dims")
    if not isinstance(ref, VarRef):
        raise Unmapped("gather from a resource that is not a captured variable")
    return c.emit("take", c.read_variable(ref), c.index(indices), axis=0)


def _gather_nd(c: Ctx, x: Any, indices: Any, *, batch_dims: int = 0, **_: Any) -> Any:
    if batch_dims:
        raise Unmapped("batch_dims")
    x = c.operand(x)
    return c.emit("gather_nd", x, c.index(indices))


def _scatter_nd(c: Ctx, indices: Any, updates: Any, shape: Any, **_: Any) -> Any:
    # TF's ScatterNd sums the updates of repeated indices into zeros
    zeros = c.emit("zeros", shape=c.ints(shape, "shape"), dtype=c.out.dtype)
    return c.emit("scatter_add", zeros, c.index(indices), updates)


def _tensor_scatter(op: str, negate: bool = False) -> Rule:
    def rule(c: Ctx, x: Any, indices: Any, updates: Any, **_: Any) -> Any:
        updates = c.emit("negative", updates) if negate else c.operand(updates)
        x = c.operand(x)
        return c.emit(op, x, c.index(indices), updates)
    return rule


def _one_hot(c: Ctx, indices: Any, depth: Any, on: Any, off: Any, *, axis: int,
             **_: Any) -> Any:
    (n,) = c.ints(depth, "depth")
    indices = c.index(indices)
    if isinstance(on, np.ndarray) and isinstance(off, np.ndarray) and on == 1 and off == 0:
        return c.emit("one_hot", indices, depth=n, dtype=c.out.dtype, axis=axis)
    hot = c.emit("one_hot", indices, depth=n, dtype="bool", axis=axis)
    return c.emit("where", hot, on, off)


def _band_part(c: Ctx, x: Any, num_lower: Any, num_upper: Any, **_: Any) -> Any:
    # keep lower diagonals up to num_lower and upper ones up to num_upper (< 0: all)
    (lower,), (upper,) = c.ints(num_lower, "num_lower"), c.ints(num_upper, "num_upper")
    x = c.operand(x)
    if lower >= 0:
        x = c.emit("triu", x, k=-lower)
    if upper >= 0:
        x = c.emit("tril", x, k=upper)
    return x


def _matrix_diag(c: Ctx, diagonal: Any, *band: Any, **_: Any) -> Any:
    """MatrixDiag(V2/V3) of the main diagonal into a square matrix (tf.linalg.diag,
    tf.eye): the diagonal selected onto an eye mask, other cells the padding value."""
    spec = c.spec(diagonal)
    n = spec.shape[-1]
    if band:
        k, rows, cols = (c.ints(v, what) for v, what in
                         zip(band, ("k", "num_rows", "num_cols")))
        if k != [0] or rows[0] not in (-1, n) or cols[0] not in (-1, n):
            raise Unmapped("off-diagonal or rectangular output")
    pad = c.operand(band[3]) if len(band) > 3 else c.const(0, spec.dtype)
    eye = c.emit("eye", n_rows=n, dtype="bool")
    return c.emit("where", eye, c.emit("expand_dims", diagonal, axis=[-1]), pad)


SEGMENT_SCATTERS = {"Sum": "scatter_add", "Prod": "scatter_mul", "Max": "scatter_max",
                    "Min": "scatter_min", "Mean": "scatter_add"}
"""TF segment reduction (`UnsortedSegment<kind>`, `Segment<kind>`) -> registry scatter."""


def _limit(dtype: str, largest: bool) -> Any:
    """TF's `numeric_limits<T>::max()` / `lowest()`: the finite extremes."""
    info = np.finfo(dtype) if dtype.startswith(("float", "bfloat")) else np.iinfo(dtype)
    return info.max if largest else info.min


def _fold_segments(c: Ctx, kind: str, data: Any, ids: Any, count: int) -> Any:
    """The rows of `data` folded into `count` segments by `ids`; the reduction's identity
    where none lands (a max's is the lowest finite value, as TF gives). A negative id is
    dropped: it lands in one more segment, cut off after."""
    data, ids = c.operand(data), c.index(ids)
    spec, rank = c.spec(data), c.rank(ids)
    dtype = c.spec(ids).dtype
    ids = c.emit("where", c.emit("less", ids, c.const(0, dtype)), c.const(count, dtype), ids)
    identity = {"Prod": 1, "Max": _limit(spec.dtype, False),
                "Min": _limit(spec.dtype, True)}.get(kind, 0)
    rest = list(spec.shape[rank:])
    base = c.emit("broadcast_to", c.const(identity, spec.dtype), shape=[count + 1, *rest])
    out = c.emit(SEGMENT_SCATTERS[kind], base, c.emit("expand_dims", ids, axis=[rank]), data)
    return c.emit("slice", out, start=[0] * (1 + len(rest)), stop=[count, *rest],
                  step=[1] * (1 + len(rest)))


def _unsorted_segment(kind: str) -> Rule:
    def rule(c: Ctx, data: Any, ids: Any, num_segments: Any, **_: Any) -> Any:
        return _fold_segments(c, kind, data, ids, c.ints(num_segments, "num_segments")[0])
    return rule


def _segment(kind: str) -> Rule:
    """Sorted segment ids: as many segments as the largest id + 1, which only ids known at
    import tell; an empty segment gives 0 (1 for a product)."""
    def rule(c: Ctx, data: Any, ids: Any, **_: Any) -> Any:
        known = c.static(ids, "segment ids (the result has the largest + 1 rows)").ravel()
        sizes = np.bincount(known, minlength=0) if known.size else np.zeros(0, np.int64)
        out = _fold_segments(c, kind, data, ids, len(sizes))
        dtype = c.spec(out).dtype
        trailing = [1] * (c.spec(out).rank - 1)
        if kind == "Mean":
            if not dtype.startswith(("float", "bfloat")):
                raise Unmapped(f"a mean of {dtype} segments")
            return c.emit("divide", out, c.const(np.maximum(sizes, 1).reshape(-1, *trailing),
                                                 dtype))
        if kind in ("Max", "Min") and not sizes.all():
            empty = c.const((sizes == 0).reshape(-1, *trailing), "bool")
            out = c.emit("where", empty, c.const(0, dtype), out)
        return out
    return rule


def _matrix_diag_part(c: Ctx, x: Any, *band: Any, **_: Any) -> Any:
    # one diagonal k of a square or wide/tall matrix (k > 0 above the main one, as
    # NumPy's offset); a band of several is refused
    k = sorted(set(c.ints(band[0], "k"))) if band else [0]
    if len(k) != 1:
        raise Unmapped("a band of several diagonals")
    return c.emit("diagonal", c.operand(x), offset=k[0])


def _dense_bincount(c: Ctx, values: Any, size: Any, weights: Any, *,
                    binary_output: bool = False, **_: Any) -> Any:
    """How often each of 0 .. size - 1 occurs (per row of a 2-d input), each occurrence
    weighted when weights are given; values outside the range count nowhere."""
    # the size is often computed from the data (max + 1, clipped by a min and max length
    # that Keras makes equal): TF's shape inference then knows the result's width
    width = c.out.shape[-1]
    (n,) = c.ints(size, "size") if c.known(size) is not None or width is None else (width,)
    values = c.index(values)
    shape, dtype, ints = c.spec(values).shape, c.out.dtype, c.spec(values).dtype
    inside = c.emit("less", values, c.const(n, ints))  # a negative value drops anyway
    if len(shape) == 2:  # row r counts into segments r * n .. r * n + n - 1
        inside = c.emit("logical_and", inside, c.emit("greater_equal", values,
                                                      c.const(0, ints)))
        values = c.emit("add", values, c.const(np.arange(shape[0]).reshape(-1, 1) * n, ints))
    values = c.emit("where", inside, values, c.const(-1, ints))
    counted = c.emit("ones", shape=list(shape), dtype=dtype) if binary_output or not c.spec(
        weights).shape or 0 in c.spec(weights).shape else c.cast(c.operand(weights), dtype)
    out = _fold_segments(c, "Sum", counted, values, n * (shape[0] if len(shape) == 2 else 1))
    if binary_output:
        out = c.cast(c.emit("greater", out, c.const(0, dtype)), dtype)
    return c.emit("reshape", out, shape=[shape[0], n]) if len(shape) == 2 else out


def _bound(side: str) -> Rule:
    """LowerBound / UpperBound: each row of values searched in its row of sorted_inputs."""
    def rule(c: Ctx, ordered: Any, values: Any, **_: Any) -> Any:
        found = c.emit("searchsorted", c.operand(ordered), c.operand(values), side=side)
        return c.cast(found, c.out.dtype)
    return rule


def _cross(c: Ctx, a: Any, b: Any, **_: Any) -> Any:
    """The cross product of 3-vectors along the last axis."""
    a, b = c.operand(a), c.operand(b)
    rank = c.spec(a).rank

    def part(v: Any, i: int) -> Any:
        return c.emit("slice", v, start=[0] * (rank - 1) + [i], stop=[INT64_MAX] * rank,
                      step=[1] * (rank - 1) + [3])

    def term(i: int, j: int) -> Any:
        return c.emit("subtract", c.emit("multiply", part(a, i), part(b, j)),
                      c.emit("multiply", part(a, j), part(b, i)))
    return c.emit("concat", [term(1, 2), term(2, 0), term(0, 1)], axis=rank - 1)


INDEX: dict[str, Rule] = {
    "Where": _where, "GatherV2": _gather, "ResourceGather": _resource_gather,
    "GatherNd": _gather_nd, "ScatterNd": _scatter_nd,
    "TensorScatterUpdate": _tensor_scatter("scatter_nd"),
    "TensorScatterAdd": _tensor_scatter("scatter_add"),
    "TensorScatterSub": _tensor_scatter("scatter_add", negate=True),
    "TensorScatterMax": _tensor_scatter("scatter_max"),
    "TensorScatterMin": _tensor_scatter("scatter_min"),
    **{f"UnsortedSegment{kind}": _unsorted_segment(kind) for kind in SEGMENT_SCATTERS
       if kind != "Mean"},
    **{f"Segment{kind}": _segment(kind) for kind in SEGMENT_SCATTERS},
    "OneHot": _one_hot, "MatrixBandPart": _band_part, "DenseBincount": _dense_bincount,
    "Cross": _cross, "LowerBound": _bound("left"), "UpperBound": _bound("right"),
    **dict.fromkeys(("MatrixDiag", "MatrixDiagV2", "MatrixDiagV3"), _matrix_diag),
    **dict.fromkeys(("MatrixDiagPart", "MatrixDiagPartV2", "MatrixDiagPartV3"),
                    _matrix_diag_part),
}
"""TF raw op -> rule: gathers, scatters, Where, one-hot, diagonals and bands."""
