"""`recompose` rule for scaled dot-product attention.

    softmax(mask(q @ k^T * scale), axis=-1) @ v  -> scaled_dot_product_attention

The scale may multiply or divide the scores or q; `k^T` may be folded into the
head-split transpose (`k.permute(0, 2, 3, 1)`), in which case k is that permute with
its last two axes swapped back. A mask layer is one of

    where(m, s, -inf) | where(m, -inf, s)   a boolean mask (keep where True / False)
    where(tril(ones), s, -inf)              the causal mask (also triu(ones, 1), inverted)
    s + where(m, 0, -inf)                   either of those, added (as torch adds a
                                            boolean mask, and our decomposition does)
    s + m                                   an additive float mask

at most one general mask and one causal mask. A `where` that fills a finite value
(-1e9) is not a boolean mask of the op (a fully masked row would average instead of
giving NaN), so it does not match.

The op gives zeros on a query row whose keys are all masked out. A guarded softmax
(`where(all(s == -inf, axis=-1), 0, softmax(s))`, torch's `_safe_softmax`) or a clamped
one (`e / maximum(sum(e), 1/2)` with `e = exp(s - maximum(max(s), lowest))`, our own
decomposition) matches that exactly; an unguarded one with a general mask gives NaN on
such rows, so recomposing it changes only rows that were NaN (to zeros).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from xdsl.ir import SSAValue

from ..dialect import IvyOp
from ..dialect.dtypes import finfo
from ..dialect.infer import broadcast
from .recompose_match import (
    Expansion,
    Fused,
    NoMatch,
    Prep,
    close,
    expect,
    norm_axes,
    producer,
    require,
    scalar,
    shortest,
    spec,
)


@dataclass
class _Scores:
    q: SSAValue
    k: SSAValue | Prep
    coef: float
    ops: list = field(default_factory=list)
    mask: SSAValue | Prep | None = None
    causal: bool = False


def _all_true(v: SSAValue) -> bool:
    op = producer(v, "ones", "ones_like", "full", "full_like", "constant", "astype")
    if op is None or spec(v).dtype != "bool":
        return False
    name, attrs = op.SPEC.name, op.attr_values()
    if name == "astype":
        return producer(op.operand_groups()[0], "ones", "ones_like") is not None
    if name in ("full", "full_like"):
        return attrs["fill_value"] != 0
    if name == "constant":
        return bool(attrs["value"].all())
    return True


def _is_causal(keep: SSAValue, inverted: bool, scores: SSAValue) -> bool:
    """keep = tril(ones) (or, inverted, the masked-out part triu(ones, 1)) over the whole
    (Lq, Lk) score matrix: the top-left aligned causal mask of the op."""
    band = producer(keep, "triu" if inverted else "tril")
    if band is None or band.attr_values()["k"] != int(inverted):
        return False
    return _all_true(band.operand_groups()[0]) and \
        spec(keep).shape[-2:] == spec(scores).shape[-2:]


def _scaled(v: SSAValue, ops: list) -> tuple[SSAValue, float]:
    """v = c * x -> (x, c), else (v, 1); the peeled ops join `ops`."""
    ex = Expansion()
    poly = ex(v)
    if len(poly) == 1 and len(mono := next(iter(poly))) == 1 and mono[0][1] == 1:
        ops += ex.ops
        return mono[0][0], poly[mono]
    return v, 1.0


def _qk(s: SSAValue, dt: str) -> _Scores:
    """s = c * (q @ k^T) -> (q, k, c); scalar factors on q and on k^T join c (torch's
    decomposition scales both by sqrt(c))."""
    ex = Expansion()
    poly = ex(s, force=True)
    require(len(poly) == 1)
    (mono, coef), = poly.items()
    require(len(mono) == 1 and mono[0][1] == 1)
    mm = expect(mono[0][0], "matmul", "linear")
    ops = [*ex.ops, mm]
    q, kt, *bias = mm.operand_groups()
    q, c = _scaled(q, ops)
    kt, ck = _scaled(kt, ops)
    coef *= c * ck
    if mm.SPEC.name == "linear":  # linear(q, k) = q @ k^T (2-D q and k)
        require(not bias or bias[0] is None)
        return _Scores(q, kt, coef, ops)
    perm = expect(kt, "permute_dims")
    axes = list(perm.attr_values()["axes"])
    axes[-2:] = axes[-1], axes[-2]
    k0 = perm.operand_groups()[0]
    if kt.has_one_use():
        ops.append(perm)
    k = k0 if axes == sorted(axes) else Prep("permute_dims", [k0], {"axes": axes})
    return _Scores(q, k, coef, ops)


def _scores(s: SSAValue, dt: str, depth: int = 2) -> _Scores:
    """Peel up to `depth` mask layers off the pre-softmax scores `s`."""
    try:
        return _qk(s, dt)
    except NoMatch:
        require(depth > 0)
    op = expect(s, "where", "add")
    if op.SPEC.name == "where":
        keep, a, b = op.operand_groups()
        inverted = scalar(a) == -math.inf
        require(inverted or scalar(b) == -math.inf)
        inner = b if inverted else a
        require(spec(inner).shape == spec(s).shape)
        return _masked(_scores(inner, dt, depth - 1), keep, inverted, inner, op)
    for inner, m in (op.operand_groups(), op.operand_groups()[::-1]):
        shape = spec(inner).shape
        if broadcast(spec(m).shape, shape) != shape:
            continue  # the mask would broadcast the scores to another shape
        try:
            sc = _scores(inner, dt, depth - 1)
        except NoMatch:
            continue
        added = _added_bool(m)
        if added is not None:
            return _masked(sc, *added, inner, op)
        require(sc.mask is None)
        sc.mask = m
        sc.ops.append(op)
        return sc
    raise NoMatch


def _added_bool(m: SSAValue) -> tuple[SSAValue, bool] | None:
    """m = where(keep, 0, -inf) | where(keep, -inf, 0) -> (keep, inverted), else None."""
    w = producer(m, "where")
    if w is None:
        return None
    keep, a, b = w.operand_groups()
    if scalar(a) == 0.0 and scalar(b) == -math.inf:
        return keep, False
    if scalar(a) == -math.inf and scalar(b) == 0.0:
        return keep, True
    return None


def _masked(sc: _Scores, keep: SSAValue, inverted: bool, inner: SSAValue,
            op: IvyOp) -> _Scores:
    """The scores `sc` with the boolean mask `keep` (True where kept, unless `inverted`)
    applied by `op`: the causal mask, or the op's general one."""
    if _is_causal(keep, inverted, inner):
        require(not sc.causal)
        sc.causal = True
    else:
        require(sc.mask is None)
        sc.mask = Prep("logical_not", [keep]) if inverted else keep
    sc.ops.append(op)
    return sc


