"""ONNX normalization operators onto the registry's norm layers and reductions.

BatchNormalization in training mode normalizes with the batch statistics (population
variance) and returns the running statistics ONNX defines: `running * momentum +
batch * (1 - momentum)`. InstanceNormalization is a group norm with one group per
channel. GroupNormalization-18 took one scale per group, -21 one per channel: the scale's
length tells the forms apart (they agree when groups == channels), so no version check
is needed. LayerNormalization's Mean and InvStdDev outputs are computed beside the
fused op (a pass removes them when unused). LRN sums squares over a channel window with
an average pool of a (N, 1, C, rest) view.
"""

from __future__ import annotations

import math
from typing import Any

from .common import Rule, Unmapped

STASH_DTYPES = {1: "float32", 11: "float64", 10: "float16", 16: "bfloat16"}
"""LayerNormalization's `stash_type` (an ONNX element type) -> the dtype its statistics
are computed in when the input is narrower than float32 (ONNX's reference computes
float32 and float64 inputs in their own dtype)."""


def _stash(dtype: str, stash_type: int) -> str:
    """The dtype a layer/RMS norm computes in."""
    if stash_type not in STASH_DTYPES:
        raise Unmapped(f"with stash_type {stash_type}")
    return dtype if dtype in ("float32", "float64") else STASH_DTYPES[stash_type]


def _batch_norm(ctx: Any, x: Any, scale: Any, bias: Any, mean: Any, var: Any, *,
                epsilon: float = 1e-5, momentum: float = 0.9,
                training_mode: int = 0) -> list[Any]:
    dtype = ctx.spec(x).dtype  # opset 15 lets the statistics have their own dtype
    scale, bias, mean, var = (ctx.cast(v, dtype) for v in (scale, bias, mean, var))
    if not training_mode:
        if ctx.outputs > 1 and any(ctx.requested(i) for i in range(1, ctx.outputs)):
            raise Unmapped("training statistics outputs without training_mode")
        return [ctx.emit("batch_norm", x, mean, var, scale, bias, axis=1, eps=epsilon)]
    axes = [d for d in range(ctx.rank(x)) if d != 1]
    batch_mean = ctx.emit("mean", x, axis=axes)
    batch_var = ctx.emit("var", x, axis=axes)
    y = ctx.emit("batch_norm", x, batch_mean, batch_var, scale, bias, axis=1, eps=epsilon)
    keep, take = ctx.const(momentum, dtype), ctx.const(1.0 - momentum, dtype)

    def running(old: Any, new: Any) -> Any:
        return ctx.emit("add", ctx.emit("multiply", old, keep),
                        ctx.emit("multiply", new, take))
    return [y, running(mean, batch_mean), running(var, batch_var)]


def _instance_norm(ctx: Any, x: Any, scale: Any, bias: Any, *,
                   epsilon: float = 1e-5) -> Any:
    channels = ctx.spec(x).shape[1]
    if channels is None:
        raise Unmapped("on a dynamic channel count")
    return ctx.emit("group_norm", x, scale, bias, num_groups=channels, eps=epsilon)


def _group_norm(ctx: Any, x: Any, scale: Any, bias: Any, *, epsilon: float = 1e-5,
                num_groups: int, stash_type: int = 1) -> Any:
    channels = ctx.spec(x).shape[1]
    if channels is None:
        raise Unmapped("on a dynamic channel count")
    if ctx.spec(scale).shape[0] != channels:  # opset 18's one scale per group
        per = channels // num_groups
        scale, bias = (ctx.emit("repeat", v, repeats=per, axis=0) for v in (scale, bias))
    dtype = ctx.spec(x).dtype
    stash = _stash(dtype, stash_type)
    y = ctx.emit("group_norm", ctx.cast(x, stash), ctx.cast(scale, stash), ctx.cast(bias, stash),
                 num_groups=num_groups, eps=epsilon)
    return ctx.cast(y, dtype)


def _fit(ctx: Any, value: Any, shape: list[int]) -> Any:
    """An affine operand broadcast to the normalized shape, which the registry expects."""
    if value is None or list(ctx.spec(value).shape) == shape:
        return value
    return ctx.emit("broadcast_to", value, shape=shape)


def _layer_norm(ctx: Any, x: Any, scale: Any, bias: Any = None, *, axis: int = -1,
                epsilon: float = 1e-5, stash_type: int = 1) -> list[Any]:
    spec = ctx.spec(x)
    axes = list(range(axis % spec.rank, spec.rank))
    shape = [spec.shape[a] for a in axes]
    if None in shape:
        raise Unmapped(f"on dynamic normalized sizes {shape}")
    stash = _stash(spec.dtype, stash_type)
    wide = ctx.cast(x, stash)
    y = ctx.emit("layer_norm", wide, _fit(ctx, ctx.cast(scale, stash), shape),
                 _fit(ctx, None if bias is None else ctx.cast(bias, stash), shape),
                 axis=axes, eps=epsilon)
    outs = [ctx.cast(y, spec.dtype), None, None]
    if ctx.outputs > 1:
        mean = ctx.emit("mean", wide, axis=axes, keepdims=True)
        var = ctx.emit("var", wide, axis=axes, keepdims=True)
        outs[1] = mean
        outs[2] = ctx.emit("rsqrt", ctx.emit("add", var, ctx.const(epsilon, stash)))
    return outs


