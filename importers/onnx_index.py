"""ONNX gathers, scatters and constant makers -> ivy ops.

ONNX index inputs may be negative (counted from the end of the indexed axis): they are
wrapped first (`_wrapped`: at import when known, else an `ivy.where`), so the registry
ops only see indices in range. `ScatterElements` becomes a `scatter_nd` whose full
coordinates are the indices on the scatter axis and the element's own position on the
others; a reduction (add, mul, max, min) picks the registry's combining scatter.
Constants (`Constant`, `ConstantOfShape`, `Range`, `EyeLike`, the windows) are known
arrays, or `ivy.full`/`arange`/`eye` when their operands are known.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ivy_ir.dialect.symbolic import SymDim

from .common import Rule, Unmapped
from .onnx_ctx import Ctx
from .onnx_dims import Sizes


def _index(c: Ctx, indices: Any) -> Any:
    """`indices` in a dtype the registry's index operands take."""
    return indices if c.spec(indices).dtype in ("int32", "int64") else c.cast(indices, "int64")


def _wrapped(c: Ctx, indices: Any, dim: int | None) -> Any:
    """Negative indices plus `dim`: ONNX counts them from the end."""
    indices = _index(c, indices)
    known = c.known(indices)
    if known is not None and (known >= 0).all():
        return indices
    if dim is None:
        raise Unmapped("negative indices into a dynamic dim")
    dtype = c.spec(indices).dtype
    zero, size = c.const(0, dtype), c.const(dim, dtype)
    return c.emit("where", c.emit("less", indices, zero), c.emit("add", indices, size),
                  indices)


def position(c: Ctx, shape: Sequence[int], axis: int, dtype: str) -> Any:
    """Each element's index along `axis` in an array of `shape` (an `arange` broadcast:
    folded to a known array when small, ops otherwise)."""
    dims = [1] * len(shape)
    dims[axis] = shape[axis]
    line = c.emit("reshape", c.emit("arange", start=0, stop=shape[axis], dtype=dtype),
                  shape=dims)
    return c.emit("broadcast_to", line, shape=list(shape))


def _gather(c: Ctx, x: Any, indices: Any, axis: int = 0) -> Any:
    shape = c.spec(x).shape
    axis = axis + len(shape) if axis < 0 else axis
    return c.emit("take", x, _wrapped(c, indices, shape[axis]), axis=axis)


def _gather_elements(c: Ctx, x: Any, indices: Any, axis: int = 0) -> Any:
    shape = c.spec(x).shape
    axis = axis + len(shape) if axis < 0 else axis
    return c.emit("take_along_axis", x, _wrapped(c, indices, shape[axis]), axis=axis)


def _nd_wrapped(c: Ctx, shape: tuple[int | None, ...], indices: Any) -> Any:
    """GatherND/ScatterND index tuples into dims `shape`, each component wrapped by
    its dim."""
    depth = c.spec(indices).shape[-1]
    if depth is None:
        raise Unmapped("index tuples of dynamic length")
    dims = np.asarray(shape[:depth])
    known = c.known(indices)
    if known is not None and (known >= 0).all():
        return _index(c, indices)
    if None in dims:
        raise Unmapped("negative indices into dynamic dims")
    indices = _index(c, indices)
    dtype = c.spec(indices).dtype
    size = c.const(dims, dtype)
    return c.emit("where", c.emit("less", indices, c.const(0, dtype)),
                  c.emit("add", indices, size), indices)


