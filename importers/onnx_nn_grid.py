"""ONNX GridSample (opsets 16 and 20: 2-D and N-D) onto elementwise registry ops and
gathers.

The grid is a run-time value, so sampling is written out: per spatial dim, the grid's
normalized coordinate (its last axis lists x, y, z: the spatial dims backwards) is
mapped to a pixel coordinate, rounded half to even for `nearest`, and brought inside
the input by `padding_mode` (border clamps, reflection folds back at the borders,
zeros leaves it). Then every tap of the interpolation kernel (1 for nearest, 2 for
linear, 4 for cubic, per dim) reads the input through one `take_along_axis` of the
flattened spatial dims; a tap outside the input reads 0 (zeros), the nearest edge
(border) or its reflection. The result is the kernel-weighted sum of the taps.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from .common import Rule, Unmapped

CUBIC_A = -0.75
"""GridSample's cubic kernel coefficient."""

TAPS = {"nearest": [0], "linear": [0, 1], "cubic": [-1, 0, 1, 2]}
"""mode -> tap offsets from floor(coordinate)."""

MODES = {"bilinear": "linear", "bicubic": "cubic"}
"""Opset 16's mode names -> opset 20's."""


def _cubic_weight(ctx: Any, t: Any, offset: int) -> Any:
    """Keys' kernel at the distance of tap `offset` from a coordinate `t` past its
    floor: k(1 + t), k(t), k(1 - t), k(2 - t)."""
    dtype = ctx.spec(t).dtype
    a = CUBIC_A

    def num(v: float) -> Any:
        return ctx.const(v, dtype)
    d = ctx.emit("abs", ctx.emit("subtract", t, num(float(offset))))
    d2 = ctx.emit("multiply", d, d)
    d3 = ctx.emit("multiply", d2, d)
    def term(power: Any, coefficient: float) -> Any:
        return ctx.emit("multiply", power, num(coefficient))
    # (a + 2) d^3 - (a + 3) d^2 + 1 within 1; a d^3 - 5a d^2 + 8a d - 4a within 2
    near = ctx.emit("add", ctx.emit("subtract", term(d3, a + 2), term(d2, a + 3)), num(1.0))
    far = ctx.emit("add", ctx.emit("subtract", ctx.emit("add", term(d3, a), term(d, 8 * a)),
                                   term(d2, 5 * a)), num(-4 * a))
    return ctx.emit("where", ctx.emit("less_equal", d, num(1.0)), near, far)


def _reflect(ctx: Any, x: Any, lo: float, hi: float) -> Any:
    """x folded into [lo, hi] by reflections at the borders (ONNX's rule: the number of
    whole spans beyond a border decides which border the rest is measured from)."""
    dtype = ctx.spec(x).dtype

    def num(v: float) -> Any:
        return ctx.const(v, dtype)
    below = ctx.emit("less", x, num(lo))
    above = ctx.emit("greater", x, num(hi))
    dx = ctx.emit("where", below, ctx.emit("subtract", num(lo), x),
                  ctx.emit("subtract", x, num(hi)))
    spans = ctx.emit("trunc", ctx.emit("divide", dx, num(hi - lo)))
    rest = ctx.emit("subtract", dx, ctx.emit("multiply", spans, num(hi - lo)))
    even = ctx.emit("equal", ctx.emit("remainder", spans, num(2.0)), num(0.0))
    from_lo, from_hi = ctx.emit("add", num(lo), rest), ctx.emit("subtract", num(hi), rest)
    low = ctx.emit("where", even, from_lo, from_hi)
    high = ctx.emit("where", even, from_hi, from_lo)
    return ctx.emit("where", below, low, ctx.emit("where", above, high, x))


def _coordinate(ctx: Any, n: Any, size: int, mode: str, padding: str, align: bool) -> Any:
    """A normalized grid coordinate as a pixel coordinate inside the padding rule."""
    dtype = ctx.spec(n).dtype

    def num(v: float) -> Any:
        return ctx.const(v, dtype)
    shifted = ctx.emit("add", n, num(1.0))
    if align:
        x = ctx.emit("multiply", shifted, num((size - 1) / 2))
    else:
        x = ctx.emit("divide", ctx.emit("subtract", ctx.emit("multiply", shifted, num(size)),
                                        num(1.0)), num(2.0))
    if mode == "nearest":
        x = ctx.emit("round", x)
    lo, hi = (0.0, size - 1.0) if align else (-0.5, size - 0.5)
    if padding == "border":
        return ctx.emit("clip", x, min=0.0, max=size - 1.0)
    if padding == "reflection":
        return _reflect(ctx, x, lo, hi)
    return x


