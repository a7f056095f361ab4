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


Plan = tuple[list[SSAValue], dict, list[int], list[IvyOp]]
"""A sinking rewrite of one op: new operands, new attributes, the permutation that moves
below it, and the permutes it consumes."""


def _sinkable(value: SSAValue, shared: frozenset[IvyOp]) -> IvyOp | None:
    """The permute producing `value` when it may move: its only use, or one whose every
    use moves it too (`shared`), so that it goes away rather than being duplicated."""
    perm = _permute_of(value)
    if perm is None or not (perm.results[0].has_one_use() or perm in shared):
        return None
    return perm


def _invariant(value: SSAValue) -> bool:
    """Operands a permutation cannot change: 0-d, or all dimensions of size 1."""
    return all(d == 1 for d in TensorSpec.from_xdsl(value.type).shape)


def _plan(op: IvyOp, shared: frozenset[IvyOp] = frozenset()) -> Plan | None:
    """How `op` takes the permute of its operand below itself (the algebra in each
    branch's comment), or None."""
    name, groups, attrs = op.SPEC.name, op.operand_groups(), op.attr_values()
    if name == "batch_norm" and (perm := _sinkable(groups[0], shared)):
        # batch_norm(permute(y, p), axis=a) = permute(batch_norm(y, axis=p[a]), p)
        axes = perm.attr_values()["axes"]
        return ([perm.operand_groups()[0], *groups[1:]], {**attrs, "axis": axes[attrs["axis"]]},
                axes, [perm])
    if op.SPEC.has("reduction") and attrs.get("keepdims") and len(groups) == 1 and \
            (perm := _sinkable(groups[0], shared)):
        # reduce(permute(y, p), axes=A, keepdims) = permute(reduce(y, axes=p[A], keepdims), p)
        axes = perm.attr_values()["axes"]
        moved = {a.name: (None if attrs[a.name] is None else
                          axes[attrs[a.name]] if a.kind == "axis" else
                          sorted(axes[i] for i in attrs[a.name]))
                 for a in op.SPEC.axis_attrs}
        return [perm.operand_groups()[0]], {**attrs, **moved}, axes, [perm]
    if name == "concat":
        return _concat_plan(op, shared)
    if name == "reshape":
        return _reshape_plan(op, shared)
    if name not in ELEMENTWISE or any(g is None or isinstance(g, list) for g in groups):
        return None
    # f(permute(a, p), permute(b, p)) = permute(f(a, b), p), f elementwise and every
    # operand of the permuted rank (no broadcasting across the permutation)
    found = _unpermuted(groups, shared, op)
    if found is None:
        return None
    axes, operands, perms = found
    return operands, attrs, axes, perms


def _unpermuted(values: list[SSAValue], shared: frozenset[IvyOp], op: IvyOp
                ) -> tuple[list[int], list[SSAValue], list[IvyOp]] | None:
    """The permutation p that `values` (the operands of `op`) share, the values before
    it, and the permutes consumed; None unless every value has one: a permute by p, a
    plain value whose permute by p^-1 already exists before op, or one that no
    permutation changes (a scalar, a [1, 1, 1, 1] constant) as it is."""
    first = next((perm for g in values if (perm := _sinkable(g, shared))), None)
    if first is None:
        return None
    axes = first.attr_values()["axes"]
    perms, operands = [], []
    for g in values:
        perm = _sinkable(g, shared)
        if perm is not None and perm.attr_values()["axes"] == axes:
            perms.append(perm)
            operands.append(perm.operand_groups()[0])
        elif _invariant(g) and _rank(g) <= len(axes):  # (a higher rank would broadcast
            operands.append(g)                        # new dims the permute lacks)
        elif _rank(g) == len(axes) and \
                (inverse := _existing_permute(g, _inverse(axes), op)) is not None:
            operands.append(inverse)
        else:
            return None
    if any(o is p.results[0] for o in operands for p in perms):
        # f(a, permute(a, p)) with p its own inverse (x + x^T): the rewrite would give
        # back the same form, forever, and no permute would go away
        return None
    return axes, operands, perms


def _moves_permutes(op: Operation) -> bool:
    """Whether `op` is of a kind a permute sinks through (see `_plan`)."""
    return isinstance(op, IvyOp) and (
        op.SPEC.name in ELEMENTWISE | {"batch_norm", "permute_dims", "concat"}
        or (op.SPEC.has("reduction") and bool(op.attr_values().get("keepdims"))))


def _concat_plan(op: IvyOp, shared: frozenset[IvyOp]) -> Plan | None:
    """concat(permute(a, p), permute(b, p), axis=k) = permute(concat(a, b, axis=p[k]), p)
    (a DenseNet block concatenates its channels-first input, whose permute to
    channels-last exists, with its layers' outputs)."""
    found = _unpermuted(op.operand_groups()[0], shared, op)
    if found is None:
        return None
    axes, operands, perms = found
    attrs = op.attr_values()
    return [operands], {**attrs, "axis": axes[attrs["axis"] % len(axes)]}, axes, perms


