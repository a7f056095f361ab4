"""ONNX's spatial rearrangements with a static geometry: Col2Im, MaxUnpool, AffineGrid,
CausalConvWithState, and the SwiGLU gate.

Col2Im and MaxUnpool are scatters: Col2Im adds every column block into the padded image
at positions fixed by the geometry (one `scatter_add` with a constant index table),
MaxUnpool writes each value at the flat position its MaxPool recorded. AffineGrid is the
constant grid of normalized positions times each theta. CausalConvWithState is a
depthwise convolution over the past state (or zeros) followed by the input; its present
state is the last k - 1 positions of that sequence.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ivy_ir.dialect.dtypes import HALF

from .common import Rule, Unmapped
from .onnx_math import swished


def _col2im(ctx: Any, x: Any, image_shape: Any, block_shape: Any, *,
            dilations: list[int] | None = None, pads: list[int] | None = None,
            strides: list[int] | None = None) -> Any:
    """x (N, C * prod(block), L) -> (N, C, *image): block cell j of column l lands at
    l's window origin + j * dilation in the padded image, summed, then cropped."""
    image = ctx.ints(image_shape, "image_shape")
    block = ctx.ints(block_shape, "block_shape")
    n_dims = len(image)
    dilations = dilations or [1] * n_dims
    strides = strides or [1] * n_dims
    pads = pads or [0] * (2 * n_dims)
    spec = ctx.spec(x)
    if None in spec.shape:
        raise Unmapped(f"on dynamic sizes {spec.shape}")
    n, ck, cols = spec.shape
    span = math.prod(block)
    padded = [d + pads[i] + pads[n_dims + i] for i, d in enumerate(image)]
    counts = [(p - dl * (k - 1) - 1) // s + 1
              for p, k, s, dl in zip(padded, block, strides, dilations)]
    if math.prod(counts) != cols:
        raise Unmapped(f"with {cols} columns where the geometry gives {math.prod(counts)}")
    grids = np.meshgrid(*[np.arange(k) for k in block], *[np.arange(c) for c in counts],
                        indexing="ij")
    where = np.ravel_multi_index(
        [grids[n_dims + i] * strides[i] + grids[i] * dilations[i] for i in range(n_dims)],
        padded).reshape(span * cols, 1)
    channels = ck // span
    updates = ctx.emit("permute_dims", ctx.emit("reshape", x, shape=[n, channels, span * cols]),
                       axes=[2, 0, 1])
    zeros = np.zeros((math.prod(padded), n, channels), dtype=spec.dtype)
    summed = ctx.emit("scatter_add", zeros, where.astype(np.int64), updates)
    out = ctx.emit("reshape", ctx.emit("permute_dims", summed, axes=[1, 2, 0]),
                   shape=[n, channels, *padded])
    if not any(pads):
        return out
    return ctx.emit("slice", out, start=[0, 0, *pads[:n_dims]],
                    stop=[n, channels, *(p - pads[n_dims + i] for i, p in enumerate(padded))],
                    step=[1] * (n_dims + 2))


def _max_unpool(ctx: Any, x: Any, indices: Any, output_shape: Any = None, *,
                kernel_shape: list[int], pads: list[int] | None = None,
                strides: list[int] | None = None) -> Any:
    """Values written at their flat indices into zeros of the unpooled shape (the
    pooling rule inverted), pasted at the origin of a larger `output_shape`."""
    spec = ctx.spec(x)
    if None in spec.shape:
        raise Unmapped(f"on dynamic sizes {spec.shape}")
    k = len(kernel_shape)
    strides = strides or [1] * k
    pads = pads or [0] * (2 * k)
    inferred = [*spec.shape[:2], *((d - 1) * s - pads[i] - pads[k + i] + kk for i, (d, s, kk)
                                   in enumerate(zip(spec.shape[2:], strides, kernel_shape)))]
    flat = ctx.emit("scatter_nd", np.zeros(math.prod(inferred), spec.dtype),
                    ctx.emit("reshape", ctx.cast(indices, "int64"), shape=[-1, 1]),
                    ctx.emit("reshape", x, shape=[-1]))
    y = ctx.emit("reshape", flat, shape=inferred)
    if output_shape is None:
        return y
    want = ctx.ints(output_shape, "output_shape")
    if any(w < i for w, i in zip(want, inferred)):
        raise Unmapped(f"an output_shape {want} smaller than the unpooled {inferred}")
    return ctx.emit("pad", y, pad_width=[p for w, i in zip(want, inferred) for p in (0, w - i)])


