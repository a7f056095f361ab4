"""The first phase of `recompose`: exact rewrites that turn framework spellings of small
things into the one spelling the formula rules expect.

JAX traces `jnp.mean(x, -1, keepdims=True)` as `sum` + `expand_dims` + divide by n,
`jax.nn.softmax`'s max as `maximum(max(x), -inf)`, and attention scores as `einsum`;
torch's core-ATen decompositions run a 4-D matmul as a `bmm` on flattened batch dims
and `x @ W` as a `bmm` against an expanded W.
Rather than teaching every rule every spelling, these rows rewrite them first (each is
sound on its own, so it is kept even when no larger formula follows).
"""

from __future__ import annotations

import math

from ..dialect import IvyOp
from .recompose_match import (
    Fused,
    NoMatch,
    Prep,
    close,
    expect,
    norm_axes,
    producer,
    require,
    reshaped,
    scalar,
    spec,
)

KEEPDIMS_REDUCTIONS = ("sum", "prod", "mean", "var", "std", "max", "min", "logsumexp")


def keepdims(root: IvyOp) -> Fused:
    """expand_dims(reduce(x, A), A) | reshape(reduce(x, A), keepdims shape)
                                                       -> reduce(x, A, keepdims=true)"""
    r = expect(root.operand_groups()[0], *KEEPDIMS_REDUCTIONS)
    attrs = r.attr_values()
    require(not attrs["keepdims"])
    x = r.operand_groups()[0]
    axes = norm_axes(attrs["axis"], spec(x).rank)
    kept = tuple(1 if i in axes else d for i, d in enumerate(spec(x).shape))
    require(spec(root.results[0]).rank == spec(x).rank)
    if root.SPEC.name == "expand_dims":
        require(norm_axes(root.attr_values()["axis"], spec(x).rank) == axes)
    require(spec(root.results[0]).shape == kept)
    return Fused(r.SPEC.name, [x], {**attrs, "keepdims": True}, {r})


def mean(root: IvyOp) -> Fused:
    """sum(x, A) / n | sum(x, A) * (1/n), n = the number of summed elements -> mean(x, A)"""
    a, b = root.operand_groups()
    is_div = root.SPEC.name == "divide"
    for s, c in ((a, b),) if is_div else ((a, b), (b, a)):
        red, value = producer(s, "sum"), scalar(c)
        if red is None or value is None:
            continue
        x = red.operand_groups()[0]
        attrs = red.attr_values()
        dims = [spec(x).shape[i] for i in norm_axes(attrs["axis"], spec(x).rank)]
        if None in dims:
            continue
        n = math.prod(dims)
        if close(value, n if is_div else 1 / n, spec(x).dtype):
            return Fused("mean", [x], attrs, {red})
    raise NoMatch


NEUTRAL = {"maximum": -math.inf, "minimum": math.inf, "multiply": 1.0, "divide": 1.0}
"""The scalar each op leaves its other operand unchanged by (bit for bit, NaN and -0.0
included; `x + 0` is not in the table: it turns -0.0 into 0.0)."""


def neutral(root: IvyOp) -> Fused:
    """maximum(a, -inf) -> a (the `initial` of jnp.max);  a * 1 -> a (tf.nn.silu's beta);
    minimum(a, inf) -> a;  a / 1 -> a"""
    name = root.SPEC.name
    pairs = [root.operand_groups()]
    if name != "divide":
        pairs.append(root.operand_groups()[::-1])
    for a, b in pairs:
        if scalar(b) == NEUTRAL[name] and a.type == root.results[0].type:
            return Fused("", [a], {}, set())
    raise NoMatch


def same_type_cast(root: IvyOp) -> Fused:
    """astype(a, dtype of a) -> a"""
    a = root.operand_groups()[0]
    require(a.type == root.results[0].type)
    return Fused("", [a], {}, set())


def _terms(term: str) -> list[str]:
    out, rest = [], term
    while rest:
        step = 3 if rest.startswith("...") else 1
        out.append(rest[:step])
        rest = rest[step:]
    return out


def einsum_matmul(root: IvyOp) -> Fused:
    """einsum('...ij,...jk->...ik', a, b) -> matmul(a, b)
    einsum('...ij,...kj->...ik', a, b) -> matmul(a, permute_dims(b, swap last two))"""
    xs = root.operand_groups()[0]
    require(len(xs) == 2 and spec(xs[0]).rank == spec(xs[1]).rank >= 2)
    eq = root.attr_values()["equation"].replace(" ", "")
    require(eq.count("->") == 1 and eq.count(",") == 1)
    lhs, out = eq.split("->")
    t1, t2, to = (_terms(t) for t in (*lhs.split(","), out))
    require(len(t1) == len(t2) == len(to) >= 2)
    batch = t1[:-2]
    require(t2[:-2] == batch and to[:-2] == batch)
    (i, j), (k,) = t1[-2:], to[-1:]
    require(len({i, j, k}) == 3 and not {i, j, k} & set(batch) and to[-2] == i)
    a, b = xs
    if t2[-2:] == [j, k]:
        return Fused("matmul", [a, b], {}, set())
    require(t2[-2:] == [k, j])
    rank = spec(b).rank
    swap = [*range(rank - 2), rank - 1, rank - 2]
    return Fused("matmul", [a, Prep("permute_dims", [b], {"axes": swap})], {}, set())


def matmul_broadcast(root: IvyOp) -> Fused:
    """matmul(a, broadcast_to(b, B + [k, n])) -> matmul(a, b)   (likewise for a): matmul
    broadcasts batch dims itself, so an explicit broadcast of them changes nothing.
    torch's bmm decomposition of `x @ W` spells one (the driver checks the type stays)."""
    operands = list(root.operand_groups())
    changed = False
    for i, v in enumerate(operands):
        op = producer(v, "broadcast_to")
        if op is None:
            continue
        src = op.operand_groups()[0]
        if spec(src).rank >= 2 and spec(src).shape[-2:] == spec(v).shape[-2:]:
            operands[i], changed = src, True
    require(changed)
    return Fused("matmul", operands, {}, set())


def batched_matmul(root: IvyOp) -> Fused:
    """reshape(matmul(a', b'), B + [m, n]) -> matmul(a, b)  with a' = a as (prod B, m, k),
    b' = b as (prod B, k, n): a batched product run on flattened batch dims (torch's
    `bmm` decomposition of a 4-D matmul) is the product on the unflattened ones, row
    for row. `a` and `b` are the earlier values of those shapes (or new reshapes); at
    least one must exist already, or nothing is saved."""
    mm = expect(root.operand_groups()[0], "matmul")
    a3, b3 = mm.operand_groups()
    out = spec(root.results[0]).shape
    require(spec(a3).rank == spec(b3).rank == 3 and len(out) > 3 and None not in out)
    (g, m, k), (g2, k2, n) = spec(a3).shape, spec(b3).shape
    batch = tuple(out[:-2])
    require(g == g2 == math.prod(batch) and k == k2 and out[-2:] == (m, n))
    a, b = reshaped(a3, batch + (m, k)), reshaped(b3, batch + (k, n))
    require(not (isinstance(a, Prep) and isinstance(b, Prep)))
    return Fused("matmul", [a, b], {}, {mm})
