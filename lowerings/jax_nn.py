"""JAX rules for activations, normalisation, convolution, pooling, resampling and random
ops (the rest of the table is in `jax.py`).

Window geometry depends only on static shapes and attributes, so it is worked out here
at lowering time and emitted as literals: the generated code is one `lax` call per op.
Composite ops get a rule only where `jax.nn` has a function with the decomposition's
exact semantics; the others (rms_norm, scaled_dot_product_attention) decompose.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ivy_ir.core.numpy_api import AS_TYPE
from ivy_ir.core.rules import OpContext, Rule, literal, rounded_once
from ivy_ir.dialect.types import FLOATS, numpy_dtype


def out_dtype(c: OpContext) -> str:
    """The target spelling of the (first) result dtype."""
    return c.target.dtype(c.out.dtype)


def _spatial(shape: tuple[Any, ...], layout: str) -> tuple[Any, ...]:
    return shape[2:] if layout == "channels_first" else shape[1:-1]


def _full_rank(c: OpContext, per_dim: list[Any] | tuple[Any, ...], fill: Any) -> str:
    """Per-spatial-dim values as a full-rank tuple (`fill` for batch and channels)."""
    if c.attrs["layout"] == "channels_first":
        return literal((fill, fill, *per_dim))
    return literal((fill, *per_dim, fill))


def _all_ones(values: tuple[int, ...] | list[int]) -> bool:
    return all(v == 1 for v in values)


# ---- convolution

def _dimension_numbers(c: OpContext, kernel_first: str, kernel_last: str) -> str:
    n = c.in_types["x"].rank - 2
    sp = "DHW"[-n:] if n <= 3 else "".join(chr(ord("a") + i) for i in range(n))
    if c.attrs["layout"] == "channels_first":
        return literal(("NC" + sp, kernel_first + sp, "NC" + sp))
    return literal(("N" + sp + "C", sp + kernel_last, "N" + sp + "C"))


def _conv_call(c: OpContext, kernel: str, strides: tuple[int, ...],
               pads: tuple[tuple[int, int], ...], dims: str, lhs_dilation: str = "") -> str:
    a = c.attrs
    dil = "" if _all_ones(a["dilations"]) else f"rhs_dilation={c.lit('dilations')}, "
    head = f"{c.args['x']}, {kernel}, {literal(strides)}, {literal(pads)}"
    if 1 < a["groups"] <= SPLIT_GROUPS:  # one convolution per group (`jax_kernels.grouped_conv`)
        y = f"grouped_conv({head}, {dims}, {a['groups']}, {lhs_dilation}{dil})"
    else:
        groups = "" if a["groups"] == 1 else f", feature_group_count={a['groups']}"
        y = f"lax.conv_general_dilated({head}, {lhs_dilation}{dil}dimension_numbers={dims}{groups})"
    if c.args["bias"] == "None":
        return y
    if a["layout"] == "channels_last":
        return f"{y} + {c.args['bias']}"
    return f"{y} + {c.args['bias']}.reshape({literal((-1,) + (1,) * len(strides))})"


SPLIT_GROUPS = 64
"""The most feature groups a convolution is run as one convolution per group
(`jax_kernels.grouped_conv`), measured faster than XLA's grouped convolution from 2 to 32
groups; more groups (in practice a depthwise convolution with more taps than
`SHIFTED_TAPS` over many channels) stay one grouped convolution."""

SHIFTED_TAPS = 64
"""The most kernel taps a depthwise convolution is lowered as shifted multiply-adds
(`jax_kernels.depthwise_conv`) rather than XLA's grouped convolution."""


def _conv(c: OpContext) -> str:
    p, a = c.attrs["padding"], c.attrs
    x, w = c.in_types["x"], c.in_types["weight"]
    first = a["layout"] == "channels_first"
    channels = x.shape[1] if first else x.shape[-1]
    taps = math.prod(w.shape[2:] if first else w.shape[:-2])
    if 1 < a["groups"] == channels and taps <= SHIFTED_TAPS:
        return (f"depthwise_conv({c.args['x']}, {c.args['weight']}, {c.args['bias']}, "
                f"{literal(tuple(a['strides']))}, {literal(tuple(p))}, "
                f"{literal(tuple(a['dilations']))}, {first})")
    if taps == 1 and not any(p):  # a product over channels (`jax_kernels.pointwise_conv`)
        return (f"pointwise_conv({c.args['x']}, {c.args['weight']}, {c.args['bias']}, "
                f"{literal(tuple(a['strides']))}, {a['groups']}, {first})")
    return _conv_call(c, c.args["weight"], c.attrs["strides"], tuple(zip(p[::2], p[1::2])),
                      _dimension_numbers(c, "OI", "IO"))


