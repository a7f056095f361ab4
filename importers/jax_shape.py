"""Shape primitives of lax -> registry ops: broadcasting, reshapes, transposes,
concatenation, padding (negative and interior too), static slices and `iota`."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from jax.extend.core import JaxprEqn

from ivy_ir.dialect.types import numpy_dtype

from .jax_walk import FOLD_LIMIT, JaxprWalker, Rule, Unmapped, Value


def _broadcast_in_dim(w: JaxprWalker, eqn: JaxprEqn, ins: list[Value]) -> Value:
    x, shape = ins[0], tuple(eqn.params["shape"])
    dims = tuple(eqn.params["broadcast_dimensions"])
    missing = [d for d in range(len(shape)) if d not in dims]
    if w.spec(x).shape == tuple(shape[d] for d in dims) and all(shape[d] == 1 for d in missing):
        return w.emit("expand_dims", [x], axis=missing) if missing else x  # only new 1-dims
    if missing != list(range(len(missing))):  # leading new dims are implicit in broadcasting
        x = w.emit("expand_dims", [x], axis=missing)
    if w.spec(x).shape != shape:
        x = w.emit("broadcast_to", [x], shape=list(shape))
    return x


def _reshape(w: JaxprWalker, eqn: JaxprEqn, ins: list[Value]) -> Value:
    x = ins[0]
    if eqn.params.get("dimensions") is not None:  # reshape of the transposed operand
        x = w.emit("permute_dims", [x], axes=list(eqn.params["dimensions"]))
    shape = list(eqn.params["new_sizes"])
    return x if list(w.spec(x).shape) == shape else w.emit("reshape", [x], shape=shape)


def _squeeze(w: JaxprWalker, eqn: JaxprEqn, ins: list[Value]) -> Value:
    axes = list(eqn.params["dimensions"])
    return w.emit("squeeze", ins[:1], axis=axes) if axes else ins[0]


def _expand_dims(w: JaxprWalker, eqn: JaxprEqn, ins: list[Value]) -> Value:
    return w.emit("expand_dims", ins[:1], axis=list(eqn.params["dimensions"]))


def _transpose(w: JaxprWalker, eqn: JaxprEqn, ins: list[Value]) -> Value:
    perm = list(eqn.params["permutation"])
    return ins[0] if perm == sorted(perm) else w.emit("permute_dims", ins, axes=perm)


def _rev(w: JaxprWalker, eqn: JaxprEqn, ins: list[Value]) -> Value:
    axes = list(eqn.params["dimensions"])
    return w.emit("flip", ins, axis=axes) if axes else ins[0]


def _concatenate(w: JaxprWalker, eqn: JaxprEqn, ins: list[Value]) -> Value:
    return w.emit("concat", [list(ins)], axis=eqn.params["dimension"])


def _stack(w: JaxprWalker, eqn: JaxprEqn, ins: list[Value]) -> Value:
    return w.emit("stack", [list(ins)], axis=eqn.params["axis"])


def _tile(w: JaxprWalker, eqn: JaxprEqn, ins: list[Value]) -> Value:
    return w.emit("tile", ins, reps=list(eqn.params["reps"]))


def _slice(w: JaxprWalker, eqn: JaxprEqn, ins: list[Value]) -> Value:
    p = eqn.params
    start, stop = list(p["start_indices"]), list(p["limit_indices"])
    step = list(p["strides"] or [1] * len(start))
    return static_slice(w, ins[0], start, stop, step)


def static_slice(w: JaxprWalker, x: Value, start: Sequence[int], stop: Sequence[int],
                 step: Sequence[int] | None = None) -> Value:
    """`x[start:stop:step]` per axis; no op when it selects everything."""
    shape = w.spec(x).shape
    step = list(step or [1] * len(shape))
    if list(start) == [0] * len(shape) and tuple(stop) == shape and step == [1] * len(shape):
        return x
    return w.emit("slice", [x], start=list(start), stop=list(stop), step=step)


def _split(w: JaxprWalker, eqn: JaxprEqn, ins: list[Value]) -> list[Value]:
    sizes = [int(s) for s in eqn.params["sizes"]]
    return list(w.emit_all("split", ins, sizes=sizes, axis=eqn.params["axis"]))


def _iota(w: JaxprWalker, eqn: JaxprEqn, ins: list[Value]) -> Value:
    out = w.out(eqn)
    return iota(w, out.shape, eqn.params["dimension"], out.dtype)


def iota(w: JaxprWalker, shape: Sequence[int], dim: int, dtype: str) -> Value:
    """Counting 0, 1, ... along `dim`, broadcast over `shape` (known when small)."""
    ramp = [shape[dim] if i == dim else 1 for i in range(len(shape))]
    if math.prod(shape) <= FOLD_LIMIT:
        values = np.arange(shape[dim]).reshape(ramp)
        return np.broadcast_to(values, shape).astype(numpy_dtype(dtype))
    x = w.emit("arange", start=0.0, stop=float(shape[dim]), dtype=dtype)
    if len(shape) > 1:
        x = w.emit("reshape", [x], shape=ramp)
        x = w.emit("broadcast_to", [x], shape=list(shape))
    w.iotas[x] = dim
    return x


def _pad(w: JaxprWalker, eqn: JaxprEqn, ins: list[Value]) -> Value:
    return pad_general(w, ins[0], eqn.params["padding_config"], ins[1])


def pad_general(w: JaxprWalker, x: Value, config: Sequence[tuple[int, int, int]],
                value: Value) -> Value:
    """lax.pad: per axis (low, high, interior); negative edges crop, interior padding
    dilates. A padding value only known at run time goes in through a mask."""
    fill = w.known(value)
    if fill is None:
        mask = pad_general(w, ones_mask(w, w.spec(x).shape), config, np.asarray(False))
        padded = pad_general(w, x, config, np.zeros((), numpy_dtype(w.spec(x).dtype)))
        return w.emit("where", [mask, padded, value])
    if isinstance(x, np.ndarray) and x.size <= FOLD_LIMIT and not any(c[2] for c in config):
        return _numpy_pad(x, config, fill)
    fill_value = float(fill)
    for axis, (_, _, interior) in enumerate(config):
        if interior:
            x = _dilate(w, x, axis, interior, fill_value)
    width = [max(int(p), 0) for lo, hi, _ in config for p in (lo, hi)]
    if any(width):
        x = w.emit("pad", [x], pad_width=width, value=fill_value)
    shape = w.spec(x).shape
    start = [max(-lo, 0) for lo, _, _ in config]
    stop = [d - max(-hi, 0) for d, (_, hi, _) in zip(shape, config)]
    return static_slice(w, x, start, stop)


def _dilate(w: JaxprWalker, x: Value, axis: int, interior: int, fill: float) -> Value:
    """`interior` fill values between neighbours along `axis`: give each element a new
    axis padded to 1 + interior, merge the two axes and drop the trailing fill."""
    shape = list(w.spec(x).shape)
    n = shape[axis]
    if n <= 1:
        return x
    x = w.emit("expand_dims", [x], axis=[axis + 1])
    width = [0] * (2 * len(shape) + 2)
    width[2 * (axis + 1) + 1] = interior
    x = w.emit("pad", [x], pad_width=width, value=fill)
    merged = shape[:axis] + [n * (1 + interior)] + shape[axis + 1:]
    x = w.emit("reshape", [x], shape=merged)
    stop = list(merged)
    stop[axis] -= interior
    return static_slice(w, x, [0] * len(shape), stop)


def ones_mask(w: JaxprWalker, shape: Sequence[int]) -> Value:
    """An all-true mask: known when small, else an `ivy.ones` op (never a big constant)."""
    if math.prod(shape) <= FOLD_LIMIT:
        return np.ones(shape, bool)
    return w.emit("ones", shape=list(shape), dtype="bool")


def _numpy_pad(x: np.ndarray, config: Sequence[tuple[int, int, int]],
               fill: np.ndarray) -> np.ndarray:
    width = [(max(lo, 0), max(hi, 0)) for lo, hi, _ in config]
    out = np.pad(x, width, constant_values=fill)
    crop = tuple(slice(max(-lo, 0), out.shape[i] - max(-hi, 0))
                 for i, (lo, hi, _) in enumerate(config))
    return np.asarray(out[crop])


def dynamic_starts(w: JaxprWalker, starts: Sequence[Value], shape: Sequence[int],
                   sizes: Sequence[int]) -> list[int] | None:
    """Known start indices clamped into range as XLA does, or None if any is dynamic."""
    known = [w.known(s) for s in starts]
    if any(k is None for k in known):
        return None
    return [int(np.clip(int(k), 0, d - s)) for k, d, s in zip(known, shape, sizes)]


def _dynamic_slice(w: JaxprWalker, eqn: JaxprEqn, ins: list[Value]) -> Value:
    x, starts = ins[0], ins[1:]
    sizes = list(eqn.params["slice_sizes"])
    shape = w.spec(x).shape
    begin = dynamic_starts(w, starts[:len(shape)], shape, sizes)
    if begin is None or len(starts) != len(shape):
        raise Unmapped("dynamic_slice with start indices known only at run time")
    return static_slice(w, x, begin, [b + s for b, s in zip(begin, sizes)])


def _dynamic_update_slice(w: JaxprWalker, eqn: JaxprEqn, ins: list[Value]) -> Value:
    x, update, starts = ins[0], ins[1], ins[2:]
    shape, sizes = w.spec(x).shape, w.spec(update).shape
    begin = dynamic_starts(w, starts, shape, sizes)
    if begin is None:
        raise Unmapped("dynamic_update_slice with start indices known only at run time")
    return update_window(w, x, update, begin)


def update_window(w: JaxprWalker, x: Value, update: Value, begin: Sequence[int]) -> Value:
    """`x` with the window at `begin` replaced by `update` (in range): the update padded
    to x's shape, selected by a mask padded the same way."""
    shape, sizes = w.spec(x).shape, w.spec(update).shape
    if tuple(sizes) == tuple(shape):
        return update
    if math.prod(sizes) == 0:
        return x
    config = [(b, d - b - s, 0) for b, d, s in zip(begin, shape, sizes)]
    mask = pad_general(w, ones_mask(w, sizes), config, np.asarray(False))
    zero = np.zeros((), numpy_dtype(w.spec(x).dtype))
    return w.emit("where", [mask, pad_general(w, update, config, zero), x])


SHAPE_RULES: dict[str, Rule] = {
    "broadcast_in_dim": _broadcast_in_dim,
    "reshape": _reshape,
    "squeeze": _squeeze,
    "expand_dims": _expand_dims,
    "transpose": _transpose,
    "rev": _rev,
    "concatenate": _concatenate,
    "stack": _stack,
    "tile": _tile,
    "pad": _pad,
    "slice": _slice,
    "split": _split,
    "iota": _iota,
    "dynamic_slice": _dynamic_slice,
    "dynamic_update_slice": _dynamic_update_slice,
}
