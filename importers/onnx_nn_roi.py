"""ONNX RoiAlign (opsets 10 and 16) onto elementwise ops and gathers.

Each output bin of a region is pooled over a fixed grid of `sampling_ratio` x
`sampling_ratio` bilinear samples, at y = start + bin * (ph + (iy + 0.5) / grid) (and
likewise x), the region's start and bin size computed from the run-time `rois` with
`spatial_scale` (and the half-pixel shift of `coordinate_transformation_mode`). ONNX's
sampling rule: a sample beyond [-1, size] reads 0, others clamp below at 0, and a low
index at the last row or column reads that row or column only. `avg` averages the
samples; `max` takes the largest weighted corner of each sample, as ONNX defines it. An
adaptive grid (sampling_ratio 0) depends on each region's size at run time: unmapped.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .common import Rule, Unmapped


def _axis_samples(ctx: Any, start: Any, length: Any, pooled: int, grid: int, size: int,
                  dtype: str) -> tuple[Any, Any, Any, Any]:
    """(low index, high index, weight of high, outside mask), each (R, pooled * grid),
    of one axis's sample coordinates."""
    steps = (np.arange(pooled)[:, None] + (np.arange(grid)[None, :] + 0.5) / grid).ravel()
    bin_size = ctx.emit("divide", length, ctx.const(float(pooled), dtype))
    pos = ctx.emit("add", ctx.emit("expand_dims", start, axis=[1]), ctx.emit(
        "multiply", ctx.emit("expand_dims", bin_size, axis=[1]), ctx.const(steps, dtype)))
    outside = ctx.emit("logical_or", ctx.emit("less", pos, ctx.const(-1.0, dtype)),
                       ctx.emit("greater", pos, ctx.const(float(size), dtype)))
    pos = ctx.emit("maximum", pos, ctx.const(0.0, dtype))
    low = ctx.emit("floor", pos)
    last = ctx.emit("greater_equal", low, ctx.const(size - 1.0, dtype))
    low = ctx.emit("where", last, ctx.const(size - 1.0, dtype), low)
    pos = ctx.emit("where", last, low, pos)
    high = ctx.emit("where", last, low, ctx.emit("add", low, ctx.const(1.0, dtype)))
    return (ctx.emit("astype", low, dtype="int64"), ctx.emit("astype", high, dtype="int64"),
            ctx.emit("subtract", pos, low), outside)


def _roi_align(ctx: Any, x: Any, rois: Any, batch_indices: Any, *,
               coordinate_transformation_mode: str = "half_pixel", mode: str = "avg",
               output_height: int = 1, output_width: int = 1, sampling_ratio: int = 0,
               spatial_scale: float = 1.0) -> Any:
    spec = ctx.spec(x)
    if spec.rank != 4 or None in spec.shape or ctx.spec(rois).shape[0] is None:
        raise Unmapped(f"on input {spec.shape} and rois {ctx.spec(rois).shape}")
    if sampling_ratio <= 0:
        raise Unmapped("with sampling_ratio 0 (a per-region sample count known at run time)")
    if mode not in ("avg", "max") or coordinate_transformation_mode not in (
            "half_pixel", "output_half_pixel"):
        raise Unmapped(f"with mode {mode!r}, {coordinate_transformation_mode!r}")
    _, c, h, w = spec.shape
    regions, dtype = ctx.spec(rois).shape[0], spec.dtype
    half = coordinate_transformation_mode == "half_pixel"
    corners = ctx.emit_all("split", ctx.cast(rois, dtype), sizes=[1] * 4, axis=1)
    shift, factor = ctx.const(0.5 if half else 0.0, dtype), ctx.const(spatial_scale, dtype)
    x1, y1, x2, y2 = (ctx.emit("subtract", ctx.emit("multiply", ctx.emit(
        "squeeze", v, axis=[1]), factor), shift) for v in corners)
    spans = [ctx.emit("subtract", y2, y1), ctx.emit("subtract", x2, x1)]
    if not half:
        spans = [ctx.emit("maximum", s, ctx.const(1.0, dtype)) for s in spans]
    g = sampling_ratio
    ylo, yhi, ly, ybad = _axis_samples(ctx, y1, spans[0], output_height, g, h, dtype)
    xlo, xhi, lx, xbad = _axis_samples(ctx, x1, spans[1], output_width, g, w, dtype)
    rows, cols = output_height * g, output_width * g
    images = ctx.emit("take", ctx.emit("reshape", x, shape=[spec.shape[0], c, h * w]),
                      ctx.cast(batch_indices, "int64"), axis=0)
    one = ctx.const(1.0, dtype)

    def grid2(a: Any, b: Any, op: str) -> Any:
        return ctx.emit(op, ctx.emit("expand_dims", a, axis=[2]),
                        ctx.emit("expand_dims", b, axis=[1]))
    terms = []
    for yi, wy in ((ylo, ctx.emit("subtract", one, ly)), (yhi, ly)):
        for xi, wx in ((xlo, ctx.emit("subtract", one, lx)), (xhi, lx)):
            flat = grid2(ctx.emit("multiply", yi, np.asarray(w, np.int64)), xi, "add")
            picked = ctx.emit("take_along_axis", images, ctx.emit(
                "reshape", flat, shape=[regions, 1, rows * cols]), axis=2)
            weight = ctx.emit("reshape", grid2(wy, wx, "multiply"),
                              shape=[regions, 1, rows * cols])
            terms.append(ctx.emit("multiply", picked, weight))
    bad = ctx.emit("reshape", grid2(ybad, xbad, "logical_or"), shape=[regions, 1, rows * cols])
    if mode == "avg":
        total = ctx.emit("add", ctx.emit("add", terms[0], terms[1]),
                         ctx.emit("add", terms[2], terms[3]))
    else:
        total = ctx.emit("maximum", ctx.emit("maximum", terms[0], terms[1]),
                         ctx.emit("maximum", terms[2], terms[3]))
    total = ctx.emit("where", bad, ctx.const(0.0, dtype), total)
    bins = ctx.emit("reshape", total, shape=[regions, c, output_height, g, output_width, g])
    if mode == "max":
        return ctx.emit("max", bins, axis=[3, 5])
    return ctx.emit("divide", ctx.emit("sum", bins, axis=[3, 5]), ctx.const(float(g * g), dtype))


TABLE: dict[str, Rule] = {"RoiAlign": _roi_align}
"""ONNX op_type -> rule of region pooling."""