def _gather_nd(c: Ctx, x: Any, indices: Any, batch_dims: int = 0) -> Any:
    """With `batch_dims`, each index tuple is prefixed by its own position in the
    leading batch dims, so one plain `gather_nd` reads within its batch entry."""
    if not batch_dims:
        return c.emit("gather_nd", x, _nd_wrapped(c, c.spec(x).shape, indices))
    shape = c.spec(indices).shape
    if None in shape:
        raise Unmapped("batched GatherND of dynamic index shape")
    depth = shape[-1]
    x_dims = c.spec(x).shape
    view = c.emit("reshape", x, shape=[-1, *x_dims[batch_dims:]])
    idx = _nd_wrapped(c, x_dims[batch_dims:],
                      c.emit("reshape", indices, shape=[-1, *shape[batch_dims:]]))
    count = c.spec(idx).shape[0]
    rows = position(c, [count, *shape[batch_dims:-1], 1], 0, c.spec(idx).dtype)
    out = c.emit("gather_nd", view, c.emit("concat", [rows, idx], axis=-1))
    return c.emit("reshape", out, shape=[*shape[:-1], *x_dims[batch_dims + depth:]])


SCATTER_OPS = {"none": "scatter_nd", "add": "scatter_add", "mul": "scatter_mul",
               "max": "scatter_max", "min": "scatter_min"}
"""ONNX scatter reduction -> registry op. ONNX folds repeated indices in order; the
registry's combining scatters in any order, the same up to a float product's rounding."""


def _scatter(c: Ctx, x: Any, indices: Any, updates: Any, reduction: str) -> Any:
    """`x` with `updates` written at the index tuples `indices` (last axis), combined
    by `reduction`."""
    if reduction not in SCATTER_OPS:
        raise Unmapped(f"reduction '{reduction}'")
    return c.emit(SCATTER_OPS[reduction], x, indices, updates)


def _scatter_nd(c: Ctx, x: Any, indices: Any, updates: Any, reduction: str = "none") -> Any:
    return _scatter(c, x, _nd_wrapped(c, c.spec(x).shape, indices), updates, reduction)


def _scatter_elements(c: Ctx, x: Any, indices: Any, updates: Any, axis: int = 0,
                      reduction: str = "none") -> Any:
    """Element i of `updates` goes to `x[i with i[axis] = indices[i]]`: full coordinates
    stacked on a new last axis, then one `scatter_nd`."""
    rank = c.rank(x)
    axis = axis + rank if axis < 0 else axis
    shape = c.spec(indices).shape
    if None in shape:
        raise Unmapped("ScatterElements of dynamic index shape")
    idx = _wrapped(c, indices, c.spec(x).shape[axis])
    dtype = c.spec(idx).dtype
    parts = [c.emit("expand_dims", idx if d == axis else position(c, shape, d, dtype),
                    axis=[rank]) for d in range(rank)]
    return _scatter(c, x, c.emit("concat", parts, axis=rank), updates, reduction)


def _tensor_scatter(c: Ctx, cache: Any, update: Any, write_indices: Any = None,
                    axis: int = -2, mode: str = "linear") -> Any:
    """`update` written into `cache` along `axis` from each batch entry's write index
    (0 without `write_indices`; wrapping around the axis when `circular`): one
    `scatter_nd` whose index tuples cover the dims up to `axis`."""
    if mode not in ("linear", "circular"):
        raise Unmapped(f"mode '{mode}'")
    rank = c.rank(cache)
    axis = axis % rank
    lead = c.spec(update).shape[:axis + 1]
    if None in lead or c.spec(cache).shape[axis] is None:
        raise Unmapped("TensorScatter of dynamic shape")
    starts = np.zeros(lead[0], np.int64) if write_indices is None else c.cast(
        write_indices, "int64")
    batch = position(c, lead, 0, "int64")
    at = c.emit("add", c.emit("take", starts, batch, axis=0), position(c, lead, axis, "int64"))
    if mode == "circular":
        at = c.emit("remainder", at, c.const(c.spec(cache).shape[axis], "int64"))
    parts = [c.emit("expand_dims", at if d == axis else position(c, lead, d, "int64"),
                    axis=[axis + 1]) for d in range(axis + 1)]
    return c.emit("scatter_nd", cache, c.emit("concat", parts, axis=axis + 1), update)