def _tap(ctx: Any, index: Any, size: int, padding: str, align: bool) -> tuple[Any, Any]:
    """(an in-range int64 index, a validity mask or None) for a tap's float index."""
    dtype = ctx.spec(index).dtype
    if padding == "zeros":
        valid = ctx.emit("logical_and", ctx.emit("greater_equal", index, ctx.const(0.0, dtype)),
                         ctx.emit("less", index, ctx.const(float(size), dtype)))
        clamped = ctx.emit("clip", index, min=0.0, max=size - 1.0)
        return ctx.emit("astype", clamped, dtype="int64"), valid
    if padding == "reflection":
        lo, hi = (0.0, size - 1.0) if align else (-0.5, size - 0.5)
        index = ctx.emit("trunc", _reflect(ctx, index, lo, hi))
    return ctx.emit("astype", ctx.emit("clip", index, min=0.0, max=size - 1.0),
                    dtype="int64"), None


def _grid_sample(ctx: Any, x: Any, grid: Any, *, align_corners: int = 0,
                 mode: str = "linear", padding_mode: str = "zeros") -> Any:
    mode = MODES.get(mode, mode)
    if mode not in TAPS or padding_mode not in ("zeros", "border", "reflection"):
        raise Unmapped(f"with mode {mode!r} and padding_mode {padding_mode!r}")
    spec, gspec = ctx.spec(x), ctx.spec(grid)
    if None in spec.shape or None in gspec.shape:
        raise Unmapped(f"on dynamic sizes {spec.shape}, {gspec.shape}")
    n, c, sizes = spec.shape[0], spec.shape[1], list(spec.shape[2:])
    dims, out = len(sizes), list(gspec.shape[1:-1])
    if align_corners and padding_mode == "reflection" and 1 in sizes:
        raise Unmapped("reflection with align_corners over a dim of size 1 (no span)")
    parts = ctx.emit_all("split", grid, sizes=[1] * dims, axis=gspec.rank - 1)
    count = math.prod(out)
    coords = [ctx.emit("reshape", _coordinate(
        ctx, ctx.emit("squeeze", parts[dims - 1 - i], axis=[gspec.rank - 1]), size, mode,
        padding_mode, bool(align_corners)), shape=[n, count]) for i, size in enumerate(sizes)]
    flat = ctx.emit("reshape", x, shape=[n, c, math.prod(sizes)])
    taken = sample(ctx, flat, coords, sizes, mode, padding_mode, bool(align_corners))
    return ctx.emit("reshape", taken, shape=[n, c, *out])


def sample(ctx: Any, flat: Any, coords: list[Any], sizes: list[int], mode: str,
           padding: str, align: bool) -> Any:
    """flat (N, C, prod(sizes)) read at pixel coordinates (one (N, P) tensor per spatial
    dim, inside the padding rule): (N, C, P), the kernel-weighted sum of the taps."""
    n, count = ctx.spec(coords[0]).shape
    dtype = ctx.spec(flat).dtype
    floors = [ctx.emit("floor", v) for v in coords]
    fracs = [ctx.emit("subtract", v, f) for v, f in zip(coords, floors)]
    strides = [math.prod(sizes[i + 1:]) for i in range(len(sizes))]
    taps = []  # per dim and tap offset: (index * stride, validity or None, weight or None)
    for i, size in enumerate(sizes):
        per = {}
        for off in TAPS[mode]:
            where = ctx.emit("add", floors[i], ctx.const(float(off), ctx.spec(floors[i]).dtype))
            idx, ok = _tap(ctx, where, size, padding, align)
            per[off] = (ctx.emit("multiply", idx, np.asarray(strides[i], np.int64)), ok,
                        _kernel(ctx, mode, fracs[i], off))
        taps.append(per)
    total = None
    for offsets in itertools.product(TAPS[mode], repeat=len(sizes)):
        weight, index, valid = None, None, None
        for i, off in enumerate(offsets):
            part, ok, w = taps[i][off]
            index = part if index is None else ctx.emit("add", index, part)
            if ok is not None:
                valid = ok if valid is None else ctx.emit("logical_and", valid, ok)
            if w is not None:
                weight = w if weight is None else ctx.emit("multiply", weight, w)
        picked = ctx.emit("take_along_axis", flat,
                          ctx.emit("reshape", index, shape=[n, 1, count]), axis=2)
        if valid is not None:
            picked = ctx.emit("where", ctx.emit("reshape", valid, shape=[n, 1, count]),
                              picked, ctx.const(0.0, dtype))
        if weight is not None:
            picked = ctx.emit("multiply", picked, ctx.cast(
                ctx.emit("reshape", weight, shape=[n, 1, count]), dtype))
        total = picked if total is None else ctx.emit("add", total, picked)
    return total


def _kernel(ctx: Any, mode: str, frac: Any, offset: int) -> Any:
    """The weight of the tap at `offset` from the floor (None: nearest's single tap)."""
    if mode == "nearest":
        return None
    if mode == "linear":
        one = ctx.const(1.0, ctx.spec(frac).dtype)
        return frac if offset else ctx.emit("subtract", one, frac)
    return _cubic_weight(ctx, frac, offset)


TABLE: dict[str, Rule] = {"GridSample": _grid_sample}
"""ONNX op_type -> rule of grid sampling."""
