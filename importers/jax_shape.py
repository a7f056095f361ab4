"""Shape primitives of lax -> registry ops: broadcasting, reshapes, transposes,
concatenation, padding (negative and interior too), slices (windows at run-time starts
too), `unstack` and `iota`."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ivy_ir.dialect.symbolic import SymDim
from ivy_ir.dialect.types import numpy_dtype

from .common import Rule, Unmapped
from .jax_ctx import FOLD_LIMIT, Ctx, Value


def _broadcast_in_dim(ctx: Ctx, x: Value, *, shape: Sequence[int],
                      broadcast_dimensions: Sequence[int], **_: Any) -> Value:
    shape, dims = tuple(shape), tuple(broadcast_dimensions)
    missing = [d for d in range(len(shape)) if d not in dims]
    if ctx.spec(x).shape == tuple(shape[d] for d in dims) and all(shape[d] == 1 for d in missing):
        return ctx.emit("expand_dims", x, axis=missing) if missing else x  # only new 1-dims
    if missing != list(range(len(missing))):  # leading new dims are implicit in broadcasting
        x = ctx.emit("expand_dims", x, axis=missing)
    if ctx.spec(x).shape != shape:
        x = ctx.emit("broadcast_to", x, shape=list(shape))
    return x


def _reshape(ctx: Ctx, x: Value, *, new_sizes: Sequence[int],
             dimensions: Sequence[int] | None = None, **_: Any) -> Value:
    if dimensions is not None:  # reshape of the transposed operand
        x = ctx.emit("permute_dims", x, axes=list(dimensions))
    shape = list(new_sizes)
    return x if list(ctx.spec(x).shape) == shape else ctx.emit("reshape", x, shape=shape)


def _squeeze(ctx: Ctx, x: Value, *, dimensions: Sequence[int], **_: Any) -> Value:
    axes = list(dimensions)
    return ctx.emit("squeeze", x, axis=axes) if axes else x


def _transpose(ctx: Ctx, x: Value, *, permutation: Sequence[int], **_: Any) -> Value:
    perm = list(permutation)
    return x if perm == sorted(perm) else ctx.emit("permute_dims", x, axes=perm)


def _rev(ctx: Ctx, x: Value, *, dimensions: Sequence[int], **_: Any) -> Value:
    axes = list(dimensions)
    return ctx.emit("flip", x, axis=axes) if axes else x


def _concatenate(ctx: Ctx, *xs: Value, dimension: int, **_: Any) -> Value:
    return ctx.emit("concat", list(xs), axis=dimension)


def _stack(ctx: Ctx, *xs: Value, axis: int, **_: Any) -> Value:
    return ctx.emit("stack", list(xs), axis=axis)


def _tile(ctx: Ctx, x: Value, *, reps: Sequence[int], **_: Any) -> Value:
    return ctx.emit("tile", x, reps=list(reps))


def _slice(ctx: Ctx, x: Value, *, start_indices: Sequence[int], limit_indices: Sequence[int],
           strides: Sequence[int] | None, **_: Any) -> Value:
    start, stop = list(start_indices), list(limit_indices)
    step = list(strides or [1] * len(start))
    return static_slice(ctx, x, start, stop, step)


def static_slice(ctx: Ctx, x: Value, start: Sequence[int], stop: Sequence[int],
                 step: Sequence[int] | None = None) -> Value:
    """`x[start:stop:step]` per axis; no op when it selects everything."""
    shape = ctx.spec(x).shape
    step = list(step or [1] * len(shape))
    if list(start) == [0] * len(shape) and tuple(stop) == shape and step == [1] * len(shape):
        return x
    return ctx.emit("slice", x, start=list(start), stop=list(stop), step=step)


def _split(ctx: Ctx, x: Value, *, sizes: Sequence[int], axis: int, **_: Any) -> list[Value]:
    return list(ctx.emit_all("split", x, sizes=[int(s) for s in sizes], axis=axis))


def _unstack(ctx: Ctx, x: Value, *, axis: int, **_: Any) -> list[Value]:
    """The slices along `axis`, each without it: a split into ones, squeezed."""
    n = ctx.spec(x).shape[axis]
    if n == 0:
        return []
    parts = ctx.emit_all("split", x, sizes=[1] * n, axis=axis) if n > 1 else [x]
    return [ctx.emit("squeeze", p, axis=[axis]) for p in parts]


def _iota(ctx: Ctx, *, dimension: int, shape: Sequence[int | SymDim], **_: Any) -> Value:
    return iota(ctx, shape, dimension, ctx.out.dtype)


def iota(ctx: Ctx, shape: Sequence[int | SymDim], dim: int, dtype: str) -> Value:
    """Counting 0, 1, ... along `dim`, broadcast over `shape` (known when small; sizes
    may be symbolic: `jnp.arange(x.shape[1])`)."""
    ramp = [shape[dim] if i == dim else 1 for i in range(len(shape))]
    static = all(isinstance(d, int) for d in shape)
    if static and math.prod(shape) <= FOLD_LIMIT:
        values = np.arange(shape[dim]).reshape(ramp)
        return np.broadcast_to(values, shape).astype(numpy_dtype(dtype))
    stop = shape[dim] if isinstance(shape[dim], SymDim) else float(shape[dim])
    x = ctx.emit("arange", start=0.0, stop=stop, dtype=dtype)
    if len(shape) > 1:
        x = ctx.emit("reshape", x, shape=ramp)
        x = ctx.emit("broadcast_to", x, shape=list(shape))
    ctx.iotas[x] = dim
    return x


def _pad(ctx: Ctx, x: Value, padding_value: Value, *,
         padding_config: Sequence[tuple[int, int, int]], **_: Any) -> Value:
    return pad_general(ctx, x, padding_config, padding_value)


def pad_general(ctx: Ctx, x: Value, config: Sequence[tuple[int, int, int]],
                value: Value) -> Value:
    """lax.pad: per axis (low, high, interior); negative edges crop, interior padding
    dilates. A padding value only known at run time goes in through a mask."""
    fill = ctx.known(value)
    if fill is not None and np.imag(fill) != 0:
        fill = None  # ivy.pad's value is real: a complex one goes in through the mask
    if fill is None:
        mask = pad_general(ctx, ones_mask(ctx, ctx.spec(x).shape), config, np.asarray(False))
        padded = pad_general(ctx, x, config, np.zeros((), numpy_dtype(ctx.spec(x).dtype)))
        return ctx.emit("where", mask, padded, value)
    if isinstance(x, np.ndarray) and x.size <= FOLD_LIMIT and not any(c[2] for c in config):
        return _numpy_pad(x, config, fill)
    fill_value = float(np.real(fill))
    for axis, (_, _, interior) in enumerate(config):
        if interior:
            x = _dilate(ctx, x, axis, interior, fill_value)
    width = [max(int(p), 0) for lo, hi, _ in config for p in (lo, hi)]
    if any(width):
        x = ctx.emit("pad", x, pad_width=width, value=fill_value)
    shape = ctx.spec(x).shape
    start = [max(-lo, 0) for lo, _, _ in config]
    stop = [d - max(-hi, 0) for d, (_, hi, _) in zip(shape, config)]
    return static_slice(ctx, x, start, stop)


def _dilate(ctx: Ctx, x: Value, axis: int, interior: int, fill: float) -> Value:
    """`interior` fill values between neighbours along `axis`: give each element a new
    axis padded to 1 + interior, merge the two axes and drop the trailing fill."""
    shape = list(ctx.spec(x).shape)
    n = shape[axis]
    if n <= 1:
        return x
    x = ctx.emit("expand_dims", x, axis=[axis + 1])
    width = [0] * (2 * len(shape) + 2)
    width[2 * (axis + 1) + 1] = interior
    x = ctx.emit("pad", x, pad_width=width, value=fill)
    merged = shape[:axis] + [n * (1 + interior)] + shape[axis + 1:]
    x = ctx.emit("reshape", x, shape=merged)
    stop = list(merged)
    stop[axis] -= interior
    return static_slice(ctx, x, [0] * len(shape), stop)


def ones_mask(ctx: Ctx, shape: Sequence[int]) -> Value:
    """An all-true mask: known when small, else an `ivy.ones` op (never a big constant)."""
    if math.prod(shape) <= FOLD_LIMIT:
        return np.ones(shape, bool)
    return ctx.emit("ones", shape=list(shape), dtype="bool")


def _numpy_pad(x: np.ndarray, config: Sequence[tuple[int, int, int]],
               fill: np.ndarray) -> np.ndarray:
    width = [(max(lo, 0), max(hi, 0)) for lo, hi, _ in config]
    out = np.pad(x, width, constant_values=fill)
    crop = tuple(slice(max(-lo, 0), out.shape[i] - max(-hi, 0))
                 for i, (lo, hi, _) in enumerate(config))
    return np.asarray(out[crop])


def dynamic_starts(ctx: Ctx, starts: Sequence[Value], shape: Sequence[int],
                   sizes: Sequence[int]) -> list[int] | None:
    """Known start indices clamped into range as XLA does, or None if any is dynamic."""
    known = [ctx.known(s) for s in starts]
    if any(k is None for k in known):
        return None
    return [int(np.clip(int(k), 0, d - s)) for k, d, s in zip(known, shape, sizes)]


def _dynamic_slice(ctx: Ctx, x: Value, *starts: Value, slice_sizes: Sequence[int],
                   **_: Any) -> Value:
    sizes = list(slice_sizes)
    shape = ctx.spec(x).shape
    if len(starts) != len(shape):
        raise Unmapped("dynamic_slice with one start index per operand dim only")
    begin = dynamic_starts(ctx, starts, shape, sizes)
    if begin is not None:
        return static_slice(ctx, x, begin, [b + s for b, s in zip(begin, sizes)])
    # a start known only at run time: the window's positions along that axis, gathered
    for axis, (start, dim, size) in enumerate(zip(starts, shape, sizes)):
        if ctx.known(start) is None:
            x = ctx.emit("take", x, _offsets(ctx, start, dim, size, np.arange(size)), axis=axis)
        elif size != dim:
            b = int(np.clip(int(ctx.known(start)), 0, dim - size))
            x = _axis_slice(ctx, x, axis, b, b + size)
    return x


def _dynamic_update_slice(ctx: Ctx, x: Value, update: Value, *starts: Value,
                          **_: Any) -> Value:
    shape, sizes = ctx.spec(x).shape, ctx.spec(update).shape
    begin = dynamic_starts(ctx, starts, shape, sizes)
    if begin is not None:
        return update_window(ctx, x, update, begin)
    if math.prod(sizes) == 0:
        return x
    # per axis: where x's positions fall in the window, and which update element each
    # reads (clipped into the update outside it); x is kept outside the window
    mask: Value | None = None
    for axis, (start, dim, size) in enumerate(zip(starts, shape, sizes)):
        into = _offsets(ctx, start, dim, size, -np.arange(dim))  # start - position
        inside = ctx.emit("logical_and", ctx.emit("less_equal", into, ctx.const(0, "int64")),
                          ctx.emit("greater", into, ctx.const(-size, "int64")))
        pick = ctx.emit("clip", ctx.emit("negative", into), min=0.0, max=float(size - 1))
        update = ctx.emit("take", update, pick, axis=axis)
        inside = ctx.emit("reshape", inside, shape=[dim if i == axis else 1
                                                    for i in range(len(shape))])
        mask = inside if mask is None else ctx.emit("logical_and", mask, inside)
    return ctx.emit("where", mask, update, x)


def _offsets(ctx: Ctx, start: Value, dim: int, size: int, steps: np.ndarray) -> Value:
    """`clamp(start, 0, dim - size) + steps` in int64, the start clamped as XLA does."""
    start = ctx.cast(start, "int64")
    start = ctx.emit("clip", start, min=0.0, max=float(dim - size))
    return ctx.emit("add", start, ctx.const(steps, "int64"))


def _axis_slice(ctx: Ctx, x: Value, axis: int, begin: int, end: int) -> Value:
    shape = list(ctx.spec(x).shape)
    return static_slice(ctx, x, [begin if i == axis else 0 for i in range(len(shape))],
                        [end if i == axis else d for i, d in enumerate(shape)])


def update_window(ctx: Ctx, x: Value, update: Value, begin: Sequence[int]) -> Value:
    """`x` with the window at `begin` replaced by `update` (in range): the update padded
    to x's shape, selected by a mask padded the same way."""
    shape, sizes = ctx.spec(x).shape, ctx.spec(update).shape
    if tuple(sizes) == tuple(shape):
        return update
    if math.prod(sizes) == 0:
        return x
    config = [(b, d - b - s, 0) for b, d, s in zip(begin, shape, sizes)]
    mask = pad_general(ctx, ones_mask(ctx, sizes), config, np.asarray(False))
    zero = np.zeros((), numpy_dtype(ctx.spec(x).dtype))
    return ctx.emit("where", mask, pad_general(ctx, update, config, zero), x)


SHAPE: dict[str, Rule] = {
    "broadcast_in_dim": _broadcast_in_dim,
    "reshape": _reshape,
    "squeeze": _squeeze,
    "transpose": _transpose,
    "rev": _rev,
    "concatenate": _concatenate,
    "stack": _stack,
    "tile": _tile,
    "pad": _pad,
    "slice": _slice,
    "split": _split,
    "unstack": _unstack,
    "iota": _iota,
    "dynamic_slice": _dynamic_slice,
    "dynamic_update_slice": _dynamic_update_slice,
}
"""Shape lax primitive name -> rule."""
