"""`channels-last`: run channels-first layers channels-last, with as few transposes as
the program allows.

Each conv/pool/resample op in `channels_first` layout becomes the same op in
`channels_last` layout between two `permute_dims` (and its weight is permuted to the
channels-last weight layout). Permutes are then sunk through elementwise ops and
`batch_norm` and composed, so the pair between two layers cancels: a CNN transposes
once at its input and once where it leaves the spatial layout. Targets whose kernels
only take channels-last data (TensorFlow's CPU kernels) run this before lowering.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.transforms.dead_code_elimination import region_dce

from ..core.graph import Graph
from ..dialect import ELEMENTWISE, IvyOp, TensorSpec

LAYOUT_OPS = frozenset({"conv", "conv_transpose", "max_pool", "avg_pool",
                        "adaptive_avg_pool", "interpolate"})
WEIGHTED = frozenset({"conv", "conv_transpose"})


def _rank(value: SSAValue) -> int:
    return TensorSpec.from_xdsl(value.type).rank


def _emit(op: Operation, name: str, operands: list, attrs: dict) -> SSAValue:
    graph = Graph(op.parent_block(), before=op, location=op.location, allow_params=False)
    return graph.emit(name, operands, attrs)[0]


def _replace(op: Operation, value: SSAValue) -> None:
    op.results[0].replace_all_uses_with(value)
    op.detach()
    op.erase()


def _convert(op: IvyOp) -> None:
    """op(x, layout=cf) -> permute(op(permute(x), layout=cl)) (weights permuted too)."""
    x, *rest = op.operand_groups()
    rank = _rank(x)
    to_last, to_first = [0, *range(2, rank), 1], [0, rank - 1, *range(1, rank - 1)]
    operands = [_emit(op, "permute_dims", [x], {"axes": to_last})]
    for k, value in enumerate(rest):
        if k == 0 and op.SPEC.name in WEIGHTED:  # (O|I, I/g|O/g, *K) -> (*K, ., .)
            value = _emit(op, "permute_dims", [value], {"axes": [*range(2, rank), 1, 0]})
        operands.append(value)
    attrs = {**op.attr_values(), "layout": "channels_last"}
    y = _emit(op, op.SPEC.name, operands, attrs)
    _replace(op, _emit(op, "permute_dims", [y], {"axes": to_first}))


def _permute_of(value: SSAValue) -> IvyOp | None:
    owner = value.owner
    if isinstance(owner, IvyOp) and owner.SPEC.name == "permute_dims":
        return owner
    return None


def _single_use_permute(value: SSAValue) -> IvyOp | None:
    perm = _permute_of(value)
    return perm if perm is not None and perm.results[0].has_one_use() else None


def _inverse(axes: tuple[int, ...]) -> list[int]:
    inv = [0] * len(axes)
    for i, a in enumerate(axes):
        inv[a] = i
    return inv


def _existing_permute(value: SSAValue, axes: list[int], before: Operation) -> SSAValue | None:
    """The result of a `permute_dims(value, axes)` placed before `before`, if any."""
    users = {u.operation for u in value.uses}
    for other in before.parent_block().ops:
        if other is before:
            return None
        if other in users and isinstance(other, IvyOp) and other.SPEC.name == "permute_dims" \
                and list(other.attr_values()["axes"]) == axes:
            return other.results[0]
    return None


def _sink(op: IvyOp) -> bool:
    """One rewrite at `op` if one applies (the algebra is in each branch's comment)."""
    name, groups, attrs = op.SPEC.name, op.operand_groups(), op.attr_values()
    if name == "permute_dims" and (inner := _permute_of(groups[0])):
        # permute(permute(y, p), q) = permute(y, p[q]); the identity leaves y
        p, q = inner.attr_values()["axes"], attrs["axes"]
        axes = [p[i] for i in q]
        y = inner.operand_groups()[0]
        _replace(op, y if axes == sorted(axes) else
                 _emit(op, "permute_dims", [y], {"axes": axes}))
        return True
    if name == "batch_norm" and (perm := _single_use_permute(groups[0])):
        # batch_norm(permute(y, p), axis=a) = permute(batch_norm(y, axis=p[a]), p)
        axes = perm.attr_values()["axes"]
        attrs = {**attrs, "axis": axes[attrs["axis"]]}
        perms, operands = [perm], [perm.operand_groups()[0], *groups[1:]]
    elif name in ELEMENTWISE and all(g is not None and not isinstance(g, list)
                                     for g in groups):
        # f(permute(a, p), permute(b, p)) = permute(f(a, b), p), f elementwise and all
        # operands of the permuted rank (no broadcasting across the permutation); a
        # plain operand b qualifies when permute(b, p^-1) already exists before op
        first = next((_single_use_permute(g) for g in groups if _single_use_permute(g)), None)
        if first is None:
            return False
        axes = first.attr_values()["axes"]
        if any(_rank(g) != len(axes) for g in groups):
            return False
        perms, operands = [], []
        for g in groups:
            perm = _single_use_permute(g)
            if perm is not None and perm.attr_values()["axes"] == axes:
                perms.append(perm)
                operands.append(perm.operand_groups()[0])
            elif (inverse := _existing_permute(g, _inverse(axes), op)) is not None:
                operands.append(inverse)
            else:
                return False
    else:
        return False
    y = _emit(op, name, operands, attrs)
    _replace(op, _emit(op, "permute_dims", [y], {"axes": axes}))
    for perm in perms:
        perm.detach()
        perm.erase()
    return True


def channels_last(module: ModuleOp) -> None:
    for op in [o for o in module.walk() if isinstance(o, IvyOp)]:
        if op.SPEC.name in LAYOUT_OPS and op.attr_values()["layout"] == "channels_first":
            _convert(op)
    changed = True
    while changed:  # restart the walk after each rewrite: ops come and go
        changed = any(_sink(op) for op in list(module.walk())
                      if isinstance(op, IvyOp) and op.parent is not None)
    for fn in module.ops:
        region_dce(fn.regions[0])


@dataclass(frozen=True)
class ChannelsLastPass(ModulePass):
    name = "channels-last"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        channels_last(op)
