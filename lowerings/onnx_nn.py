"""ONNX export rules of activations, network layers, and the control-flow region ops.

Composite ops map onto ONNX's fused operators (`FUSED`) where the chosen opset has one,
onnxruntime runs it in the op's dtype, and its semantics is the op's for these
attributes; every other composite op is expanded into its registry decomposition
before export (`onnx.py`), so the fused path never approximates. Resampling gathers
the reference's own source indices and weights (`resample_taps`) instead of `Resize`,
whose coordinate rules round differently from PyTorch's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import onnx

from ivy_ir.core.resample import adaptive_weights, resample_taps
from ivy_ir.dialect import IvyOp, TensorSpec
from ivy_ir.dialect.types import numpy_dtype

from .onnx_graph import GraphBuilder, OnnxContext, value_info
from .onnx_math import OnnxRule, unary
from .onnx_windows import avg_pool_f64, conv_f64, conv_transpose_f64


def _relu(c: OnnxContext) -> str:
    if c.x_type.dtype in ("float32", "float64", "float16"):
        return c.node("Relu", [c.x])
    return c.node("Max", [c.x, c.scalar(0)])


ACTIVATION_RULES: dict[str, OnnxRule] = {
    "relu": _relu,
    "relu6": lambda c: c.node("Clip", [c.x, c.scalar(0.0), c.scalar(6.0)]),
    "leaky_relu": lambda c: c.node("LeakyRelu", [c.x], alpha=c.attrs["alpha"]),
    "elu": lambda c: c.node("Elu", [c.x], alpha=c.attrs["alpha"]),
    "sigmoid": unary("Sigmoid"),
    "silu": lambda c: c.node("Mul", [c.x, c.node("Sigmoid", [c.x])]),
    "hard_sigmoid": lambda c: c.node("HardSigmoid", [c.x], alpha=1 / 6, beta=0.5),
    "hardswish": unary("HardSwish"),
    "softmax": lambda c: c.node("Softmax", [c.x], axis=c.attrs["axis"]),
    "log_softmax": lambda c: c.node("LogSoftmax", [c.x], axis=c.attrs["axis"]),
    "gelu": lambda c: c.node("Gelu", [c.x], approximate=c.attrs["approximate"]),
}


def _channels_first(c: OnnxContext, x: str) -> str:
    if c.attrs["layout"] == "channels_first":
        return x
    rank = c.x_type.rank
    return c.node("Transpose", [x], perm=[0, rank - 1, *range(1, rank - 1)])


def _restore(c: OnnxContext, y: str) -> str:
    if c.attrs["layout"] == "channels_first":
        return y
    rank = c.x_type.rank
    return c.node("Transpose", [y], perm=[0, *range(2, rank), 1])


def _pads(padding: tuple[int, ...]) -> list[int]:
    """IR (lo, hi) pairs per spatial axis -> ONNX [lo..., hi...]."""
    return list(padding[::2]) + list(padding[1::2])


def _late_padding(c: OnnxContext, w: str, window: dict[str, list[int]]) -> str:
    """ConvTranspose with an output padding of a stride or more (onnxruntime refuses it;
    PyTorch allows it under dilation): the full, uncropped output, then one Pad that
    crops the padding (negative pads) and adds the output padding's zeros past the end,
    then the bias."""
    a, n = c.attrs, c.x_type.rank - 2
    lo, hi, extra = list(a["padding"][::2]), list(a["padding"][1::2]), list(a["output_padding"])
    y = c.node("ConvTranspose", [_channels_first(c, c.x), w], **window, pads=[0] * (2 * n))
    pads = [0, 0] + [-v for v in lo] + [0, 0] + [e - h for h, e in zip(hi, extra)]
    y = c.node("Pad", [y, c.b.ints(pads)])
    if c.args["bias"] is None:
        return y
    return c.node("Add", [y, c.node("Reshape", [c.args["bias"], c.b.ints([-1] + [1] * n)])])


def _conv(transpose: bool) -> OnnxRule:
    def rule(c: OnnxContext) -> str:
        a, n = c.attrs, c.x_type.rank - 2
        w = c.args["weight"]
        if a["layout"] != "channels_first":  # (*kernel, in, out) -> (out|in, in|out, *kernel)
            w = c.node("Transpose", [w], perm=[n + 1, n, *range(n)])
        kernel = c.in_types["weight"].shape[2:] if a["layout"] == "channels_first" \
            else c.in_types["weight"].shape[:n]
        window = {"strides": list(a["strides"]), "dilations": list(a["dilations"]),
                  "group": a["groups"], "kernel_shape": list(kernel)}
        if c.x_type.dtype == "float64":  # no onnxruntime kernels: from strided slices
            rewrite = conv_transpose_f64 if transpose else conv_f64
            return _restore(c, rewrite(c, _channels_first(c, c.x), w))
        if transpose and any(e >= s for e, s in zip(a["output_padding"], a["strides"])):
            return _restore(c, _late_padding(c, w, window))
        ins = [_channels_first(c, c.x), w] + ([c.args["bias"]] if c.args["bias"] else [])
        extra = {"output_padding": list(a["output_padding"])} if transpose else {}
        y = c.node("ConvTranspose" if transpose else "Conv", ins, pads=_pads(a["padding"]),
                   **window, **extra)
        return _restore(c, y)
    return rule


def _max_pool(c: OnnxContext) -> str:
    a, dt = c.attrs, c.x_type.dtype
    x = _channels_first(c, c.x)
    wide = dt not in ("float32", "float64", "float16", "int8", "uint8")
    if wide:  # onnxruntime pools these integers exactly through float64
        x = c.b.cast(x, "float64")
    n = len(a["kernel"])
    window = {"kernel_shape": list(a["kernel"]), "strides": list(a["strides"]),
              "pads": _pads(a["padding"]), "dilations": list(a["dilations"] or [1] * n),
              "ceil_mode": int(a["ceil_mode"])}
    y = c.node("MaxPool", [x], **window)
    if dt in ("float32", "float64", "float16"):  # NaN in a window wins (MaxPool skips it)
        nan = c.node("MaxPool", [c.b.cast(c.node("IsNaN", [x]), dt)], **window)
        y = c.node("Where", [c.b.cast(nan, "bool"), c.scalar(float("nan")), y])
    return _restore(c, c.b.cast(y, dt) if wide else y)


def _avg_pool(c: OnnxContext) -> str:
    a = c.attrs
    if c.x_type.dtype == "float64":
        return _restore(c, avg_pool_f64(c, _channels_first(c, c.x)))
    y = c.node("AveragePool", [_channels_first(c, c.x)], kernel_shape=list(a["kernel"]),
               strides=list(a["strides"]), pads=_pads(a["padding"]),
               ceil_mode=int(a["ceil_mode"]), count_include_pad=int(a["count_include_pad"]))
    return _restore(c, y)


def _per_axis(c: OnnxContext, apply: Callable[[str, int, int], str]) -> str:
    """`apply(y, spatial axis, its size)` for each spatial axis, channels-first."""
    y = _channels_first(c, c.x)
    first = 2 if c.attrs["layout"] == "channels_first" else 1
    spatial = c.x_type.shape[first:first + c.x_type.rank - 2]
    for i, d in enumerate(spatial):
        y = apply(y, 2 + i, d)
    return _restore(c, y)


def _move_last(c: OnnxContext, y: str, axis: int, back: bool) -> str:
    rank = c.x_type.rank
    perm = [i for i in range(rank) if i != axis] + [axis]
    return c.node("Transpose", [y], perm=list(np.argsort(perm)) if back else perm)


def _adaptive_avg_pool(c: OnnxContext) -> str:
    """Each spatial axis times its (out, in) averaging matrix, as the reference."""
    size, dt = c.attrs["output_size"], numpy_dtype(c.x_type.dtype)

    def apply(y: str, axis: int, d: int) -> str:
        avg = adaptive_weights(d, size[axis - 2], dt)
        last = c.node("MatMul", [_move_last(c, y, axis, False), c.b.const(avg.T.copy())])
        return _move_last(c, last, axis, True)
    return _per_axis(c, apply)


def _interpolate(c: OnnxContext) -> str:
    """Gathers of the reference's source taps, blended by its weights (bilinear)."""
    a, dt = c.attrs, numpy_dtype(c.x_type.dtype)

    def apply(y: str, axis: int, d: int) -> str:
        i0, i1, lam = resample_taps(d, a["size"][axis - 2], a["mode"], a["align_corners"], dt)
        y0 = c.node("Gather", [y, c.b.const(i0)], axis=axis)
        if lam is None:
            return y0
        y1 = c.node("Gather", [y, c.b.const(i1)], axis=axis)
        shape = [-1] + [1] * (c.x_type.rank - 1 - axis)
        w1 = c.b.const(lam.reshape(shape))
        w0 = c.b.const((1 - lam).astype(dt).reshape(shape))
        return c.node("Add", [c.node("Mul", [y0, w0]), c.node("Mul", [y1, w1])])
    return _per_axis(c, apply)


