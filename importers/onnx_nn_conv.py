"""ONNX convolutions and pooling onto the registry's windowed layers.

ONNX lists pads as all begins, then all ends (`[x1_begin, x2_begin, x1_end, x2_end]`);
the registry takes (low, high) pairs per spatial dim. `auto_pad` is resolved at import
from the static input sizes. The registry's pools take at most half a kernel of padding
(PyTorch's limit); ONNX allows more, which is padded explicitly where that is exact
(the max of `-inf` cells, the mean when padding counts). LpPool is a depthwise
convolution of |x|^p with a kernel of ones, which sums every window whatever the padding.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ivy_ir.core.reference_nn_kernels import conv
from ivy_ir.core.resample import pool_out_dim

from .common import Rule, Unmapped

AUTO_PADS = ("NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER")
"""The `auto_pad` values of ONNX's windowed operators."""


def _pairs(pads: Sequence[int] | None, n: int) -> list[int]:
    """ONNX begins-then-ends pads as (low, high) pairs per spatial dim."""
    pads = list(pads) if pads else [0] * (2 * n)
    if any(p < 0 for p in pads):
        raise Unmapped(f"with negative pads {pads}")
    return [p for i in range(n) for p in (pads[i], pads[n + i])]


def _window(ctx: Any, x: Any, kernel: Sequence[int], strides: Sequence[int] | None,
            dilations: Sequence[int] | None, pads: Sequence[int] | None,
            auto_pad: str) -> tuple[list[int], list[int], list[int]]:
    """(strides, dilations, padding pairs) of a window of size `kernel` over x's spatial
    dims; SAME_* pads so that out = ceil(in / stride), the odd cell at the end (UPPER) or
    the beginning (LOWER)."""
    n = len(kernel)
    strides = list(strides) if strides else [1] * n
    dilations = list(dilations) if dilations else [1] * n
    if auto_pad not in AUTO_PADS:
        raise Unmapped(f"with auto_pad {auto_pad!r}")
    if auto_pad == "VALID":
        return strides, dilations, [0] * (2 * n)
    if auto_pad == "NOTSET":
        return strides, dilations, _pairs(pads, n)
    sizes = ctx.spec(x).shape[2:]
    if None in sizes:
        raise Unmapped(f"auto_pad {auto_pad} on dynamic spatial sizes {sizes}")
    padding = []
    for d, k, s, dl in zip(sizes, kernel, strides, dilations):
        total = max((-(-d // s) - 1) * s + dl * (k - 1) + 1 - d, 0)
        small = total // 2
        padding += [small, total - small] if auto_pad == "SAME_UPPER" else [total - small, small]
    return strides, dilations, padding


def _conv(ctx: Any, x: Any, w: Any, b: Any = None, *, auto_pad: str = "NOTSET",
          dilations: list[int] | None = None, group: int = 1,
          kernel_shape: list[int] | None = None, pads: list[int] | None = None,
          strides: list[int] | None = None) -> Any:
    kernel = kernel_shape or list(ctx.spec(w).shape[2:])
    strides, dilations, padding = _window(ctx, x, kernel, strides, dilations, pads, auto_pad)
    return ctx.emit("conv", x, w, b, strides=strides, padding=padding, dilations=dilations,
                    groups=group)


def _conv_transpose(ctx: Any, x: Any, w: Any, b: Any = None, *, auto_pad: str = "NOTSET",
                    dilations: list[int] | None = None, group: int = 1,
                    kernel_shape: list[int] | None = None,
                    output_padding: list[int] | None = None,
                    output_shape: list[int] | None = None, pads: list[int] | None = None,
                    strides: list[int] | None = None) -> Any:
    """An `output_shape` (or SAME auto_pad, which asks for in * stride) fixes the total
    padding; ONNX splits it with the odd cell at the beginning unless SAME_UPPER."""
    kernel = kernel_shape or list(ctx.spec(w).shape[2:])
    n = len(kernel)
    strides = list(strides) if strides else [1] * n
    dilations = list(dilations) if dilations else [1] * n
    extra = list(output_padding) if output_padding else [0] * n
    if auto_pad not in AUTO_PADS:
        raise Unmapped(f"with auto_pad {auto_pad!r}")
    sizes = ctx.spec(x).shape[2:]
    if output_shape is None and auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        output_shape = [None if d is None else d * s for d, s in zip(sizes, strides)]
    if output_shape is None:
        padding = [0] * (2 * n) if auto_pad == "VALID" else _pairs(pads, n)
    else:
        output_shape = list(output_shape)[-n:]
        if None in sizes or None in output_shape:
            raise Unmapped("an output_shape on dynamic spatial sizes")
        padding, grown = [], []
        for d, k, s, dl, op, o in zip(sizes, kernel, strides, dilations, extra, output_shape):
            total = s * (d - 1) + op + (k - 1) * dl + 1 - o
            small = total // 2
            lo, hi = (small, total - small) if auto_pad == "SAME_UPPER" else (total - small,
                                                                              small)
            if lo < 0:
                raise Unmapped(f"an output_shape {output_shape} beyond the full output")
            padding += [lo, max(hi, 0)]  # a negative end pad is more output padding
            grown.append(op - min(hi, 0))
        extra = grown
    if any(op >= max(s, dl) for op, s, dl in zip(extra, strides, dilations)):
        raise Unmapped(f"output_padding {extra} not below stride or dilation")
    return ctx.emit("conv_transpose", x, w, b, strides=strides, padding=padding,
                    output_padding=extra, dilations=dilations, groups=group)


def _lowest(dtype: str) -> float:
    """The padding value a max ignores."""
    if dtype.startswith(("int", "uint")):
        return float(np.iinfo(np.dtype(dtype)).min)
    return -float("inf")


def _spread(ctx: Any, x: Any, padding: list[int], value: float) -> Any:
    """x with the spatial padding pairs applied explicitly."""
    return ctx.emit("pad", x, pad_width=[0, 0, 0, 0, *padding], value=value)


def _oversized(kernel: Sequence[int], padding: list[int]) -> bool:
    """Whether some padding exceeds the registry pools' half-kernel limit."""
    return any(max(padding[2 * i], padding[2 * i + 1]) > k // 2 for i, k in enumerate(kernel))


def _max_pool(ctx: Any, x: Any, *, auto_pad: str = "NOTSET", ceil_mode: int = 0,
              dilations: list[int] | None = None, kernel_shape: list[int],
              pads: list[int] | None = None, storage_order: int = 0,
              strides: list[int] | None = None) -> list[Any]:
    strides, dilations, padding = _window(ctx, x, kernel_shape, strides, dilations, pads,
                                          auto_pad)
    indices = None
    if ctx.outputs > 1 and ctx.requested(1):
        indices = _argmax_indices(ctx, x, kernel_shape, strides, dilations, padding,
                                  bool(ceil_mode), storage_order)
    if not _oversized(kernel_shape, padding):
        return [ctx.emit("max_pool", x, kernel=list(kernel_shape), strides=strides,
                         padding=padding, dilations=dilations, ceil_mode=bool(ceil_mode)),
                indices]
    # padded explicitly, the pool's ceil_mode would keep windows starting in the end
    # padding, which ONNX drops: pool the cells the kept windows reach, without ceil_mode
    spec = ctx.spec(x)
    reach = []
    for i, (d, k, s, dl) in enumerate(zip(spec.shape[2:], kernel_shape, strides, dilations)):
        lo, hi = padding[2 * i], padding[2 * i + 1]
        if d is None:
            raise Unmapped(f"pads over half the kernel on dynamic sizes {spec.shape}")
        o = pool_out_dim(d, k, s, lo, hi, dl, bool(ceil_mode))
        reach += [lo, (o - 1) * s + dl * (k - 1) + 1 - d - lo]
    x = _spread(ctx, x, [max(r, 0) for r in reach], _lowest(spec.dtype))
    if min(reach) < 0:  # the last window ends before the input does
        x = _crop_end(ctx, x, [min(r, 0) for r in reach[1::2]])
    y = ctx.emit("max_pool", x, kernel=list(kernel_shape), strides=strides,
                 padding=[0] * len(padding), dilations=dilations)
    return [y, indices]


def _crop_end(ctx: Any, x: Any, cuts: list[int]) -> Any:
    """x without the last -cut cells of each spatial dim."""
    shape = ctx.spec(x).shape
    return ctx.emit("slice", x, start=[0] * len(shape),
                    stop=[*shape[:2], *(d + c for d, c in zip(shape[2:], cuts))],
                    step=[1] * len(shape))


def _argmax_indices(ctx: Any, x: Any, kernel: Sequence[int], strides: list[int],
                    dilations: list[int], padding: list[int], ceil_mode: bool,
                    storage_order: int) -> Any:
    """MaxPool's Indices: the flat position in x (row-major, or column-major over the
    spatial dims with storage_order=1) of each window's first maximum. The windows'
    cells are gathered from the flattened spatial dims by a constant index table built
    at import (padding cells read as -inf), so argmax picks the cell."""
    spec = ctx.spec(x)
    if None in spec.shape:
        raise Unmapped(f"the Indices output on dynamic sizes {spec.shape}")
    n, c, sizes = spec.shape[0], spec.shape[1], spec.shape[2:]
    outs = [pool_out_dim(d, k, s, padding[2 * i], padding[2 * i + 1], dl, ceil_mode)
            for i, (d, k, s, dl) in enumerate(zip(sizes, kernel, strides, dilations))]
    grids = np.meshgrid(*[np.arange(o) for o in outs], *[np.arange(k) for k in kernel],
                        indexing="ij")
    dims = len(sizes)
    pos = [grids[i] * strides[i] - padding[2 * i] + grids[dims + i] * dilations[i]
           for i in range(dims)]
    inside = np.logical_and.reduce([(p >= 0) & (p < d) for p, d in zip(pos, sizes)])
    cells, span = int(np.prod(outs)), int(np.prod(kernel))

    def flat(order: Sequence[int]) -> np.ndarray:
        """(cells, span) flat spatial positions, dims from fastest to slowest."""
        total, step = np.zeros_like(pos[0]), 1
        for i in order:
            total, step = total + np.clip(pos[i], 0, sizes[i] - 1) * step, step * sizes[i]
        return total.reshape(cells, span).astype(np.int64)
    row_major = flat(range(dims - 1, -1, -1))
    reported = flat(range(dims)) if storage_order else row_major
    taken = ctx.emit("take", ctx.emit("reshape", x, shape=[n, c, int(np.prod(sizes))]),
                     row_major.ravel(), axis=2)
    taken = ctx.emit("where", inside.reshape(cells * span),
                     taken, ctx.const(_lowest(spec.dtype), spec.dtype))
    first = ctx.emit("argmax", ctx.emit("reshape", taken, shape=[n, c, cells, span]), axis=3)
    chosen = ctx.emit("take", reported.ravel(), ctx.emit(
        "add", first, np.arange(cells, dtype=np.int64) * span), axis=0)
    base = (np.arange(n * c, dtype=np.int64) * int(np.prod(sizes))).reshape(n, c, 1)
    return ctx.emit("reshape", ctx.emit("add", chosen, base), shape=[n, c, *outs])


def _avg_pool(ctx: Any, x: Any, *, auto_pad: str = "NOTSET", ceil_mode: int = 0,
              count_include_pad: int = 0, dilations: list[int] | None = None,
              kernel_shape: list[int], pads: list[int] | None = None,
              strides: list[int] | None = None) -> Any:
    """The registry pool where it takes the window; dilated windows and pads over half a
    kernel divide a window sum by the count of cells each window covers (inside the
    padded input with count_include_pad, inside the input without; never the ceil_mode
    overhang), a constant computed at import."""
    strides, dilations, padding = _window(ctx, x, kernel_shape, strides, dilations, pads,
                                          auto_pad)
    if all(d == 1 for d in dilations) and not _oversized(kernel_shape, padding):
        return ctx.emit("avg_pool", x, kernel=list(kernel_shape), strides=strides,
                        padding=padding, ceil_mode=bool(ceil_mode),
                        count_include_pad=bool(count_include_pad))
    total, full = _window_sum(ctx, x, kernel_shape, strides, dilations, padding, ceil_mode)
    sizes = ctx.spec(x).shape[2:]
    inside = np.zeros([lo + d + hi for d, lo, hi in zip(sizes, full[::2], full[1::2])])
    inside[tuple(slice(0, lo + d + hi) if count_include_pad else slice(lo, lo + d)
                 for d, lo, hi in zip(sizes, padding[::2], padding[1::2]))] = 1.0
    count = conv(inside[None, None], np.ones((1, 1, *kernel_shape)), None, strides,
                 [0] * len(full), dilations, 1, "channels_first")[0, 0]
    dtype = ctx.spec(x).dtype
    return ctx.emit("divide", total, ctx.const(count.astype(dtype), dtype))


def _window_sum(ctx: Any, x: Any, kernel: Sequence[int], strides: list[int],
                dilations: list[int], padding: list[int],
                ceil_mode: int) -> tuple[Any, list[int]]:
    """The sum of every pooling window (zero padding, a ceil_mode window hanging over the
    end summing the cells it covers) as a depthwise conv with ones, and the padding pairs
    that conv used: the end padding is exactly what the last window reaches, so the conv
    has the pool's output size."""
    spec = ctx.spec(x)
    if None in spec.shape[1:]:
        raise Unmapped(f"on dynamic sizes {spec.shape}")
    full = list(padding)
    for i, (d, k, s, dl) in enumerate(zip(spec.shape[2:], kernel, strides, dilations)):
        lo, hi = padding[2 * i], padding[2 * i + 1]
        o = pool_out_dim(d, k, s, lo, hi, dl, bool(ceil_mode))
        full[2 * i + 1] = max((o - 1) * s + dl * (k - 1) + 1 - d - lo, 0)
    channels = spec.shape[1]
    ones = np.ones((channels, 1, *kernel), dtype=spec.dtype)
    total = ctx.emit("conv", x, ones, None, strides=strides, padding=full,
                     dilations=dilations, groups=channels)
    return total, full


def _lp_pool(ctx: Any, x: Any, *, auto_pad: str = "NOTSET", ceil_mode: int = 0,
             dilations: list[int] | None = None, kernel_shape: list[int],
             p: int = 2, pads: list[int] | None = None,
             strides: list[int] | None = None) -> Any:
    """(sum over the window of |x|^p)^(1/p)."""
    dtype = ctx.spec(x).dtype
    strides, dilations, padding = _window(ctx, x, kernel_shape, strides, dilations, pads,
                                          auto_pad)
    powered = ctx.emit("pow", ctx.emit("abs", x), ctx.const(float(p), dtype))
    total, _ = _window_sum(ctx, powered, kernel_shape, strides, dilations, padding, ceil_mode)
    return ctx.emit("pow", total, ctx.const(1.0 / p, dtype))


def _global(op: str) -> Rule:
    """GlobalAveragePool / GlobalMaxPool: a keepdims reduction over the spatial dims."""
    def rule(ctx: Any, x: Any) -> Any:
        return ctx.emit(op, x, axis=list(range(2, ctx.rank(x))), keepdims=True)
    return rule


def _global_lp_pool(ctx: Any, x: Any, *, p: int = 2) -> Any:
    return ctx.emit("vector_norm", x, ord=float(p), axis=list(range(2, ctx.rank(x))),
                    keepdims=True)


TABLE: dict[str, Rule] = {
    "Conv": _conv,
    "ConvTranspose": _conv_transpose,
    "MaxPool": _max_pool,
    "AveragePool": _avg_pool,
    "LpPool": _lp_pool,
    "GlobalAveragePool": _global("mean"),
    "GlobalMaxPool": _global("max"),
    "GlobalLpPool": _global_lp_pool,
}
"""ONNX op_type -> rule of the windowed layers."""
