"""Names for every dynamic dim: each value's shape over the entry's dim names.

A tensor type says `?` for a size known only when the program runs; which size it is
(`batch`, `2 * batch`, `batch * seq`) follows from the inputs' declared dims
(`{ivy.dims}`) through the ops. `flow(module)` computes it, op after op: a rule per
inference family (broadcasting, reductions, reshape with its inferred entry, concat's
sum, matmul's contraction, slices, convolutions) over `Poly` sizes; an op no rule
covers gives its static sizes and, for each `?`, a fresh anonymous size (`?3`), which
equals only itself and constrains nothing.

Where two sizes must agree (broadcast operands, a contraction, concat's other axes, a
reshape keeping the element count), the flow checks that they can: two different dims
(`batch` against `seq`), or a dim against a fixed size other than 1, mean the program
only runs when those happen to be equal, which a symbolic dim promises not to need.
Those are reported as `DimError`s naming the op; the verifier raises the first.
Floor divisions and remainders have no canonical form, so sizes holding them are never
reported unequal.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from xdsl.ir import Operation, SSAValue
from xdsl.utils.exceptions import VerifyException

from ..dialect import IvyOp, TensorSpec
from ..dialect.dtypes import INT64_MAX
from ..dialect.ops import location_text
from ..dialect.symbolic import SymDim
from .size_poly import Poly

Shape = tuple[Poly, ...]
ANONYMOUS = "?"
"""The prefix of a fresh size's name (no dim name can start so)."""


class DimError(VerifyException):
    """Sizes an op needs equal that a symbolic dim lets differ; `op` is that op."""

    def __init__(self, message: str, op: Operation):
        super().__init__(message)
        self.op = op


@dataclass
class DimFlow:
    """Each value's shape in sizes over the dim names, and what contradicts them."""

    shapes: dict[SSAValue, Shape] = field(default_factory=dict)
    errors: list[DimError] = field(default_factory=list)
    _fresh: int = 0

    def shape(self, value: SSAValue) -> Shape:
        if value not in self.shapes:
            self.shapes[value] = self.static(TensorSpec.from_xdsl(value.type).shape)
        return self.shapes[value]

    def static(self, dims: Sequence[int | None]) -> Shape:
        return tuple(Poly.of(d) if d is not None else self.fresh() for d in dims)

    def fresh(self) -> Poly:
        self._fresh += 1
        return Poly.of(f"{ANONYMOUS}{self._fresh}")

    def visit(self, op: Operation) -> None:
        """Give `op`'s results their shapes (its operands' are known or static)."""
        _step(self, op)

    def sizes(self, value: SSAValue) -> tuple[int | SymDim | None, ...]:
        """The value's shape as a tracer reports it: ints, `SymDim`s over the dim names,
        None for a size nothing names."""
        return tuple(None if anonymous(d) else d.sym() for d in self.shape(value))

    def text(self, value: SSAValue) -> str:
        """`batch x 16` style: how the value's shape reads."""
        return " x ".join(str(d) for d in self.shape(value)) or "scalar"


def anonymous(size: Poly) -> bool:
    return any(n.startswith(ANONYMOUS) for n in size.names)


def _informative(size: Poly) -> int:
    """A plain expression over dim names, over one with floor divisions, over a fresh size."""
    return 0 if anonymous(size) else 1 if size.divides else 2


def flow(entry: Any, dims_of_args: Sequence[Sequence[str | None]]) -> DimFlow:
    """The shapes of every value in `entry` (a func.func), its arguments' dims named as
    given (one tuple per argument, empty for an argument with none declared)."""
    out = DimFlow()
    for arg, dims in zip(entry.body.block.args, dims_of_args):
        static = TensorSpec.from_xdsl(arg.type).shape
        out.shapes[arg] = tuple(Poly.of(n) if n else
                                (Poly.of(s) if s is not None else out.fresh())
                                for n, s in zip(dims or (None,) * len(static), static))
    for op in entry.body.block.ops:
        out.visit(op)
    return out


