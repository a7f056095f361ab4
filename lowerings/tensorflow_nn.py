"""TensorFlow rules for activations, normalisation, conv/pool layers and random ops.

Composites map to TF's fused functions where their semantics match ours exactly; where
a TF kernel is too coarse in float64 (gelu, leaky_relu) the formula is written out.
"""

from __future__ import annotations

import math

from ivy_ir.core.rules import LAYER_KERNEL_CALLS, OpContext, Rule, literal, rounded_once

CAST = "tf.cast({x}, {dtype})"
"""A conversion in TF (`rounded_once`)."""


def _leaky_relu(c: OpContext) -> str:
    # the `alpha` attribute of TF's kernel is a float32: too coarse for float64 data
    x = c.args["x"]
    if c.out.dtype == "float64":
        return f"tf.where({x} >= 0, {x}, {x} * {c.lit('alpha')})"
    return f"tf.nn.leaky_relu({x}, alpha={c.lit('alpha')})"


def _gelu(c: OpContext) -> str:
    # tf.nn.gelu is ~5e-9 off in float64: there the exact formulas are written out
    x, tanh = c.args["x"], c.attrs["approximate"] == "tanh"
    if c.out.dtype != "float64":
        return f"tf.nn.gelu({x}, approximate={tanh})"
    if tanh:
        inner = f"{math.sqrt(2 / math.pi)!r} * ({x} + 0.044715 * {x} ** 3)"
        return f"0.5 * {x} * (1.0 + tf.math.tanh({inner}))"
    # erf of a clipped argument: TF's float64 erf is NaN past |z| ~ 1e155, and is +-1 past 6
    z = f"tf.clip_by_value({x} * {1 / math.sqrt(2)!r}, -6.0, 6.0)"
    return f"0.5 * {x} * (1.0 + tf.math.erf({z}))"


def _elu(c: OpContext) -> str:
    # tf.nn.elu has alpha 1; elu(x) is expm1(x) below zero, so scale that branch
    x = c.args["x"]
    if c.attrs["alpha"] == 1.0:
        return f"tf.nn.elu({x})"
    return f"tf.where({x} > 0, {x}, {c.lit('alpha')} * tf.nn.elu({x}))"


def _softplus(c: OpContext) -> str:
    # tf.math.softplus is linear above its own threshold (~18 for float32, ~38 for
    # float64), where log1p(exp(x)) rounds to x anyway: the default op agrees with it
    x, beta, threshold = c.args["x"], c.attrs["beta"], c.attrs["threshold"]
    if beta == 1.0 and threshold == 20.0:
        return f"tf.math.softplus({x})"
    bx = f"{x} * {c.lit('beta')}"
    return f"tf.where({bx} > {c.lit('threshold')}, {x}, tf.math.softplus({bx}) / {c.lit('beta')})"


def _linear(c: OpContext) -> str:
    # x @ W^T + b on the last axis of x
    x, w, b = c.args["x"], c.args["weight"], c.args["bias"]
    y = f"tf.linalg.matvec({w}, {x})" if c.in_types["x"].rank == 1 else \
        f"tf.linalg.matmul({x}, {w}, transpose_b=True)"
    return y if b == "None" else f"{y} + {b}"


def _batch_norm(c: OpContext) -> str:
    rank = c.in_types["x"].rank
    axis = c.attrs["axis"]
    shape = [c.in_types["x"].shape[axis]] + [1] * (rank - axis - 1)
    a = dict(c.args)
    if axis != rank - 1:
        for k in ("mean", "var", "weight", "bias"):
            if a[k] != "None":
                a[k] = f"tf.reshape({a[k]}, {literal(shape)})"
    return (f"tf.nn.batch_normalization({a['x']}, {a['mean']}, {a['var']}, offset={a['bias']}, "
            f"scale={a['weight']}, variance_epsilon={c.lit('eps')})")


def _layer_norm(c: OpContext) -> str:
    axes = sorted(c.attrs["axis"])
    return (f"layer_norm({c.args['x']}, {c.args['weight']}, {c.args['bias']}, {literal(axes)}, "
            f"{c.lit('eps')})")


NN_RULES: dict[str, Rule] = {
    "scaled_dot_product_attention": "attention({q}, {k}, {v}, {mask}, {causal}, {scale})",
    # activations and layers
    "leaky_relu": _leaky_relu,
    "gelu": _gelu,
    "elu": _elu,
    "softplus": _softplus,
    "linear": _linear,
    "batch_norm": rounded_once(_batch_norm, CAST),
    "layer_norm": rounded_once(_layer_norm, CAST),
    **LAYER_KERNEL_CALLS,
    # random: stateless, the key is the seed (the same key gives the same stream)
    "random_uniform": "random_uniform({key}, {shape}, {low}, {high}, {dtype})",
    "random_normal": ("tf.random.stateless_normal({shape}, seed=tf.stack([{key}, 0]), "
                      "mean={mean}, stddev={std}, dtype={dtype})"),
}