def _param(c: OnnxContext, name: str, shape: tuple[int, ...], fill: float) -> str:
    """An optional affine operand reshaped to `shape`, or a constant of `fill`."""
    if c.args.get(name) is None:
        return c.b.const(np.full(shape, fill, numpy_dtype(c.x_type.dtype)))
    return c.node("Reshape", [c.args[name], c.b.ints(shape)])


def _layer_norm(c: OnnxContext) -> str:
    first = min(c.attrs["axis"])
    shape = c.x_type.shape[first:]
    return c.node("LayerNormalization", [c.x, _param(c, "weight", shape, 1.0),
                                         _param(c, "bias", shape, 0.0)],
                  axis=first, epsilon=c.attrs["eps"])


def _rms_norm(c: OnnxContext) -> str:
    first = min(c.attrs["axis"])
    return c.node("RMSNormalization", [c.x, _param(c, "weight", c.x_type.shape[first:], 1.0)],
                  axis=first, epsilon=c.attrs["eps"])


def _batch_norm(c: OnnxContext) -> str:
    ch = (c.x_type.shape[1],)
    return c.node("BatchNormalization", [c.x, _param(c, "weight", ch, 1.0),
                                         _param(c, "bias", ch, 0.0), c.args["mean"],
                                         c.args["var"]], epsilon=c.attrs["eps"])