def _conv_transpose(c: OpContext) -> str:
    # the transpose of a conv: a stride-1 conv of the stride-dilated input with the
    # flipped kernel, padded by dilation * (kernel - 1) less the cropping
    a, w = c.attrs, c.args["weight"]
    n = len(a["strides"])
    first = a["layout"] == "channels_first"
    kernel = c.in_types["weight"].shape[2:] if first else c.in_types["weight"].shape[:n]
    pads = tuple((dl * (k - 1) - a["padding"][2 * i],
                  dl * (k - 1) - a["padding"][2 * i + 1] + op)
                 for i, (k, dl, op) in enumerate(zip(kernel, a["dilations"],
                                                     a["output_padding"])))
    if a["groups"] == 1:  # the weight's in/out dims are the forward conv's out/in dims
        axes = tuple(range(2, 2 + n)) if first else tuple(range(n))
        kern, dims = f"jnp.flip({w}, {literal(axes)})", _dimension_numbers(c, "IO", "OI")
    else:
        kern = f"grouped_transpose_kernel({w}, {a['groups']}, {c.lit('layout')})"
        dims = _dimension_numbers(c, "OI", "IO")
    return _conv_call(c, kern, (1,) * n, pads, dims, f"lhs_dilation={c.lit('strides')}, ")


# ---- pooling

def _window_pads(c: OpContext, dilations: tuple[int, ...]) -> list[tuple[int, int]]:
    """(lo, hi) per spatial dim; ceil_mode grows hi so that the last window fits."""
    a = c.attrs
    ins = _spatial(c.in_types["x"].shape, a["layout"])
    outs = _spatial(c.out.shape, a["layout"])
    pads = []
    for i, (d, k, s, dl, o) in enumerate(zip(ins, a["kernel"], a["strides"], dilations, outs)):
        lo, hi = a["padding"][2 * i], a["padding"][2 * i + 1]
        pads.append((lo, max(hi, (o - 1) * s + dl * (k - 1) + 1 - d - lo)))
    return pads


def _window(c: OpContext) -> str:
    return f"{_full_rank(c, c.attrs['kernel'], 1)}, {_full_rank(c, c.attrs['strides'], 1)}"


def _max_pool(c: OpContext) -> str:
    dil = c.attrs["dilations"] or (1,) * len(c.attrs["kernel"])
    dt = out_dtype(c)
    init = "-jnp.inf" if c.out.dtype in FLOATS else f"{dt}(jnp.iinfo({dt}).min)"
    pads = _full_rank(c, _window_pads(c, dil), (0, 0))
    return f"max_pool({c.args['x']}, {init}, {_window(c)}, {_full_rank(c, dil, 1)}, {pads})"


def _avg_pool(c: OpContext) -> str:
    # the divisor counts the window cells inside the input (and its padding with
    # count_include_pad), never those that ceil_mode adds, as PyTorch does
    a = c.attrs
    pads = _window_pads(c, (1,) * len(a["kernel"]))
    total = f"sum_pool({c.args['x']}, {_window(c)}, {_full_rank(c, pads, (0, 0))})"
    given = list(zip(a["padding"][::2], a["padding"][1::2]))
    if a["count_include_pad"] and pads == given:
        return f"{total} / {float(math.prod(a['kernel']))}"
    ins = _spatial(c.in_types["x"].shape, a["layout"])
    if a["count_include_pad"]:
        inside = [d + lo + hi for d, (lo, hi) in zip(ins, given)]
        cpads = [(0, hi - g) for (_, hi), (_, g) in zip(pads, given)]
    else:
        inside, cpads = list(ins), pads
    count = f"window_count({_full_rank(c, inside, 1)}, {_window(c)}, " \
        f"{_full_rank(c, cpads, (0, 0))}, {out_dtype(c)})"
    return f"{total} / {count}"


# ---- normalisation

def _affine(c: OpContext, y: str, shape: list[int]) -> str:
    """y * weight + bias, each reshaped to broadcast over the normalised dims."""
    for name, op in (("weight", "*"), ("bias", "+")):
        if c.args.get(name, "None") != "None":
            v = c.args[name]
            if c.in_types[name].shape != tuple(shape):
                v = f"{v}.reshape({literal(tuple(shape))})"
            y = f"{y} {op} {v}"
    return y


def _layer_norm(c: OpContext) -> str:
    x = c.in_types["x"]
    axes = tuple(sorted(c.attrs["axis"]))
    y = f"standardize({c.args['x']}, {literal(axes)}, {c.lit('eps')})"
    return _affine(c, y, [x.shape[i] if i in axes else 1 for i in range(axes[0], x.rank)])


