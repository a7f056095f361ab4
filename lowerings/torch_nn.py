"""Torch rules for layers, random ops and the composite ops torch has fused functions for.

Layers in channels-first layout with symmetric padding map straight onto torch's own
calls (`F.conv2d`, `F.max_pool2d`, ...); other layouts and asymmetric padding go
through the kernels of `torch_kernels.py`. A composite op is listed here only where
torch's fused function has exactly the op's semantics (the rest decompose).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ivy_ir.core.rules import OpContext, Rule, literal, rounded_once
from ivy_ir.dialect.types import FLOATS


def _window(c: OpContext, *names: str) -> str:
    return ", ".join(c.lit(n) for n in names)


def _native_layer(c: OpContext) -> bool:
    """Whether torch's own layer call takes the op as is: channels-first, symmetric pads."""
    pad = c.attrs["padding"]
    return c.attrs["layout"] == "channels_first" and pad[0::2] == pad[1::2]


def _n(c: OpContext) -> int:
    return c.in_types["x"].rank - 2


def _conv(c: OpContext) -> str:
    x, w, b = c.args["x"], c.args["weight"], c.args["bias"]
    if not _native_layer(c):
        return f"conv({x}, {w}, {b}, {_window(c, 'strides', 'padding', 'dilations')}, " \
            f"{c.lit('groups')}, {c.lit('layout')})"
    pad = literal(tuple(c.attrs["padding"][0::2]))
    return f"F.conv{_n(c)}d({x}, {w}, {b}, stride={c.lit('strides')}, padding={pad}, " \
        f"dilation={c.lit('dilations')}, groups={c.lit('groups')})"


def _conv_transpose(c: OpContext) -> str:
    x, w, b = c.args["x"], c.args["weight"], c.args["bias"]
    if not _native_layer(c):
        return f"conv_transpose({x}, {w}, {b}, " \
            f"{_window(c, 'strides', 'padding', 'output_padding', 'dilations')}, " \
            f"{c.lit('groups')}, {c.lit('layout')})"
    pad = literal(tuple(c.attrs["padding"][0::2]))
    return f"F.conv_transpose{_n(c)}d({x}, {w}, {b}, stride={c.lit('strides')}, " \
        f"padding={pad}, output_padding={c.lit('output_padding')}, " \
        f"groups={c.lit('groups')}, dilation={c.lit('dilations')})"


def _out_spatial(c: OpContext) -> tuple[int, ...]:
    shape = c.out.shape
    return tuple(shape[2:] if c.attrs["layout"] == "channels_first" else shape[1:-1])


def _max_pool(c: OpContext) -> str:
    x, n = c.args["x"], _n(c)
    dil = c.attrs["dilations"] or (1,) * n
    if _native_layer(c) and (n > 1 or c.out.dtype in FLOATS):
        pad = literal(tuple(c.attrs["padding"][0::2]))
        return f"F.max_pool{n}d({x}, {c.lit('kernel')}, {c.lit('strides')}, {pad}, " \
            f"{literal(tuple(dil))}, ceil_mode={c.lit('ceil_mode')})"
    return f"max_pool({x}, {_window(c, 'kernel', 'strides', 'padding')}, " \
        f"{literal(tuple(dil))}, {literal(_out_spatial(c))}, {c.lit('layout')})"


def _avg_pool(c: OpContext) -> str:
    x, n = c.args["x"], _n(c)
    if _native_layer(c):
        pad = literal(tuple(c.attrs["padding"][0::2]))
        return f"F.avg_pool{n}d({x}, {c.lit('kernel')}, {c.lit('strides')}, {pad}, " \
            f"ceil_mode={c.lit('ceil_mode')}, count_include_pad={c.lit('count_include_pad')})"
    return f"avg_pool({x}, {_window(c, 'kernel', 'strides', 'padding')}, " \
        f"{c.lit('count_include_pad')}, {literal(_out_spatial(c))}, {c.lit('layout')})"


def _channels_first(c: OpContext, call: Callable[[str], str]) -> str:
    """`call` on the channels-first view of x, its result moved back."""
    x = c.args["x"]
    if c.attrs["layout"] == "channels_first":
        return call(x)
    return f"torch.movedim({call(f'torch.movedim({x}, -1, 1)')}, 1, -1)"


def _adaptive_avg_pool(c: OpContext) -> str:
    n, size = _n(c), c.lit("output_size")
    return _channels_first(c, lambda x: f"F.adaptive_avg_pool{n}d({x}, {size})")


def _interpolate(c: OpContext) -> str:
    mode = c.attrs["mode"]
    corners = c.lit("align_corners") if mode == "bilinear" else "None"
    return _channels_first(c, lambda x: f"F.interpolate({x}, size={c.lit('size')}, "
                           f"mode={c.lit('mode')}, align_corners={corners})")