def _constant(c: Ctx, **attrs: Any) -> np.ndarray:
    """The one attribute a Constant sets, as a known array (int64 for ints, float32 for
    floats, as ONNX types them)."""
    kinds = {"value": None, "value_float": np.float32, "value_floats": np.float32,
             "value_int": np.int64, "value_ints": np.int64}
    for name, value in attrs.items():
        if name not in kinds:
            raise Unmapped(f"attribute '{name}' (no ivy dtype)")
        return np.asarray(value) if kinds[name] is None else np.asarray(value, kinds[name])
    raise Unmapped("a Constant without a value")


def _constant_of_shape(c: Ctx, shape: Any, value: Any = None) -> Any:
    """`ivy.full`; an integer fill a float attribute cannot hold exactly (beyond 2**53)
    is added to zeros instead."""
    fill = np.zeros(1, np.float32) if value is None else np.asarray(value)
    dims = c.sizes(shape, "the shape")
    dtype = c.spec(fill).dtype
    first = fill.ravel()[0]
    if fill.dtype.kind in "fb" or int(first) == float(first):
        return c.emit("full", shape=dims, fill_value=float(first), dtype=dtype)
    return c.emit("add", c.emit("zeros", shape=dims, dtype=dtype), fill.reshape(()))


def _range(c: Ctx, start: Any, limit: Any, delta: Any) -> Any:
    """start + i * delta for i < ceil((limit - start) / delta): the count as ONNX
    computes it, the values as `start + arange(n) * delta` in the inputs' dtype."""
    dtype = c.spec(start).dtype
    if isinstance(start, Sizes) or isinstance(limit, Sizes):
        return _range_to_size(c, start, limit, delta, dtype)
    lo, hi, step = (c.static(v, "Range bounds").item() for v in (start, limit, delta))
    n = max(int(np.ceil((hi - lo) / step)), 0)
    steps = c.emit("arange", start=0, stop=n, dtype=dtype)
    return c.emit("add", c.const(lo, dtype), c.emit("multiply", steps, c.const(step, dtype)))


def _range_to_size(c: Ctx, start: Any, limit: Any, delta: Any, dtype: str) -> Any:
    """A `Range` with a symbolic bound (position ids `Range(0, seq, 1)`): an `arange`
    whose bound is the size expression. Its points are computed in float64 and cast, so
    a numeric start and the step must be integers, whose points every dtype holds as
    ONNX's own arithmetic in that dtype does."""
    step = c.static(delta, "Range delta").item()
    lo, hi = (v.entries()[0] if isinstance(v, Sizes) else c.static(v, "Range bound").item()
              for v in (start, limit))
    if any(not isinstance(v, SymDim) and int(v) != v for v in (lo, step)):
        raise Unmapped(f"a Range from {lo} by {step} to a dynamic size: only integer "
                       "starts and steps are taken")
    lo, hi = (v if isinstance(v, SymDim) else float(v) for v in (lo, hi))
    return c.emit("arange", start=lo, stop=hi, step=float(step), dtype=dtype)


def _eye_like(c: Ctx, x: Any, dtype: int | None = None, k: int = 0) -> Any:
    rows, cols = c.spec(x).shape
    if rows is None or cols is None:
        raise Unmapped("EyeLike of a dynamic shape")
    out = c.dtype(dtype) if dtype is not None else c.spec(x).dtype
    return c.emit("eye", n_rows=rows, n_cols=cols, k=k, dtype=out)


def _trilu(c: Ctx, x: Any, k: Any = None, upper: int = 1) -> Any:
    offset = 0 if k is None else c.ints(k, "the diagonal offset")[0]
    return c.emit("triu" if upper else "tril", x, k=offset)


