"""ATen backward kernels of the core op set, as forward registry ops.

Autograd's joint graphs (and core-ATen exports of them) hold these; `ivy_ir` itself
differentiates on the target, so they are imported for what they compute, not for
their role: linear maps of the incoming gradient. Average pools are separable per
spatial dim (a window matrix per dim, one einsum), the max pool's gradient goes back
to the recorded argmax positions (`scatter_add`), and a convolution's input and weight
gradients are a transposed convolution and a convolution with batch and channels
swapped.
"""

from __future__ import annotations

import math
import string
from typing import Any

import numpy as np
from xdsl.ir import SSAValue

from .common import Rule, Unmapped, spec_of
from .torch_ctx import Ctx


def _each(v: Any, n: int) -> list[int]:
    v = [v] * n if isinstance(v, int) else list(v)
    return v * n if len(v) == 1 else v


def _pool_backward(c: Ctx, grad: SSAValue, mats: list[np.ndarray]) -> SSAValue:
    """dx[.., h, w] = sum over o, p of grad[.., o, p] m_h[o, h] m_w[p, w]."""
    n, rank = len(mats), spec_of(grad).rank
    lead = string.ascii_lowercase[:rank - n]
    outs, ins = string.ascii_uppercase[:n], string.ascii_uppercase[n:2 * n]
    equation = f"{lead}{outs}," + ",".join(o + i for o, i in zip(outs, ins)) + f"->{lead}{ins}"
    dtype = spec_of(grad).dtype
    return c.emit("einsum", [grad, *(c.const(m, dtype) for m in mats)], equation=equation)


def _adaptive_windows(out: int, size: int) -> np.ndarray:
    """Window o of an adaptive average pool covers [floor(o S / O), ceil((o+1) S / O))."""
    m = np.zeros((out, size))
    for o in range(out):
        start, end = (o * size) // out, -((-(o + 1) * size) // out)
        m[o, start:end] = 1.0 / (end - start)
    return m


def _adaptive_avg_pool_backward(c: Ctx, grad: SSAValue, x: SSAValue) -> SSAValue:
    n = 2
    out, size = spec_of(grad).shape[-n:], spec_of(x).shape[-n:]
    return _pool_backward(c, grad, [_adaptive_windows(o, s) for o, s in zip(out, size)])


def _avg_windows(out: int, size: int, k: int, s: int, p: int, include_pad: bool) -> np.ndarray:
    """Window o covers [o s - p, o s - p + k) clipped to the input; torch divides by its
    size clipped to the padded input (count_include_pad) or to the input itself. The
    divisor of a window is the product of these per-dim sizes."""
    m = np.zeros((out, size))
    for o in range(out):
        start = o * s - p
        end = min(start + k, size + p)
        lo, hi = max(start, 0), min(end, size)
        m[o, lo:hi] = 1.0 / ((end - start) if include_pad else (hi - lo))
    return m


def _avg_pool_backward(c: Ctx, grad: SSAValue, x: SSAValue, kernel_size: Any, stride: Any,
                       padding: Any, ceil_mode: bool, count_include_pad: bool,
                       divisor_override: Any = None) -> SSAValue:
    n = 2
    kernel = _each(kernel_size, n)
    strides = _each(stride, n) if stride not in ((), []) else kernel
    out, size = spec_of(grad).shape[-n:], spec_of(x).shape[-n:]
    mats = [_avg_windows(o, s, k, st, p, count_include_pad)
            for o, s, k, st, p in zip(out, size, kernel, strides, _each(padding, n))]
    if divisor_override:
        mats = [(m > 0).astype(np.float64) for m in mats]
        mats[0] /= divisor_override
    return _pool_backward(c, grad, mats)


def _max_pool_backward(c: Ctx, grad: SSAValue, x: SSAValue, kernel_size: list[int],
                       stride: Any, padding: Any, dilation: Any, ceil_mode: bool,
                       indices: SSAValue) -> SSAValue:
    """Each output's gradient added at its window's argmax (`indices`: flat positions
    within each spatial plane)."""
    shape, n = list(spec_of(x).shape), len(kernel_size)
    planes, plane = math.prod(shape[:-n]), math.prod(shape[-n:])
    outs = math.prod(spec_of(grad).shape[-n:])
    rows = c.const(np.repeat(np.arange(planes)[:, None], outs, axis=1), "int64")
    where = c.emit("stack", [rows, c.emit("reshape", c.cast(indices, "int64"),
                                          shape=[planes, outs])], axis=-1)
    dx = c.emit("scatter_add", c.emit("zeros", shape=[planes, plane], dtype=spec_of(x).dtype),
                where, c.emit("reshape", grad, shape=[planes, outs]))
    return c.emit("reshape", dx, shape=shape)


def _conv_backward(c: Ctx, grad: SSAValue, x: SSAValue, weight: SSAValue, bias_sizes: Any,
                   stride: Any, padding: Any, dilation: Any, transposed: bool,
                   output_padding: Any, groups: int, output_mask: list[bool]) -> list[Any]:
    """(grad_input, grad_weight, grad_bias) of a convolution, each only where
    `output_mask` asks for it.

    grad_input is the transposed convolution of grad with the same weight, its output
    padding fixed by the input's size. grad_weight[o, i, k] sums grad[b, o, y] x[b, i,
    y s + k d - p] over b and y: a convolution of x with batch as channels by grad with
    batch as channels, stride and dilation swapped, groups kept by putting each group's
    batch copies side by side."""
    if transposed:
        raise Unmapped("of a transposed convolution")
    n = spec_of(weight).rank - 2
    s, p, d = _each(stride, n), _each(padding, n), _each(dilation, n)
    xs, ws, gs = spec_of(x).shape, spec_of(weight).shape, spec_of(grad).shape
    results: list[Any] = [None, None, None]
    if output_mask[0]:
        extra = [xs[2 + i] - ((gs[2 + i] - 1) * s[i] - 2 * p[i] + d[i] * (ws[2 + i] - 1) + 1)
                 for i in range(n)]
        results[0] = c.emit("conv_transpose", grad, weight, None, strides=s,
                            padding=[q for v in p for q in (v, v)], output_padding=extra,
                            dilations=d, groups=groups)
    if output_mask[1]:
        batch, cin, spatial = xs[0], xs[1], list(range(3, 3 + n))
        xg = c.emit("reshape", x, shape=[batch, groups, cin // groups, *xs[2:]])
        xg = c.emit("permute_dims", xg, axes=[2, 1, 0, *spatial])
        xg = c.emit("reshape", xg, shape=[cin // groups, groups * batch, *xs[2:]])
        gg = c.emit("permute_dims", grad, axes=[1, 0, *range(2, 2 + n)])
        full = c.emit("conv", xg, gg, None, strides=d, padding=[q for v in p for q in (v, v)],
                      dilations=s, groups=groups)
        rank = n + 2
        full = c.emit("slice", full, start=[0] * rank, stop=[cin // groups, ws[0], *ws[2:]],
                      step=[1] * rank)
        results[1] = c.emit("permute_dims", full, axes=[1, 0, *range(2, 2 + n)])
    if output_mask[2]:
        results[2] = c.emit("sum", grad, axis=[0, *range(2, 2 + n)])
    return results


GRAD: dict[str, Rule] = {
    "_adaptive_avg_pool2d_backward": _adaptive_avg_pool_backward,
    "avg_pool2d_backward": _avg_pool_backward,
    **{f"max_pool{n}d_with_indices_backward": _max_pool_backward for n in (2, 3)},
    "convolution_backward": _conv_backward,
}