def _random_uniform(c: OpContext) -> str:
    dt = c.attrs["dtype"]
    top = np.nextafter(np.asarray(c.attrs["high"], dt), np.asarray(c.attrs["low"], dt))
    return f"random_uniform({c.args['key']}, {c.lit('shape')}, {c.lit('low')}, " \
        f"{c.lit('high')}, {literal(float(top))}, {c.lit('dtype')})"


# ---- composite ops with a fused torch function of the same semantics ----

def _trailing(c: OpContext, call: Callable[[str, str], str]) -> str:
    """`call(x, normalized_shape)` over the normalised axes, moved to the end if needed."""
    x, rank = c.args["x"], c.in_types["x"].rank
    axes = tuple(sorted(c.attrs["axis"]))
    tail = tuple(range(rank - len(axes), rank))
    shape = literal(tuple(c.in_types["x"].shape[a] for a in axes))
    if axes == tail:
        return call(x, shape)
    moved = call(f"torch.movedim({x}, {literal(axes)}, {literal(tail)})", shape)
    return f"torch.movedim({moved}, {literal(tail)}, {literal(axes)})"


def _hard_sigmoid(c: OpContext) -> str:
    # F.hardsigmoid's backward scales by a float32 1/6, too coarse for float64 data
    x = c.args["x"]
    return f"F.relu6({x} + 3) / 6" if c.out.dtype == "float64" else f"F.hardsigmoid({x})"


def _batch_norm(c: OpContext) -> str:
    axis = c.attrs["axis"]
    f = c.fields()
    if 0 in c.in_types["x"].shape:  # F.batch_norm fails on no channels; nothing to do
        return f["x"]
    if not (c.is_buffer("mean") and c.is_buffer("var")):
        # F.batch_norm has no gradient for its statistics: when they are computed values
        # or inputs rather than buffers, write the inference formula so gradients flow
        return _BATCH_NORM_FORMULA(c)
    x = f["x"] if axis == 1 else f"torch.movedim({f['x']}, {axis}, 1)"
    call = f"F.batch_norm({x}, {f['mean']}, {f['var']}, {f['weight']}, {f['bias']}, " \
        f"training=False, eps={f['eps']})"
    return call if axis == 1 else f"torch.movedim({call}, 1, {axis})"


def _batch_norm_formula(c: OpContext) -> str:
    f, axis = c.fields(), c.attrs["axis"]
    shape = literal((-1,) + (1,) * (c.in_types["x"].rank - axis - 1))
    y = f"({f['x']} - {f['mean']}.reshape({shape})) * torch.rsqrt({f['var']}" \
        f".reshape({shape}) + {f['eps']})"
    if c.in_types["weight"] is not None:
        y = f"{y} * {f['weight']}.reshape({shape})"
    return y if c.in_types["bias"] is None else f"{y} + {f['bias']}.reshape({shape})"


_BATCH_NORM_FORMULA = rounded_once(_batch_norm_formula, "{x}.to({dtype})")
"""In float32 from half floats, as F.batch_norm computes (one rounding)."""


def _group_norm(c: OpContext) -> str:
    x, bias = c.in_types["x"], c.args["bias"]
    if math.prod(x.shape[1:]) != c.attrs["num_groups"]:
        if c.in_types["weight"] is None and c.in_types["bias"] is not None:
            # torch's group_norm backward fails for a bias without a weight: add it here
            shape = literal((-1,) + (1,) * (x.rank - 2))
            return "F.group_norm({x}, {num_groups}, None, None, eps={eps})".format(
                **c.fields()) + f" + {bias}.reshape({shape})"
        return "F.group_norm({x}, {num_groups}, {weight}, {bias}, eps={eps})".format(
            **c.fields())
    # groups of one value normalise to 0 (F.group_norm refuses them as in training)
    # (x - x, not zeros_like: the result stays connected to x for autograd)
    zeros = f"({c.args['x']} - {c.args['x']})"
    return zeros if c.in_types["bias"] is None else \
        f"{zeros} + {bias}.reshape({literal((-1,) + (1,) * (x.rank - 2))})"


CUDNN_MODES = {"lstm": 2, "gru": 3, "tanh": 1, "relu": 0}
"""cuDNN's `cudnnRNNMode_t` of each layer (what `torch.backends.cudnn.rnn.get_cudnn_mode`
gives for torch's mode names)."""


