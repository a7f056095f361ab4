"""`recompose` rules for activations, softmax and linear layers.

Each rule takes the root op of a candidate (the last op of the formula) and returns the
`Fused` op that replaces it, or raises `NoMatch`. The algebra each one recognises is in
its docstring; the arithmetic around it may be spelled in any order or grouping (see
`recompose_match.Expansion`).
"""

from __future__ import annotations

import math

from xdsl.ir import SSAValue

from ..dialect import IvyOp
from .recompose_match import (
    Expansion,
    Fused,
    Mono,
    NoMatch,
    Poly,
    Prep,
    atom,
    close,
    expect,
    is_float,
    norm_axes,
    peel_to,
    producer,
    reduction,
    require,
    reshaped,
    same_poly,
    scalar,
    spec,
    uncut,
)

GELU_TANH_COEF = 0.044715


def _out(root: IvyOp) -> tuple[SSAValue, str]:
    y = root.results[0]
    return y, spec(y).dtype


def _product_of_two(root: IvyOp) -> tuple[Expansion, Mono]:
    """The expansion of `root`'s result when it is one product of two factors (powers
    allowed) with coefficient 1, as silu `x * sigmoid(x)` and softmax `e / sum(e)` are."""
    y, dt = _out(root)
    ex = Expansion()
    poly = ex(y, force=True)
    require(len(poly) == 1)
    (mono, c), = poly.items()
    require(len(mono) == 2 and close(c, 1.0, dt))
    return ex, mono


def _single(poly: Poly, length: int) -> tuple[Mono, float]:
    """The one monomial of `poly` with `length` atoms."""
    found = [(k, c) for k, c in poly.items() if len(k) == length]
    require(len(found) == 1)
    return found[0]


def gelu(root: IvyOp) -> Fused:
    """x/2 * (1 + erf(x / sqrt(2)))                               -> gelu(x)
    x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))            -> gelu(x, tanh)
    (and x/2 * (1 - erf(-x / sqrt(2))), erf and tanh being odd; x/2 * erfc(-x / sqrt(2)))"""
    y, dt = _out(root)
    ex = Expansion()
    poly = ex(y, force=True)
    if len(poly) == 1:
        return _gelu_erfc(poly, dt, ex)
    require(len(poly) == 2)
    (lin, c1), (cdf, c2) = _single(poly, 1), _single(poly, 2)
    x, p = lin[0]
    require(p == 1 and close(c1, 0.5, dt) and (x, 1) in cdf)
    t = next(v for v, q in cdf if v is not x)
    op = expect(t, "erf", "tanh")
    require(dict(cdf)[t] == 1)
    inner = Expansion(stops={x})
    z = inner(op.operand_groups()[0])
    if op.SPEC.name == "erf":
        want, attrs = {((x, 1),): 1 / math.sqrt(2)}, {}
    else:
        k = math.sqrt(2 / math.pi)
        want, attrs = {((x, 1),): k, ((x, 3),): k * GELU_TANH_COEF}, {"approximate": "tanh"}
    # erf and tanh are odd: 1 - erf(-z) is 1 + erf(z)
    sign = 1.0 if same_poly(z, want, dt) else -1.0
    require(same_poly(z, {m: sign * w for m, w in want.items()}, dt) and
            close(sign * c2, 0.5, dt))
    return Fused("gelu", [x], attrs, {*ex.ops, op, *inner.ops})


def _gelu_erfc(poly: Poly, dt: str, ex: Expansion) -> Fused:
    """x/2 * erfc(-x / sqrt(2)) -> gelu(x): the exact gelu of JAX and Keras, whose
    erfc the importers keep as one op."""
    (cdf, c), = poly.items()
    require(len(cdf) == 2 and close(c, 0.5, dt) and all(p == 1 for _, p in cdf))
    found = [(v, o) for v, o in ((v, producer(v, "erfc")) for v, _ in cdf) if o is not None]
    require(len(found) == 1)
    (t, op), = found
    x = next(v for v, _ in cdf if v is not t)
    inner = Expansion(stops={x})
    require(same_poly(inner(op.operand_groups()[0]), {((x, 1),): -1 / math.sqrt(2)}, dt))
    return Fused("gelu", [x], {}, {*ex.ops, op, *inner.ops})


