"""ONNX sequences (`Sequence*`, `SplitToSequence`, `ConcatFromSequence`) as import-time
lists of IR values.

The IR has tensors only, and a sequence whose length and positions are known when the
model is imported needs nothing more: it is an `onnx_ctx.Seq` (a tuple of values),
and these rules edit that tuple. `SequenceLength` is then a constant, `SequenceAt` the
value itself, `ConcatFromSequence` one `concat` or `stack`. A position or split that
is traced (computed from data) has no such form and is reported, naming the graph
inputs it depends on (`Ctx.static`), like any value the registry needs at import.

Sequences cross the program's edge flattened: a sequence-typed graph input given as a
list of n arrays is n IR inputs, a sequence output as many results as it has tensors,
and `SequenceCall` (the program's `Module.tree`) turns a call's lists into those flat
inputs and the flat results back into lists; another length is another program (an
optional's presence is decided the same way: `onnx_optional`).
A `Loop` carrying a sequence is reported: each iteration may change the sequence's
length, which no region op can carry, and loops are never unrolled at import
(DESIGN.md). `rule_for` sends a sequence reaching any other operator to the report.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .common import Rule, Unmapped
from .onnx_ctx import Ctx, Seq
from .onnx_optional import ABSENT, Form


def _items(seq: Any) -> tuple[Any, ...]:
    """A sequence input's tensors (a model may wire a tensor there: reported)."""
    if not isinstance(seq, Seq):
        raise Unmapped("input 0 is a tensor where a sequence is expected")
    return seq.items


def _position(c: Ctx, position: Any, n: int, *, end: bool) -> int:
    """A known position in [-n, n - 1] (`end`: [-n, n], n being past the last tensor)
    as an index from the front."""
    values = c.ints(position, "the position")
    if len(values) != 1:
        raise Unmapped(f"a position of {len(values)} elements")
    pos = values[0]
    if not -n <= pos <= n - (not end):
        raise Unmapped(f"position {pos} is outside a sequence of {n} tensors")
    return pos + n if pos < 0 else pos


def _dtype_of(c: Ctx, seq: Seq, tensor: Any) -> str:
    """The element dtype after adding `tensor` (a sequence holds one dtype)."""
    dtype = c.spec(tensor).dtype
    if seq.dtype is not None and dtype != seq.dtype:
        raise Unmapped(f"a {dtype} tensor joins a sequence of {seq.dtype}")
    return dtype


def _empty(c: Ctx, dtype: int = 1) -> Seq:
    """No tensors, of `dtype` (ONNX's default: float32), which later inserts must have."""
    return Seq((), c.dtype(dtype))


def _construct(c: Ctx, first: Any, *rest: Any) -> Seq:
    seq = Seq((first,), c.spec(first).dtype)
    for tensor in rest:
        seq = Seq((*seq.items, tensor), _dtype_of(c, seq, tensor))
    return seq


def _insert(c: Ctx, seq: Any, tensor: Any, position: Any = None) -> Seq:
    items = list(_items(seq))
    at = len(items) if position is None else _position(c, position, len(items), end=True)
    dtype = _dtype_of(c, seq, tensor)
    items.insert(at, tensor)
    return Seq(tuple(items), dtype)


def _at(c: Ctx, seq: Any, position: Any) -> Any:
    items = _items(seq)
    return items[_position(c, position, len(items), end=False)]


def _erase(c: Ctx, seq: Any, position: Any = None) -> Seq:
    items = list(_items(seq))
    if not items:
        raise Unmapped("SequenceErase of an empty sequence")
    del items[-1 if position is None else _position(c, position, len(items), end=False)]
    return Seq(tuple(items), seq.dtype)


def _length(c: Ctx, seq: Any) -> np.ndarray:
    return np.asarray(len(_items(seq)), np.int64)


def _split_to_sequence(c: Ctx, x: Any, split: Any = None, *, axis: int = 0,
                       keepdims: int = 1) -> Seq:
    """Pieces of `split` sizes (a scalar: pieces of that size, the last one smaller),
    else of size 1, squeezed with `keepdims=0`. The piece count must be known, so a
    dynamic dim is split only by explicit sizes."""
    spec = c.spec(x)
    axis = axis + spec.rank if axis < 0 else axis
    if not 0 <= axis < spec.rank:
        raise Unmapped(f"axis {axis} is outside a rank-{spec.rank} input")
    dim = spec.shape[axis]
    sizes = None if split is None else c.static(split, "the split")
    if sizes is None or sizes.ndim == 0:
        if dim is None:
            raise Unmapped("SplitToSequence of a dynamic dim into pieces of one size: the "
                           "sequence's length is the dim's size, known only when called")
        step = 1 if sizes is None else int(sizes)
        if step <= 0:
            raise Unmapped(f"a split size of {step}")
        lengths = [min(step, dim - k) for k in range(0, dim, step)]
    else:
        lengths = [int(v) for v in sizes.ravel()]
        if any(v < 0 for v in lengths) or (dim is not None and sum(lengths) != dim):
            raise Unmapped(f"split sizes {lengths} do not add up to the dim ({dim})")
    if not lengths:
        return Seq((), spec.dtype)
    pieces = c.emit_all("split", x, sizes=lengths, axis=axis)
    if split is None and not keepdims:
        pieces = [c.emit("squeeze", p, axis=[axis]) for p in pieces]
    return Seq(tuple(pieces), spec.dtype)


