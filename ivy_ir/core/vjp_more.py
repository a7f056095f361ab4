"""More reverse-mode rules (see `vjp.py` for the conventions): products, statistics and
norms, special functions, index and layout ops, resampling and the transposed
convolution (linear algebra is in `vjp_linalg.py`). `reverse.py` reads `MORE` beside
`vjp.VJPS`. Where a closed form would divide by an operand (a product's other factors,
a norm at zero), the rule is written so that zeros give the limit torch and JAX give.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .resample import adaptive_weights, resample_taps
from .tracer import OPS as F
from .vjp import (
    VJPS,
    DerivativeError,
    _count,
    _extreme,
    _spread,
    reverse_cumsum,
    rules_into,
    unbroadcast,
)

MORE: dict[str, Callable[..., Any]] = {}
_rule = rules_into(MORE)


def _axes(x: Any, axis: Any) -> list[int]:
    return list(range(x.ndim)) if axis is None else sorted(a % x.ndim for a in axis)


# ---- elementwise -------------------------------------------------------------------------

ONE: dict[str, Callable[[Any, Any, Any], Any]] = {
    "asinh": lambda g, out, x: F.multiply(g, F.rsqrt(F.add(F.square(x), 1))),
    "acosh": lambda g, out, x: F.multiply(g, F.rsqrt(F.subtract(F.square(x), 1))),
    "atanh": lambda g, out, x: F.divide(g, F.subtract(1, F.square(x))),
    "lgamma": lambda g, out, x: F.multiply(g, F.digamma(x)),
}

for _name, _one in ONE.items():
    MORE[_name] = (lambda rule: lambda g, out, x: [rule(g, out, x)])(_one)


def _trigamma(x: Any) -> Any:
    """The derivative of digamma: for x > 0 the recurrence up to x + 10, then the
    asymptotic series (error below 1e-12 there); elsewhere the reflection formula."""
    pos = F.where(F.greater(x, 0), x, F.subtract(1, x))
    total = F.reciprocal(F.square(pos))
    for k in range(1, 10):
        total = F.add(total, F.reciprocal(F.square(F.add(pos, k))))
    z = F.reciprocal(F.add(pos, 10))
    z2 = F.square(z)
    series = F.multiply(z, F.add(1, F.multiply(z, F.add(0.5, F.multiply(z, F.add(
        1 / 6, F.multiply(z2, F.add(-1 / 30, F.multiply(z2, F.add(1 / 42, F.multiply(
            z2, -1 / 30)))))))))))
    total = F.add(total, series)
    reflected = F.subtract(F.divide(math.pi ** 2, F.square(F.sin(F.multiply(x, math.pi)))),
                           total)
    return F.where(F.greater(x, 0), total, reflected)


MORE["digamma"] = lambda g, out, x: [F.multiply(g, _trigamma(x))]


@_rule("atan2")
def _atan2(g, out, x, y):
    # atan2(x, y) is the angle of the point (y, x)
    scaled = F.divide(g, F.add(F.square(x), F.square(y)))
    return [unbroadcast(F.multiply(scaled, y), x.shape),
            unbroadcast(F.negative(F.multiply(scaled, x)), y.shape)]


@_rule("remainder")
def _remainder(g, out, x, y):
    # x - floor(x / y) * y, the floor held constant between its jumps
    return [unbroadcast(g, x.shape),
            unbroadcast(F.negative(F.multiply(g, F.floor(F.divide(x, y)))), y.shape)]


# ---- reductions and scans ----------------------------------------------------------------

def _exclusive_products(flat: Any) -> Any:
    """Along the last axis: each element's product of all the others, from running
    products of the elements before it and after it (no division, so zeros count)."""
    n = flat.shape[-1]
    lead = [0] * (flat.ndim - 1)
    ones = F.ones_like(F.slice(flat, start=lead + [0], stop=[*flat.shape[:-1], 1],
                               step=[1] * flat.ndim))

    def before(v: Any) -> Any:
        head = F.slice(v, start=lead + [0], stop=[*v.shape[:-1], n - 1], step=[1] * v.ndim)
        return F.cumprod(F.concat([ones, head], axis=v.ndim - 1), axis=v.ndim - 1)
    last = [flat.ndim - 1]
    return F.multiply(before(flat), F.flip(before(F.flip(flat, axis=last)), axis=last))


@_rule("prod")
def _prod(g, out, x, axis, keepdims):
    axes = _axes(x, axis)
    if not axes or _count(x, axis) <= 1:
        return [_spread(g, x, axis, keepdims)]
    rest = [i for i in range(x.ndim) if i not in axes]
    kept = [x.shape[i] for i in rest]
    flat = F.reshape(F.permute_dims(x, axes=rest + axes), shape=kept + [_count(x, axis)])
    others = F.reshape(_exclusive_products(flat), shape=kept + [x.shape[i] for i in axes])
    order = rest + axes
    others = F.permute_dims(others, axes=[order.index(i) for i in range(x.ndim)])
    return [F.multiply(_spread(g, x, axis, keepdims), others)]


@_rule("cumprod")
def _cumprod(g, out, x, axis):
    # d out_i / d x_k is out_i / x_k for i >= k while no zero comes before k; at the
    # first zero it is the running product with that zero taken as 1; after it, 0
    zeros = F.equal(x, 0)
    count = F.cumsum(F.astype(zeros, dtype=x.dtype), axis=axis)
    before, first = F.equal(count, 0), F.logical_and(zeros, F.equal(count, 1))
    spread = F.divide(reverse_cumsum(F.multiply(g, out), axis), F.where(before, x, 1))
    at_zero = reverse_cumsum(F.multiply(g, F.cumprod(F.where(first, 1, x), axis=axis)), axis)
    return [F.where(before, spread, F.where(first, at_zero, 0))]


def _centred(x: Any, axis: Any) -> Any:
    return F.subtract(x, F.broadcast_to(F.mean(x, axis=_axes(x, axis), keepdims=True),
                                        shape=list(x.shape)))


@_rule("var")
def _var(g, out, x, axis, keepdims, correction):
    scale = 2 / (_count(x, axis) - correction)
    return [F.multiply(_spread(g, x, axis, keepdims), F.multiply(_centred(x, axis), scale))]


@_rule("std")
def _std(g, out, x, axis, keepdims, correction):
    spread = F.divide(_spread(g, x, axis, keepdims), _spread(out, x, axis, keepdims))
    return [F.multiply(spread, F.divide(_centred(x, axis), _count(x, axis) - correction))]


@_rule("vector_norm")
def _vector_norm(g, out, x, ord, axis, keepdims):  # noqa: A002 (the standard's name)
    spread, norm = _spread(g, x, axis, keepdims), _spread(out, x, axis, keepdims)
    if ord == 0:  # a count of nonzeros: flat between its jumps
        return [F.zeros_like(x)]
    if math.isinf(ord):  # the largest (smallest) magnitude: max's (min's) rule on |x|
        return [F.multiply(_extreme(g, out, F.abs(x), axis, keepdims)[0], F.sign(x))]
    if ord == 1:
        return [F.multiply(spread, F.sign(x))]
    # d|x|_p / dx = sign(x) |x|^(p-1) / |x|_p^(p-1); zero where the norm is zero
    safe = F.where(F.equal(norm, 0), 1, norm)
    ratio = F.pow(F.divide(F.abs(x), safe), ord - 1)
    return [F.where(F.equal(norm, 0), 0, F.multiply(spread, F.multiply(F.sign(x), ratio)))]


@_rule("matrix_norm")
def _matrix_norm(g, out, x, ord, keepdims):  # noqa: A002 (the standard's name)
    matrices = [x.ndim - 2, x.ndim - 1]
    if ord == "fro":
        spread, norm = _spread(g, x, matrices, keepdims), _spread(out, x, matrices, keepdims)
        return [F.where(F.equal(norm, 0), 0, F.divide(F.multiply(spread, x),
                                                      F.where(F.equal(norm, 0), 1, norm)))]
    if ord not in ("1", "-1", "inf", "-inf"):
        raise DerivativeError(f"matrix_norm of ord {ord!r}: its derivative needs the "
                              "singular value decomposition, which has no rule")
    # the largest (smallest) absolute column (1) or row (inf) sum: max's (min's) rule
    # over the lines' sums, spread along each line with the elements' signs
    along, across = matrices if ord.endswith("1") else matrices[::-1]
    sums = F.sum(F.abs(x), axis=[along], keepdims=True)
    per_line = _extreme(g, out, sums, [across], keepdims)[0]
    return [F.multiply(F.broadcast_to(per_line, shape=list(x.shape)), F.sign(x))]


# ---- layout and index ops ----------------------------------------------------------------

@_rule("flip")
def _flip(g, out, x, axis):
    return [F.flip(g, axis=axis)]


@_rule("roll")
def _roll(g, out, x, shift, axis):
    return [F.roll(g, shift=[-s for s in shift], axis=axis)]


MORE["tril"] = lambda g, out, x, k: [F.tril(g, k=k)]
MORE["triu"] = lambda g, out, x, k: [F.triu(g, k=k)]


@_rule("tile")
def _tile(g, out, x, reps):
    # each output axis (reps[i] * size[i]) split into (copy, element), the copies summed
    rank = max(len(reps), x.ndim)
    reps = [1] * (rank - len(reps)) + list(reps)
    sizes = [1] * (rank - x.ndim) + list(x.shape)
    split = F.reshape(g, shape=[d for r, s in zip(reps, sizes) for d in (r, s)])
    summed = F.sum(split, axis=list(range(0, 2 * rank, 2)))
    return [F.reshape(summed, shape=list(x.shape))]


@_rule("split")
def _split(*values, sizes, axis):
    parts = values[:len(sizes)]  # one cotangent per piece (zeros for unused ones)
    return [F.concat(list(parts), axis=axis)]


@_rule("take_along_axis")
def _take_along_axis(g, out, x, indices, axis):
    # every taken element's full coordinates: its own, with the index along `axis`
    # (negative ones as `scatter_add` reads them); repeated indices accumulate
    axis %= x.ndim
    index = F.broadcast_to(F.astype(indices, dtype="int64"), shape=list(g.shape))
    grid = np.indices(tuple(g.shape), dtype=np.int64)
    coords = [index if i == axis else grid[i] for i in range(x.ndim)]
    return [F.scatter_add(F.zeros_like(x), F.stack(coords, axis=x.ndim), g), None]


@_rule("sort")
def _sort(g, out, x, axis, descending):
    order = F.argsort(x, axis=axis, descending=descending)
    return [_take_along_axis(g, out, x, order, axis)[0]]


@_rule("top_k")
def _top_k(g, g_indices, values, indices, x, k, axis, largest):
    return [_take_along_axis(g, values, x, indices, axis)[0]]


@_rule("repeat")
def _repeat(g, out, x, repeats, axis):
    # each element's copies are consecutive: an axis (n * r) split into (n, r), r summed
    if axis is None:
        return [F.reshape(F.sum(F.reshape(g, shape=[-1, repeats]), axis=[1]),
                          shape=list(x.shape))]
    axis %= x.ndim
    split = F.reshape(g, shape=[*x.shape[:axis], x.shape[axis], repeats, *x.shape[axis + 1:]])
    return [F.sum(split, axis=[axis + 1])]


@_rule("diagonal")
def _diagonal(g, out, x, offset, axis1, axis2):
    # the diagonal's cotangent back on it: g times a constant (rows, cols, diagonal) map
    axis1, axis2 = axis1 % x.ndim, axis2 % x.ndim
    rows, cols, n = x.shape[axis1], x.shape[axis2], g.shape[-1]
    place = np.zeros((rows, cols, n), dtype=np.dtype(str(g.dtype)))
    for i in range(n):
        place[i + max(-offset, 0), i + max(offset, 0), i] = 1
    lead = g.ndim - 1
    spread = F.sum(F.multiply(F.expand_dims(g, axis=[lead, lead + 1]), place), axis=[g.ndim + 1])
    rest = [i for i in range(x.ndim) if i not in (axis1, axis2)]
    order = rest + [axis1, axis2]
    return [F.permute_dims(spread, axes=[order.index(i) for i in range(x.ndim)])]


@_rule("scatter_nd")
def _scatter_nd(g, out, x, indices, updates):
    # the written places take their cotangent from the updates, not from x
    return [F.scatter_nd(g, indices, F.zeros_like(updates)), None, F.gather_nd(g, indices)]


def _per_axis(g: Any, layout: str, maps: list[np.ndarray]) -> Any:
    """The cotangent of a separable linear resampling whose spatial axis i is the
    (out_i, in_i) matrix `maps[i]`: g contracted with each in turn (tensordot appends
    the input-sized axis at the end, so the axes come back in order)."""
    last = layout == "channels_last"
    if last:
        g = F.permute_dims(g, axes=[0, g.ndim - 1, *range(1, g.ndim - 1)])
    for m in maps:
        g = F.tensordot(g, m, axes_x=[2], axes_y=[0])
    return F.permute_dims(g, axes=[0, *range(2, g.ndim), 1]) if last else g


def _spatial(x: Any, layout: str) -> Any:
    return x.shape[1:-1] if layout == "channels_last" else x.shape[2:]


@_rule("adaptive_avg_pool")
def _adaptive_avg_pool(g, out, x, output_size, layout):
    dtype = np.dtype(str(g.dtype))
    return [_per_axis(g, layout, [adaptive_weights(n, o, dtype) for n, o in
                       zip(_spatial(x, layout), output_size)])]


def _resampling(n_in: int, n_out: int, mode: str, align_corners: bool,
                dtype: Any) -> np.ndarray:
    """(n_out, n_in): `interpolate` along one axis, from the reference's own taps."""
    i0, i1, lam = resample_taps(n_in, n_out, mode, align_corners, dtype)
    out = np.zeros((n_out, n_in), dtype=dtype)
    rows = np.arange(n_out)
    if lam is None:
        out[rows, i0] = 1
    else:
        np.add.at(out, (rows, i0), 1 - lam)
        np.add.at(out, (rows, i1), lam)
    return out