def _step(out: DimFlow, op: Operation) -> None:
    rule = RULES.get(op.SPEC.infer) if isinstance(op, IvyOp) else None
    got: list[Shape] | None = None
    if rule is not None:
        ins = [out.shape(v) for v in op.operands]
        check = _Checker(out, op)
        got = rule(ins, op.attr_values(), check)
    for i, result in enumerate(op.results):
        static = TensorSpec.from_xdsl(result.type).shape
        mine = got[i] if got is not None and i < len(got) and len(got[i]) == len(static) \
            else None
        out.shapes[result] = tuple(
            Poly.of(s) if s is not None else (mine[k] if mine is not None else out.fresh())
            for k, s in enumerate(static))


class _Checker:
    """Records where two sizes an op needs equal may differ."""

    def __init__(self, out: DimFlow, op: Operation):
        self.out, self.op = out, op

    def same(self, a: Poly, b: Poly, why: str) -> Poly:
        """The size both stand for; an error where they can differ. Floor divisions and
        remainders have no canonical form (torch's `(h - 1) // 4` is our
        `((h - 2) // 2 - 2) // 2 + 1`), so sizes with them are taken as equal."""
        if a == b:
            return a
        if anonymous(a) or anonymous(b) or a.divides or b.divides:
            return max((a, b), key=_informative)  # undecidable: keep what says most
        hint = ("keep that dim static: the program fixes its size" if
                a.constant is not None or b.constant is not None else
                "give dims that must agree one name")
        where = location_text(self.op.location)
        tag = f"{self.op.name}{f' at {where}' if where else ''}"
        self.out.errors.append(DimError(
            f"{tag}: {why} needs {a} == {b}, which the dynamic dims "
            f"{', '.join(sorted(a.names | b.names))} do not promise ({hint})", self.op))
        return a

    def broadcast(self, shapes: Sequence[Shape]) -> Shape:
        rank = max((len(s) for s in shapes), default=0)
        out: list[Poly] = []
        for k in range(rank):
            sizes = [s[len(s) - rank + k] for s in shapes if len(s) - rank + k >= 0]
            size = Poly.of(1)
            for d in sizes:
                if d.constant == 1:
                    continue
                size = d if size.constant == 1 else self.same(size, d, "broadcasting")
            out.append(size)
        return tuple(out)


Rule = Callable[[list[Shape], dict[str, Any], _Checker], list[Shape] | None]


def _same(ins: list[Shape], a: dict[str, Any], c: _Checker) -> list[Shape]:
    return [ins[0]]


def _broadcast(ins: list[Shape], a: dict[str, Any], c: _Checker) -> list[Shape]:
    return [c.broadcast(ins)]


def _reduce(ins: list[Shape], a: dict[str, Any], c: _Checker) -> list[Shape]:
    axes = a.get("axis")
    axes = set(range(len(ins[0]))) if axes is None else \
        {axes} if isinstance(axes, int) else set(axes)
    if a.get("keepdims"):
        return [tuple(Poly.of(1) if k in axes else d for k, d in enumerate(ins[0]))]
    return [tuple(d for k, d in enumerate(ins[0]) if k not in axes)]


def _sizes(values: Sequence[Any]) -> Shape:
    return tuple(Poly.of(v) for v in values)


def _shaped(ins: list[Shape], a: dict[str, Any], c: _Checker) -> list[Shape]:
    return [_sizes(a["shape"])]


def _reshape(ins: list[Shape], a: dict[str, Any], c: _Checker) -> list[Shape]:
    total = math.prod(ins[0], start=Poly.of(1))
    target = list(a["shape"])
    known = math.prod((Poly.of(d) for d in target if d != -1), start=Poly.of(1))
    if -1 in target:
        target[target.index(-1)] = total // known
    elif not (anonymous(total) or anonymous(known)):
        c.same(total, known, "reshape (the element count)")  # floor divisions: unchecked
    return [_sizes(target)]


