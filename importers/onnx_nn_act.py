"""ONNX activations, the softmax family, Dropout and the depth/space shuffles.

Activations with a registry op of the same formula map onto it; the others are written
out as the formula ONNX's schema gives. Softmax, LogSoftmax and Hardmax before opset 13
flattened the input to 2-D at `axis` and normalized over the whole second part: their
UPGRADES row renames `axis` to `flatten_at`, so the rule sees which form it runs.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .common import Rule, Unmapped

SELU_ALPHA = 1.67326319217681884
SELU_GAMMA = 1.05070102214813
"""Selu's schema defaults."""


def _one(op: str, **fixed: Any) -> Rule:
    """An activation that is one registry op; ONNX attributes renamed through `fixed`
    ({registry attribute: (onnx attribute, default)})."""
    def rule(ctx: Any, x: Any, **attrs: Any) -> Any:
        unknown = set(attrs) - {name for name, _ in fixed.values()}
        if unknown:
            raise Unmapped(f"with attributes {sorted(unknown)}")
        return ctx.emit(op, x, **{key: attrs.get(name, default)
                                  for key, (name, default) in fixed.items()})
    return rule


def _num(ctx: Any, x: Any, value: float) -> Any:
    return ctx.const(value, ctx.spec(x).dtype)


def _prelu(ctx: Any, x: Any, slope: Any, *, per_channel: int = 0) -> Any:
    """slope * x where x < 0, the slope broadcast NumPy-style (before opset 7: a vector
    slope is one per channel, axis 1)."""
    slope = ctx.cast(slope, ctx.spec(x).dtype)
    rank = ctx.rank(x)
    if per_channel and ctx.rank(slope) == 1 and ctx.spec(slope).shape[0] != 1 and rank > 2:
        slope = ctx.emit("reshape", slope, shape=[-1] + [1] * (rank - 2))
    negative = ctx.emit("less", x, _num(ctx, x, 0))
    return ctx.emit("where", negative, ctx.emit("multiply", x, slope), x)


def _selu(ctx: Any, x: Any, *, alpha: float = SELU_ALPHA, gamma: float = SELU_GAMMA) -> Any:
    return ctx.emit("multiply", ctx.emit("elu", x, alpha=alpha), _num(ctx, x, gamma))


def _celu(ctx: Any, x: Any, *, alpha: float = 1.0) -> Any:
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    inner = ctx.emit("divide", ctx.emit("minimum", x, _num(ctx, x, 0)), _num(ctx, x, alpha))
    low = ctx.emit("multiply", ctx.emit("expm1", inner), _num(ctx, x, alpha))
    return ctx.emit("where", ctx.emit("greater", x, _num(ctx, x, 0)), x, low)


def _hard_sigmoid(ctx: Any, x: Any, *, alpha: float = 0.2, beta: float = 0.5) -> Any:
    """max(0, min(1, alpha * x + beta))."""
    line = ctx.emit("add", ctx.emit("multiply", x, _num(ctx, x, alpha)), _num(ctx, x, beta))
    return ctx.emit("clip", line, min=0.0, max=1.0)


def _softsign(ctx: Any, x: Any) -> Any:
    return ctx.emit("divide", x, ctx.emit("add", ctx.emit("abs", x), _num(ctx, x, 1)))


def _thresholded_relu(ctx: Any, x: Any, *, alpha: float = 1.0) -> Any:
    above = ctx.emit("greater", x, _num(ctx, x, alpha))
    return ctx.emit("where", above, x, _num(ctx, x, 0))


def _shrink(ctx: Any, x: Any, *, bias: float = 0.0, lambd: float = 0.5) -> Any:
    """x + bias below -lambd, x - bias above lambd, 0 between."""
    low = ctx.emit("where", ctx.emit("less", x, _num(ctx, x, -lambd)),
                   ctx.emit("add", x, _num(ctx, x, bias)), _num(ctx, x, 0))
    return ctx.emit("where", ctx.emit("greater", x, _num(ctx, x, lambd)),
                    ctx.emit("subtract", x, _num(ctx, x, bias)), low)