def _logistic(d: SSAValue, dt: str, ops: list) -> SSAValue:
    """d = 1 + exp(-x) -> x."""
    ex = Expansion()
    poly = ex(d, force=True)
    require(len(poly) == 2 and close(poly.get((), 0.0), 1.0, dt))
    (mono, c), = ((k, c) for k, c in poly.items() if k)
    require(len(mono) == 1 and mono[0][1] == 1 and close(c, 1.0, dt))
    e = expect(mono[0][0], "exp")
    ops += [*ex.ops, e]
    return peel_to(e.operand_groups()[0], -1.0, dt, ops)


def sigmoid(root: IvyOp) -> Fused:
    """1 / (1 + exp(-x))            -> sigmoid(x)
    1/2 + tanh(x / 2) / 2          -> sigmoid(x)   (the form `decompose` writes)"""
    y, dt = _out(root)
    ex = Expansion()
    poly = ex(y, force=True)
    ops: list = [*ex.ops]
    if len(poly) == 1:
        (mono, c), = poly.items()
        require(len(mono) == 1 and mono[0][1] == -1 and close(c, 1.0, dt))
        x = _logistic(mono[0][0], dt, ops)
    else:
        require(len(poly) == 2 and close(poly.get((), 0.0), 0.5, dt))
        mono, c = _single(poly, 1)
        require(mono[0][1] == 1 and close(c, 0.5, dt))
        t = expect(mono[0][0], "tanh")
        ops.append(t)
        x = peel_to(t.operand_groups()[0], 0.5, dt, ops)
    return Fused("sigmoid", [x], {}, set(ops))


def silu(root: IvyOp) -> Fused:
    """x * sigmoid(x)  |  x / (1 + exp(-x))                      -> silu(x)"""
    ex, mono = _product_of_two(root)
    dt = spec(root.results[0]).dtype
    for (x, p), (s, q) in (mono, mono[::-1]):
        if p != 1:
            continue
        if q == 1 and (sig := producer(s, "sigmoid")) and sig.operand_groups()[0] is x:
            return Fused("silu", [x], {}, {*ex.ops, sig})
        if q == -1:
            ops: list = [*ex.ops]
            try:
                if _logistic(s, dt, ops) is x:
                    return Fused("silu", [x], {}, set(ops))
            except NoMatch:
                continue
    raise NoMatch


def _stable_input(z: SSAValue, axis: int, ops: list) -> SSAValue:
    """z = x - max(x, axes containing `axis`, keepdims) -> x, else z itself: softmax is
    invariant to subtracting anything constant along its axis, and that max is. So its
    gradient is the same whether or not the max is cut from autodiff, as JAX's
    softmax and logsumexp cut it (`x - stop_gradient(max(x))`)."""
    ex = Expansion()
    poly = ex(z, force=True)
    if len(poly) == 2 and all(len(k) == 1 and k[0][1] == 1 for k in poly):
        pos = [k[0][0] for k, c in poly.items() if c == 1.0]
        neg = [k[0][0] for k, c in poly.items() if c == -1.0]
        cut: list = []
        if len(pos) == 1 and len(neg) == 1 and (m := producer(uncut(neg[0], cut), "max")):
            attrs, x = m.attr_values(), m.operand_groups()[0]
            if x is pos[0] and attrs["keepdims"] and axis in norm_axes(attrs["axis"],
                                                                       spec(x).rank):
                ops += [*ex.ops, *cut, m]
                return x
    return z


def _sum_exp(s: SSAValue) -> tuple[SSAValue, int, list]:
    """s = sum(exp(z), axis=[a], keepdims) -> (z, a, ops)."""
    red, e, axes = reduction(s, "sum")
    require(len(axes) == 1)
    exp = expect(e, "exp")
    return exp.operand_groups()[0], axes[0], [red, exp]