def _one_hot(c: Ctx, indices: Any, depth: Any, values: Any, axis: int = -1) -> Any:
    """off/on values where the (wrapped, truncated) index matches; an index outside
    [-depth, depth) gives an all-off row, as ONNX says."""
    n = int(np.ravel(c.static(depth, "depth"))[0])
    idx = c.cast(indices, "int64")
    idx = c.emit("where", c.emit("less", idx, c.const(0, "int64")),
                 c.emit("add", idx, c.const(n, "int64")), idx)
    hot = c.emit("one_hot", idx, depth=n, dtype="bool", axis=axis)
    off = c.emit("take", values, c.const(0, "int64"), axis=0)
    on = c.emit("take", values, c.const(1, "int64"), axis=0)
    return c.emit("where", hot, on, off)


def _compress(c: Ctx, x: Any, condition: Any, axis: int | None = None) -> Any:
    """Only a known condition: the result's size depends on its values."""
    keep = np.flatnonzero(c.static(condition, "the condition")).astype(np.int64)
    if axis is None:
        x = c.emit("reshape", x, shape=[-1])
        axis = 0
    return c.emit("take", x, keep, axis=axis)


def _reverse_sequence(c: Ctx, x: Any, sequence_lens: Any, batch_axis: int = 1,
                      time_axis: int = 0) -> Any:
    """Each batch entry's first `sequence_lens[b]` steps reversed, the rest kept: one
    `take_along_axis` on the time axis by `where(t < len, len - 1 - t, t)`."""
    shape = c.spec(x).shape
    if None in shape:
        raise Unmapped("ReverseSequence of a dynamic shape")
    rank = len(shape)
    steps = [1] * rank
    steps[time_axis] = shape[time_axis]
    lens = [1] * rank
    lens[batch_axis] = shape[batch_axis]
    t = c.emit("reshape", c.emit("arange", start=0, stop=shape[time_axis]), shape=steps)
    n = c.emit("reshape", c.cast(sequence_lens, "int64"), shape=lens)
    back = c.emit("subtract", c.emit("subtract", n, c.const(1, "int64")), t)
    idx = c.emit("where", c.emit("less", t, n), back, t)
    idx = c.emit("broadcast_to", idx, shape=list(shape))
    return c.emit("take_along_axis", x, idx, axis=time_axis)


WINDOWS: dict[str, tuple[float, ...]] = {
    "HannWindow": (0.5, -0.5, 0.0), "HammingWindow": (25 / 46, -21 / 46, 0.0),
    "BlackmanWindow": (0.42, -0.5, 0.08),
}
"""Window -> (a0, a1, a2) of w[n] = a0 + a1 cos(2 pi n / N) + a2 cos(4 pi n / N), with
N = size (periodic) or size - 1 (symmetric)."""


def _window(name: str) -> Rule:
    a0, a1, a2 = WINDOWS[name]

    def rule(c: Ctx, size: Any, output_datatype: int = 1, periodic: int = 1) -> Any:
        count = c.ints(size, "the window size")[0]
        span = count if periodic else count - 1
        angle = c.emit("multiply", c.emit("arange", start=0, stop=count, dtype="float64"),
                       c.const(2 * np.pi / span, "float64"))
        out = c.emit("add", c.const(a0, "float64"),
                     c.emit("multiply", c.const(a1, "float64"), c.emit("cos", angle)))
        if a2:
            twice = c.emit("multiply", angle, c.const(2.0, "float64"))
            out = c.emit("add", out, c.emit("multiply", c.const(a2, "float64"),
                                            c.emit("cos", twice)))
        return c.cast(out, c.dtype(output_datatype))
    return rule


TABLE: dict[str, Rule] = {
    "Gather": _gather, "GatherElements": _gather_elements, "GatherND": _gather_nd,
    "ScatterND": _scatter_nd, "ScatterElements": _scatter_elements,
    "Scatter": _scatter_elements, "Constant": _constant,
    "ConstantOfShape": _constant_of_shape, "Range": _range, "EyeLike": _eye_like,
    "Trilu": _trilu, "OneHot": _one_hot, "Compress": _compress,
    "ReverseSequence": _reverse_sequence, "TensorScatter": _tensor_scatter,
    **{name: _window(name) for name in WINDOWS},
}
"""ONNX op_type -> rule for gathers, scatters and constants."""