def _gelu(ctx: Any, x: Any, *, approximate: str = "none") -> Any:
    if approximate not in ("none", "tanh"):
        raise Unmapped(f"with approximate={approximate!r}")
    return ctx.emit("gelu", x, approximate=approximate)


def _one_axis(op: str, ctx: Any, x: Any, axis: int) -> Any:
    if op != "hardmax":
        return ctx.emit(op, x, axis=axis)
    spec = ctx.spec(x)  # 1 at the first maximum along axis, 0 elsewhere
    if spec.shape[axis] is None:
        raise Unmapped("along a dynamic axis")
    first = ctx.emit("argmax", x, axis=axis)
    return ctx.emit("one_hot", first, depth=spec.shape[axis], dtype=spec.dtype, axis=axis)


def _softmax(op: str) -> Rule:
    """Softmax, LogSoftmax (registry ops) and Hardmax along one axis, or in the pre-13
    form over the dims from `flatten_at` on (a reshape to 2-D only where that is more
    than the last dim)."""
    def rule(ctx: Any, x: Any, *, axis: int = -1, flatten_at: int | None = None) -> Any:
        spec = ctx.spec(x)
        if flatten_at is None or flatten_at % spec.rank == spec.rank - 1:
            return _one_axis(op, ctx, x, (axis if flatten_at is None else -1) % spec.rank)
        if None in spec.shape:
            raise Unmapped(f"a pre-13 axis on dynamic sizes {spec.shape}")
        at = flatten_at % spec.rank
        flat = ctx.emit("reshape", x, shape=[math.prod(spec.shape[:at]),
                                             math.prod(spec.shape[at:])])
        return ctx.emit("reshape", _one_axis(op, ctx, flat, 1), shape=list(spec.shape))
    return rule


def _dropout(ctx: Any, x: Any, ratio: Any = None, training_mode: Any = None, *,
             seed: int | None = None, float_mask: int = 0) -> list[Any]:
    """Identity with an all-true mask at inference; in training a fresh uniform mask
    from the program's random key (ONNX's distribution, not its `seed`'s stream). A
    ratio or training flag known only at run time is computed with. Before opset 10
    the mask had the input's dtype (`float_mask`)."""
    out, mask = _dropped(ctx, x, ratio, training_mode)
    return [out, ctx.cast(mask, ctx.spec(x).dtype) if float_mask and mask is not None else mask]


def _dropped(ctx: Any, x: Any, ratio: Any, training_mode: Any) -> list[Any]:
    """Dropout's output and bool mask (None when only the output is asked for)."""
    spec = ctx.spec(x)
    train = False if training_mode is None else ctx.known(training_mode)
    if train is not None and not train:
        mask = ctx.emit("ones", shape=list(spec.shape), dtype="bool") if ctx.outputs > 1 \
            else None
        return [x, mask]
    if None in spec.shape:
        raise Unmapped(f"training mode on dynamic sizes {spec.shape}")
    p = _num(ctx, x, 0.5) if ratio is None else ctx.cast(ratio, spec.dtype)
    u = ctx.emit("random_uniform", ctx.rng_key(), shape=list(spec.shape), dtype=spec.dtype)
    keep = ctx.emit("greater_equal", u, p)
    scale = ctx.emit("divide", _num(ctx, x, 1), ctx.emit("subtract", _num(ctx, x, 1), p))
    out = ctx.emit("where", keep, ctx.emit("multiply", x, scale), _num(ctx, x, 0))
    if train is None:  # a run-time flag: inference passes x and an all-true mask
        flag = ctx.cast(training_mode, "bool")
        out = ctx.emit("where", flag, out, x)
        keep = ctx.emit("logical_or", keep, ctx.emit("logical_not", flag))
    return [out, keep]