def _neg_inf_rows(g: SSAValue, s: SSAValue, ops: list) -> None:
    """g = not(any(not(s == -inf), axis=-1, keepdims)) | all(s == -inf, axis=-1, keepdims):
    the rows of s that are -inf throughout (ops joined to `ops`), else NoMatch."""
    rank = spec(s).rank
    outer = expect(g, "logical_not", "all")
    ops.append(outer)
    if outer.SPEC.name == "logical_not":
        red = expect(outer.operand_groups()[0], "any")
        inner = expect(red.operand_groups()[0], "logical_not")
        eq = expect(inner.operand_groups()[0], "equal")
        ops += [red, inner]
    else:
        red = outer
        eq = expect(red.operand_groups()[0], "equal")
    attrs = red.attr_values()
    require(attrs["keepdims"] and norm_axes(attrs["axis"], rank) == (rank - 1,))
    a, b = eq.operand_groups()
    require((a is s and scalar(b) == -math.inf) or (b is s and scalar(a) == -math.inf))
    ops.append(eq)


def _clamped(p: SSAValue, ops: list) -> tuple[int, SSAValue]:
    """p = e / maximum(sum(e, axis, keepdims), c), e = exp(s - maximum(max(s, axis,
    keepdims), lo)), with 0 < c < 1 and lo at most the lowest finite value of s's dtype
    -> (axis, s). Any row holding a finite score sums to at least 1 and has its max
    above lo, so only the rows that are -inf throughout see a clamp: they give zeros."""
    div = expect(p, "divide")
    e, total = div.operand_groups()
    clamp = expect(total, "maximum")
    tot, c = clamp.operand_groups()
    require(0 < (scalar(c) or 0) < 1)
    red = expect(tot, "sum")
    exp = expect(e, "exp")
    sub = expect(exp.operand_groups()[0], "subtract")
    s, shift = sub.operand_groups()
    low = expect(shift, "maximum")
    mx, lo = low.operand_groups()
    top = expect(mx, "max")
    require(red.operand_groups()[0] is e and top.operand_groups()[0] is s)
    require((scalar(lo) or 0) <= float(finfo(spec(s).dtype).min))
    rank = spec(s).rank
    axes = {norm_axes(r.attr_values()["axis"], rank) for r in (red, top)}
    require(len(axes) == 1 and all(r.attr_values()["keepdims"] for r in (red, top)))
    (reduced,) = axes
    require(len(reduced) == 1)
    ops += [div, clamp, red, exp, sub, low, top]
    return reduced[0], s


def _probabilities(p: SSAValue, ops: list) -> tuple[int, SSAValue]:
    """p = softmax(s) | where(g, 0, softmax(s)) | where(g, 0, softmax(where(g, 0, s))),
    g the rows of s that are -inf throughout, or the clamped softmax (`_clamped`) ->
    (its axis, s). The guard is torch's `_safe_softmax` (zeros on such rows); the inner
    `where` keeps NaN out of the softmax's gradient."""
    sm = producer(p, "softmax")
    if sm is not None:
        ops.append(sm)
        return sm.attr_values()["axis"], sm.operand_groups()[0]
    if producer(p, "divide") is not None:
        return _clamped(p, ops)
    w = expect(p, "where")
    g, zero, probs = w.operand_groups()
    sm = expect(probs, "softmax")
    require(scalar(zero) == 0.0 and spec(p).shape == spec(probs).shape)
    s = sm.operand_groups()[0]
    inner = producer(s, "where")
    if inner is not None and inner.operand_groups()[0] is g:
        _, zero, s = inner.operand_groups()
        require(scalar(zero) == 0.0)
        ops.append(inner)
    _neg_inf_rows(g, s, ops)
    ops += [w, sm]  # the zeros go with it once unused (they may be shared, like a constant)
    return sm.attr_values()["axis"], s


def attention(root: IvyOp) -> Fused:
    """softmax(mask(q @ k^T * c), axis=-1) @ v -> scaled_dot_product_attention(q, k, v)
    (the softmax may be guarded against rows with every key masked out)"""
    p, v = root.operand_groups()
    guard: list = []
    axis, s = _probabilities(p, guard)
    rank = spec(s).rank
    require(rank >= 2 and axis in (-1, rank - 1))
    dt = spec(s).dtype
    sc = _scores(s, dt)
    attrs: dict = {}
    if sc.causal:
        attrs["causal"] = True
    d = spec(sc.q).shape[-1]
    if d is None or not close(sc.coef, 1 / math.sqrt(d), dt):
        attrs["scale"] = shortest(sc.coef, dt)
    return Fused("scaled_dot_product_attention", [sc.q, sc.k, v, sc.mask], attrs,
                 {*sc.ops, *guard})