def softmax(root: IvyOp) -> Fused:
    """exp(z) / sum(exp(z), axis=a, keepdims)  with z = x - max(x, a) or z = x
                                                                  -> softmax(x, axis=a)"""
    ex, mono = _product_of_two(root)
    e = next((v for v, p in mono if p == 1), None)
    s = next((v for v, p in mono if p == -1), None)
    require(e is not None and s is not None)
    z, axis, ops = _sum_exp(s)
    require(ops[1].results[0] is e)
    x = _stable_input(z, axis, ops)
    return Fused("softmax", [x], {"axis": axis}, {*ex.ops, *ops})


def log_softmax(root: IvyOp) -> Fused:
    """z - log(sum(exp(z), axis=a, keepdims))  with z = x - max(x, a) or z = x,
    x - logsumexp(x, axis=[a], keepdims)                          -> log_softmax(x, a)"""
    y, dt = _out(root)
    ex = Expansion()
    poly = ex(y, force=True)
    logs = [k for k, c in poly.items() if len(k) == 1 and k[0][1] == 1 and close(c, -1.0, dt)
            and producer(k[0][0], "log", "logsumexp")]
    require(len(logs) == 1)
    lse = logs[0][0][0]
    rest = {k: c for k, c in poly.items() if k != logs[0]}
    ops: list = [*ex.ops]
    op = expect(lse, "log", "logsumexp")
    if op.SPEC.name == "logsumexp":
        red, x, axes = reduction(lse, "logsumexp")
        require(len(axes) == 1 and same_poly(rest, atom(x), dt))
        return Fused("log_softmax", [x], {"axis": axes[0]}, {*ops, red})
    z, axis, red_ops = _sum_exp(op.operand_groups()[0])
    ops += [op, *red_ops]
    stable: list = []
    x = _stable_input(z, axis, stable)
    spelled = [atom(z)]
    if x is not z:
        spelled.append(Expansion()(z, force=True))
    require(any(same_poly(rest, want, dt) for want in spelled))
    return Fused("log_softmax", [x], {"axis": axis}, {*ops, *stable})


def _guarded_max(c: SSAValue, ops: list) -> SSAValue:
    """c = stop_gradient(where(isfinite(m), m, 0)) -> m (the ops joined to `ops`): the
    shift JAX's and TF's logsumexp subtract, 0 where the max is infinite so that rows
    of -inf give -inf and rows holding +inf give +inf (as the fused op does), and cut,
    which changes no gradient of a value that does not depend on it."""
    cut = expect(c, "stop_gradient")
    guard = expect(cut.operand_groups()[0], "where")
    test, m, zero = guard.operand_groups()
    finite = expect(test, "isfinite")
    require(finite.operand_groups()[0] is m and scalar(zero) == 0.0)
    ops += [cut, guard, finite]
    return m


def _relabelled(v: SSAValue, ops: list) -> SSAValue:
    """The value up the chain of reshapes, expand_dims and squeezes that made `v` (they
    keep the element order; the ops joined to `ops`)."""
    while (op := producer(v, "reshape", "expand_dims", "squeeze")) is not None:
        ops.append(op)
        v = op.operand_groups()[0]
    return v