def _recurrent(c: OpContext) -> str:
    """torch's own layer function, the one `nn.LSTM`/`nn.GRU`/`nn.RNN` call: their exact
    semantics, and a fused kernel where torch has one (oneDNN, cuDNN), its weights kept
    in one buffer on CUDA as those modules keep them (`cudnn_weights`). No dropout; the
    train flag follows autograd, as cuDNN's backward needs the training forward."""
    name = c.op.SPEC.name
    kind = c.attrs["nonlinearity"] if name == "rnn" else name
    states = [c.args["h0"]] + ([c.args["c0"]] if name == "lstm" else [])
    size, hidden = (c.in_types[s].shape[-1] for s in ("h0", "c0" if name == "lstm" else "h0"))
    weights = f"cudnn_weights({c.args['weights']}, {CUDNN_MODES[kind]}, " \
        f"{c.in_types['x'].shape[-1]}, {hidden}, {0 if size == hidden else size}, " \
        f"{c.lit('num_layers')}, {c.lit('batch_first')}, {c.lit('bidirectional')})"
    hx = f"({', '.join(states)})" if name == "lstm" else states[0]
    return f"torch.{'rnn_' if name == 'rnn' else ''}{kind}({c.args['x']}, {hx}, {weights}, " \
        f"{c.lit('has_biases')}, {c.lit('num_layers')}, 0.0, torch.is_grad_enabled(), " \
        f"{c.lit('bidirectional')}, {c.lit('batch_first')})"


def _attention(c: OpContext) -> str:
    # torch refuses a mask together with is_causal: fold the causal mask into it; and a
    # mask may broadcast the batch beyond q, k and v, so q takes the output's batch
    f = c.fields()
    q, k, v, mask = f["q"], f["k"], f["v"], f["mask"]
    L, S = c.in_types["q"].shape[-2], c.in_types["k"].shape[-2]
    batch = tuple(c.out.shape[:-2])
    if c.in_types["mask"] is not None and batch != tuple(c.in_types["q"].shape[:-2]):
        q = f"{q}.expand({literal(batch + (L, c.in_types['q'].shape[-1]))})"
    m = c.in_types["mask"]
    if m is not None and m.rank < 2:  # torch wants a mask of rank 2 or more
        mask = f"{mask}.expand({L}, {S})"
    if m is not None and m.dtype not in ("bool", c.out.dtype):  # torch wants q's dtype
        mask = f"{mask}.to({c.target.dtype(c.out.dtype)})"
    causal = c.attrs["causal"]
    if causal and c.in_types["mask"] is not None:
        keep = f"torch.ones({L}, {S}, dtype=torch.bool, device={q}.device).tril()"
        mask = f"{mask} & {keep}" if c.in_types["mask"].dtype == "bool" else \
            f"{mask}.masked_fill(~{keep}, float('-inf'))"
        causal = False
    return f"F.scaled_dot_product_attention({q}, {k}, {v}, attn_mask={mask}, " \
        f"is_causal={literal(causal)}, scale={f['scale']})"


NN_RULES: dict[str, Rule] = {
    # layers
    "conv": _conv,
    "conv_transpose": _conv_transpose,
    "max_pool": _max_pool,
    "avg_pool": _avg_pool,
    "adaptive_avg_pool": _adaptive_avg_pool,
    "interpolate": _interpolate,
    # random: a generator seeded by the key, on the key's device
    "random_uniform": _random_uniform,
    "random_normal": "random_normal({key}, {shape}, {mean}, {std}, {dtype})",
    # composite ops lowered to torch's fused functions
    "relu": "F.relu({x})",
    "relu6": "F.relu6({x})",
    "leaky_relu": "F.leaky_relu({x}, negative_slope={alpha})",
    "elu": "F.elu({x}, alpha={alpha})",
    "gelu": "F.gelu({x}, approximate={approximate})",
    "silu": "F.silu({x})",
    "sigmoid": "torch.sigmoid({x})",
    "hard_sigmoid": _hard_sigmoid,
    "hardswish": "F.hardswish({x})",
    "mish": "F.mish({x})",
    "softplus": "F.softplus({x}, beta={beta}, threshold={threshold})",
    "softmax": "torch.softmax({x}, dim={axis})",
    "log_softmax": "torch.log_softmax({x}, dim={axis})",
    "linear": "F.linear({x}, {weight}, {bias})",
    "layer_norm": lambda c: _trailing(c, lambda x, s: f"F.layer_norm({x}, {s}, "
                                      f"{c.args['weight']}, {c.args['bias']}, eps={c.lit('eps')})"),
    "rms_norm": lambda c: _trailing(c, lambda x, s: f"F.rms_norm({x}, {s}, "
                                    f"{c.args['weight']}, eps={c.lit('eps')})"),
    "batch_norm": _batch_norm,
    "group_norm": _group_norm,
    "scaled_dot_product_attention": _attention,
    "lstm": _recurrent,
    "gru": _recurrent,
    "rnn": _recurrent,
}
