"""How symbolic dims flow through registry ops: the symbolic shape of any IR value the
ONNX importer has built, for the rules that need sizes (`Shape`, a `Reshape` copying a
dim with 0, `Expand`, `Flatten`).

A tensor type says only `?` for a dynamic dim; which size it is (`batch`, `batch *
seq`) follows from how the value was computed. `SymShapes.of` derives it on demand
from the value's defining op: static dims come from the type (always right), dynamic
ones from a rule of `FLOW`, keyed by the op's `infer=` kind in the registry, applied
to the operands' symbolic shapes and the op's attributes. An op without a rule, or a
rule that cannot tell, leaves the dim None (unknown), and an importer rule needing
that size reports the node: a guessed size would be a wrong program, not a slower
one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from xdsl.ir import OpResult, SSAValue

from ivy_ir.dialect import IvyOp
from ivy_ir.dialect.symbolic import SymDim
from ivy_ir.dialect.types import INT64_MAX, INT64_MIN

from .common import spec_of
from .dynamic import arange_count
from .onnx_dims import Dim

Shape = tuple[Dim, ...]
Flow = Callable[[list[Any], dict[str, Any]], list[Sequence[Dim]] | None]
"""`flow(operand shapes, attributes) -> result shapes`: operands as the spec groups
them (a shape, None for an absent optional operand, a list for a variadic one), the
attributes as `IvyOp.attr_values` gives them (axes non-negative)."""


def _first(ins: list[Any], a: dict[str, Any]) -> list[Sequence[Dim]]:
    """The result has the first operand's shape (elementwise on one tensor, softmax,
    casts, normalizations, cumulative scans)."""
    return [ins[0]]


def _broadcast(ins: list[Any], a: dict[str, Any]) -> list[Sequence[Dim]]:
    """NumPy broadcasting: per dim, the sizes other than 1 must agree; where the type
    is dynamic, every such size is dynamic, so one shared expression is the answer."""
    shapes = [s for s in ins if s is not None]
    rank = max(len(s) for s in shapes)
    out: list[Dim] = []
    for i in range(rank):
        dims = [s[len(s) - rank + i] for s in shapes if len(s) - rank + i >= 0]
        rest = {d for d in dims if not (isinstance(d, int) and d == 1)}
        out.append(rest.pop() if len(rest) == 1 else 1 if not rest else None)
    return [tuple(out)]


def _reduce(ins: list[Any], a: dict[str, Any]) -> list[Sequence[Dim]]:
    x = ins[0]
    axis = a["axis"]
    axes = set(range(len(x))) if axis is None else \
        {axis} if isinstance(axis, int) else set(axis)
    return [tuple(1 if i in axes else d for i, d in enumerate(x)
                  if a["keepdims"] or i not in axes)]


def _matmul(ins: list[Any], a: dict[str, Any]) -> list[Sequence[Dim]]:
    x, y = ins
    xs = (1, *x) if len(x) == 1 else tuple(x)
    ys = (*y, 1) if len(y) == 1 else tuple(y)
    shape = _broadcast([xs[:-2], ys[:-2]], {})[0] + (xs[-2], ys[-1])
    if len(x) == 1:
        shape = shape[:-2] + shape[-1:]
    if len(y) == 1:
        shape = shape[:-1]
    return [shape]


def _linear(ins: list[Any], a: dict[str, Any]) -> list[Sequence[Dim]]:
    return [tuple(ins[0][:-1]) + (ins[1][0],)]


def _permute(ins: list[Any], a: dict[str, Any]) -> list[Sequence[Dim]]:
    return [tuple(ins[0][i] for i in a["axes"])]


def _target(ins: list[Any], a: dict[str, Any]) -> list[Sequence[Dim]]:
    """reshape, broadcast_to, full, zeros, ones: the `shape` attribute (a -1 of a
    reshape is left unknown)."""
    return [tuple(None if isinstance(d, int) and d < 0 else d for d in a["shape"])]


def _expand_dims(ins: list[Any], a: dict[str, Any]) -> list[Sequence[Dim]]:
    dims = iter(ins[0])
    rank = len(ins[0]) + len(a["axis"])
    return [tuple(1 if i in a["axis"] else next(dims) for i in range(rank))]


def _squeeze(ins: list[Any], a: dict[str, Any]) -> list[Sequence[Dim]]:
    return [tuple(d for i, d in enumerate(ins[0]) if i not in a["axis"])]


def _concat(ins: list[Any], a: dict[str, Any]) -> list[Sequence[Dim]] | None:
    xs, ax = ins[0], a["axis"]
    if any(x[ax] is None for x in xs):
        return None
    total: int | SymDim = 0
    for x in xs:
        total = total + x[ax]
    first = list(xs[0])
    return [tuple(total if i == ax else d for i, d in enumerate(first))]


def _take(ins: list[Any], a: dict[str, Any]) -> list[Sequence[Dim]]:
    x, idx, ax = ins[0], ins[1], a["axis"]
    return [tuple(x[:ax]) + tuple(idx) + tuple(x[ax + 1:])]


def _split(ins: list[Any], a: dict[str, Any]) -> list[Sequence[Dim]]:
    x, ax = ins[0], a["axis"]
    return [tuple(x[:ax]) + (s,) + tuple(x[ax + 1:]) for s in a["sizes"]]


def _slice(ins: list[Any], a: dict[str, Any]) -> list[Sequence[Dim]]:
    """Only a dim sliced whole (`0:` or `:`, step 1) keeps its size; a partial slice of
    a dynamic dim is clamped when it runs, which no size expression can say."""
    whole = [b in (0, INT64_MIN) and e == INT64_MAX and s == 1
             for b, e, s in zip(a["start"], a["stop"], a["step"])]
    return [tuple(d if w else None for d, w in zip(ins[0], whole))]


def _batch(ins: list[Any], a: dict[str, Any]) -> list[Sequence[Dim]]:
    """Window ops (conv, pools, resizing) keep dim 0, the batch, in either layout; their
    other dims come from the type."""
    return [(ins[0][0],) + (None,) * (len(ins[0]) - 1)]


def _embedding(ins: list[Any], a: dict[str, Any]) -> list[Sequence[Dim]]:
    return [tuple(ins[0]) + tuple(ins[1][1:])]


def _attention(ins: list[Any], a: dict[str, Any]) -> list[Sequence[Dim]]:
    """(..., q_len, v_dim) over the broadcast batch dims of q, k and v."""
    q, k, v = ins[0], ins[1], ins[2]
    lead = _broadcast([q[:-2], k[:-2], v[:-2]], {})[0] if len(q) > 2 else ()
    return [tuple(lead) + (q[-2], v[-1])]


def _tile(ins: list[Any], a: dict[str, Any]) -> list[Sequence[Dim]]:
    reps = list(a["reps"])
    rank = max(len(ins[0]), len(reps))
    x = [1] * (rank - len(ins[0])) + list(ins[0])
    reps = [1] * (rank - len(reps)) + reps
    return [tuple(None if d is None else d * r for d, r in zip(x, reps))]


def _pad(ins: list[Any], a: dict[str, Any]) -> list[Sequence[Dim]]:
    w = a["pad_width"]
    return [tuple(None if d is None else d + w[2 * i] + w[2 * i + 1]
                  for i, d in enumerate(ins[0]))]


def _arange(ins: list[Any], a: dict[str, Any]) -> list[Sequence[Dim]]:
    """The count of an `arange` to a size (`Range(0, seq, 1)`: `seq`)."""
    return [(arange_count(a["start"], a["stop"], a["step"]),)]


FLOW: dict[str, Flow] = {
    **dict.fromkeys(("same", "abs", "astype", "like", "predicate", "matrix_same",
                     "square_same", "index_like", "scan", "roll", "norm", "channel_norm"),
                    _first),
    **dict.fromkeys(("binary", "compare", "where"), _broadcast),
    **dict.fromkeys(("reduce", "reduce_bool", "arg_reduce"), _reduce),
    **dict.fromkeys(("reshape", "broadcast_to", "shaped"), _target),
    **dict.fromkeys(("conv", "conv_transpose", "pool", "adaptive_pool", "interpolate"),
                    _batch),
    "matmul": _matmul, "linear": _linear, "permute_dims": _permute,
    "expand_dims": _expand_dims, "squeeze": _squeeze, "concat": _concat, "take": _take,
    "split": _split, "slice": _slice, "embedding": _embedding, "attention": _attention,
    "tile": _tile, "pad": _pad, "arange": _arange,
}
"""Registry `infer=` kind -> how the result dims of its ops follow from their operands'
(keyed by kind, not op name: the kind is what says how a shape is computed, and one
name, `scan`, is both a control-flow op and the kind of `cumsum`)."""


class SymShapes:
    """The symbolic shapes of the IR values of one import (memoized)."""

    def __init__(self) -> None:
        self._known: dict[SSAValue, Shape] = {}

    def bind(self, value: SSAValue, names: Sequence[str | None]) -> None:
        """An entry input: its named dims are those names' sizes."""
        shape = spec_of(value).shape
        self._known[value] = tuple(SymDim(n) if n else d for n, d in zip(names, shape))

    def of(self, value: SSAValue) -> Shape:
        """`value`'s shape with each dynamic dim's size expression (None: unknown).
        Operands are resolved first with an explicit stack, so a long chain of ops does
        not recurse."""
        stack = [value]
        while stack:
            top = stack[-1]
            if self._ready(top):
                stack.pop()
                continue
            pending = [o for o in _operands(top) if not self._ready(o)]
            if pending:
                stack.extend(pending)
                continue
            stack.pop()
            self._derive(top)
        return self._get(value)

    def _ready(self, value: SSAValue) -> bool:
        return value in self._known or None not in spec_of(value).shape

    def _get(self, value: SSAValue) -> Shape:
        return self._known.get(value) or spec_of(value).shape

    def _derive(self, value: SSAValue) -> None:
        """The shapes of every result of `value`'s op (one rule call for all)."""
        op = _op(value)
        flow = _flow(op)
        if op is None or flow is None:
            self._known[value] = spec_of(value).shape
            return
        groups = [None if g is None else [self._get(v) for v in g] if isinstance(g, list)
                  else self._get(g) for g in op.operand_groups()]
        shapes = flow(groups, op.attr_values())
        for i, result in enumerate(op.results):
            typed = spec_of(result).shape
            found = shapes[i] if shapes is not None and i < len(shapes) else None
            if found is None or len(found) != len(typed):
                found = (None,) * len(typed)
            self._known[result] = tuple(t if t is not None else d
                                        for t, d in zip(typed, found))


def _op(value: SSAValue) -> IvyOp | None:
    op = value.owner if isinstance(value, OpResult) else None
    return op if isinstance(op, IvyOp) else None


def _flow(op: IvyOp | None) -> Flow | None:
    return None if op is None else FLOW.get(op.SPEC.infer)


def _operands(value: SSAValue) -> list[SSAValue]:
    """The values `value`'s shape depends on (none for an argument, or an op whose dims
    have no rule)."""
    op = _op(value)
    return list(op.operands) if _flow(op) is not None else []
