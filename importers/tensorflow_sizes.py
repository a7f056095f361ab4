"""Shape arithmetic on dynamic sizes, folded at import: `SIZE_RULES`.

`tf.shape(x)` of a value with dynamic dims is a `Sizes` (`tensorflow_ctx`): a known
int tensor some of whose entries are size expressions. The ops TF graphs build shape
operands with (`StridedSlice`/`GatherV2`/`Unpack` to pick sizes, `Mul`/`AddV2`/`Sub`/
`FloorDiv`/`FloorMod`/`Prod` to combine them, `Pack`/`ConcatV2` to assemble a shape)
run here on those entries, with `SymDim` arithmetic, so the result is again a `Sizes`
(or a plain known array once no dynamic entry is left). The ops that take a shape
operand (`Reshape`, `BroadcastTo`, `Fill`, `Tile`) then emit their registry op with a
symbolic `shape` attribute, and a `Range` to a size is an `arange` with symbolic bounds.
Rules are called as the raw-op table's are, whenever an input of the op is a `Sizes`;
other inputs are known arrays (an op mixing a size with a traced tensor value is
reported: the IR has sizes only in size attributes).
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from ivy_ir.dialect.symbolic import SymbolicError, SymDim

from .common import Rule, Unmapped
from .tensorflow_ctx import Ctx, Sizes, sizes_value
from .tensorflow_dimflow import solve_reshape
from .tensorflow_nn import NN
from .tensorflow_shape import strided_index

PASS_THROUGH = frozenset({"Identity", "IdentityN", "StopGradient", "PreventGradient",
                          "Snapshot", "PartitionedCall", "StatefulPartitionedCall"})
"""Ops that hand their inputs on untouched: their own rules take a `Sizes` as it is."""


def _entries(c: Ctx, value: Any) -> np.ndarray:
    """A shape-like operand as an object array of Python ints and `SymDim`s."""
    if isinstance(value, Sizes):
        return value.entries
    array = c.static(value, "shape value")
    out = np.empty(array.shape, dtype=object)
    out[...] = array.tolist() if array.ndim else int(array)
    return out


def _result(c: Ctx, entries: Any, at: int = 0) -> Any:
    return sizes_value(np.asarray(entries, dtype=object), c.outs[at].dtype)


def _strided_slice(c: Ctx, x: Any, begin: Any, end: Any, strides: Any, *, begin_mask: int = 0,
                   end_mask: int = 0, ellipsis_mask: int = 0, new_axis_mask: int = 0,
                   shrink_axis_mask: int = 0, **_: Any) -> Any:
    masks = {"begin": begin_mask, "end": end_mask, "ellipsis": ellipsis_mask,
             "new_axis": new_axis_mask, "shrink_axis": shrink_axis_mask}
    return _result(c, _entries(c, x)[strided_index(c, begin, end, strides, masks)])


def _slice(c: Ctx, x: Any, begin: Any, size: Any, **_: Any) -> Any:
    index = tuple(slice(b, None if n == -1 else b + n)
                  for b, n in zip(c.ints(begin, "begin"), c.ints(size, "size")))
    return _result(c, _entries(c, x)[index])


def _gather(c: Ctx, params: Any, indices: Any, axis: Any, *, batch_dims: int = 0,
            **_: Any) -> Any:
    if batch_dims:
        raise Unmapped("batch_dims of a gather of sizes")
    (ax,) = c.ints(axis, "axis")
    picks = np.asarray(c.static(indices, "indices"), np.int64)
    return _result(c, np.take(_entries(c, params), picks, axis=ax))


def _unpack(c: Ctx, x: Any, *, num: int, axis: int, **_: Any) -> list[Any]:
    entries = _entries(c, x)
    return [_result(c, np.take(entries, i, axis=axis), i) for i in range(num)]


def _pack(c: Ctx, *xs: Any, axis: int, **_: Any) -> Any:
    return _result(c, np.stack([_entries(c, x) for x in xs], axis=axis))


def _concat(c: Ctx, xs: tuple[Any, ...], axis: Any) -> Any:
    (ax,) = c.ints(axis, "axis")
    return _result(c, np.concatenate([_entries(c, x) for x in xs], axis=ax))


def _arithmetic(fn: Callable[[Any, Any], Any]) -> Rule:
    """An elementwise op on sizes (broadcasting as TF does), in `SymDim` arithmetic."""
    def rule(c: Ctx, x: Any, y: Any, **_: Any) -> Any:
        try:
            return _result(c, fn(_entries(c, x), _entries(c, y)))
        except (TypeError, SymbolicError) as exc:
            raise Unmapped(f"size arithmetic beyond + - * // % ({exc})") from None
    return rule


def _negate(c: Ctx, x: Any, **_: Any) -> Any:
    return _result(c, -_entries(c, x))


def _reduce(start: int, fn: Callable[[Any, Any], Any]) -> Rule:
    """Prod/Sum of sizes over known axes."""
    def rule(c: Ctx, x: Any, axes: Any, *, keep_dims: bool = False, **_: Any) -> Any:
        entries = _entries(c, x)
        axis = tuple(c.axes(axes, entries.ndim))
        out = np.frompyfunc(fn, 2, 1).reduce(entries, axis=axis, keepdims=bool(keep_dims),
                                             initial=start) if axis else entries
        return _result(c, out)
    return rule


def _cast(c: Ctx, x: Any, **_: Any) -> Any:
    if not c.out.dtype.startswith(("int", "uint")):
        raise Unmapped(f"a dynamic size cast to {c.out.dtype}: sizes are integer "
                       "expressions, known only when the program runs")
    return _result(c, _entries(c, x))


def _reshape_sizes(c: Ctx, x: Any, shape: Any) -> Any:
    return _result(c, np.reshape(_entries(c, x), c.ints(shape, "shape")))


def _expand_dims(c: Ctx, x: Any, dim: Any, **_: Any) -> Any:
    (axis,) = c.ints(dim, "axis")
    return _result(c, np.expand_dims(_entries(c, x), axis))


def _squeeze(c: Ctx, x: Any, *, squeeze_dims: list[int], **_: Any) -> Any:
    entries = _entries(c, x)
    axes = tuple(squeeze_dims) or tuple(i for i, d in enumerate(entries.shape) if d == 1)
    return _result(c, np.squeeze(entries, axis=axes))


def _target(c: Ctx, shape: Any) -> list[int | SymDim]:
    return list(_entries(c, shape).flat)


def _reshape(c: Ctx, x: Any, shape: Any, **_: Any) -> Any:
    """Reshape of a tensor to a shape holding sizes; or of sizes themselves."""
    if isinstance(x, Sizes):
        return _reshape_sizes(c, x, shape)
    target = _target(c, shape)
    solved = solve_reshape(c.symbolic_shape(x), target)  # a -1 solved types the result
    return c.emit("reshape", x, shape=list(solved or target))


def _broadcast_to(c: Ctx, x: Any, shape: Any, **_: Any) -> Any:
    if isinstance(x, Sizes):
        raise Unmapped("a broadcast of sizes")
    return c.emit("broadcast_to", x, shape=_target(c, shape))


def _fill(c: Ctx, dims: Any, value: Any, **_: Any) -> Any:
    shape = _target(c, dims)
    if isinstance(value, np.ndarray) and float(value) == value:
        return c.emit("full", shape=shape, fill_value=float(value), dtype=c.out.dtype)
    return c.emit("broadcast_to", value, shape=shape)


def _tile(c: Ctx, x: Any, multiples: Any, **_: Any) -> Any:
    """Tiling by a dynamic count repeats an axis of size 1 (a class token repeated over
    the batch): a broadcast, after the static tiling."""
    reps = _target(c, multiples)
    sizes = c.symbolic_shape(x)
    if sizes is None:
        raise Unmapped("tiling a value whose dynamic sizes are not followed")
    if any(isinstance(r, SymDim) and d != 1 for d, r in zip(sizes, reps)):
        raise Unmapped("tiling an axis longer than 1 a dynamic number of times")
    static = [1 if isinstance(r, SymDim) else r for r in reps]
    x = c.emit("tile", x, reps=static) if any(r != 1 for r in static) else c.operand(x)
    return c.emit("broadcast_to", x, shape=[d * r for d, r in zip(sizes, reps)])


def _range(c: Ctx, start: Any, limit: Any, delta: Any, **_: Any) -> Any:
    """`tf.range` to a size (`tf.range(tf.shape(x)[1])`: position ids): an `arange`
    whose bounds are size expressions; the step stays a number."""
    step = float(c.static(delta, "range step"))
    lo, hi = (_entries(c, v).item() if isinstance(v, Sizes) else
              float(c.static(v, "range bound")) for v in (start, limit))
    return c.emit("arange", start=lo, stop=hi, step=step, dtype=c.out.dtype)


def _conv_transpose(c: Ctx, output_size: Any, w: Any, x: Any, **attrs: Any) -> Any:
    """Conv2DBackpropInput to an output size of dynamic batch (Keras' Conv2DTranspose
    packs `tf.shape(x)[0]` into it): only the other sizes shape the conv, the batch is
    the operand's."""
    rest = list(_entries(c, output_size).flat)[1:]
    if any(isinstance(d, SymDim) for d in rest):
        raise Unmapped("a transposed convolution to a dynamic spatial size")
    return NN[c.op.type](c, np.asarray([0, *rest], np.int32), w, x, **attrs)


