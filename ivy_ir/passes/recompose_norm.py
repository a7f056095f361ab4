"""`recompose` rules for normalization: layer_norm, rms_norm, and batch_norm folded into
the conv or linear layer in front of it.

A layer norm is recognised by its normal form rather than by one op sequence:

    y = X·r·g - mean(X)·r·g + b      r = rsqrt(var(X) + eps)  (or 1/sqrt(...))

which covers `(x - mean) * rsqrt(var + eps) * w + b` (torch, the `decompose` output),
`(x - mean) * (rsqrt(var + eps) * w) + b` (flax, with var = max(0, E[x^2] - E[x]^2)),
`x * inv + (b - mean * inv)` (Keras / `tf.nn.batch_normalization`) and
`(x - mean) / sqrt(var + eps)`. An rms norm is `y = X·r·g` with r over mean(X^2).
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from ..dialect import IvyOp
from ..dialect.types import numpy_dtype
from .recompose_match import (
    Expansion,
    Fused,
    NoMatch,
    Prep,
    atom,
    atoms_of,
    close,
    expect,
    norm_axes,
    padd,
    pmul,
    producer,
    reduction,
    require,
    reshaped,
    same_poly,
    scalar,
    shortest,
    spec,
    uncut,
)

_DEFAULT_EPS = {"layer_norm": 1e-5, "rms_norm": 1e-6}
_STATS = frozenset({"rsqrt", "sqrt", "mean", "var"})


def _touches_stats(v: SSAValue) -> bool:
    """v is arithmetic directly over a statistic (the shared `x - mean` or `inv` values
    of the common spellings): such a value may be expanded although it has several uses."""
    if producer(v, "subtract", "multiply", "divide", "negative") is None:
        return False
    return any(producer(a, *_STATS) for a in atoms_of(Expansion()(v, force=True)))


def _centred(c: SSAValue, axes: tuple[int, ...], dt: str, ops: list,
             cut: bool = False) -> SSAValue | None:
    """c = X - mean(X, axes, keepdims) -> X (ops joined to `ops`), else None. Where `cut`
    (inside a variance) the mean may be `stop_gradient(mean)`, as `tf.nn.moments` writes
    it: d/dm mean((x - m)^2) = -2 mean(x - m) is 0 at m = mean(x), so the cut changes no
    gradient. A centred value centred again (`decompose`'s compensated mean) is X too:
    centring is idempotent in exact arithmetic."""
    ex = Expansion()
    poly = ex(c, force=True)
    for m in atoms_of(poly):
        sg: list = []
        mean = producer(uncut(m, sg) if cut else m, "mean")
        if mean is None:
            continue
        try:
            _, x, got = reduction(mean.results[0], "mean")
        except NoMatch:
            continue
        if got == axes and same_poly(poly, padd(atom(x), atom(m), -1.0), dt):
            ops += [*ex.ops, *sg, mean]
            inner: list = []
            base = _centred(x, axes, dt, inner)
            if base is not None:
                ops += inner
                return base
            return x
    return None


def _centre_terms(x: SSAValue, m: SSAValue, axes: tuple[int, ...], dt: str,
                  ops: list) -> bool:
    """m is a mean over `axes` that the centring of x subtracts: mean(x), or (in the
    compensated spelling) the mean of x - mean(x)."""
    mean, mx, m_axes = reduction(m, "mean")
    if m_axes != axes:
        return False
    if mx is x or _centred(mx, axes, dt, []) is x:
        ops.append(mean)
        return True
    return False


def _variance(v: SSAValue, dt: str, ops: list) -> tuple[str, SSAValue, tuple[int, ...]]:
    """The statistic under the rsqrt: ("var", X, axes) for a variance of X, ("ms", X, axes)
    for a mean of squares (rms norm)."""
    if producer(v, "var"):
        op, x, axes = reduction(v, "var")
        ops.append(op)
        return "var", x, axes
    if (mx := producer(v, "maximum")) is not None:  # flax: max(0, E[x^2] - E[x]^2)
        a, b = mx.operand_groups()
        w = b if scalar(a) == 0.0 else a
        require(scalar(a) == 0.0 or scalar(b) == 0.0)
        ex = Expansion()
        poly = ex(w, force=True)
        for m in atoms_of(poly):
            try:
                m_op, x, axes = reduction(m, "mean")
                sq_op, sq_x, sq_axes = reduction(next(k for k in atoms_of(poly) if k is not m),
                                                 "mean")
            except (NoMatch, StopIteration):
                continue
            sq = Expansion()
            if sq_axes == axes and same_poly(sq(sq_x, force=True), atom(x, 2), dt) and \
                    same_poly(poly, padd(atom(sq_op.results[0]), atom(m, 2), -1.0), dt):
                ops += [mx, *ex.ops, m_op, sq_op, *sq.ops]
                return "var", x, axes
        raise NoMatch
    red, q, axes = reduction(v, "mean")
    ex = Expansion()
    poly = ex(q, force=True)
    ops += [red, *ex.ops]
    if len(poly) == 1 and (mono := next(iter(poly))) and len(mono) == 1 and mono[0][1] == 2 \
            and same_poly(poly, atom(mono[0][0], 2), dt):
        c = mono[0][0]
        x = _centred(c, axes, dt, ops, cut=True)
        return ("ms", c, axes) if x is None else ("var", x, axes)
    for m in atoms_of(poly):  # the square of an x - mean that has one use, expanded
        sg: list = []
        mean = producer(uncut(m, sg), "mean")  # a variance: see `_centred`
        if mean is not None and (x := mean.operand_groups()[0]) in atoms_of(poly):
            d = padd(atom(x), atom(m), -1.0)
            if reduction(mean.results[0], "mean")[2] == axes and \
                    same_poly(poly, pmul(d, d), dt):
                ops += [*sg, mean]
                return "var", x, axes
    raise NoMatch


def _affine(v: SSAValue, x: SSAValue, axes: tuple[int, ...]) -> SSAValue | Prep:
    """A weight or bias that scales each normalized element (broadcast along the other
    axes only) as the op's operand of shape x.shape[axes]."""
    xs, vs = spec(x).shape, spec(v).shape
    lead = len(xs) - len(vs)
    require(lead >= 0 and min(axes) >= lead)
    for i, d in enumerate(vs):
        require(d == (xs[lead + i] if lead + i in axes else 1))
    return reshaped(v, tuple(xs[i] for i in axes))


def norm(root: IvyOp) -> Fused:
    """(X - mean) * rsqrt(var + eps) [* w] [+ b]  (and the spellings above) -> layer_norm
    X * rsqrt(mean(X^2) + eps) [* w]                                       -> rms_norm"""
    y = root.results[0]
    dt = spec(y).dtype
    ex = Expansion()
    poly = ex(y, force=True)
    shared: set = set()
    while more := {v for v in atoms_of(poly) if _touches_stats(v)} - shared:
        shared |= more  # (x - mean) - mean(x - mean) exposes its inner centring too
        ex = Expansion(allow=shared)
        poly = ex(y, force=True)
    rs = [v for v in atoms_of(poly) if producer(v, "rsqrt", "sqrt")]
    require(len(rs) == 1)
    r = rs[0]
    r_op = expect(r, "rsqrt", "sqrt")
    power = 1 if r_op.SPEC.name == "rsqrt" else -1
    ops: list = [*ex.ops, r_op]
    ue = Expansion()
    under = ue(r_op.operand_groups()[0])
    eps = under.get((), 0.0)
    stat = [k for k in under if k]
    require(len(stat) == 1 and len(stat[0]) == 1 and stat[0][0][1] == 1
            and close(under[stat[0]], 1.0, dt))
    ops += ue.ops
    kind, x, axes = _variance(stat[0][0][0], dt, ops)
    with_r = {k: c for k, c in poly.items() if (r, power) in k}
    rest = {k: c for k, c in poly.items() if k not in with_r}
    main = [k for k in with_r if (x, 1) in k]
    require(len(main) == 1)
    gains = [v for v, p in main[0] if v is not x and v is not r]
    require(len(gains) <= 1 and all(p == 1 for v, p in main[0] if v is not r))
    g = gains[0] if gains else None
    gain = {(): 1.0} if g is None else atom(g)
    name = "rms_norm" if kind == "ms" else "layer_norm"
    lhs = atom(x)
    if name == "layer_norm":
        centre = [k for k in with_r if k != main[0]]
        require(len(centre) in (1, 2))
        for term in centre:
            m = next((v for v, _ in term if v is not r and v is not g), None)
            require(m is not None and _centre_terms(x, m, axes, dt, ops))
            lhs = padd(lhs, atom(m), -1.0)
    require(same_poly(with_r, pmul(lhs, pmul(atom(r, power), gain)), dt))
    require(all(v is not r and v is not x for k in rest for v, _ in k))
    bias = None
    if rest:
        require(name == "layer_norm" and len(rest) == 1)
        (k, c), = rest.items()
        require(len(k) == 1 and k[0][1] == 1 and close(c, 1.0, dt))
        bias = _affine(k[0][0], x, axes)
    weight = None if g is None else _affine(g, x, axes)
    attrs: dict = {"axis": list(axes)}  # (the builder leaves out the default, [-1])
    if (e := shortest(eps, dt)) != _DEFAULT_EPS[name]:
        attrs["eps"] = e
    operands = [x, weight, bias] if name == "layer_norm" else [x, weight]
    return Fused(name, operands, attrs, set(ops))


def norm_affine(root: IvyOp) -> Fused:
    """layer_norm(x) * w -> layer_norm(x, w);  layer_norm(x, w) + b -> layer_norm(x, w, b);
    rms_norm(x) * w -> rms_norm(x, w)   (w, b broadcast over the normalized axes only)"""
    is_mul = root.SPEC.name == "multiply"
    for n, p in (root.operand_groups(), root.operand_groups()[::-1]):
        op = producer(n, "layer_norm", "rms_norm")
        if op is None or not n.has_one_use():
            continue
        x, *affine = op.operand_groups()
        if is_mul and any(a is not None for a in affine):
            continue  # (norm * w1) * w2 or (norm + b) * w: not the op's affine form
        if not is_mul and (op.SPEC.name == "rms_norm" or affine[1] is not None):
            continue
        attrs = op.attr_values()
        try:
            extra = _affine(p, x, norm_axes(attrs["axis"], spec(x).rank))
        except NoMatch:
            continue
        affine[0 if is_mul else 1] = extra
        return Fused(op.SPEC.name, [x, *affine], attrs, {op})
    raise NoMatch


def fold_batch_norm(root: IvyOp) -> Fused:
    """batch_norm(conv(x, w, b), mean, var, gamma, beta) -> conv(x, w * s, (b - mean) * s + beta)
    with s = gamma * rsqrt(var + eps) per output channel (likewise for linear): a few
    ops on the parameters instead of a pass over the activations; exact up to rounding."""
    y, mean, var, gamma, beta = root.operand_groups()
    attrs = root.attr_values()
    rank = spec(y).rank
    axis = attrs["axis"]
    layer = producer(y, "conv", "linear")
    require(layer is not None and y.has_one_use())
    assert layer is not None
    x, w, b = layer.operand_groups()
    out = spec(mean).shape[0]
    if layer.SPEC.name == "linear":
        require(axis == rank - 1)
        w_shape: list[int] | None = [out, 1]
    elif layer.attr_values()["layout"] == "channels_first":
        require(axis == 1)
        w_shape = [out] + [1] * (spec(w).rank - 1)
    else:  # channels-last weights (*K, I/g, O) broadcast a (O,) scale as they are
        require(axis == rank - 1)
        w_shape = None
    eps = Prep("constant", [], {"value": np.asarray(attrs["eps"],
                                                    dtype=numpy_dtype(spec(var).dtype))})
    scale: Prep = Prep("rsqrt", [Prep("add", [var, eps])])
    if gamma is not None:
        scale = Prep("multiply", [scale, gamma])
    w_scale = scale if w_shape is None else Prep("reshape", [scale], {"shape": w_shape})
    shift = Prep("negative", [mean]) if b is None else Prep("subtract", [b, mean])
    bias = Prep("multiply", [shift, scale])
    if beta is not None:
        bias = Prep("add", [bias, beta])
    return Fused(layer.SPEC.name, [x, Prep("multiply", [w, w_scale]), bias],
                 layer.attr_values(), {layer})