def _concat_from_sequence(c: Ctx, seq: Any, *, axis: int, new_axis: int = 0) -> Any:
    """`stack` (`new_axis=1`, the axis counted in the result's rank) or `concat`."""
    items = _items(seq)
    if not items:
        raise Unmapped("ConcatFromSequence of an empty sequence has no result type")
    return c.emit("stack" if new_axis else "concat", list(items), axis=axis)


def _map(c: Ctx, seq: Any, *extra: Any, body: Any) -> list[Seq]:
    """The body walked once per position, with the tensors of the input sequences at
    that position and the other inputs whole; each body output a sequence."""
    items = _items(seq)
    for k, value in enumerate(extra, 1):
        if isinstance(value, Seq) and len(value.items) != len(items):
            raise Unmapped(f"input {k} has {len(value.items)} tensors, input 0 {len(items)}")
    outs: list[list[Any]] = [[] for _ in body.output]
    for i, item in enumerate(items):
        args = [item, *(v.items[i] if isinstance(v, Seq) else v for v in extra)]
        for out, value in zip(outs, c.subgraph(body, args)):
            out.append(value)
    dtypes = [info.type.tensor_type.elem_type for info in body.output]
    return [Seq(tuple(out), c.spec(out[0]).dtype if out else c.dtype(d) if d else None)
            for out, d in zip(outs, dtypes)]


def _identity(c: Ctx, x: Any) -> Any:
    return x


TABLE: dict[str, Rule] = {
    "SequenceEmpty": _empty, "SequenceConstruct": _construct, "SequenceInsert": _insert,
    "SequenceAt": _at, "SequenceErase": _erase, "SequenceLength": _length,
    "SplitToSequence": _split_to_sequence, "ConcatFromSequence": _concat_from_sequence,
    "SequenceMap": _map,
}
"""ONNX op_type -> rule for the sequence family."""

ON_SEQUENCES: dict[str, Rule] = {"Identity": _identity}
"""Operators of other families that also take sequences, with the rule for a node one
of whose inputs is a sequence (`rule_for`)."""


def rule_for(op_type: str, domain: str, inputs: Sequence[Any]) -> Rule | None:
    """The rule for a node some of whose inputs are sequences when it is not the
    ordinary one (`ON_SEQUENCES`), or None; `Unmapped` for an operator that takes
    tensors only."""
    if not any(isinstance(v, Seq) for v in inputs) or (not domain and op_type in TABLE):
        return None
    if not domain and op_type in ON_SEQUENCES:
        return ON_SEQUENCES[op_type]
    k = next(i for i, v in enumerate(inputs) if isinstance(v, Seq))
    raise Unmapped(f"input {k} is a sequence, which this operator does not take")


@dataclass(frozen=True)
class SequenceCall:
    """A program's call with sequences or optionals (`Module.tree`): `inputs` and
    `outputs` hold, per program input (graph inputs fixed at import left out) and per
    graph output, its `onnx_optional.Form`: None for a tensor, the length of a
    sequence, `ABSENT` for an empty optional (None in the call); `names` the inputs'
    names, for keyword calls. The program's own inputs and results are those tensors
    in order."""

    names: tuple[str, ...]
    inputs: tuple[Form, ...]
    outputs: tuple[Form, ...]

    def flatten(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any] | None:
        """The tensors of a call in program order; None for another structure (other
        sequence lengths, an optional's other presence)."""
        values = list(args) + [kwargs[n] for n in self.names[len(args):] if n in kwargs]
        if len(values) != len(self.inputs) or len(args) + len(kwargs) != len(values):
            return None
        flat: list[Any] = []
        for value, n in zip(values, self.inputs):
            listed = isinstance(value, (list, tuple))
            if (value is None) != (n == ABSENT) or listed != isinstance(n, int) or (
                    listed and len(value) != n):
                return None
            flat += list(value) if listed else [] if value is None else [value]
        return flat

    def unflatten(self, outs: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """The graph's outputs, a sequence as a list, an empty optional as None; one
        output alone, else a tuple."""
        flat = iter(outs if isinstance(outs, (tuple, list)) else (outs,))
        grouped = [None if n == ABSENT else next(flat) if n is None else
                   [next(flat) for _ in range(n)] for n in self.outputs]
        return grouped[0] if len(grouped) == 1 else tuple(grouped)

    def examples(self, args: tuple[Any, ...], kwargs: dict[str, Any]
                 ) -> tuple[tuple[Any, ...], dict[str, Any]]:
        return args, kwargs
