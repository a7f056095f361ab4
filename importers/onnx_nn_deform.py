"""ONNX DeformConv (2-D) as bilinear sampling plus a grouped contraction.

Kernel cell (a, b) of output position (i, j) reads the input at pixel
(i * stride - pad + a * dilation + offset_h, j * stride - pad + b * dilation + offset_w),
bilinearly, taps outside the input reading 0 (ONNX defines it as GridSample with
align_corners over pixel coordinates), each offset group of channels with its own
offsets; the samples are scaled by the mask and contracted with the weights per
convolution group (an einsum), plus the bias.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .common import Rule, Unmapped
from .onnx_nn_grid import sample


def _deform_conv(ctx: Any, x: Any, w: Any, offset: Any, b: Any = None, mask: Any = None, *,
                 dilations: list[int] | None = None, group: int = 1,
                 kernel_shape: list[int] | None = None, offset_group: int = 1,
                 pads: list[int] | None = None, strides: list[int] | None = None) -> Any:
    spec, ospec = ctx.spec(x), ctx.spec(offset)
    if spec.rank != 4 or None in spec.shape or None in ospec.shape:
        raise Unmapped(f"on input {spec.shape} (static 2-D only)")
    n, c, h, wd = spec.shape
    oc = ctx.spec(w).shape[0]
    kh, kw = kernel_shape or ctx.spec(w).shape[2:]
    dh, dw = dilations or [1, 1]
    sh, sw = strides or [1, 1]
    top, left = (pads or [0, 0, 0, 0])[:2]
    oh, ow = ospec.shape[2:]
    cells = kh * kw * oh * ow
    rows = (np.arange(oh) * sh - top)[None, None, :, None] + (np.arange(kh) * dh)[:, None,
                                                                                  None, None]
    cols = (np.arange(ow) * sw - left)[None, None, None, :] + (np.arange(kw) * dw)[None, :,
                                                                                   None, None]
    dtype = spec.dtype
    bases = [np.broadcast_to(rows, (kh, kw, oh, ow)).astype(dtype),
             np.broadcast_to(cols, (kh, kw, oh, ow)).astype(dtype)]
    moves = ctx.emit("reshape", offset, shape=[n, offset_group, kh, kw, 2, oh, ow])
    flat = ctx.emit("reshape", x, shape=[n, c, h * wd])
    per = c // offset_group
    parts = ctx.emit_all("split", flat, sizes=[per] * offset_group, axis=1) \
        if offset_group > 1 else [flat]
    weights = None if mask is None else ctx.emit(
        "reshape", mask, shape=[n, offset_group, 1, cells])
    columns = []
    for g, part in enumerate(parts):
        coords = []
        for axis, base in enumerate(bases):
            move = ctx.emit("take", ctx.emit("take", moves, np.asarray(g, np.int64), axis=1),
                            np.asarray(axis, np.int64), axis=3)
            coords.append(ctx.emit("reshape", ctx.emit("add", move, base), shape=[n, cells]))
        taken = sample(ctx, part, coords, [h, wd], "linear", "zeros", True)
        if weights is not None:
            taken = ctx.emit("multiply", taken, ctx.emit(
                "take", weights, np.asarray(g, np.int64), axis=1))
        columns.append(taken)
    cols_all = columns[0] if len(columns) == 1 else ctx.emit("concat", columns, axis=1)
    grouped = ctx.emit("reshape", cols_all, shape=[n, group, c // group, kh, kw, oh, ow])
    kernel = ctx.emit("reshape", w, shape=[group, oc // group, c // group, kh, kw])
    y = ctx.emit("einsum", [grouped, kernel], equation="ngcabij,gocab->ngoij")
    y = ctx.emit("reshape", y, shape=[n, oc, oh, ow])
    if b is not None:
        y = ctx.emit("add", y, ctx.emit("reshape", b, shape=[oc, 1, 1]))
    return y


TABLE: dict[str, Rule] = {"DeformConv": _deform_conv}
"""ONNX op_type -> rule of deformable convolution."""
