"""ATen matrix products and neural-network layers onto the registry's high-level ops.

torch.export keeps layers whole (linear, conv2d, batch_norm, layer_norm,
scaled_dot_product_attention, pooling, ...), and so does the ivy dialect, so most
entries are a one-to-one call with torch's argument conventions translated: int-or-list
window arguments become one entry per spatial dim, symmetric torch padding becomes
(low, high) pairs, and unbatched inputs gain and lose a batch dim around the op.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from xdsl.ir import SSAValue

from .common import Rule, Unmapped, spec_of
from .torch_ctx import Ctx, promote_types


def _ntuple(v: Any, n: int) -> list[int]:
    if isinstance(v, int):
        return [v] * n
    v = list(v)
    return v * n if len(v) == 1 else v


def _pairs(pad: list[int]) -> list[int]:
    return [p for q in pad for p in (q, q)]


def _batched(c: Ctx, x: SSAValue, n: int, fn: Callable[[SSAValue], SSAValue]) -> SSAValue:
    """Apply a layer op to an (N, C, *spatial) view of x, which torch also accepts
    without the batch dim."""
    if spec_of(x).rank == n + 2:
        return fn(x)
    y = fn(c.emit("expand_dims", x, axis=[0]))
    return c.emit("squeeze", y, axis=[0])


# ---- matrix products ----

def _matmul(c: Ctx, x: SSAValue, y: SSAValue) -> SSAValue:
    dtype = promote_types([x, y])
    return c.emit("matmul", c.cast(x, dtype), c.cast(y, dtype))


def _add_scaled(c: Ctx, base: SSAValue, prod: SSAValue, beta: Any, alpha: Any) -> SSAValue:
    """beta * base + alpha * prod (addmm, baddbmm, addmv); beta = 0 ignores base."""
    dtype = spec_of(prod).dtype
    if alpha != 1:
        prod = c.emit("multiply", prod, c.const(alpha, dtype))
    if beta == 0:
        return prod
    base = c.cast(base, dtype)
    if beta != 1:
        base = c.emit("multiply", base, c.const(beta, dtype))
    return c.emit("add", base, prod)


def _addmm(c: Ctx, base: SSAValue, a: SSAValue, b: SSAValue, *, beta: Any = 1,
           alpha: Any = 1) -> SSAValue:
    return _add_scaled(c, base, _matmul(c, a, b), beta, alpha)


def _linear(c: Ctx, x: SSAValue, weight: SSAValue, bias: SSAValue | None = None) -> SSAValue:
    return c.emit("linear", x, weight, bias)


def _einsum(c: Ctx, equation: str, tensors: list[SSAValue], *, path: Any = None) -> SSAValue:
    dtype = promote_types(tensors)
    return c.emit("einsum", [c.cast(t, dtype) for t in tensors], equation=equation)


def _tensordot(c: Ctx, a: SSAValue, b: SSAValue, dims_a: list[int], dims_b: list[int]) -> SSAValue:
    return c.emit("tensordot", a, b, axes_x=list(dims_a), axes_y=list(dims_b))


# ---- convolution and pooling ----

def _conv_padding(padding: Any, n: int, kernel: tuple[int, ...], dilation: list[int]) -> list[int]:
    if padding == "valid":
        return [0] * (2 * n)
    if padding == "same":  # torch puts the odd extra pixel after
        total = [d * (k - 1) for k, d in zip(kernel, dilation)]
        return [p for t in total for p in (t // 2, t - t // 2)]
    return _pairs(_ntuple(padding, n))


def _conv(c: Ctx, x: SSAValue, weight: SSAValue, bias: SSAValue | None = None,
          stride: Any = 1, padding: Any = 0, dilation: Any = 1, groups: int = 1) -> SSAValue:
    n = spec_of(weight).rank - 2
    dil = _ntuple(dilation, n)
    pad = _conv_padding(padding, n, spec_of(weight).shape[2:], dil)
    return _batched(c, x, n, lambda v: c.emit(
        "conv", v, weight, bias, strides=_ntuple(stride, n), padding=pad, dilations=dil,
        groups=groups))


def _conv_transpose(c: Ctx, x: SSAValue, weight: SSAValue, bias: SSAValue | None = None,
                    stride: Any = 1, padding: Any = 0, output_padding: Any = 0,
                    groups: int = 1, dilation: Any = 1) -> SSAValue:
    n = spec_of(weight).rank - 2
    return _batched(c, x, n, lambda v: c.emit(
        "conv_transpose", v, weight, bias, strides=_ntuple(stride, n),
        padding=_pairs(_ntuple(padding, n)), output_padding=_ntuple(output_padding, n),
        dilations=_ntuple(dilation, n), groups=groups))


def _convolution(c: Ctx, x: SSAValue, weight: SSAValue, bias: SSAValue | None, stride: Any,
                 padding: Any, dilation: Any, transposed: bool, output_padding: Any,
                 groups: int) -> SSAValue:
    if transposed:
        return _conv_transpose(c, x, weight, bias, stride, padding, output_padding, groups,
                               dilation)
    return _conv(c, x, weight, bias, stride, padding, dilation, groups)


def max_pool(n: int) -> Rule:
    """max_pool{n}d: also the values of max_pool{n}d_with_indices (`torch_segment`)."""
    def emit(c: Ctx, x: SSAValue, kernel_size: Any, stride: Any = (), padding: Any = 0,
             dilation: Any = 1, ceil_mode: bool = False) -> SSAValue:
        kernel = _ntuple(kernel_size, n)
        strides = _ntuple(stride, n) if stride not in ((), []) else kernel
        return _batched(c, x, n, lambda v: c.emit(
            "max_pool", v, kernel=kernel, strides=strides, padding=_pairs(_ntuple(padding, n)),
            dilations=_ntuple(dilation, n), ceil_mode=ceil_mode))
    return emit


def _avg_pool(n: int) -> Rule:
    def emit(c: Ctx, x: SSAValue, kernel_size: Any, stride: Any = (), padding: Any = 0,
             ceil_mode: bool = False, count_include_pad: bool = True,
             divisor_override: Any = None) -> SSAValue:
        if divisor_override is not None:
            raise Unmapped("with divisor_override")
        kernel = _ntuple(kernel_size, n)
        strides = _ntuple(stride, n) if stride not in ((), []) else kernel
        return _batched(c, x, n, lambda v: c.emit(
            "avg_pool", c.float_in(v), kernel=kernel, strides=strides,
            padding=_pairs(_ntuple(padding, n)), ceil_mode=ceil_mode,
            count_include_pad=count_include_pad))
    return emit


def _adaptive_avg_pool(n: int) -> Rule:
    def emit(c: Ctx, x: SSAValue, output_size: Any) -> SSAValue:
        size = list(c.out.shape[-n:])
        return _batched(c, x, n, lambda v: c.emit("adaptive_avg_pool", v, output_size=size))
    return emit


def _upsample(mode: str, n: int) -> Rule:
    """upsample_*.vec(x, output_size, [align_corners,] scale_factors): torch maps output
    pixels back through the given scale, which equals size ratio only when out = in*scale."""
    def emit(c: Ctx, x: SSAValue, output_size: Any, *args: Any) -> SSAValue:
        align = bool(args[0]) if mode == "bilinear" and args else False
        scales = args[-1] if args else None
        size = list(c.out.shape[-n:])
        if scales is not None and not isinstance(scales, bool):
            ins = spec_of(x).shape[-n:]
            if any(i * s != o for i, s, o in zip(ins, _ntuple(scales, n), size)):
                raise Unmapped("with a scale factor that does not divide the output size")
        return _batched(c, x, n, lambda v: c.emit("interpolate", v, size=size, mode=mode,
                                                  align_corners=align))
    return emit


# ---- normalization ----

def _batch_stats(c: Ctx, x: SSAValue) -> tuple[SSAValue, SSAValue]:
    axes = [d for d in range(spec_of(x).rank) if d != 1]
    return c.emit("mean", x, axis=axes), c.emit("var", x, axis=axes)


def _batch_norm_core(c: Ctx, x: SSAValue, weight: Any, bias: Any, mean: Any, var: Any,
                     training: bool, eps: float) -> SSAValue:
    # training mode normalizes with the batch's statistics (the functionalized form,
    # `_bn_functional`, also returns the running statistics' new values)
    if training or mean is None:
        mean, var = _batch_stats(c, x)
    return c.emit("batch_norm", x, mean, var, weight, bias, axis=1, eps=eps)


def _batch_norm(c: Ctx, x: SSAValue, weight: Any, bias: Any, mean: Any, var: Any,
                training: bool, momentum: float, eps: float, cudnn: bool = False) -> SSAValue:
    return _batch_norm_core(c, x, weight, bias, mean, var, training, eps)


def _saved(c: Ctx, stats: Callable[[], tuple[SSAValue, SSAValue]], eps: float) -> list[Any]:
    """The statistics the native norms save for their backward, (mean, 1/sqrt(var +
    eps)) from `stats()`, built only where the program reads them."""
    if not (c.used(1) or c.used(2)):
        return [None, None]
    mean, var = stats()
    return [mean, c.emit("rsqrt", c.emit("add", var, c.const(eps, spec_of(var).dtype)))]


def _unsaved(c: Ctx, x: SSAValue) -> list[Any]:
    """What an eval-mode batch norm saves: two empty tensors (where they are read)."""
    return [c.emit("zeros", shape=[0], dtype=spec_of(x).dtype) if c.used(i) else None
            for i in (1, 2)]


def _native_batch_norm(c: Ctx, x: SSAValue, weight: Any, bias: Any, mean: Any, var: Any,
                       training: bool, momentum: float, eps: float) -> list[Any]:
    if training or mean is None:
        mean, var = _batch_stats(c, x)
        out = c.emit("batch_norm", x, mean, var, weight, bias, axis=1, eps=eps)
        return [out, *_saved(c, lambda: (mean, var), eps)]
    return [_batch_norm_core(c, x, weight, bias, mean, var, False, eps),
            *_unsaved(c, x)]


def _bn_no_training(c: Ctx, x: SSAValue, weight: Any, bias: Any, mean: Any, var: Any,
                    momentum: float, eps: float) -> list[Any]:
    return _native_batch_norm(c, x, weight, bias, mean, var, False, momentum, eps)


def _bn_functional(c: Ctx, x: SSAValue, weight: Any, bias: Any, mean: Any, var: Any,
                   training: bool, momentum: float, eps: float) -> list[Any]:
    """The functionalized batch norm: (out, save_mean, save_rstd, new_running_mean,
    new_running_var). In training mode the new running statistics are torch's moving
    averages (the variance unbiased); the walker returns them as `{ivy.update}` results."""
    if not training:
        return [_batch_norm_core(c, x, weight, bias, mean, var, False, eps),
                *_unsaved(c, x), mean, var]
    batch_mean, batch_var = _batch_stats(c, x)
    out = c.emit("batch_norm", x, batch_mean, batch_var, weight, bias, axis=1, eps=eps)
    shape, dtype = spec_of(x).shape, spec_of(mean).dtype
    n = int(np.prod(shape)) // shape[1]
    unbiased = c.emit("multiply", batch_var, c.const(n / max(n - 1, 1), dtype))

    def moving(old: SSAValue, new: SSAValue) -> SSAValue:
        return c.emit("add", c.emit("multiply", old, c.const(1 - momentum, dtype)),
                      c.emit("multiply", new, c.const(momentum, dtype)))
    return [out, *_saved(c, lambda: (batch_mean, batch_var), eps), moving(mean, batch_mean),
            moving(var, unbiased)]


def _bn_no_stats(c: Ctx, x: SSAValue, weight: Any, bias: Any, training: bool,
                 momentum: float, eps: float) -> list[Any]:
    return _native_batch_norm(c, x, weight, bias, None, None, True, momentum, eps)


def _instance_norm(c: Ctx, x: SSAValue, weight: Any, bias: Any, mean: Any, var: Any,
                   use_input_stats: bool, momentum: float, eps: float,
                   cudnn: bool = False) -> SSAValue:
    if not use_input_stats:
        return c.emit("batch_norm", x, mean, var, weight, bias, axis=1, eps=eps)
    # per-sample, per-channel statistics: a group norm with one channel per group
    return c.emit("group_norm", x, weight, bias, num_groups=spec_of(x).shape[1], eps=eps)


def _layer_norm(c: Ctx, x: SSAValue, normalized_shape: list[int], weight: Any = None,
                bias: Any = None, eps: float = 1e-5, cudnn: bool = False) -> SSAValue:
    axes = list(range(-len(normalized_shape), 0))
    return c.emit("layer_norm", x, weight, bias, axis=axes, eps=eps)


def _native_layer_norm(c: Ctx, x: SSAValue, normalized_shape: list[int], weight: Any,
                       bias: Any, eps: float) -> list[Any]:
    axes = list(range(spec_of(x).rank - len(normalized_shape), spec_of(x).rank))

    def stats() -> tuple[SSAValue, SSAValue]:
        return c.emit("mean", x, axis=axes, keepdims=True), \
            c.emit("var", x, axis=axes, keepdims=True)
    return [_layer_norm(c, x, normalized_shape, weight, bias, eps), *_saved(c, stats, eps)]


def _group_norm(c: Ctx, x: SSAValue, num_groups: int, weight: Any = None, bias: Any = None,
                eps: float = 1e-5, cudnn: bool = False) -> SSAValue:
    return c.emit("group_norm", x, weight, bias, num_groups=num_groups, eps=eps)


def _native_group_norm(c: Ctx, x: SSAValue, weight: Any, bias: Any, n: int, ch: int,
                       hw: int, group: int, eps: float) -> list[Any]:

    def stats() -> tuple[SSAValue, SSAValue]:
        grouped = c.emit("reshape", x, shape=[n, group, -1])
        return c.emit("mean", grouped, axis=[2]), c.emit("var", grouped, axis=[2])
    return [_group_norm(c, x, group, weight, bias, eps), *_saved(c, stats, eps)]


def _rms_norm(c: Ctx, x: SSAValue, normalized_shape: list[int], weight: Any = None,
              eps: float | None = None) -> SSAValue:
    if eps is None:  # torch's default: the machine epsilon of x's dtype
        eps = torch.finfo(getattr(torch, spec_of(x).dtype)).eps
    axes = list(range(-len(normalized_shape), 0))
    return c.emit("rms_norm", x, weight, axis=axes, eps=eps)


# ---- attention and embedding ----

def _attention(c: Ctx, q: SSAValue, k: SSAValue, v: SSAValue, attn_mask: Any = None,
               dropout_p: float = 0.0, is_causal: bool = False, *, scale: Any = None,
               enable_gqa: bool = False) -> SSAValue:
    if dropout_p > 0:
        raise Unmapped("with dropout_p > 0 (random)")
    if enable_gqa:
        heads = spec_of(q).shape[-3]
        k, v = (t if spec_of(t).shape[-3] == heads else c.emit(
            "repeat", t, repeats=heads // spec_of(t).shape[-3], axis=-3) for t in (k, v))
    return c.emit("scaled_dot_product_attention", q, k, v, attn_mask, causal=is_causal,
                  scale=scale)


def _embedding(c: Ctx, weight: SSAValue, indices: SSAValue, *args: Any) -> SSAValue:
    if spec_of(indices).dtype not in ("int32", "int64"):
        indices = c.cast(indices, "int64")
    return c.emit("embedding", indices, weight)


NN: dict[str, Rule] = {
    "linear": _linear,
    "matmul": _matmul,
    "mm": _matmul,
    "bmm": _matmul,
    "mv": _matmul,
    "dot": _matmul,
    "vdot": _matmul,
    "inner": _matmul,
    "outer": lambda c, x, y: c.emit("outer", x, y),
    "ger": lambda c, x, y: c.emit("outer", x, y),
    "addmm": _addmm,
    "addmv": _addmm,
    "baddbmm": _addmm,
    "einsum": _einsum,
    "tensordot": _tensordot,
    **{f"conv{n}d": _conv for n in (1, 2, 3)},
    **{f"conv_transpose{n}d": _conv_transpose for n in (1, 2, 3)},
    "convolution": _convolution,
    "_convolution": _convolution,
    **{f"max_pool{n}d": max_pool(n) for n in (1, 2, 3)},
    **{f"avg_pool{n}d": _avg_pool(n) for n in (1, 2, 3)},
    **{f"adaptive_avg_pool{n}d": _adaptive_avg_pool(n) for n in (1, 2, 3)},
    **{f"_adaptive_avg_pool{n}d": _adaptive_avg_pool(n) for n in (2, 3)},
    **{f"upsample_nearest{n}d.vec": _upsample("nearest", n) for n in (1, 2, 3)},
    "upsample_bilinear2d.vec": _upsample("bilinear", 2),
    "batch_norm": _batch_norm,
    "native_batch_norm": _native_batch_norm,
    "_native_batch_norm_legit_no_training": _bn_no_training,
    "_native_batch_norm_legit.no_stats": _bn_no_stats,
    "_native_batch_norm_legit": _native_batch_norm,
    "_native_batch_norm_legit_functional": _bn_functional,
    "instance_norm": _instance_norm,
    "layer_norm": _layer_norm,
    "native_layer_norm": _native_layer_norm,
    "group_norm": _group_norm,
    "native_group_norm": _native_group_norm,
    "rms_norm": _rms_norm,
    "scaled_dot_product_attention": _attention,
    "embedding": _embedding,
}