def _group_norm(c: OnnxContext) -> str:
    ch = (c.x_type.shape[1],)
    return c.node("GroupNormalization", [c.x, _param(c, "weight", ch, 1.0),
                                         _param(c, "bias", ch, 0.0)],
                  num_groups=c.attrs["num_groups"], epsilon=c.attrs["eps"])


def _attention(c: OnnxContext) -> str:
    mask = [c.args["mask"]] if c.args["mask"] is not None else []
    full = (c.in_types["q"].shape[2], c.in_types["k"].shape[2])
    if mask and (None in full or tuple(c.in_types["mask"].shape[-2:]) != full):
        # onnxruntime broadcasts the mask's leading dims but wants its last two in full
        sizes = [c.node("Shape", [c.args[n]], start=2, end=3) for n in ("q", "k")]
        ones = c.b.ints([1] * max(c.in_types["mask"].rank - 2, 0))
        mask = [c.node("Expand", [mask[0], c.node("Concat", [ones, *sizes], axis=0)])]
    return c.node("Attention", [c.args["q"], c.args["k"], c.args["v"], *mask],
                  is_causal=int(c.attrs["causal"]), scale=c.attrs["scale"])


def _attention_fits(op: IvyOp) -> bool:
    """ONNX's 4-d (batch, heads, seq, size) form in float32 with the same batch and heads
    throughout, and no mask or a bool one (onnxruntime gives a fully masked row zeros,
    as the op; its float masks are left to the decomposition)."""
    q, k, v = (TensorSpec.from_xdsl(getattr(op, n).type) for n in ("q", "k", "v"))
    mask = op.mask
    return (q.rank == k.rank == v.rank == 4 and q.dtype == "float32"
            and q.shape[:2] == k.shape[:2] == v.shape[:2] and None not in q.shape[:2]
            and (mask is None or TensorSpec.from_xdsl(mask.type).dtype == "bool"))


def _static(op: IvyOp, *names: str) -> bool:
    return all(None not in TensorSpec.from_xdsl(getattr(op, n).type).shape for n in names
               if getattr(op, n) is not None)


def _x(op: IvyOp) -> TensorSpec:
    return TensorSpec.from_xdsl(op.operands[0].type)


def _trailing(op: IvyOp) -> bool:
    """The normalized axes are the last ones, contiguous, and their sizes static."""
    axes, rank = sorted(op.attr_values()["axis"]), _x(op).rank
    return axes == list(range(rank - len(axes), rank)) and bool(axes) and \
        None not in _x(op).shape[axes[0]:]


def _not_f64(op: IvyOp) -> bool:
    return _x(op).dtype != "float64"


NO_F64_ACTIVATIONS = ("leaky_relu", "elu", "hard_sigmoid", "hardswish", "sigmoid", "silu")
"""Activations decomposed in float64: onnxruntime has no float64 kernel of the first
four, and its float64 Sigmoid is off by ~6e-12 (relative) where Tanh is exact."""


@dataclass(frozen=True)
class Fused:
    """A fused ONNX operator for a composite op: the oldest opset that has it, and when
    it applies (else the op is decomposed)."""

    opset: int
    rule: OnnxRule
    fits: Callable[[IvyOp], bool] = lambda op: True


FUSED: dict[str, Fused] = {
    **{n: Fused(14, r) for n, r in ACTIVATION_RULES.items()},
    # onnxruntime has no float64 kernels of these
    **{n: Fused(14, ACTIVATION_RULES[n], _not_f64) for n in NO_F64_ACTIVATIONS},
    "gelu": Fused(20, ACTIVATION_RULES["gelu"], _not_f64),
    # the normalizations compute in float32 (stash_type): float64 is decomposed
    "layer_norm": Fused(17, _layer_norm, lambda op: _trailing(op) and _not_f64(op)),
    "rms_norm": Fused(23, _rms_norm, lambda op: _trailing(op) and _not_f64(op)),
    "batch_norm": Fused(15, _batch_norm, lambda op: op.attr_values()["axis"] == 1
                        and _x(op).rank >= 2 and _static(op, "x") and _not_f64(op)),
    "group_norm": Fused(21, _group_norm, lambda op: _not_f64(op) and _static(op, "x")),
    "scaled_dot_product_attention": Fused(23, _attention, _attention_fits),
}


