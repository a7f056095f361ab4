"""float64 convolution and average pooling from strided slices (onnxruntime has no
float64 Conv or AveragePool kernel).

The padded input is sliced once per kernel offset (each slice the input cells that
offset meets in every output window); average pooling sums the slices and divides by
the reference's own divisor, computed with NumPy at export; convolution stacks them
(im2col) and multiplies by the weights grouped as (groups, out/groups, in/groups *
kernel). Sizes are static here (`onnx.py` refuses dynamic ones first).
"""

from __future__ import annotations

import itertools

import numpy as np

from ivy_ir.core.reference_nn_kernels import pool_windows
from ivy_ir.core.resample import pool_out_dim

from .onnx_graph import OnnxContext


def _windows(c: OnnxContext, xp: str, kernel: tuple[int, ...], strides: tuple[int, ...],
             dilations: tuple[int, ...], outs: list[int]) -> list[str]:
    """One (N, C, *outs) slice of the padded input per kernel offset, in C order."""
    n = len(kernel)
    axes = c.b.ints(range(2, 2 + n))
    steps = c.b.ints(strides)
    slices = []
    for offset in itertools.product(*(range(k) for k in kernel)):
        starts = [o * d for o, d in zip(offset, dilations)]
        ends = [st + (out - 1) * s + 1 for st, out, s in zip(starts, outs, strides)]
        slices.append(c.node("Slice", [xp, c.b.ints(starts), c.b.ints(ends), axes, steps]))
    return slices


def _padded(c: OnnxContext, x: str, pads: list[tuple[int, int]]) -> str:
    flat = [0, 0] + [lo for lo, _ in pads] + [0, 0] + [hi for _, hi in pads]
    return c.node("Pad", [x, c.b.ints(flat)]) if any(flat) else x


def avg_pool_f64(c: OnnxContext, x: str) -> str:
    """x channels-first; the divisor as the reference counts it (torch's rule)."""
    a, shape = c.attrs, c.x_type.shape
    kernel, strides, padding = a["kernel"], a["strides"], a["padding"]
    n = len(kernel)
    spatial = shape[2:] if a["layout"] == "channels_first" else shape[1:-1]
    outs = [pool_out_dim(d, k, s, padding[2 * i], padding[2 * i + 1], 1, a["ceil_mode"])
            for i, (d, k, s) in enumerate(zip(spatial, kernel, strides))]
    pads = [(padding[2 * i], max(padding[2 * i + 1], (o - 1) * s + k - d - padding[2 * i]))
            for i, (d, k, s, o) in enumerate(zip(spatial, kernel, strides, outs))]
    total = c.node("Sum", _windows(c, _padded(c, x, pads), kernel, strides, (1,) * n, outs))
    inside = np.ones((1, 1, *spatial))
    if a["count_include_pad"]:
        inside = np.pad(inside, [(0, 0), (0, 0)] + [(padding[2 * i], padding[2 * i + 1])
                                                    for i in range(n)], constant_values=1)
        pads = [(0, hi - padding[2 * i + 1]) for i, (_, hi) in enumerate(pads)]
    mask = np.pad(inside, [(0, 0), (0, 0)] + pads)
    count = pool_windows(mask, kernel, strides, (1,) * n, outs).sum(axis=tuple(range(-n, 0)))
    return c.node("Div", [total, c.b.const(count.astype(np.float64))])