SIZE_RULES: dict[str, Rule] = {
    "StridedSlice": _strided_slice, "Slice": _slice, "GatherV2": _gather, "Unpack": _unpack,
    "Pack": _pack, "ConcatV2": lambda c, *xs, **_: _concat(c, xs[:-1], xs[-1]),
    "Concat": lambda c, axis, *xs, **_: _concat(c, xs, axis),
    **dict.fromkeys(("AddV2", "Add"), _arithmetic(operator.add)),
    "Sub": _arithmetic(operator.sub), "Mul": _arithmetic(operator.mul),
    "FloorDiv": _arithmetic(operator.floordiv), "FloorMod": _arithmetic(operator.mod),
    "Neg": _negate, "Prod": _reduce(1, operator.mul), "Sum": _reduce(0, operator.add),
    "Cast": _cast, "ExpandDims": _expand_dims, "Squeeze": _squeeze, "Reshape": _reshape,
    "BroadcastTo": _broadcast_to, "Fill": _fill, "Tile": _tile, "Range": _range,
    "Conv2DBackpropInput": _conv_transpose, "Conv3DBackpropInputV2": _conv_transpose,
}
"""TF raw op -> rule, for an op with a `Sizes` input: shape arithmetic (folded into
`Sizes`) and the ops whose shape operand it is (emitted with a symbolic `shape`)."""
