"""ONNX shape operators -> ivy ops: reshaping, transposition, concatenation, splitting,
slicing, padding, tiling, broadcasting and the shape queries.

ONNX takes shapes, axes, pads and slice bounds as *inputs* (older opsets took them as
attributes: `UPGRADES` turns those into known input arrays first). The registry takes
them as static attributes, so each must be known at import time (a `Constant`, a small
integer initializer, or shape arithmetic folded from static shapes); a traced one is
reported. A `Reshape` or `Expand` target may also hold size expressions over the
input's symbolic dims (`onnx_dims.Sizes`), and `Shape`, `Size` and `Flatten` of a
value with such dims give them (`Ctx.dims`). Gathers, scatters and the constant makers
are in `onnx_index.py`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ivy_ir.dialect.types import INT64_MAX, INT64_MIN

from .common import Rule, Unmapped, wrap_pad
from .onnx_ctx import Ctx
from .onnx_dims import broadcast_dims, infer_minus_one, sizes


def _static_shape(c: Ctx, x: Any, what: str) -> list[int]:
    """`x`'s shape, every dim known (ONNX's shape rules need the numbers)."""
    shape = c.spec(x).shape
    if None in shape:
        raise Unmapped(f"{what} of a dynamic shape {shape}")
    return list(shape)  # type: ignore[arg-type]


def _axes(c: Ctx, value: Any, rank: int, what: str = "axes") -> list[int]:
    """Known axes made non-negative (ONNX counts negative axes from the end)."""
    axes = [a + rank if a < 0 else a for a in c.ints(value, what)]
    if any(not 0 <= a < max(rank, 1) for a in axes):
        raise Unmapped(f"{what} {c.ints(value, what)} out of range for rank {rank}")
    return axes


def _reshape(c: Ctx, x: Any, shape: Any, allowzero: int = 0) -> Any:
    """A 0 in `shape` copies the input's dim (unless `allowzero`); one -1 is inferred
    (at import where the sizes of a symbolic input cancel, else when it runs). The
    shape may hold size expressions (a `Sizes` from symbolic shape arithmetic)."""
    dims: list[Any] = c.sizes(shape, "the target shape")
    src = c.dims(x)
    if not allowzero:
        dims = [src[i] if _is(d, 0) and i < len(src) else d for i, d in enumerate(dims)]
    if any(d is None for d in dims):
        raise Unmapped("a 0 in the target shape copies a dynamic dim of unknown size")
    if None in c.spec(x).shape:
        dims = infer_minus_one(src, dims)
    return c.emit("reshape", x, shape=dims)


def _is(d: Any, n: int) -> bool:
    """Whether a size entry is the int `n` (a size expression is no int)."""
    return isinstance(d, (int, np.integer)) and d == n


def _transpose(c: Ctx, x: Any, perm: list[int] | None = None) -> Any:
    rank = c.rank(x)
    return c.emit("permute_dims", x, axes=list(perm) if perm is not None
                  else list(range(rank))[::-1])


def _squeeze(c: Ctx, x: Any, axes: Any = None) -> Any:
    shape = c.spec(x).shape
    if axes is None:
        if None in shape:
            raise Unmapped("Squeeze without axes of a dynamic shape")
        picked = [i for i, d in enumerate(shape) if d == 1]
    else:
        picked = _axes(c, axes, len(shape))
    return c.emit("squeeze", x, axis=picked) if picked else _same(c, x)


def _unsqueeze(c: Ctx, x: Any, axes: Any) -> Any:
    rank = c.rank(x) + len(c.ints(axes, "axes"))
    return c.emit("expand_dims", x, axis=sorted(_axes(c, axes, rank)))


def _flatten(c: Ctx, x: Any, axis: int = 1) -> Any:
    shape = c.dims(x)
    if None in shape:
        raise Unmapped(f"Flatten of a dynamic shape {c.spec(x).shape} whose sizes are "
                       "unknown")
    axis = axis + len(shape) if axis < 0 else axis
    return c.emit("reshape", x, shape=[_product(shape[:axis]), _product(shape[axis:])])


def _product(dims: Any) -> Any:
    """The product of sizes (ints, size expressions), an int when every one is."""
    out = 1
    for d in dims:
        out = out * d
    return out


def _concat(c: Ctx, *xs: Any, axis: int) -> Any:
    return c.emit("concat", list(xs), axis=axis)


def _split(c: Ctx, x: Any, split: Any = None, axis: int = 0,
           num_outputs: int | None = None) -> list[Any]:
    """Sizes from `split`, else `num_outputs` (or the node's output count) chunks of
    ceil(dim / n), the last one smaller (opset 18's rule; earlier ones split evenly)."""
    dim = c.spec(x).shape[axis]
    if split is not None:
        sizes = c.ints(split, "split sizes")
    else:
        if dim is None:
            raise Unmapped("an even Split of a dynamic dim")
        n = num_outputs or c.outputs
        chunk = -(-dim // n)
        sizes = [min(chunk, dim - i * chunk) for i in range(n)]
    return c.emit_all("split", x, sizes=sizes, axis=axis)


def _split_upgrade(inputs: list[Any], attrs: dict[str, Any], opset: int
                   ) -> tuple[list[Any], dict[str, Any]]:
    """Split < 13 takes `split` as an attribute; 13 as an input."""
    split = attrs.pop("split", None)
    if split is not None:
        inputs = inputs[:1] + [np.asarray(split, np.int64)]
    return inputs, attrs


def _slice(c: Ctx, x: Any, starts: Any, ends: Any, axes: Any = None, steps: Any = None
           ) -> Any:
    """ONNX's clamping of starts and ends is Python's slice rule, so the bounds pass on
    as they are (clamped to [-dim-1, dim] so they stay small numbers)."""
    shape = c.spec(x).shape
    rank = len(shape)
    b, e = c.ints(starts, "starts"), c.sizes(ends, "ends")
    ax = _axes(c, axes, rank) if axes is not None else list(range(len(b)))
    st = c.ints(steps, "steps") if steps is not None else [1] * len(b)
    start = [0] * rank
    stop = [INT64_MAX if d is None else d for d in shape]
    step = [1] * rank
    for a, lo, hi, s in zip(ax, b, e, st, strict=True):
        if s == 0:
            raise Unmapped("a step of 0")
        d = shape[a]
        if not isinstance(hi, int):  # `[:, :seq]`: a symbolic end, clamped when it runs
            if s < 0:
                raise Unmapped("a negative step to a symbolic end")
            start[a] = _int64(lo) if d is None else max(-d - 1, min(d, lo))
            stop[a], step[a] = hi, s
            continue
        if d is None:  # a dynamic dim: Python's clamping when it runs is ONNX's
            if s < 0:
                raise Unmapped("a negative step along a dynamic dim")
            start[a], stop[a], step[a] = _int64(lo), _int64(hi), s
            continue
        start[a], stop[a], step[a] = max(-d - 1, min(d, lo)), max(-d - 1, min(d, hi)), s
    return c.emit("slice", x, start=start, stop=stop, step=step)


def _int64(v: int) -> int:
    return max(INT64_MIN, min(INT64_MAX, v))


def _slice_upgrade(inputs: list[Any], attrs: dict[str, Any], opset: int
                   ) -> tuple[list[Any], dict[str, Any]]:
    """Slice < 10 takes starts/ends/axes as attributes (and no steps)."""
    bounds = [attrs.pop(k, None) for k in ("starts", "ends", "axes")]
    return inputs[:1] + [None if v is None else np.asarray(v, np.int64)
                         for v in bounds], attrs


def _expand(c: Ctx, x: Any, shape: Any) -> Any:
    """Broadcast both ways: the result has the broadcast of x's shape and `shape` (which
    may hold size expressions, as may x's dynamic dims)."""
    target = c.sizes(shape, "the target shape")
    src = list(c.dims(x))
    out = broadcast_dims(src, target)
    if out == src:
        return _same(c, x)
    if None in out:
        raise Unmapped(f"Expand of a dynamic shape {c.spec(x).shape} whose sizes are unknown")
    return c.emit("broadcast_to", x, shape=out)


def _tile(c: Ctx, x: Any, repeats: Any) -> Any:
    return c.emit("tile", x, reps=c.ints(repeats, "repeats"))


PAD_MODES = {"constant": "constant", "reflect": "reflect", "edge": "edge"}
"""ONNX pad mode -> registry pad mode (`wrap` has none: it is composed of slices)."""


def _pad(c: Ctx, x: Any, pads: Any, constant_value: Any = None, axes: Any = None,
         mode: str = "constant") -> Any:
    """Negative pads crop: the positive part pads, then a slice removes the rest."""
    if mode not in PAD_MODES and mode != "wrap":
        raise Unmapped(f"mode '{mode}'")
    rank = c.rank(x)
    values = c.ints(pads, "pads")
    ax = _axes(c, axes, rank) if axes is not None else list(range(rank))
    width = [0] * (2 * rank)
    for k, a in enumerate(ax):
        width[2 * a], width[2 * a + 1] = values[k], values[k + len(ax)]
    out = x
    if any(w > 0 for w in width):
        grow = [max(w, 0) for w in width]
        if constant_value is not None and mode == "constant":
            out = _pad_with(c, x, constant_value, grow)
        elif mode == "wrap":
            out = wrap_pad(c, x, _static_shape(c, x, "a wrapping Pad"), grow)
        else:
            out = c.emit("pad", x, pad_width=grow, mode=PAD_MODES[mode])
    if any(w < 0 for w in width):
        shape = _static_shape(c, out, "a cropping Pad")
        out = c.emit("slice", out, start=[-min(w, 0) for w in width[0::2]],
                     stop=[d + min(w, 0) for d, w in zip(shape, width[1::2])],
                     step=[1] * rank)
    return out if out is not x else _same(c, x)


def _pad_with(c: Ctx, x: Any, value: Any, grow: list[int]) -> Any:
    """`x` padded with `value`: a known value is the op's attribute (when a float holds
    it exactly), a traced one fills where a padded mask of the input's extent is false."""
    known = c.known(value)
    if known is not None and known.size and float(known.ravel()[0]) == known.ravel()[0]:
        return c.emit("pad", x, pad_width=grow, value=float(known.ravel()[0]))
    shape = _static_shape(c, x, "Pad with a traced value")
    inside = c.emit("pad", c.emit("ones", shape=shape, dtype="bool"), pad_width=grow)
    fill = c.cast(c.emit("reshape", value, shape=[]), c.spec(x).dtype)
    return c.emit("where", inside, c.emit("pad", x, pad_width=grow), fill)


def _pad_upgrade(inputs: list[Any], attrs: dict[str, Any], opset: int
                 ) -> tuple[list[Any], dict[str, Any]]:
    """Pad < 11 takes `pads` and `value` as attributes; 11 as inputs."""
    pads, value = attrs.pop("pads", attrs.pop("paddings", [])), attrs.pop("value", 0.0)
    return inputs[:1] + [np.asarray(pads, np.int64), np.asarray(value, np.float64)], attrs


def _center_crop_pad(c: Ctx, x: Any, shape: Any, axes: list[int] | None = None) -> Any:
    """Each axis of the `axes` attribute cropped or padded (with zeros) to its target
    size around the center; an odd difference leaves the extra element at the end."""
    dims = _static_shape(c, x, "CenterCropPad")
    rank = len(dims)
    picked = [a % rank for a in axes] if axes is not None else list(range(rank))
    start, stop, width = [0] * rank, list(dims), [0] * (2 * rank)
    for a, size in zip(picked, c.ints(shape, "the target shape"), strict=True):
        diff = dims[a] - size
        if diff > 0:
            start[a], stop[a] = diff // 2, diff // 2 + size
        else:
            width[2 * a], width[2 * a + 1] = -diff // 2, -diff - (-diff // 2)
    out = x
    if start != [0] * rank or stop != dims:
        out = c.emit("slice", x, start=start, stop=stop, step=[1] * rank)
    if any(width):
        out = c.emit("pad", out, pad_width=width)
    return out


def _shape(c: Ctx, x: Any, start: int = 0, end: int | None = None) -> Any:
    """A known int64 vector of x's dims `start:end` (ONNX clamps them); a symbolic
    shape value (`Sizes`) where they hold dynamic dims."""
    picked = c.dims(x)[slice(start, end)]
    if None in picked:
        raise Unmapped(f"Shape of a dynamic shape {c.spec(x).shape} whose sizes are "
                       "unknown (they are no expression of the input dims)")
    return sizes(picked, "int64")


def _size(c: Ctx, x: Any) -> Any:
    shape = c.dims(x)
    if None in shape:
        raise Unmapped(f"Size of a dynamic shape {c.spec(x).shape} whose sizes are unknown")
    return sizes(_product(shape), "int64")


def _same(c: Ctx, x: Any) -> Any:
    """`x` unchanged (a known array stays known)."""
    return x


def _identity(c: Ctx, x: Any) -> Any:
    return _same(c, x)


def axes_upgrade(inputs: list[Any], attrs: dict[str, Any], opset: int
                  ) -> tuple[list[Any], dict[str, Any]]:
    """Squeeze/Unsqueeze < 13 and the reductions take `axes` as an attribute; the newer
    opsets as the second input."""
    axes = attrs.pop("axes", None)
    return inputs[:1] + [None if axes is None else np.asarray(axes, np.int64)], attrs


def _concat_upgrade(inputs: list[Any], attrs: dict[str, Any], opset: int
                    ) -> tuple[list[Any], dict[str, Any]]:
    """Concat < 4 may leave out `axis` (then 1); 4 requires it."""
    attrs.setdefault("axis", 1)
    return inputs, attrs


def _reshape_upgrade(inputs: list[Any], attrs: dict[str, Any], opset: int
                     ) -> tuple[list[Any], dict[str, Any]]:
    """Reshape < 5 takes `shape` as an attribute (and `consumed_inputs` before 5)."""
    attrs.pop("consumed_inputs", None)
    return inputs[:1] + [np.asarray(attrs.pop("shape", []), np.int64)], attrs


TABLE: dict[str, Rule] = {
    "Reshape": _reshape, "Transpose": _transpose, "Squeeze": _squeeze,
    "Unsqueeze": _unsqueeze, "Flatten": _flatten, "Concat": _concat, "Split": _split,
    "Slice": _slice, "Expand": _expand, "Tile": _tile, "Pad": _pad, "Shape": _shape,
    "Size": _size, "Identity": _identity, "CenterCropPad": _center_crop_pad,
}
"""ONNX op_type -> rule for the shape family."""

UPGRADES = {
    "Reshape": (5, _reshape_upgrade), "Squeeze": (13, axes_upgrade),
    "Unsqueeze": (13, axes_upgrade), "Split": (13, _split_upgrade),
    "Slice": (10, _slice_upgrade), "Pad": (11, _pad_upgrade), "Concat": (4, _concat_upgrade),
}
"""op_type -> (since, upgrade) for the shape family's older operator forms."""