def _depth_to_space(ctx: Any, x: Any, *, blocksize: int, mode: str = "DCR") -> Any:
    """(N, C, H, W) -> (N, C / b^2, H b, W b); DCR takes the blocks from the outer part of
    the channel index, CRD from the inner."""
    n, c, h, w = _static4(ctx, x)
    b, rest = blocksize, c // (blocksize * blocksize)
    if mode == "DCR":
        split, perm = [n, b, b, rest, h, w], [0, 3, 4, 1, 5, 2]
    elif mode == "CRD":
        split, perm = [n, rest, b, b, h, w], [0, 1, 4, 2, 5, 3]
    else:
        raise Unmapped(f"with mode {mode!r}")
    moved = ctx.emit("permute_dims", ctx.emit("reshape", x, shape=split), axes=perm)
    return ctx.emit("reshape", moved, shape=[n, rest, h * b, w * b])


def _space_to_depth(ctx: Any, x: Any, *, blocksize: int, mode: str = "DCR") -> Any:
    """The inverse of DepthToSpace of the same mode."""
    n, c, h, w = _static4(ctx, x)
    b = blocksize
    perms = {"DCR": [0, 3, 5, 1, 2, 4], "CRD": [0, 1, 3, 5, 2, 4]}
    if mode not in perms:
        raise Unmapped(f"with mode {mode!r}")
    split = ctx.emit("reshape", x, shape=[n, c, h // b, b, w // b, b])
    moved = ctx.emit("permute_dims", split, axes=perms[mode])
    return ctx.emit("reshape", moved, shape=[n, c * b * b, h // b, w // b])


def _static4(ctx: Any, x: Any) -> tuple[int, int, int, int]:
    shape = ctx.spec(x).shape
    if len(shape) != 4 or None in shape:
        raise Unmapped(f"on shape {shape} (needs a static 4-D input)")
    return shape


TABLE: dict[str, Rule] = {
    "Relu": _one("relu"),
    "LeakyRelu": _one("leaky_relu", alpha=("alpha", 0.01)),
    "Elu": _one("elu", alpha=("alpha", 1.0)),
    "HardSwish": _one("hardswish"),
    "Mish": _one("mish"),
    "Softplus": _one("softplus"),
    "PRelu": _prelu,
    "Selu": _selu,
    "Celu": _celu,
    "Gelu": _gelu,
    "HardSigmoid": _hard_sigmoid,
    "Softsign": _softsign,
    "ThresholdedRelu": _thresholded_relu,
    "Shrink": _shrink,
    "Softmax": _softmax("softmax"),
    "LogSoftmax": _softmax("log_softmax"),
    "Hardmax": _softmax("hardmax"),
    "Dropout": _dropout,
    "DepthToSpace": _depth_to_space,
    "SpaceToDepth": _space_to_depth,
}
"""ONNX op_type -> rule of the activations and layer-shaped utilities."""

def _flatten_axis(inputs: list, attrs: dict, opset: int) -> tuple[list, dict]:
    """Before opset 13 `axis` (default 1) is where the input is flattened to 2-D."""
    attrs["flatten_at"] = attrs.pop("axis", 1)
    return inputs, attrs


def _channel_slope(inputs: list, attrs: dict, opset: int) -> tuple[list, dict]:
    """PRelu before 7 took a per-channel slope vector, not a broadcast one."""
    attrs.pop("consumed_inputs", None)
    attrs["per_channel"] = 1
    return inputs, attrs


def _ratio_input(inputs: list, attrs: dict, opset: int) -> tuple[list, dict]:
    """Before opset 12 the ratio was an attribute, only `is_test=0` (before 7) meant
    training, and before 10 the mask had the input's dtype."""
    ratio = np.asarray(attrs.pop("ratio", 0.5), np.float32)
    train = np.asarray(not attrs.pop("is_test", 1), np.bool_) if opset < 7 else None
    attrs.pop("consumed_inputs", None)
    if opset < 10:
        attrs["float_mask"] = 1
    return [inputs[0], ratio, train], attrs


UPGRADES: dict[str, tuple[int, Any]] = {
    "Softmax": (13, _flatten_axis),
    "LogSoftmax": (13, _flatten_axis),
    "Hardmax": (13, _flatten_axis),
    "Dropout": (12, _ratio_input),
    "PRelu": (7, _channel_slope),
}
"""op_type -> (first opset of the form the rule takes, rewrite of older nodes)."""