NN_RULES: dict[str, OnnxRule] = {
    "conv": _conv(transpose=False),
    "conv_transpose": _conv(transpose=True),
    "max_pool": _max_pool,
    "avg_pool": _avg_pool,
    "adaptive_avg_pool": _adaptive_avg_pool,
    "interpolate": _interpolate,
}


def _typed(b: GraphBuilder, names: list[str], types: list[TensorSpec]
           ) -> tuple[list[str], list[onnx.ValueInfoProto]]:
    """Subgraph outputs: each value through an Identity of its own (an output may not be
    an outer-scope name or repeat), typed."""
    outs = [b.node("Identity", [n]) for n in names]
    return outs, [value_info(o, t) for o, t in zip(outs, types)]


def _cond(c: OnnxContext) -> list[str]:
    """If: both branches read the operands from the outer scope."""
    graphs = []
    for region, label in ((c.op.regions[0], "then"), (c.op.regions[1], "else")):
        sub = c.b.sub()
        yielded = c.export_region(region, sub, c.args["inputs"])
        _, infos = _typed(sub, yielded, c.out_types)
        graphs.append(sub.graph(f"{label}_branch", [], infos))
    return _outs(c.node("If", [c.args["pred"]], len(c.out_types), then_branch=graphs[0],
                        else_branch=graphs[1]))


def _loop_inputs(sub: GraphBuilder, carry_types: list[TensorSpec]
                 ) -> tuple[str, str, list[str], list[onnx.ValueInfoProto]]:
    """The Loop body's (iteration, condition, *carry) inputs, named and typed."""
    it, cond = sub.names.fresh("iter"), sub.names.fresh("cond_in")
    carry = [sub.names.fresh("carry") for _ in carry_types]
    infos = [value_info(it, TensorSpec((), "int64")), value_info(cond, TensorSpec((), "bool"))]
    infos += [value_info(n, t) for n, t in zip(carry, carry_types)]
    return it, cond, carry, infos


def _outs(node: str | list[str]) -> list[str]:
    return [node] if isinstance(node, str) else list(node)


def _while_loop(c: OnnxContext) -> list[str]:
    """Loop with no trip count: the condition region runs once on the initial carry,
    then after each body step inside the loop."""
    cond_region, body_region = c.op.regions
    first = c.export_region(cond_region, c.b, c.args["inputs"])[0]
    sub = c.b.sub()
    _, _, carry, infos = _loop_inputs(sub, c.out_types)
    new = c.export_region(body_region, sub, carry)
    again = c.export_region(cond_region, sub, new)[0]
    outs, out_infos = _typed(sub, [again, *new], [TensorSpec((), "bool"), *c.out_types])
    graph = sub.graph("while_body", infos, out_infos)
    return _outs(c.node("Loop", ["", first, *c.args["inputs"]], len(c.out_types),
                           body=graph))


def _scan(c: OnnxContext) -> list[str]:
    """Loop with the trip count `length`: slice i (or length-1-i) of each xs gathered
    in the body; the ys stacked by the Loop, reversed afterwards for a reverse scan."""
    a, inputs = c.attrs, c.args["inputs"]
    k, length = a["num_carry"], a["length"]
    sub = c.b.sub()
    it, cond, carry, infos = _loop_inputs(sub, c.out_types[:k])
    index = it if not a["reverse"] else sub.node("Sub", [sub.const(length - 1, "int64"), it])
    slices = [sub.node("Gather", [xs, index], axis=0) for xs in inputs[k:]]
    new = c.export_region(c.op.regions[0], sub, carry + slices)
    ys_types = [TensorSpec(t.shape[1:], t.dtype) for t in c.out_types[k:]]
    outs, out_infos = _typed(sub, [cond, *new],
                             [TensorSpec((), "bool"), *c.out_types[:k], *ys_types])
    graph = sub.graph("scan_body", infos, out_infos)
    trips = c.b.const(length, "int64")
    results = _outs(c.node("Loop", [trips, "", *inputs[:k]], len(c.out_types), body=graph))
    if a["reverse"]:
        flip = [c.b.ints([-1]), c.b.ints([np.iinfo(np.int64).min]), c.b.ints([0]),
                c.b.ints([-1])]
        results[k:] = [c.node("Slice", [y, *flip]) for y in results[k:]]
    return results


CONTROL_RULES: dict[str, OnnxRule] = {"cond": _cond, "while_loop": _while_loop, "scan": _scan}


__all__ = ["CONTROL_RULES", "FUSED", "NN_RULES", "Fused"]
