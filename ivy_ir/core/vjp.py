"""Reverse-mode derivative rules of registry ops, for `reverse.py`.

Each rule takes the cotangent `g` of the op's result, the result itself and the op's
operands and attributes (`Tracer`s, Python values) and returns one cotangent per
operand group (None: no gradient flows there; a list for a variadic group). Rules are
written over the recording ops, like the decompositions, so what they emit is ordinary
IR that every target lowers. Broadcast operands get their cotangent summed back to
their own shape (`unbroadcast`). Composite ops with no rule here are differentiated
through their decomposition (`reverse.py`), so only primitives and the composites whose
derivative is much simpler than their expansion need one.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..dialect.types import numpy_dtype
from .errors import TraceError
from .tracer import OPS as F


class DerivativeError(TraceError):
    """An op on the path from `xs` to `y` has no derivative rule here."""


VJPS: dict[str, Callable[..., Any]] = {}
EXPANSIONS: dict[str, Callable[..., Any]] = {}
"""Ops differentiated through an expression of other ops (as composites are through
their decompositions): pooling as the maximum or sum of its windows' strided slices."""


def rules_into(table: dict[str, Callable[..., Any]]) -> Callable[..., Any]:
    """`@rule("op", ...)` decorators that register a rule in `table` (this module's
    `VJPS`, `vjp_more.MORE`, `vjp_linalg.LINALG`) under each of its op names."""
    def rule(*names: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        def register(fn: Callable[..., Any]) -> Callable[..., Any]:
            table.update(dict.fromkeys(names, fn))
            return fn
        return register
    return rule


vjp = rules_into(VJPS)


def unbroadcast(g: Any, shape: tuple[Any, ...]) -> Any:
    """`g` summed over the dims that broadcasting added to an operand of `shape`."""
    shape = tuple(shape)
    if tuple(g.shape) == shape:
        return g
    lead = g.ndim - len(shape)
    axes = [*range(lead), *(lead + i for i, d in enumerate(shape)
                            if d == 1 and g.shape[lead + i] != 1)]
    out = F.sum(g, axis=axes, keepdims=True) if axes else g
    return F.reshape(out, shape=list(shape))


def _pair(gx: Any, gy: Any, x: Any, y: Any) -> list[Any]:
    return [unbroadcast(gx, x.shape), unbroadcast(gy, y.shape)]


# ---- elementwise, two operands ---------------------------------------------------------

@vjp("add")
def _add(g, out, x, y):
    return _pair(g, g, x, y)


@vjp("subtract")
def _subtract(g, out, x, y):
    return _pair(g, F.negative(g), x, y)


@vjp("multiply")
def _multiply(g, out, x, y):
    return _pair(F.multiply(g, y), F.multiply(g, x), x, y)


@vjp("divide")
def _divide(g, out, x, y):
    gx = F.divide(g, y)
    return _pair(gx, F.negative(F.multiply(gx, out)), x, y)


@vjp("pow")
def _pow(g, out, x, y):
    gx = F.multiply(g, F.multiply(y, F.pow(x, F.subtract(y, 1))))
    log_x = F.where(F.greater(x, 0), F.log(F.where(F.greater(x, 0), x, 1)), 0)
    return _pair(gx, F.multiply(g, F.multiply(out, log_x)), x, y)


@vjp("maximum", "minimum")
def _extremum(g, out, x, y):
    # ties give the whole cotangent to the first operand, as torch and JAX do not agree
    # on any other split either
    first = F.equal(out, x)
    return _pair(F.where(first, g, 0), F.where(first, 0, g), x, y)


@vjp("where")
def _where(g, out, condition, x, y):
    return [None, *_pair(F.where(condition, g, 0), F.where(condition, 0, g), x, y)]


# ---- elementwise, one operand ------------------------------------------------------------

ONE: dict[str, Callable[[Any, Any, Any], Any]] = {
    "negative": lambda g, out, x: F.negative(g),
    "exp": lambda g, out, x: F.multiply(g, out),
    "expm1": lambda g, out, x: F.multiply(g, F.add(out, 1)),
    "log": lambda g, out, x: F.divide(g, x),
    "log1p": lambda g, out, x: F.divide(g, F.add(x, 1)),
    "log2": lambda g, out, x: F.divide(g, F.multiply(x, math.log(2))),
    "log10": lambda g, out, x: F.divide(g, F.multiply(x, math.log(10))),
    "sqrt": lambda g, out, x: F.divide(g, F.multiply(out, 2)),
    "rsqrt": lambda g, out, x: F.multiply(g, F.divide(F.multiply(out, -0.5), x)),
    "square": lambda g, out, x: F.multiply(g, F.multiply(x, 2)),
    "reciprocal": lambda g, out, x: F.negative(F.multiply(g, F.square(out))),
    "abs": lambda g, out, x: F.multiply(g, F.sign(x)),
    "sin": lambda g, out, x: F.multiply(g, F.cos(x)),
    "cos": lambda g, out, x: F.negative(F.multiply(g, F.sin(x))),
    "tan": lambda g, out, x: F.multiply(g, F.add(F.square(out), 1)),
    "sinh": lambda g, out, x: F.multiply(g, F.cosh(x)),
    "cosh": lambda g, out, x: F.multiply(g, F.sinh(x)),
    "tanh": lambda g, out, x: F.multiply(g, F.subtract(1, F.square(out))),
    "asin": lambda g, out, x: F.multiply(g, F.rsqrt(F.subtract(1, F.square(x)))),
    "acos": lambda g, out, x: F.negative(F.multiply(g, F.rsqrt(F.subtract(1, F.square(x))))),
    "atan": lambda g, out, x: F.divide(g, F.add(F.square(x), 1)),
    "erf": lambda g, out, x: F.multiply(g, F.multiply(F.exp(F.negative(F.square(x))),
                                                      2 / math.sqrt(math.pi))),
    "erfc": lambda g, out, x: F.multiply(g, F.multiply(F.exp(F.negative(F.square(x))),
                                                       -2 / math.sqrt(math.pi))),
    "sigmoid": lambda g, out, x: F.multiply(g, F.multiply(out, F.subtract(1, out))),
    "relu": lambda g, out, x: F.where(F.greater(x, 0), g, 0),
    "clip": lambda g, out, x, **_: F.where(F.equal(out, x), g, 0),
}
"""Elementwise functions of one operand: the cotangent of `x` from `g` and the result."""

for _name, _rule in ONE.items():
    VJPS[_name] = (lambda rule: lambda g, out, x, **attrs: [rule(g, out, x, **attrs)])(_rule)


@vjp("astype")
def _astype(g, out, x, dtype):
    return [F.astype(g, dtype=x.dtype)]


@vjp("softmax")
def _softmax(g, out, x, axis):
    inner = F.sum(F.multiply(g, out), axis=[axis], keepdims=True)
    return [F.multiply(out, F.subtract(g, inner))]


@vjp("log_softmax")
def _log_softmax(g, out, x, axis):
    return [F.subtract(g, F.multiply(F.exp(out), F.sum(g, axis=[axis], keepdims=True)))]


# ---- reductions ----------------------------------------------------------------------------

def _spread(g: Any, x: Any, axis: Any, keepdims: bool) -> Any:
    """A reduction's cotangent broadcast back over the reduced axes of `x`."""
    axes = range(x.ndim) if axis is None else axis
    if not keepdims:
        g = F.reshape(g, shape=[1 if i in axes else d for i, d in enumerate(x.shape)])
    return F.broadcast_to(g, shape=list(x.shape))


@vjp("sum")
def _sum(g, out, x, axis, keepdims):
    return [_spread(g, x, axis, keepdims)]


def _count(x: Any, axis: Any) -> int:
    """How many elements of `x` a reduction over `axis` (None: all) takes per result."""
    return math.prod(x.shape[i] for i in (range(x.ndim) if axis is None else axis))


@vjp("mean")
def _mean(g, out, x, axis, keepdims):
    return [F.divide(_spread(g, x, axis, keepdims), _count(x, axis))]


@vjp("max", "min")
def _extreme(g, out, x, axis, keepdims):
    # shared equally by the elements that attain the extreme, as torch and JAX do
    hit = F.equal(x, _spread(out, x, axis, keepdims))
    share = F.sum(F.astype(hit, dtype=x.dtype), axis=list(range(x.ndim)) if axis is None
                  else axis, keepdims=True)
    return [F.where(hit, F.divide(_spread(g, x, axis, keepdims), F.broadcast_to(
        share, shape=list(x.shape))), 0)]


def reverse_cumsum(v: Any, axis: int) -> Any:
    """Running sums from the far end of `axis`."""
    return F.flip(F.cumsum(F.flip(v, axis=[axis]), axis=axis), axis=[axis])


@vjp("cumsum")
def _cumsum(g, out, x, axis):
    # each input element reaches every later output: the reversed running sum of g
    return [reverse_cumsum(g, axis)]


# ---- shapes ------------------------------------------------------------------------------

@vjp("reshape", "expand_dims", "squeeze")
def _reshape(g, out, x, **_):
    return [F.reshape(g, shape=list(x.shape))]


@vjp("broadcast_to")
def _broadcast_to(g, out, x, shape):
    return [unbroadcast(g, x.shape)]


@vjp("permute_dims")
def _permute_dims(g, out, x, axes):
    return [F.permute_dims(g, axes=sorted(range(len(axes)), key=lambda i: axes[i]))]


@vjp("slice")
def _slice(g, out, x, start, stop, step):
    # axis by axis: the kept elements back at their places, zeros between and around
    for axis, n in enumerate(x.shape):
        a, _, s = slice(start[axis], stop[axis], step[axis]).indices(n)
        count = g.shape[axis]
        if s < 0:  # the same elements taken forwards from the last one
            g, a, s = F.flip(g, axis=[axis]), a + (count - 1) * s, -s
        if s > 1:  # each kept element followed by s - 1 zeros
            spaced = F.pad(F.expand_dims(g, axis=[axis + 1]),
                           pad_width=_widths(g.ndim + 1, axis + 1, 0, s - 1))
            g = F.reshape(spaced, shape=[d * s if i == axis else d
                                         for i, d in enumerate(g.shape)])
        length = count * s
        if a + length > n:  # the zeros after the last kept element that run past the end
            g = F.slice(g, start=[0] * g.ndim, stop=[n - a if i == axis else d
                                                      for i, d in enumerate(g.shape)],
                        step=[1] * g.ndim)
            length = n - a
        if a or n - a - length:
            g = F.pad(g, pad_width=_widths(g.ndim, axis, a, n - a - length))
    return [g]


def _widths(rank: int, axis: int, before: int, after: int) -> list[int]:
    return [w for i in range(rank) for w in ((before, after) if i == axis else (0, 0))]


@vjp("concat")
def _concat(g, out, xs, axis):
    parts, start = [], 0
    for x in xs:
        stop = start + x.shape[axis]
        parts.append(F.slice(g, start=[start if i == axis else 0 for i in range(g.ndim)],
                             stop=[stop if i == axis else d for i, d in enumerate(g.shape)],
                             step=[1] * g.ndim))
        start = stop
    return [parts]


@vjp("stack")
def _stack(g, out, xs, axis):
    return [[F.squeeze(F.slice(g, start=[i if a == axis else 0 for a in range(g.ndim)],
                               stop=[i + 1 if a == axis else d for a, d in enumerate(g.shape)],
                               step=[1] * g.ndim), axis=[axis]) for i in range(len(xs))]]


@vjp("matmul")
def _matmul(g, out, x, y):
    if x.ndim == 1 and y.ndim == 1:
        return [F.multiply(g, y), F.multiply(g, x)]
    gm = F.expand_dims(g, axis=[g.ndim - 1 if x.ndim == 1 else g.ndim]) \
        if 1 in (x.ndim, y.ndim) else g  # the matrix product that `out` squeezed
    xm = F.expand_dims(x, axis=[0]) if x.ndim == 1 else x
    ym = F.expand_dims(y, axis=[1]) if y.ndim == 1 else y
    gx = unbroadcast(F.matmul(gm, _swap(ym)), xm.shape)
    gy = unbroadcast(F.matmul(_swap(xm), gm), ym.shape)
    return [F.reshape(gx, shape=list(x.shape)), F.reshape(gy, shape=list(y.shape))]


def _swap(m: Any) -> Any:
    """The matrices of `m` transposed."""
    return F.permute_dims(m, axes=[*range(m.ndim - 2), m.ndim - 1, m.ndim - 2])


# ---- gathers ------------------------------------------------------------------------------

@vjp("gather_nd")
def _gather_nd(g, out, x, indices):
    return [F.scatter_add(F.zeros_like(x), indices, g), None]


@vjp("take")
def _take(g, out, x, indices, axis):
    # the cotangent's rows added back at their indices (repeats accumulate), with the
    # taken axis first, as `scatter_add` indexes the leading dims
    k = indices.ndim
    order = [axis, *range(axis), *range(axis + 1, x.ndim)]
    rows = F.permute_dims(g, axes=[*range(axis, axis + k), *range(axis),
                                   *range(axis + k, g.ndim)])
    summed = F.scatter_add(F.zeros_like(F.permute_dims(x, axes=order)),
                           F.expand_dims(indices, axis=[k]), rows)
    return [F.permute_dims(summed, axes=[order.index(i) for i in range(x.ndim)]), None]


# ---- neural-network ops ------------------------------------------------------------------

@vjp("embedding")
def _embedding(g, out, indices, weight):
    rows = F.reshape(indices, shape=[-1, 1])
    flat = F.reshape(g, shape=[-1, weight.shape[-1]])
    return [None, F.scatter_add(F.zeros_like(weight), rows, flat)]


@vjp("conv")
def _conv(g, out, x, weight, bias, strides, padding, dilations, groups, layout):
    n = x.ndim - 2
    last = layout == "channels_last"
    xf, gf = (_first(v) for v in (x, g)) if last else (x, g)
    spatial = xf.shape[2:]
    kernel = weight.shape[:n] if last else weight.shape[2:]
    # the input's cotangent: the transposed convolution of g with the same weight, its
    # output padded to x's size (the rows the strides skipped at the end)
    extra = [d - ((o - 1) * s - padding[2 * i] - padding[2 * i + 1] + dl * (k - 1) + 1)
             for i, (d, o, s, dl, k) in enumerate(zip(spatial, gf.shape[2:], strides,
                                                       dilations, kernel))]
    gx = F.conv_transpose(g, weight, None, strides=strides, padding=padding,
                          output_padding=extra, dilations=dilations, groups=groups,
                          layout=layout)
    # the weight's: a convolution of x (batch as channels, per group) with g (batch as
    # channels), strides and dilations swapped, cut to the kernel
    batch, channels = xf.shape[:2]
    per = channels // groups
    lhs = F.reshape(F.permute_dims(F.reshape(xf, shape=[batch, groups, per, *spatial]),
                                   axes=[2, 1, 0, *range(3, 3 + n)]),
                    shape=[per, groups * batch, *spatial])
    rhs = F.permute_dims(gf, axes=[1, 0, *range(2, 2 + n)])
    full = F.conv(lhs, rhs, None, strides=dilations, padding=padding, dilations=strides,
                  groups=groups)
    cut = F.slice(full, start=[0] * (n + 2), stop=[per, full.shape[1], *kernel],
                  step=[1] * (n + 2))
    gw = F.permute_dims(cut, axes=[*range(2, 2 + n), 0, 1] if last
                        else [1, 0, *range(2, 2 + n)])
    gb = None if bias is None else F.sum(gf, axis=[0, *range(2, 2 + n)])
    return [gx, gw, gb]


def _first(v: Any) -> Any:
    """A channels_last array in channels_first order."""
    return F.permute_dims(v, axes=[0, v.ndim - 1, *range(1, v.ndim - 1)])


@vjp("pad")
def _pad(g, out, x, pad_width, mode, value):
    if mode != "constant":  # reflect/edge fold cotangents back onto the edge: not here
        raise DerivativeError(f"ivy.pad in mode {mode!r} has no derivative rule")
    return [F.slice(g, start=list(pad_width[::2]),
                    stop=[b + d for b, d in zip(pad_width[::2], x.shape)], step=[1] * x.ndim)]


def _windows(x: Any, out: Any, kernel: Any, strides: Any, padding: Any, dilations: Any,
             layout: str, fill: float) -> tuple[list[Any], list[tuple[int, int]]]:
    """The strided slices of `x` (channels first, padded with `fill`) whose element-wise
    maximum or sum is a pooling's result: one per kernel offset. Also the padding."""
    xf = _first(x) if layout == "channels_last" else x
    outs = (_first(out) if layout == "channels_last" else out).shape[2:]
    dilations = dilations or [1] * len(kernel)
    pads = [(padding[2 * i], max(0, (o - 1) * s + (k - 1) * dl + 1 - d - padding[2 * i]))
            for i, (d, o, k, s, dl) in enumerate(zip(xf.shape[2:], outs, kernel, strides,
                                                     dilations))]
    xp = F.pad(xf, pad_width=[0, 0, 0, 0, *(p for pair in pads for p in pair)], value=fill)
    slices = []
    for offset in np.ndindex(*kernel):
        start = [o * dl for o, dl in zip(offset, dilations)]
        slices.append(F.slice(xp, start=[0, 0, *start],
                              stop=[*xp.shape[:2], *(a + (o - 1) * s + 1 for a, o, s in
                                                     zip(start, outs, strides))],
                              step=[1, 1, *strides]))
    return slices, pads


def _restore(y: Any, layout: str) -> Any:
    return F.permute_dims(y, axes=[0, *range(2, y.ndim), 1]) if layout == "channels_last" else y


def _max_pool(x, kernel, strides, padding, dilations, ceil_mode, layout, *, out):
    slices, _ = _windows(x, out, kernel, strides, padding, dilations, layout, -math.inf)
    return _restore(F.max(F.stack(slices, axis=0), axis=[0]), layout)


def _avg_pool(x, kernel, strides, padding, ceil_mode, count_include_pad, layout, *, out):
    slices, pads = _windows(x, out, kernel, strides, padding, None, layout, 0.0)
    # each window's divisor, a constant: the count of its cells inside the input (and
    # inside the explicit padding with `count_include_pad`), never those ceil_mode adds
    inside = np.ones([d for d in (_first(x) if layout == "channels_last" else x).shape[2:]])
    counted = np.pad(inside, [(lo, hi) for lo, hi in pads], constant_values=0)
    if count_include_pad:  # (the windows may not reach all of the explicit padding)
        explicit = np.pad(inside, [(padding[2 * i], padding[2 * i + 1])
                                   for i in range(len(kernel))], constant_values=1)
        both = tuple(slice(0, min(a, b)) for a, b in zip(explicit.shape, counted.shape))
        counted[both] = explicit[both]
    outs = slices[0].shape[2:]
    divisor = sum(counted[tuple(slice(o, o + (n - 1) * s_ + 1, s_)
                                for o, s_, n in zip(offset, strides, outs))]
                  for offset in np.ndindex(*kernel))
    total = F.sum(F.stack(slices, axis=0), axis=[0])
    return _restore(F.divide(total, divisor.astype(numpy_dtype(x.dtype))), layout)


EXPANSIONS.update(max_pool=_max_pool, avg_pool=_avg_pool)