@_rule("interpolate")
def _interpolate(g, out, x, size, mode, align_corners, layout):
    dtype = np.dtype(str(g.dtype))
    return [_per_axis(g, layout, [_resampling(n, o, mode, align_corners, dtype) for n, o in
                       zip(_spatial(x, layout), size)])]


@_rule("scatter_add")
def _scatter_add(g, out, x, indices, updates):
    return [g, None, F.gather_nd(g, indices)]


@_rule("scatter_max", "scatter_min")
def _scatter_extreme(g, out, x, indices, updates):
    # shared equally by x and the updates that attain their place's extreme, as torch does
    x_hit, upd_hit = F.equal(x, out), F.equal(updates, F.gather_nd(out, indices))
    count = F.scatter_add(F.astype(x_hit, dtype=x.dtype), indices,
                          F.astype(upd_hit, dtype=x.dtype))
    share = F.divide(g, F.maximum(count, 1))
    return [F.where(x_hit, share, 0), None,
            F.where(upd_hit, F.gather_nd(share, indices), 0)]


@_rule("scatter_mul")
def _scatter_mul(g, out, x, indices, updates):
    # x's factor is its place's product of updates; an update's is x times the other
    # updates of its place: their product over the nonzero ones with the zeros counted,
    # so that a zero update has its exact derivative, no division by it
    zero = F.equal(updates, 0)
    nonzero = F.where(zero, 1, updates)
    product = F.gather_nd(F.scatter_mul(F.ones_like(x), indices, nonzero), indices)
    zeros = F.gather_nd(F.scatter_add(F.zeros_like(x), indices, F.astype(zero, dtype=x.dtype)),
                        indices)
    others = F.where(zero, F.where(F.equal(zeros, 1), product, 0),
                     F.where(F.equal(zeros, 0), F.divide(product, nonzero), 0))
    return [F.multiply(g, F.scatter_mul(F.ones_like(x), indices, updates)), None,
            F.multiply(F.gather_nd(F.multiply(g, x), indices), others)]


@_rule("conv_transpose")
def _conv_transpose(g, out, x, weight, bias, strides, padding, output_padding, dilations,
                    groups, layout):
    # the transposed convolution is the adjoint of the convolution with the same weight
    # and geometry: x's cotangent is that convolution of g, and the weight's is the
    # convolution's weight cotangent with g as its input and x as its output's cotangent
    conv = dict(strides=strides, padding=padding, dilations=dilations, groups=groups,
                layout=layout)
    gx = F.conv(g, weight, None, **conv)
    _, gw, _ = VJPS["conv"](x, gx, g, weight, None, **conv)
    spatial = range(1, g.ndim - 1) if layout == "channels_last" else range(2, g.ndim)
    gb = None if bias is None else F.sum(g, axis=[0, *spatial])
    return [gx, gw, gb]