def _permute(ins: list[Shape], a: dict[str, Any], c: _Checker) -> list[Shape]:
    return [tuple(ins[0][k] for k in a["axes"])]


def _expand(ins: list[Shape], a: dict[str, Any], c: _Checker) -> list[Shape]:
    dims = list(ins[0])
    for k in sorted(a["axis"]):
        dims.insert(k, Poly.of(1))
    return [tuple(dims)]


def _squeeze(ins: list[Shape], a: dict[str, Any], c: _Checker) -> list[Shape]:
    return [tuple(d for k, d in enumerate(ins[0]) if k not in set(a["axis"]))]


def _concat(ins: list[Shape], a: dict[str, Any], c: _Checker) -> list[Shape]:
    axis = a["axis"]
    dims = list(ins[0])
    for other in ins[1:]:
        dims[axis] = dims[axis] + other[axis]
        for k, d in enumerate(other):
            if k != axis:
                dims[k] = c.same(dims[k], d, f"concat along axis {axis}")
    return [tuple(dims)]


def _arange(ins: list[Shape], a: dict[str, Any], c: _Checker) -> list[Shape] | None:
    """`arange(start, seq)` with unit steps: `seq - start` values."""
    start, stop = a["start"], a["stop"]
    if a["step"] != 1 or isinstance(start, SymDim) or start != int(start) or start < 0:
        return None
    return [(Poly.of(stop) - int(start),)] if isinstance(stop, SymDim) else None


def _batch_passes(ins: list[Shape], a: dict[str, Any], c: _Checker) -> list[Shape]:
    """Ops whose other sizes are attributes (adaptive pooling, resizing to a size)."""
    return [(ins[0][0], *(c.out.fresh() for _ in ins[0][1:]))]


def _split(ins: list[Shape], a: dict[str, Any], c: _Checker) -> list[Shape]:
    axis, x = a["axis"], ins[0]
    return [(*x[:axis], Poly.of(n), *x[axis + 1:]) for n in a["sizes"]]


def _stack(ins: list[Shape], a: dict[str, Any], c: _Checker) -> list[Shape]:
    dims = list(c.broadcast(ins)) if all(len(s) == len(ins[0]) for s in ins) else list(ins[0])
    dims.insert(a["axis"], Poly.of(len(ins)))
    return [tuple(dims)]


def _matmul(ins: list[Shape], a: dict[str, Any], c: _Checker) -> list[Shape]:
    x, y = ins
    if len(x) < 2 or len(y) < 2:
        return None  # vector products: the static inference's sizes
    c.same(x[-1], y[-2], "matmul's contraction")
    return [(*c.broadcast([x[:-2], y[:-2]]), x[-2], y[-1])]


def _linear(ins: list[Shape], a: dict[str, Any], c: _Checker) -> list[Shape]:
    x, w = ins[0], ins[1]
    c.same(x[-1], w[-1], "linear's contraction")
    return [(*x[:-1], w[0])]


def _slice(ins: list[Shape], a: dict[str, Any], c: _Checker) -> list[Shape]:
    dims = []
    for d, start, stop, step in zip(ins[0], a["start"], a["stop"], a["step"]):
        if (start, stop, step) == (0, INT64_MAX, 1):
            dims.append(d)
        elif step == 1 and start >= 0 and isinstance(stop, SymDim):
            dims.append(Poly.of(stop) - start)  # `x[:, :seq]`, in range by construction
        elif step == 1 and start >= 0 and stop == INT64_MAX:
            dims.append(d - start)
        else:  # clamped to the input's size: known statically or not at all
            dims.append(c.out.fresh())
    return [tuple(dims)]


def _take(ins: list[Shape], a: dict[str, Any], c: _Checker) -> list[Shape]:
    axis = a["axis"]
    return [(*ins[0][:axis], *ins[1], *ins[0][axis + 1:])]