def logsumexp(root: IvyOp) -> Fused:
    """log(|sum(exp(x - c), axis=A)|) + c    with c the guarded, cut max(x, A) of
    `_guarded_max`, each c in the keepdims or the reduced shape (JAX's spelling, and
    TF's `reduce_logsumexp`)                                      -> logsumexp(x, A)"""
    for lg, c in (root.operand_groups(), root.operand_groups()[::-1]):
        log = producer(lg, "log")
        if log is None:
            continue
        ops: list = [log]
        s = log.operand_groups()[0]
        if (absolute := producer(s, "abs")) is not None:
            ops.append(absolute)
            s = absolute.operand_groups()[0]
        red = expect(s, "sum")
        e = expect(red.operand_groups()[0], "exp")
        sub = expect(e.operand_groups()[0], "subtract")
        x, shift = sub.operand_groups()
        shape = spec(x).shape
        axes = norm_axes(red.attr_values()["axis"], len(shape))
        kept = tuple(1 if i in axes else d for i, d in enumerate(shape))
        reduced = tuple(d for i, d in enumerate(shape) if i not in axes)
        require(axes and is_float(x) and spec(shift).shape == kept
                and spec(c).shape == spec(root.results[0]).shape)
        core = _relabelled(c, ops)
        require(_relabelled(shift, ops) is core and spec(core).shape in (kept, reduced))
        m = expect(_guarded_max(core, ops), "max")
        require(m.operand_groups()[0] is x
                and norm_axes(m.attr_values()["axis"], len(shape)) == axes)
        return Fused("logsumexp", [x], {"axis": list(axes),
                                        "keepdims": bool(red.attr_values()["keepdims"])},
                     {*ops, red, e, sub, m})
    raise NoMatch


def _weight(wt: SSAValue, ops: list) -> SSAValue | Prep:
    """The (out, in) weight of `matmul(x, wt)`: the input of `permute_dims(w, [1, 0])` (the
    permute joins the pattern only when nothing else uses it), else a new permute."""
    perm = producer(wt, "permute_dims")
    if perm is not None and tuple(perm.attr_values()["axes"]) == (1, 0):
        if wt.has_one_use():
            ops.append(perm)
        return perm.operand_groups()[0]
    return Prep("permute_dims", [wt], {"axes": [1, 0]})


def linear_weight(root: IvyOp) -> Fused:
    """matmul(x, permute_dims(w, [1, 0]))                          -> linear(x, w)"""
    x, wt = root.operand_groups()
    require(spec(wt).rank == 2 and producer(wt, "permute_dims"))
    ops: list = []
    w = _weight(wt, ops)
    require(not isinstance(w, Prep))
    return Fused("linear", [x, w, None], {}, set(ops))


def linear_bias(root: IvyOp) -> Fused:
    """matmul(x, W) + b  |  linear(x, w) + b, b of shape (out,) or (1, .., 1, out)
                                                                  -> linear(x, w, b)"""
    for m, b in (root.operand_groups(), root.operand_groups()[::-1]):
        mm = producer(m, "matmul", "linear")
        if mm is None or not m.has_one_use():
            continue
        x, w, *bias = mm.operand_groups()
        if spec(w).rank != 2 or (bias and bias[0] is not None):
            continue
        out = spec(m).shape[-1]
        bs = spec(b).shape
        if not bs or bs[-1] != out or any(d != 1 for d in bs[:-1]) or len(bs) > spec(m).rank:
            continue  # not a per-output-feature bias: it broadcasts over other axes
        ops: list = [mm]
        weight = w if mm.SPEC.name == "linear" else _weight(w, ops)
        return Fused("linear", [x, weight, reshaped(b, (out,))], {}, set(ops))
    raise NoMatch


def batched_linear(root: IvyOp) -> Fused:
    """reshape(linear(reshape(x, [n, k]), w, b), B + [o]) -> linear(x, w, b), x of shape
    B + [k] with prod B = n: a linear layer maps the last axis row by row, so flattening
    the leading axes around it changes nothing (torch's core ATen runs a 3-D linear as
    an addmm on a 2-D view; `linear_bias` makes that a linear first). Fires only when x
    exists already (a new reshape would save nothing)."""
    lin = expect(root.operand_groups()[0], "linear")
    x2, w, b = lin.operand_groups()
    out = spec(root.results[0]).shape
    require(spec(x2).rank == 2 and len(out) > 2 and None not in out)
    (n, k), o = spec(x2).shape, spec(lin.results[0]).shape[-1]
    require(out[-1] == o and math.prod(out[:-1]) == n)
    x = reshaped(x2, tuple(out[:-1]) + (k,))
    require(not isinstance(x, Prep))
    return Fused("linear", [x, w, b], {}, {lin})