def _affine_grid(ctx: Any, theta: Any, size: Any, *, align_corners: int = 0) -> Any:
    """theta (N, r, r + 1) applied to the normalized positions of every output cell
    (x fastest, then y, then z), as (N, *spatial, r)."""
    dims = ctx.ints(size, "size")[2:]
    n = ctx.spec(theta).shape[0]

    def axis(d: int) -> np.ndarray:
        if align_corners:
            return np.linspace(-1.0, 1.0, d) if d > 1 else np.zeros(1)
        return (2 * np.arange(d) + 1) / d - 1
    mesh = np.meshgrid(*[axis(d) for d in dims], indexing="ij")
    homo = np.stack([*mesh[::-1], np.ones(dims)], axis=-1).reshape(-1, len(dims) + 1)
    dtype = ctx.spec(theta).dtype
    grid = ctx.emit("matmul", ctx.const(homo, dtype),
                    ctx.emit("permute_dims", theta, axes=[0, 2, 1]))
    return ctx.emit("reshape", grid, shape=[n, *dims, len(dims)])


def _causal_conv(ctx: Any, x: Any, weight: Any, bias: Any = None, past_state: Any = None, *,
                 activation: str = "none") -> list[Any]:
    spec = ctx.spec(x)
    if activation not in ("none", "silu", "swish"):
        raise Unmapped(f"with activation {activation!r}")
    n, channels, _ = spec.shape
    k = ctx.spec(weight).shape[2]
    if None in (n, channels, k):
        raise Unmapped(f"on dynamic sizes {spec.shape}")
    past = past_state if past_state is not None else np.zeros((n, channels, k - 1), spec.dtype)
    seq = ctx.emit("concat", [past, x], axis=2)
    # ONNX computes the convolution, then SiLU, of narrower floats in float32, rounding
    # each once (as NumPy's float16 kernels do; XLA's and TF's would round on the way)
    wide = "float32" if spec.dtype in HALF else spec.dtype
    y = ctx.emit("conv", ctx.cast(seq, wide), ctx.cast(weight, wide),
                 None if bias is None else ctx.cast(bias, wide), strides=[1], padding=[0, 0],
                 dilations=[1], groups=channels)
    y = ctx.cast(y, spec.dtype)
    if activation != "none":
        y = ctx.cast(ctx.emit("silu", ctx.cast(y, wide)), spec.dtype)
    total = ctx.spec(seq).shape[2]
    present = ctx.emit("slice", seq, start=[0, 0, total - (k - 1)], stop=[n, channels, total],
                       step=[1, 1, 1])
    return [y, present]


def _swiglu(ctx: Any, a: Any, b: Any, *, alpha: float = 1.0) -> Any:
    """Swish_alpha(a) * b = a * sigmoid(alpha * a) * b, rounded once."""
    gate = swished(ctx, a, alpha)
    product = ctx.emit("multiply", gate, ctx.cast(b, ctx.spec(gate).dtype))
    return ctx.cast(product, ctx.spec(a).dtype)


TABLE: dict[str, Rule] = {
    "Col2Im": _col2im,
    "MaxUnpool": _max_unpool,
    "AffineGrid": _affine_grid,
    "CausalConvWithState": _causal_conv,
    "SwiGLU": _swiglu,
}
"""ONNX op_type -> rule of the spatial rearrangements."""