def _batch_norm(c: OpContext) -> str:
    x = c.in_types["x"]
    ax = c.attrs["axis"]
    shape = [x.shape[ax]] + [1] * (x.rank - ax - 1)
    mean, var = (c.args[n] if len(shape) == 1 else f"{c.args[n]}.reshape({literal(tuple(shape))})"
                 for n in ("mean", "var"))
    y = f"jax.nn.standardize({c.args['x']}, mean={mean}, variance={var}, " \
        f"epsilon={c.lit('eps')})"
    return _affine(c, y, shape)


def _group_norm(c: OpContext) -> str:
    x = c.in_types["x"]
    grouped = f"{c.args['x']}.reshape({literal((x.shape[0], c.attrs['num_groups'], -1))})"
    y = f"jax.nn.standardize({grouped}, axis=-1, epsilon={c.lit('eps')}, " \
        f"algorithm='stable').reshape({literal(x.shape)})"
    return _affine(c, y, [x.shape[1]] + [1] * (x.rank - 2))


# ---- activations and random

def _linear(c: OpContext) -> str:
    """x contracted with the weight's input axis in one `dot_general`: XLA's CPU backend
    does not fold the transpose of `x @ w.T` into the product, and copies the weight
    (14x slower on one row against AlexNet's 9216 x 4096 layer, 1.8x on a transformer's
    projections)."""
    x, w, b = c.args["x"], c.args["weight"], c.args["bias"]
    last = c.in_types["x"].rank - 1
    y = f"jax.lax.dot_general({x}, {w}, ((({last},), (1,)), ((), ())))"
    return y if b == "None" else f"{y} + {b}"


def _softplus(c: OpContext) -> str:
    # jax.nn.softplus has no threshold: above it the result is x itself, as PyTorch
    x, beta, t = c.args["x"], c.attrs["beta"], c.lit("threshold")
    if beta == 1.0:
        return f"jnp.where({x} > {t}, {x}, jax.nn.softplus({x}))"
    b = c.lit("beta")
    return f"jnp.where({x} * {b} > {t}, {x}, jax.nn.softplus({x} * {b}) / {b})"


def _uniform(c: OpContext) -> str:
    a = c.attrs
    draw = f"jax.random.uniform(jax.random.key({c.args['key']}), {c.lit('shape')}, " \
        f"{c.lit('dtype')}, minval={c.lit('low')}, maxval={c.lit('high')})"
    if (a["low"], a["high"]) == (0.0, 1.0):
        return draw
    # low + u * (high - low) can round up to high; keep [low, high)
    dt = numpy_dtype(a["dtype"])
    below = np.nextafter(np.asarray(a["high"], dt), np.asarray(a["low"], dt))
    return f"jnp.minimum({draw}, {literal(float(below))})"


def _normal(c: OpContext) -> str:
    draw = f"jax.random.normal(jax.random.key({c.args['key']}), {c.lit('shape')}, " \
        f"{c.lit('dtype')})"
    if (c.attrs["mean"], c.attrs["std"]) == (0.0, 1.0):
        return draw
    return f"{c.lit('mean')} + {c.lit('std')} * {draw}"


NN_RULES: dict[str, Rule] = {
    "relu": "jax.nn.relu({x})",
    "relu6": "jax.nn.relu6({x})",
    "leaky_relu": "jax.nn.leaky_relu({x}, negative_slope={alpha})",
    "elu": "jax.nn.elu({x}, alpha={alpha})",
    "gelu": lambda c: f"jax.nn.gelu({c.args['x']}, approximate="
                      f"{c.attrs['approximate'] == 'tanh'})",
    "silu": "jax.nn.silu({x})",
    "sigmoid": "jax.nn.sigmoid({x})",
    "hard_sigmoid": "jax.nn.hard_sigmoid({x})",
    "hardswish": "jax.nn.hard_swish({x})",
    "mish": "jax.nn.mish({x})",
    "softplus": _softplus,
    "softmax": "jax.nn.softmax({x}, axis={axis})",
    "log_softmax": "jax.nn.log_softmax({x}, axis={axis})",
    "linear": _linear,
    **{op: rounded_once(rule, AS_TYPE) for op, rule in (
        ("layer_norm", _layer_norm), ("batch_norm", _batch_norm), ("group_norm", _group_norm))},
    "conv": _conv,
    "conv_transpose": _conv_transpose,
    "max_pool": _max_pool,
    "avg_pool": _avg_pool,
    "adaptive_avg_pool": "adaptive_avg_pool({x}, {output_size}, {layout})",
    "interpolate": "interpolate({x}, {size}, {mode}, {align_corners}, {layout})",
    "random_uniform": _uniform,
    "random_normal": _normal,
}