def _reshape_groups(a: tuple[int, ...], b: tuple[int, ...]
                    ) -> list[tuple[range, range]] | None:
    """The runs of axes of shapes `a` and `b` that a reshape maps onto each other (equal
    products, as short as possible); None when trailing size-1 axes are left over."""
    groups: list[tuple[range, range]] = []
    i = j = 0
    while i < len(a) and j < len(b):
        i0, j0, pa, pb = i, j, a[i], b[j]
        i, j = i + 1, j + 1
        while pa != pb:
            if pa < pb and i < len(a):
                pa, i = pa * a[i], i + 1
            elif pb < pa and j < len(b):
                pb, j = pb * b[j], j + 1
            else:
                return None
        groups.append((range(i0, i), range(j0, j)))
    return groups if i == len(a) and j == len(b) else None


def _reshape_plan(op: IvyOp, shared: frozenset[IvyOp]) -> Plan | None:
    """reshape(permute(y, p), B) = permute(reshape(permute(y, w), B'), q) when p keeps
    the axes of each group the reshape splits or merges together: q is p's order of the
    groups, moved below, and w the order within groups, which stays (only when the
    reshape's single user is a permute that q joins, so the count never grows). A
    channel shuffle, reshape (N, g, C/g, H, W) / swap / reshape back, then runs
    channels-last with one transpose instead of three."""
    perm = _sinkable(op.operand_groups()[0], shared)
    a = TensorSpec.from_xdsl(op.operand_groups()[0].type).shape
    b = TensorSpec.from_xdsl(op.results[0].type).shape
    if perm is None or None in a + b or 0 in a + b or \
            (groups := _reshape_groups(a, b)) is None:
        return None
    p = perm.attr_values()["axes"]
    runs = [sorted(p[i] for i in ins) for ins, _ in groups]
    if any(run[-1] - run[0] != len(run) - 1 for run in runs):
        return None
    order = sorted(range(len(groups)), key=lambda k: runs[k][0])
    if order == sorted(order):
        return None
    within = [p[i] for k in order for i in groups[k][0]]
    y = perm.operand_groups()[0]
    if within != sorted(within):
        users = [u.operation for u in op.results[0].uses]
        if len(users) != 1 or not (isinstance(users[0], IvyOp)
                                   and users[0].SPEC.name == "permute_dims"):
            return None
        y = _emit(op, "permute_dims", [y], {"axes": within})
    offsets = {k: sum(len(groups[m][1]) for m in order[:n]) for n, k in enumerate(order)}
    q = [offsets[k] + u for k, (_, outs) in enumerate(groups) for u in range(len(outs))]
    shape = [b[j] for k in order for j in groups[k][1]]
    return [y], {**op.attr_values(), "shape": shape}, q, [perm]


def _shared_plan(op: IvyOp) -> Plan | None:
    """A plan through a permute of several uses, when every use is of a kind it sinks
    through: `x * f(x)` (a decomposed hardswish) uses the permuted `x` twice, and once
    `f(x)` has taken it down, the product takes both and the permute is gone."""
    values = [v for g in op.operand_groups() for v in (g if isinstance(g, list) else [g])]
    shared = frozenset(perm for v in values if isinstance(v, SSAValue)
                       and (perm := _permute_of(v)) is not None
                       and not perm.results[0].has_one_use()
                       and all(_moves_permutes(u.operation) for u in perm.results[0].uses))
    return _plan(op, shared) if shared else None


def _sink(op: IvyOp) -> bool:
    """One rewrite at `op` if one applies."""
    if op.SPEC.name == "permute_dims" and (inner := _permute_of(op.operand_groups()[0])):
        # permute(permute(y, p), q) = permute(y, p[q]); the identity leaves y
        p, q = inner.attr_values()["axes"], op.attr_values()["axes"]
        axes = [p[i] for i in q]
        y = inner.operand_groups()[0]
        _replace(op, y if axes == sorted(axes) else
                 _emit(op, "permute_dims", [y], {"axes": axes}))
        return True
    plan = _plan(op) or _shared_plan(op)
    if plan is None:
        return False
    operands, attrs, axes, perms = plan
    y = _emit(op, op.SPEC.name, operands, attrs)
    _replace(op, _emit(op, "permute_dims", [y], {"axes": axes}))
    for perm in perms:  # (one permute may feed several operands: f(P(a), P(a)))
        if perm.parent is not None and not perm.results[0].uses:
            perm.detach()
            perm.erase()
    return True


def channels_last(module: ModuleOp) -> None:
    for op in [o for o in module.walk() if isinstance(o, IvyOp)]:
        if op.SPEC.name in LAYOUT_OPS and op.attr_values()["layout"] == "channels_first":
            _convert(op)
    changed = True
    while changed:  # sweeps over a snapshot: an op a rewrite erased has no parent
        changed = False
        for op in list(module.walk()):
            if isinstance(op, IvyOp) and op.parent is not None and _sink(op):
                changed = True
    for fn in module.ops:
        region_dce(fn.regions[0])


@dataclass(frozen=True)
class ChannelsLastPass(ModulePass):
    name = "channels-last"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        channels_last(op)
