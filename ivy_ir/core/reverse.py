"""Reverse-mode differentiation of IR: the gradient of one value with respect to others,
as more IR of the same program.

Targets train a compiled program with their own autodiff (DESIGN.md); this is for
programs that carry their own gradients (ONNX's `Gradient` operator) and for targets
without one (NumPy). `gradients` walks the ops between `xs` and `y` backwards, applies
each op's rule (`vjp.py`) and sums the cotangents of values used more than once.
A composite op without a rule is differentiated through its decomposition (pooling
through the strided slices of its windows), recomputed beside the backward ops, so the
forward program is never changed. Integer and boolean
values, and ops tagged `nondiff`, carry no gradient.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from xdsl.ir import Operation, OpResult, SSAValue

from ..dialect import IvyOp, TensorSpec
from ..dialect.registry import NONDIFF
from ..dialect.types import CLASS_MEMBERS
from .decompose import DECOMPOSITIONS
from .locations import where
from .tracer import OPS as F
from .tracer import Tracer
from .vjp import EXPANSIONS, VJPS, DerivativeError
from .vjp_linalg import LINALG
from .vjp_more import MORE


def gradients(y: Tracer, xs: Sequence[Tracer], seed: Tracer | None = None) -> list[Tracer]:
    """d(y)/d(x) for each of `xs`, as the vector-Jacobian product with `seed` (ones, so
    a non-scalar `y` is differentiated as its sum); zeros for an `x` that `y` does not
    depend on."""
    graph = y.graph
    x_values = [x.value for x in xs]
    ops = _path(y.value, set(x_values))
    ct: dict[SSAValue, Tracer] = {y.value: seed if seed is not None else F.ones_like(y)}
    active = set(x_values)
    for op in ops:
        if op.SPEC.name not in NONDIFF and any(v in active for v in op.operands):
            active.update(r for r in op.results if _inexact(r))
    for op in reversed(ops):
        if (not any(r in ct for r in op.results) or op.SPEC.name in NONDIFF
                or not any(v in active for v in op.operands)):
            continue
        outs = [Tracer(r, graph) for r in op.results]
        gs = [ct.pop(r, None) for r in op.results]
        if len(gs) > 1:
            gs = [F.zeros_like(o) if g is None else g for g, o in zip(gs, outs)]
        groups = op.operand_groups()
        cts = _rule(op, gs, outs, [_traced(v, graph) for v in groups])
        for group, got in zip(groups, cts):
            pairs = zip(group, got) if isinstance(group, list) else [(group, got)]
            for value, c in pairs:
                if c is not None and value in active:
                    ct[value] = F.add(ct[value], c) if value in ct else c
    return [ct[x.value] if x.value in ct else F.zeros_like(x) for x in xs]


def _rule(op: IvyOp, gs: list[Tracer], outs: list[Tracer], args: list[Any]) -> list[Any]:
    name = op.SPEC.name
    attrs = op.attr_values()
    rule = VJPS.get(name) or MORE.get(name) or LINALG.get(name)
    if rule is not None:
        try:
            return rule(*gs, *outs, *args, **attrs)
        except DerivativeError as exc:  # a rule that refuses some attributes
            raise DerivativeError(f"{exc} (differentiating through it{_at(op)})") from None
    if name in EXPANSIONS:
        return _through(lambda *a, **k: EXPANSIONS[name](*a, **k, out=outs[0]), gs, args,
                        attrs)
    if name in DECOMPOSITIONS:
        return _through(DECOMPOSITIONS[name], gs, args, attrs)
    raise DerivativeError(f"ivy.{name} has no derivative rule (differentiating through "
                          f"it{_at(op)})")


def _through(expansion: Callable[..., Any], gs: list[Tracer], args: list[Any],
             attrs: dict[str, Any]) -> list[Any]:
    """The cotangents of an op's operands: its expansion (a composite's decomposition,
    a pooling's windows) recomputed from them, then differentiated like any program."""
    out = expansion(*args, **attrs)
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    flat = [a for group in args for a in (group if isinstance(group, list) else [group])
            if isinstance(a, Tracer)]
    # a value passed twice (`linear(a, a)`) gets its whole gradient once
    leaves = list({a.value: a for a in reversed(flat)}.values())
    total: list[Tracer] | None = None
    for o, g in zip(outs, gs):
        each = gradients(o, leaves, g)
        total = each if total is None else [F.add(t, e) for t, e in zip(total, each)]
    found = {id(a): t for a, t in zip(leaves, total or [])}
    return [[found.get(id(a)) for a in group] if isinstance(group, list)
            else None if group is None else found.get(id(group)) for group in args]


def _path(y: SSAValue, xs: set[SSAValue]) -> list[IvyOp]:
    """The ops `y` is computed by from `xs` (and constants), in program order."""
    found: set[Operation] = set()
    stack = [y]
    while stack:
        v = stack.pop()
        if v in xs or not isinstance(v, OpResult) or v.op in found:
            continue
        found.add(v.op)
        stack.extend(v.op.operands)
    block = y.owner.parent_block() if isinstance(y, OpResult) else None
    ordered = [op for op in block.ops if op in found] if block is not None else []
    if len(ordered) != len(found):
        raise DerivativeError("differentiating values computed inside a region (a loop or "
                              "branch body) is not supported")
    for op in ordered:
        if not isinstance(op, IvyOp) or op.SPEC.regions:
            name = op.SPEC.name if isinstance(op, IvyOp) else op.name
            raise DerivativeError(f"ivy.{name} has no derivative rule (differentiating "
                                  f"through it{_at(op)})")
    return ordered


def _traced(group: Any, graph: Any) -> Any:
    if isinstance(group, (list, tuple)):
        return [Tracer(v, graph) for v in group]
    return None if group is None else Tracer(group, graph)


def _inexact(value: SSAValue) -> bool:
    return TensorSpec.from_xdsl(value.type).dtype in CLASS_MEMBERS["inexact"]


def _at(op: Operation) -> str:
    return where(op.location)
