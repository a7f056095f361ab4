"""Decompositions of composite ops into other registry ops, and their expansion.

Each decomposition is a small function over the recording ops (`OPS`): applied to
`Tracer` values it records the expansion in place of the composite op. A target lowers
a composite op with its own fused kernel when its table has one and through this
expansion otherwise; the `decompose` pass and the reference evaluator expand the same
way.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.ir import Operation, SSAValue

from ..dialect import COMPOSITE, IvyOp, TensorSpec
from ..dialect.dtypes import HALF, finfo
from ..dialect.types import FLOATS
from .decompose_bits import BITS
from .decompose_recurrent import RECURRENT
from .decompose_scans import SCANS
from .graph import Graph
from .tracer import OPS as F
from .tracer import Tracer

DECOMPOSITIONS: dict[str, Callable[..., Any]] = {**RECURRENT, **BITS, **SCANS}
"""Every decomposition by op: the ones below, the recurrent layers' (which build
scans, in `decompose_recurrent.py`) and the bit-level ones (`decompose_bits.py`)."""


def decomposition(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        DECOMPOSITIONS[name] = fn
        return fn
    return register


@decomposition("relu")
def relu(x):  # max(x, 0)
    return F.maximum(x, 0)


@decomposition("relu6")
def relu6(x):  # min(max(x, 0), 6)
    return F.clip(x, min=0.0, max=6.0)


@decomposition("leaky_relu")
def leaky_relu(x, alpha):  # x if x >= 0 else alpha * x
    return F.where(F.greater_equal(x, 0), x, F.multiply(x, alpha))


@decomposition("elu")
def elu(x, alpha):  # x if x > 0 else alpha * (exp(x) - 1)
    return F.where(F.greater(x, 0), x, F.multiply(F.expm1(F.minimum(x, 0)), alpha))


@decomposition("gelu")
def gelu(x, approximate):
    if approximate == "tanh":  # x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))
        inner = F.multiply(F.add(x, F.multiply(F.pow(x, 3), 0.044715)), math.sqrt(2 / math.pi))
        return F.multiply(F.multiply(x, 0.5), F.add(F.tanh(inner), 1))
    # x/2 * (1 + erf(x / sqrt(2)))
    return F.multiply(F.multiply(x, 0.5), F.add(F.erf(F.multiply(x, 1 / math.sqrt(2))), 1))


@decomposition("sigmoid")
def sigmoid(x):  # 1 / (1 + exp(-x)), written with tanh so it cannot overflow
    return F.add(F.multiply(F.tanh(F.multiply(x, 0.5)), 0.5), 0.5)


@decomposition("silu")
def silu(x):  # x * sigmoid(x)
    return F.multiply(x, F.sigmoid(x))


@decomposition("hard_sigmoid")
def hard_sigmoid(x):  # clip(x / 6 + 1/2, 0, 1)
    return F.clip(F.add(F.divide(x, 6), 0.5), min=0.0, max=1.0)


@decomposition("hardswish")
def hardswish(x):  # x * hard_sigmoid(x)
    return F.multiply(x, F.hard_sigmoid(x))


@decomposition("softplus")
def softplus(x, beta, threshold):  # log1p(exp(beta x)) / beta, linear above threshold
    bx = F.multiply(x, beta)
    soft = F.divide(F.log1p(F.exp(F.minimum(bx, threshold))), beta)
    return F.where(F.greater(bx, threshold), x, soft)


@decomposition("mish")
def mish(x):  # x * tanh(softplus(x))
    return F.multiply(x, F.tanh(F.softplus(x)))


@decomposition("softmax")
def softmax(x, axis):  # exp(x - max) / sum(exp(x - max))
    e = F.exp(F.subtract(x, F.max(x, axis=[axis], keepdims=True)))
    return F.divide(e, F.sum(e, axis=[axis], keepdims=True))


@decomposition("log_softmax")
def log_softmax(x, axis):  # (x - max) - log(sum(exp(x - max)))
    shifted = F.subtract(x, F.max(x, axis=[axis], keepdims=True))
    return F.subtract(shifted, F.log(F.sum(F.exp(shifted), axis=[axis], keepdims=True)))


@decomposition("logsumexp")
def logsumexp(x, axis, keepdims):  # m + log(sum(exp(x - m))), m = max (0 where not finite)
    m = F.max(x, axis=axis, keepdims=True)
    m = F.where(F.isfinite(m), m, F.zeros_like(m))
    s = F.add(F.log(F.sum(F.exp(F.subtract(x, m)), axis=axis, keepdims=True)), m)
    return s if keepdims else F.squeeze(s, axis=_axes(axis, x.ndim))


def _axes(axis, rank):
    return tuple(range(rank)) if axis is None else tuple(axis)


@decomposition("searchsorted")
def searchsorted(ordered, x, side):
    """How many of the sorted values come before each x: all pairs compared, NaN the
    largest value (so it follows every number, and a NaN x, left, every number only)."""
    if ordered.ndim == 1:
        a, b = ordered, F.expand_dims(x, axis=[x.ndim])
    else:
        a, b = F.expand_dims(ordered, axis=[ordered.ndim - 1]), F.expand_dims(x, axis=[x.ndim])
    before = F.less(a, b) if side == "left" else F.less_equal(a, b)
    if x.dtype in FLOATS:
        nan_b = F.isnan(b)
        before = F.logical_or(before, nan_b if side == "right" else F.logical_and(
            nan_b, F.logical_not(F.isnan(a))))
    return F.sum(F.astype(before, dtype="int64"), axis=[b.ndim - 1])


@decomposition("cbrt")
def cbrt(x):
    """|x| ** (1/3) is off by up to ln|x| ulp (the exponent is 1/3 rounded): one Newton
    step, y = (2y + |x| / y^2) / 3, brings it to an ulp or two (y^2 cannot overflow
    where y^3 would). 0, inf and NaN are their own roots and skip the step; x's sign
    goes back on last, a zero keeping its own. Half-precision floats compute in float32
    (rounded once at the end, not at each step of the refinement)."""
    if x.dtype in ("float16", "bfloat16"):
        return F.astype(cbrt(F.astype(x, dtype="float32")), dtype=x.dtype)
    a = F.abs(x)
    y = F.pow(a, 1 / 3)
    step = F.divide(F.add(F.multiply(y, 2), F.divide(a, F.multiply(y, y))), 3)
    y = F.where(F.logical_and(F.isfinite(a), F.greater(a, 0)), step, y)
    return F.where(F.equal(a, 0), x, F.where(F.less(x, 0), F.negative(y), y))


@decomposition("linear")
def linear(x, weight, bias):  # x @ W^T + b
    y = F.matmul(x, F.permute_dims(weight, axes=[1, 0]))
    return y if bias is None else F.add(y, bias)


def _affine(y, weight, bias, shape):
    if weight is not None:
        y = F.multiply(y, F.reshape(weight, shape=shape))
    if bias is not None:
        y = F.add(y, F.reshape(bias, shape=shape))
    return y


def _param_shape(x, axes):
    first = min(axes)
    return [x.shape[i] if i in axes else 1 for i in range(first, x.ndim)]


@decomposition("layer_norm")
def layer_norm(x, weight, bias, axis, eps):  # (x - mean) / sqrt(var + eps) * w + b
    axes = _axes(axis, x.ndim)
    centred = F.subtract(x, F.mean(x, axis=axes, keepdims=True))
    # the rounded mean of a constant row is not the row's value, and 1 / sqrt(eps) would
    # amplify the difference; removing the mean of the residuals makes that row 0 exactly
    centred = F.subtract(centred, F.mean(centred, axis=axes, keepdims=True))
    var = F.mean(F.square(centred), axis=axes, keepdims=True)
    y = F.multiply(centred, F.rsqrt(F.add(var, eps)))
    return _affine(y, weight, bias, _param_shape(x, axes))


@decomposition("rms_norm")
def rms_norm(x, weight, axis, eps):  # x / sqrt(mean(x^2) + eps) * w
    axes = _axes(axis, x.ndim)
    y = F.multiply(x, F.rsqrt(F.add(F.mean(F.square(x), axis=axes, keepdims=True), eps)))
    return _affine(y, weight, None, _param_shape(x, axes))


@decomposition("batch_norm")
def batch_norm(x, mean, var, weight, bias, axis, eps):  # (x - mean) / sqrt(var + eps) * w + b
    shape = [x.shape[axis]] + [1] * (x.ndim - axis - 1)
    y = F.multiply(F.subtract(x, F.reshape(mean, shape=shape)),
                   F.rsqrt(F.add(F.reshape(var, shape=shape), eps)))
    return _affine(y, weight, bias, shape)


@decomposition("group_norm")
def group_norm(x, weight, bias, num_groups, eps):  # layer norm over (channels/g, *spatial)
    n, c = x.shape[0], x.shape[1]
    grouped = F.reshape(x, shape=[n, num_groups, -1])
    y = F.reshape(layer_norm(grouped, None, None, [-1], eps), shape=list(x.shape))
    return _affine(y, weight, bias, [c] + [1] * (x.ndim - 2))


@decomposition("scaled_dot_product_attention")
def scaled_dot_product_attention(q, k, v, mask, causal, scale):
    # softmax(q k^T * scale + mask) v; a bool mask keeps True (as torch: -inf added
    # elsewhere), a float mask is added. Masks are added, never selected, and the
    # safe softmax below clamps rather than tests: XLA's CPU backend then runs the
    # whole attention, both products included, as one fused kernel.
    if scale is None:
        scale = 1 / math.sqrt(q.shape[-1])
    perm = list(range(k.ndim - 2)) + [k.ndim - 1, k.ndim - 2]
    scores = F.multiply(F.matmul(q, F.permute_dims(k, axes=perm)), scale)
    if causal:
        keep = F.tril(F.ones_like(scores, dtype="bool"))
        scores = F.add(scores, F.where(keep, F.zeros_like(scores), -math.inf))
    if mask is None:  # (every row keeps a key, the causal ones their diagonal)
        return F.matmul(F.softmax(scores, axis=-1), v)
    # (a float mask of another dtype adds in q's dtype)
    scores = F.add(scores, F.where(mask, F.zeros_like(mask, dtype=q.dtype), -math.inf)
                   if mask.dtype == "bool" else F.astype(mask, dtype=q.dtype))
    # a row whose keys are all masked out attends to nothing: zeros, not NaN, also in
    # the gradient. Its max, -inf, is raised to the lowest finite value, so its exps are
    # all 0; any other row's sum is at least 1 (the max's own term), so a sum raised to
    # 1/2 changes only the empty rows' (0 / (1/2), whose gradient stays finite too).
    e = F.exp(F.subtract(scores, F.maximum(F.max(scores, axis=[-1], keepdims=True),
                                           float(finfo(q.dtype).min))))
    total = F.maximum(F.sum(e, axis=[-1], keepdims=True), 0.5)
    return F.matmul(F.divide(e, total), v)


@decomposition("slogdet")
def slogdet(x):  # u's diagonal and the parity of the row swaps (a pivot off its own row)
    factors, pivots, _ = F.lu(x)
    rank, n = x.ndim, x.shape[-1]
    diagonal = F.diagonal(factors, offset=0, axis1=rank - 2, axis2=rank - 1)
    swaps = F.sum(F.astype(F.not_equal(pivots, np.arange(n, dtype=np.int32)), dtype=x.dtype),
                  axis=[rank - 2])
    parity = F.subtract(1, F.multiply(F.remainder(swaps, 2), 2))
    return [F.multiply(F.prod(F.sign(diagonal), axis=[rank - 2]), parity),
            F.sum(F.log(F.abs(diagonal)), axis=[rank - 2])]


def decompose_ops(root: Operation, names: frozenset[str] | set[str] = COMPOSITE,
                  only: Callable[[IvyOp], bool] | None = None) -> None:
    """Expand every op named in `names` below `root` into its decomposition, in place
    (until none is left: an expansion may itself use composite ops, silu uses sigmoid);
    with `only`, just the ops it accepts (a target's fused kernel fits the others)."""
    def pending() -> list[IvyOp]:
        return [op for op in root.walk() if isinstance(op, IvyOp) and op.SPEC.name in names
                and (only is None or only(op))]
    todo = pending()
    while todo:
        for op in todo:
            _expand(op)
        todo = pending()


NORMALIZATIONS = frozenset({"layer_norm", "rms_norm", "batch_norm", "group_norm"})
"""Composites that, beside the elementwise ones, compute in float32 from half floats:
statistics rounded to 8 or 11 bits leave the result 4-30 units off (docs/semantics.md)."""


def _expand(op: IvyOp) -> None:
    block = op.parent_block()
    assert block is not None
    graph = Graph(block, before=op, location=op.location, allow_params=False)
    half = (op.SPEC.has("elementwise") or op.SPEC.name in NORMALIZATIONS) and any(
        TensorSpec.from_xdsl(r.type).dtype in HALF for r in op.results)
    args = [None if g is None else [_arg(v, graph, half) for v in g] if isinstance(g, list)
            else _arg(g, graph, half) for g in op.operand_groups()]
    out = DECOMPOSITIONS[op.SPEC.name](*args, **op.attr_values())
    outs = out if isinstance(out, (list, tuple)) else [out]
    if half:  # one op, so one rounding, as the frameworks' own kernels round
        outs = [F.astype(o, dtype=TensorSpec.from_xdsl(r.type).dtype)
                for o, r in zip(outs, op.results)]
    for old, new in zip(op.results, outs):
        if new.value.type != old.type:
            raise TypeError(f"the decomposition of ivy.{op.SPEC.name} gives {new.value.type}"
                            f" where the op gives {old.type}")
        old.replace_all_uses_with(new.value)
    op.detach()
    op.erase()


def _arg(value: SSAValue, graph: Graph, half: bool) -> Tracer:
    """An operand of an expansion; a float16/bfloat16 one of an elementwise op or a
    normalization in float32, which its expansion's several ops then compute in."""
    t = Tracer(value, graph)
    return F.astype(t, dtype="float32") if half and t.dtype in HALF else t