def _rms_norm(ctx: Any, x: Any, scale: Any, *, axis: int = -1, epsilon: float = 1e-5,
              stash_type: int = 1) -> Any:
    spec = ctx.spec(x)
    axes = list(range(axis % spec.rank, spec.rank))
    stash = _stash(spec.dtype, stash_type)
    y = ctx.emit("rms_norm", ctx.cast(x, stash),
                 _fit(ctx, ctx.cast(scale, stash), [spec.shape[a] for a in axes]),
                 axis=axes, eps=epsilon)
    return ctx.cast(y, spec.dtype)


def _lrn(ctx: Any, x: Any, *, alpha: float = 1e-4, beta: float = 0.75, bias: float = 1.0,
         size: int) -> Any:
    """x / (bias + alpha / size * sum of squares over channels [c - (size-1)//2,
    c + ceil((size-1)/2)])^beta; the window sum is size * a zero-padded average."""
    spec = ctx.spec(x)
    if None in spec.shape:
        raise Unmapped(f"on dynamic sizes {spec.shape}")
    n, c = spec.shape[0], spec.shape[1]
    rest = math.prod(spec.shape[2:])
    squares = ctx.emit("reshape", ctx.emit("square", x), shape=[n, 1, c, rest])
    lo = (size - 1) // 2
    avg = ctx.emit("avg_pool", squares, kernel=[size, 1], strides=[1, 1],
                   padding=[lo, size - 1 - lo, 0, 0], count_include_pad=True)
    avg = ctx.emit("reshape", avg, shape=list(spec.shape))
    dtype = spec.dtype
    base = ctx.emit("add", ctx.emit("multiply", avg, ctx.const(alpha, dtype)),
                    ctx.const(bias, dtype))
    return ctx.emit("divide", x, ctx.emit("pow", base, ctx.const(beta, dtype)))


def _mean_variance_norm(ctx: Any, x: Any, *, axes: list[int] | None = None) -> Any:
    """ONNX's function body: (x - E[x]) / (sqrt(E[x^2] - E[x]^2) + 1e-9)."""
    axes = [a % ctx.rank(x) for a in (axes if axes is not None else [0, 2, 3])]
    dtype = ctx.spec(x).dtype
    mean = ctx.emit("mean", x, axis=axes, keepdims=True)
    var = ctx.emit("subtract", ctx.emit("mean", ctx.emit("square", x), axis=axes,
                                        keepdims=True), ctx.emit("square", mean))
    std = ctx.emit("add", ctx.emit("sqrt", var), ctx.const(1e-9, dtype))
    return ctx.emit("divide", ctx.emit("subtract", x, mean), std)


def _lp_norm(ctx: Any, x: Any, *, axis: int = -1, p: int = 2) -> Any:
    """x / ||x||_p along axis; a zero norm gives zeros."""
    if p not in (1, 2):
        raise Unmapped(f"with p={p}")
    dtype = ctx.spec(x).dtype
    norm = ctx.emit("vector_norm", x, ord=float(p), axis=[axis % ctx.rank(x)], keepdims=True)
    zero = ctx.const(0.0, dtype)
    nonzero = ctx.emit("not_equal", norm, zero)
    safe = ctx.emit("where", nonzero, norm, ctx.const(1.0, dtype))
    return ctx.emit("where", nonzero, ctx.emit("divide", x, safe), zero)


TABLE: dict[str, Rule] = {
    "BatchNormalization": _batch_norm,
    "InstanceNormalization": _instance_norm,
    "GroupNormalization": _group_norm,
    "LayerNormalization": _layer_norm,
    "RMSNormalization": _rms_norm,
    "LRN": _lrn,
    "MeanVarianceNormalization": _mean_variance_norm,
    "LpNormalization": _lp_norm,
}
"""ONNX op_type -> rule of the normalization layers."""


def _drop_is_test(inputs: list, attrs: dict, opset: int) -> tuple[list, dict]:
    """BatchNormalization before 9: `spatial=0` (per-activation statistics) has no
    registry form; `is_test`/`consumed_inputs` only described the outputs, and a
    training-mode node asks for its statistics outputs, which the rule refuses."""
    if not attrs.pop("spatial", 1):
        raise Unmapped("with spatial=0")
    attrs.pop("is_test", None)
    attrs.pop("consumed_inputs", None)
    attrs.pop("momentum", None)
    return inputs, attrs


UPGRADES: dict[str, tuple[int, Any]] = {
    "BatchNormalization": (9, _drop_is_test),
}
"""op_type -> (first opset of the form the rule takes, rewrite of older nodes)."""