def _embedding(ins: list[Shape], a: dict[str, Any], c: _Checker) -> list[Shape]:
    return [(*ins[0], *ins[1][1:])]


def _attention(ins: list[Shape], a: dict[str, Any], c: _Checker) -> list[Shape]:
    q, k, v = ins[:3]
    c.same(q[-1], k[-1], "attention's query-key contraction")
    c.same(k[-2], v[-2], "attention's keys and values")
    return [(*q[:-1], v[-1])]


def _window(ins: list[Shape], a: dict[str, Any], c: _Checker) -> list[Shape]:
    """conv/pool: the batch passes; each spatial size is the window count
    `(size + padding - span) // stride + 1` (padding interleaved low, high per axis)."""
    x, first = ins[0], a["layout"] == "channels_first"
    spatial = x[2:] if first else x[1:-1]
    kernel = a.get("kernel") or [k.constant for k in (ins[1][2:] if first else ins[1][:-2])]
    sizes = [c.out.fresh() for _ in spatial]
    if None not in kernel and not a.get("ceil_mode"):
        dilations, pads = a.get("dilations") or (1,) * len(spatial), a["padding"]
        sizes = [(d + pads[2 * i] + pads[2 * i + 1] - dl * (k - 1) - 1) // s + 1
                 for i, (d, k, s, dl) in enumerate(zip(spatial, kernel, a["strides"],
                                                       dilations))]
    channels = c.out.fresh()  # the static type's, which the result keeps
    return [(x[0], channels, *sizes) if first else (x[0], *sizes, channels)]


RULES: dict[str, Rule] = {
    **dict.fromkeys(("same", "like", "abs", "square_same", "astype", "norm", "channel_norm",
                     "scan", "predicate", "index_like"), _same),
    **dict.fromkeys(("binary", "compare", "where"), _broadcast),
    **dict.fromkeys(("reduce", "reduce_bool", "arg_reduce"), _reduce),
    **dict.fromkeys(("shaped", "random", "broadcast_to"), _shaped),
    "reshape": _reshape, "permute_dims": _permute, "expand_dims": _expand,
    "squeeze": _squeeze, "concat": _concat, "split": _split, "stack": _stack, "matmul": _matmul,
    "linear": _linear, "slice": _slice, "take": _take, "embedding": _embedding,
    "attention": _attention, "conv": _window, "pool": _window,
    "adaptive_pool": _batch_passes, "interpolate": _batch_passes, "arange": _arange,
}
"""Symbolic rules by the op's inference family (`infer=` in ops.spec)."""


def of_module(module: Any) -> DimFlow:
    """`flow` of a `Module`'s entry, with the dims its arguments declare."""
    return flow(module.entry, [a.dims for a in module.args()])


def annotated(text: str, module: Any) -> str:
    """`text` (the module as printed) with each entry op that has a dynamic size
    followed by a comment of its results' shapes, `// batch x seq x 16`, and the dims'
    symbol table above the function. Comments, so the text still parses as it was."""
    f = of_module(module)
    lines = text.split("\n")
    header = f"  func.func @{module.entry.sym_name.data}("
    start = next((i for i, line in enumerate(lines) if line.startswith(header)), None)
    if start is None:
        return text
    ops = iter(module.entry.body.block.ops)
    for i in range(start + 1, len(lines)):
        line = lines[i]
        if line == "  }":
            break
        if line.startswith("    ") and line[4] not in " }":  # an entry op's first line
            op = next(ops, None)
            if op is not None and any(None in TensorSpec.from_xdsl(r.type).shape
                                      for r in op.results):
                lines[i] = f"{line}  // {', '.join(f.text(r) for r in op.results)}"
    table = ", ".join(f"{name} = input {arg} dim {axis}"
                      for name, (arg, axis) in module.dims.items())
    lines[start] = f"  // dims: {table}\n{lines[start]}"
    return "\n".join(lines)