def _conv(c: OnnxContext, x: str, shape: tuple[int, ...], w: str, kernel: tuple[int, ...],
          out_ch: int, pads: list[tuple[int, int]], strides: tuple[int, ...],
          dilations: tuple[int, ...], groups: int) -> str:
    """x (N, C, *spatial) of static `shape`, w (out_ch, C/groups, *kernel): im2col and
    one batched MatMul, without bias."""
    outs = [pool_out_dim(d + lo + hi, k, s, 0, 0, dl, False) for d, (lo, hi), k, s, dl in
            zip(shape[2:], pads, kernel, strides, dilations)]
    cols = _windows(c, _padded(c, x, pads), kernel, strides, dilations, outs)
    stacked = c.node("Concat", [c.node("Unsqueeze", [col, c.b.ints([2])]) for col in cols],
                     axis=2)  # (N, C, K, *outs)
    batch, size = shape[0], int(np.prod(outs, dtype=np.int64))
    per = shape[1] // groups * len(cols)
    patches = c.node("Reshape", [stacked, c.b.ints([batch, groups, per, size])], allowzero=1)
    weights = c.node("Reshape", [w, c.b.ints([groups, out_ch // groups, per])], allowzero=1)
    return c.node("Reshape", [c.node("MatMul", [weights, patches]),
                              c.b.ints([batch, out_ch, *outs])], allowzero=1)


def _biased(c: OnnxContext, y: str, n: int) -> str:
    if c.args["bias"] is None:
        return y
    return c.node("Add", [y, c.node("Reshape", [c.args["bias"], c.b.ints([-1] + [1] * n)])])


def _first(c: OnnxContext) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """x's channels-first shape, the kernel, and the spatial rank."""
    a, shape, n = c.attrs, c.x_type.shape, c.x_type.rank - 2
    ws = c.in_types["weight"].shape
    if a["layout"] == "channels_first":
        return shape, ws[2:], n
    return (shape[0], shape[-1], *shape[1:-1]), ws[:n], n


def conv_f64(c: OnnxContext, x: str, w: str) -> str:
    """x channels-first, w (out, in/groups, *kernel)."""
    a = c.attrs
    shape, kernel, n = _first(c)
    ws = c.in_types["weight"].shape
    out_ch = ws[0] if a["layout"] == "channels_first" else ws[-1]
    pads = [(a["padding"][2 * i], a["padding"][2 * i + 1]) for i in range(n)]
    return _biased(c, _conv(c, x, shape, w, kernel, out_ch, pads, a["strides"],
                            a["dilations"], a["groups"]), n)


def conv_transpose_f64(c: OnnxContext, x: str, w: str) -> str:
    """As the reference: a stride-1 convolution of the stride-dilated input with the
    flipped, in/out-swapped weight. x channels-first, w (in, out/groups, *kernel)."""
    a, g = c.attrs, c.attrs["groups"]
    shape, kernel, n = _first(c)
    cin = shape[1]
    og = c.in_types["weight"].shape[1 if a["layout"] == "channels_first" else n]
    wc = c.node("Reshape", [w, c.b.ints([g, cin // g, og, *kernel])])
    wc = c.node("Transpose", [wc], perm=[0, 2, 1, *range(3, 3 + n)])
    wc = c.node("Reshape", [wc, c.b.ints([g * og, cin // g, *kernel])])
    k = len(kernel)
    wc = c.node("Slice", [wc, c.b.ints([-1] * k), c.b.ints([np.iinfo(np.int64).min] * k),
                          c.b.ints(range(2, 2 + n)), c.b.ints([-1] * k)])
    up, dims = x, list(shape)
    for i, s in enumerate(a["strides"]):  # s - 1 zeros after each cell, the last ones cut
        if s == 1:
            continue
        axis = 2 + i
        grown = c.node("Unsqueeze", [up, c.b.ints([axis + 1])])
        pads = [0] * (len(dims) + 1) * 2
        pads[len(dims) + 1 + axis + 1] = s - 1
        merged = dims[:axis] + [dims[axis] * s] + dims[axis + 1:]
        up = c.node("Reshape", [c.node("Pad", [grown, c.b.ints(pads)]), c.b.ints(merged)],
                    allowzero=1)
        dims[axis] = (dims[axis] - 1) * s + 1
        up = c.node("Slice", [up, c.b.ints([0]), c.b.ints([dims[axis]]), c.b.ints([axis])])
    edges = []  # signed: a negative edge crops
    for i, (kk, dl, op) in enumerate(zip(kernel, a["dilations"], a["output_padding"])):
        lo = dl * (kk - 1) - a["padding"][2 * i]
        hi = dl * (kk - 1) - a["padding"][2 * i + 1] + op
        edges.append((lo, hi))
        dims[2 + i] += lo + hi
    up = c.node("Pad", [up, c.b.ints([0, 0] + [lo for lo, _ in edges] + [0, 0]
                                     + [hi for _, hi in edges])])
    y = _conv(c, up, tuple(dims), wc, kernel, g * og, [(0, 0)] * n, (1,) * n,
              a["dilations"], g)
    return _biased(c, y, n)


__all__ = ["avg_pool_f64", "conv_f64", "conv_transpose_f64"]
