"""Contractions, convolutions, pooling windows and sorting: lax -> registry ops."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ivy_ir.dialect.types import FLOATS, numpy_dtype

from .common import Rule, Unmapped
from .jax_ctx import Ctx, Value
from .jax_shape import pad_general, static_slice

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _dot_general(ctx: Ctx, *ins: Value, dimension_numbers: Any, **_: Any) -> Value:
    """Output dims of dot_general: batch, then x's free dims, then y's free dims; matmul
    or tensordot where they say exactly that, einsum otherwise. Operands go to the
    result dtype first (preferred_element_type accumulates in it)."""
    dtype = ctx.out.dtype
    x, y = (ctx.cast(v, dtype) for v in ins)
    (cx, cy), (bx, by) = dimension_numbers
    cx, cy, bx, by = tuple(cx), tuple(cy), tuple(bx), tuple(by)
    rx, ry = ctx.spec(x).rank, ctx.spec(y).rank
    nb = len(bx)
    plain = not nb and cx == (rx - 1,) and cy == (0,) and ry in (1, 2)
    batched = nb and bx == by == tuple(range(nb)) and rx == ry == nb + 2 and \
        cx == (nb + 1,) and cy == (nb,)
    if plain or batched:
        return ctx.emit("matmul", x, y)
    if not nb:
        return ctx.emit("tensordot", x, y, axes_x=list(cx), axes_y=list(cy))
    lx = list(_LETTERS[:rx])
    ly = list(_LETTERS[rx:rx + ry])
    for i, j in zip(cx + bx, cy + by):
        ly[j] = lx[i]
    out = [lx[i] for i in bx] + [lx[i] for i in range(rx) if i not in cx + bx] + \
        [ly[j] for j in range(ry) if j not in cy + by]
    eq = f"{''.join(lx)},{''.join(ly)}->{''.join(out)}"
    return ctx.emit("einsum", [x, y], equation=eq)


def _inverse(perm: Sequence[int]) -> list[int]:
    return [int(i) for i in np.argsort(perm)]


def _conv(ctx: Ctx, *ins: Value, window_strides: Sequence[int],
          padding: Sequence[tuple[int, int]], lhs_dilation: Sequence[int],
          rhs_dilation: Sequence[int], dimension_numbers: Any, feature_group_count: int,
          batch_group_count: int, **_: Any) -> Value:
    """conv_general_dilated: NHWC/HWIO runs channels-last as is, any other layout is
    permuted to channels-first; lhs (input) dilation makes it a transposed conv."""
    if batch_group_count != 1:
        raise Unmapped("conv_general_dilated with batch_group_count > 1")
    dtype = ctx.out.dtype
    x, k = (ctx.cast(v, dtype) for v in ins)
    dn = dimension_numbers
    lhs, rhs, out = tuple(dn.lhs_spec), tuple(dn.rhs_spec), tuple(dn.out_spec)
    r = len(lhs)
    n = r - 2
    nhwc = (0, r - 1, *range(1, r - 1))
    if lhs == out == nhwc and rhs == (r - 1, r - 2, *range(r - 2)):
        layout, spatial = "channels_last", list(range(1, r - 1))
    else:
        layout, spatial = "channels_first", list(range(2, r))
        x = _permute(ctx, x, lhs)
        k = _permute(ctx, k, rhs)
    pads = [tuple(pq) for pq in padding]
    lhs_dil, dil, strides = list(lhs_dilation), list(rhs_dilation), list(window_strides)
    groups = feature_group_count
    kernel = [ctx.spec(k).shape[a] for a in (range(n) if layout == "channels_last"
                                           else range(2, r))]
    y = None
    if any(d > 1 for d in lhs_dil):
        y = _as_transposed_conv(ctx, x, k, pads, lhs_dil, dil, strides, kernel, groups, layout)
        if y is None:  # dilate the input explicitly, then an ordinary conv
            config = [(0, 0, 0)] * r
            for a, d in zip(spatial, lhs_dil):
                config[a] = (0, 0, d - 1)
            x = pad_general(ctx, x, config, np.zeros((), numpy_dtype(dtype)))
    if y is None:
        x, pads = _crop_negative(ctx, x, pads, spatial)
        y = ctx.emit("conv", x, k, None, strides=strides, padding=[q for pq in pads for q in pq],
                   dilations=dil, groups=groups, layout=layout)
    if layout == "channels_first":
        y = _permute(ctx, y, _inverse(out))
    return y


def _permute(ctx: Ctx, x: Value, axes: Sequence[int]) -> Value:
    axes = [int(a) for a in axes]
    return x if axes == sorted(axes) else ctx.emit("permute_dims", x, axes=axes)


def _crop_negative(ctx: Ctx, x: Value, pads: list[tuple[int, int]],
                   spatial: list[int]) -> tuple[Value, list[tuple[int, int]]]:
    """Negative conv padding crops the input (the registry conv pads by >= 0)."""
    shape = ctx.spec(x).shape
    start, stop = [0] * len(shape), list(shape)
    for a, (lo, hi) in zip(spatial, pads):
        start[a], stop[a] = max(-lo, 0), shape[a] - max(-hi, 0)
    return static_slice(ctx, x, start, stop), [(max(lo, 0), max(hi, 0)) for lo, hi in pads]


def _as_transposed_conv(ctx: Ctx, x: Value, k: Value, pads: list[tuple[int, int]],
                        lhs_dil: list[int], dil: list[int], strides: list[int],
                        kernel: list[int], groups: int, layout: str) -> Value | None:
    """A stride-1 conv over the input dilated by s is conv_transpose with stride s, the
    kernel flipped and its in/out channels swapped, padding dil*(k-1) - pad (an output
    padding takes what the high side cannot). None when the numbers do not fit."""
    if any(s != 1 for s in strides):
        return None
    padding, extra = [], []
    for (lo, hi), s, d, kk in zip(pads, lhs_dil, dil, kernel):
        span = d * (kk - 1)
        op = max(hi - span, 0)
        if lo > span or op >= max(s, d):
            return None
        padding += [span - lo, span - hi + op]
        extra.append(op)
    n = len(kernel)
    spatial = list(range(n)) if layout == "channels_last" else list(range(2, n + 2))
    k = ctx.emit("flip", k, axis=spatial)
    shape = list(ctx.spec(k).shape)
    if layout == "channels_last":  # (*k, I/g, O) -> (*k, O/g, I)
        cin_g, cout = shape[-2:]
        k = ctx.emit("reshape", k, shape=kernel + [cin_g, groups, cout // groups])
        k = _permute(ctx, k, list(range(n)) + [n + 2, n + 1, n])
        k = ctx.emit("reshape", k, shape=kernel + [cout // groups, groups * cin_g])
    else:  # (O, I/g, *k) -> (I, O/g, *k)
        cout, cin_g = shape[:2]
        k = ctx.emit("reshape", k, shape=[groups, cout // groups, cin_g] + kernel)
        k = _permute(ctx, k, [0, 2, 1] + list(range(3, n + 3)))
        k = ctx.emit("reshape", k, shape=[groups * cin_g, cout // groups] + kernel)
    return ctx.emit("conv_transpose", x, k, None, strides=lhs_dil, padding=padding,
                  output_padding=extra, dilations=dil, groups=groups, layout=layout)


def _reduce_window(kind: str) -> Rule:
    """reduce_window_{max,min,sum} -> max_pool / -max_pool(-x) / avg_pool * size.

    Window axes of size 1, stride 1 and no padding are batch/channel axes; the others
    are spatial. NHWC and NCHW windows pool in place; other layouts move the spatial
    axes last and fold the rest into the batch."""
    def rule(ctx: Ctx, x: Value, *, window_dimensions: Sequence[int],
             window_strides: Sequence[int], padding: Sequence[tuple[int, int]],
             base_dilation: Sequence[int], window_dilation: Sequence[int],
             **_: Any) -> Value:
        spec = ctx.spec(x)
        if any(d != 1 for d in base_dilation):
            raise Unmapped(f"reduce_window_{kind} with base dilation")
        if kind == "sum" and (spec.dtype not in FLOATS
                              or any(d != 1 for d in window_dilation)):
            raise Unmapped(f"reduce_window_{kind} on {spec.dtype} or with window dilation")
        win = list(zip(window_dimensions, window_strides, [tuple(q) for q in padding],
                       window_dilation))
        active = [i for i, v in enumerate(win) if v != (1, 1, (0, 0), 1)]
        if not active:
            return x
        if kind == "min":
            return ctx.emit("negative", _pool(ctx, "max", ctx.emit("negative", x), win, active))
        return _pool(ctx, kind, x, win, active)
    return rule


def _pool(ctx: Ctx, kind: str, x: Value, win: list[tuple], active: list[int]) -> Value:
    shape = list(ctx.spec(x).shape)
    r = len(shape)
    if r >= 3 and 0 not in active and r - 1 not in active:
        return _pool_layout(ctx, kind, x, win, list(range(1, r - 1)), "channels_last")
    if r >= 3 and 0 not in active and 1 not in active:
        return _pool_layout(ctx, kind, x, win, list(range(2, r)), "channels_first")
    rest = [i for i in range(r) if i not in active]
    perm = rest + active
    y = _permute(ctx, x, perm)
    y = ctx.emit("reshape", y, shape=[math.prod(shape[i] for i in rest), 1] +
               [shape[i] for i in active])
    y = _pool_layout(ctx, kind, y, [(1, 1, (0, 0), 1)] * 2 + [win[i] for i in active],
                     list(range(2, 2 + len(active))), "channels_first")
    y = ctx.emit("reshape", y, shape=[shape[i] for i in rest] + list(ctx.spec(y).shape[2:]))
    return _permute(ctx, y, _inverse(perm))


def _pool_layout(ctx: Ctx, kind: str, x: Value, win: list[tuple], spatial: list[int],
                 layout: str) -> Value:
    kernel = [win[i][0] for i in spatial]
    strides = [win[i][1] for i in spatial]
    pads = [win[i][2] for i in spatial]
    dil = [win[i][3] for i in spatial]
    if any(max(lo, hi) > kk // 2 or min(lo, hi) < 0 for (lo, hi), kk in zip(pads, kernel)):
        # beyond what a pool pads: pad with the reduction's identity first
        config = [(0, 0, 0)] * len(win)
        for a, pq in zip(spatial, pads):
            config[a] = (pq[0], pq[1], 0)
        x = pad_general(ctx, x, config, _identity(ctx, kind, x))
        pads = [(0, 0)] * len(spatial)
    padding = [q for pq in pads for q in pq]
    if kind == "max":
        return ctx.emit("max_pool", x, kernel=kernel, strides=strides, padding=padding,
                      dilations=dil if any(d != 1 for d in dil) else None, layout=layout)
    avg = ctx.emit("avg_pool", x, kernel=kernel, strides=strides, padding=padding,
                 count_include_pad=True, layout=layout)
    size = float(math.prod(kernel))
    total = ctx.emit("multiply", avg, np.asarray(size, numpy_dtype(ctx.spec(x).dtype)))
    ctx.window_sums[total] = (avg, size)
    return total


def _identity(ctx: Ctx, kind: str, x: Value) -> np.ndarray:
    dtype = ctx.spec(x).dtype
    if kind == "sum":
        return np.zeros((), np.float64)
    if dtype == "bool":
        return np.asarray(False)
    if dtype.startswith(("int", "uint")):
        return np.asarray(np.iinfo(np.dtype(dtype)).min)
    return np.asarray(-np.inf)


def _sort(ctx: Ctx, *ins: Value, dimension: int, num_keys: int, **_: Any) -> list[Value]:
    """sort orders every operand by the first `num_keys` ones, compared lexicographically
    (stable; lax puts -0.0 with +0.0 and NaNs last, as the IR's sort does). One key
    sorts itself; the order of several comes from stable argsorts, from the least
    significant key to the most, each of a key gathered in the order found so far. An
    iota along the axis becomes the order itself (argsort), any other operand is
    gathered by it. The IR sorts no bools: bool keys sort as uint8."""
    axis = dimension
    keys = [ctx.cast(k, "uint8") if ctx.spec(k).dtype == "bool" else k for k in ins[:num_keys]]
    outs: list[Value] = []
    if num_keys == 1:
        outs.append(ctx.cast(ctx.emit("sort", keys[0], axis=axis), ctx.outs[0].dtype))
        if len(ins) == 1:
            return outs
    order = ctx.emit("argsort", keys[-1], axis=axis)
    for key in reversed(keys[:-1]):
        step = ctx.emit("argsort", ctx.emit("take_along_axis", key, order, axis=axis),
                        axis=axis)
        order = ctx.emit("take_along_axis", order, step, axis=axis)
    for i, other in enumerate(ins[len(outs):], start=len(outs)):
        if _is_iota(ctx, other, axis):
            outs.append(ctx.cast(order, ctx.outs[i].dtype))
        else:
            outs.append(ctx.emit("take_along_axis", other, order, axis=axis))
    return outs


def _is_iota(ctx: Ctx, v: Value, axis: int) -> bool:
    known = ctx.known(v)
    if known is None:
        return ctx.iotas.get(v) == axis
    shape = known.shape
    ramp = np.arange(shape[axis]).reshape([-1 if i == axis else 1 for i in range(len(shape))])
    return bool(np.array_equal(known, np.broadcast_to(ramp, shape)))


def _top_k(ctx: Ctx, x: Value, *, k: int, axis: int = -1, **_: Any) -> list[Value]:
    values, indices = ctx.emit_all("top_k", x, k=k, axis=axis)
    return [values, ctx.cast(indices, ctx.outs[1].dtype)]


NN: dict[str, Rule] = {
    "dot_general": _dot_general,
    "conv_general_dilated": _conv,
    "reduce_window_max": _reduce_window("max"),
    "reduce_window_min": _reduce_window("min"),
    "reduce_window_sum": _reduce_window("sum"),
    "sort": _sort,
    "top_k": _top_k,
}
"""Layer lax primitive name -> rule: contractions, convolutions, pooling, sorting."""
