"""Dynamic dims through `torch.export`: `ivy_ir.compile(m, args=..., dynamic=...)`.

The user names dims (`dynamic={"x": {0: "batch", 1: "seq"}}`, keys an input's name or
position, or `dynamic=True`: dim 0 of every tensor input is `batch`); the export marks
each `Dim.DYNAMIC`, so torch traces the model once with symbolic sizes and checks that
the code does not specialize them. In the exported graph every size is then
a SymInt whose expression is over torch's own symbols (`s0`, `s0*s1`, `(s0//2)`):
`DimNames` renames those symbols to the user's names and turns each expression into an
IR size (`ivy_ir.dialect.symbolic.SymDim`), for input types (`{ivy.dims}`) and for the
shape attributes that rules take from torch's recorded result shapes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from ivy_ir.core.errors import TraceError
from ivy_ir.dialect.symbolic import SymDim

from .dynamic import requested as dynamic_dims
from .dynamic import size_from_text


def requested(dynamic: Any, args: Sequence[Any], names: Sequence[str] | None
              ) -> dict[tuple[int, int], str]:
    """(argument position, axis) -> dim name, from `dynamic=`."""
    return dynamic_dims(dynamic, args, names,
                        lambda a: a.dim() if isinstance(a, torch.Tensor) else None)


def export_shapes(wanted: dict[tuple[int, int], str], args: Sequence[Any]) -> tuple[Any, ...]:
    """`torch.export`'s `dynamic_shapes` for the positional arguments: each named dim
    `Dim.DYNAMIC`, so torch infers its range from the code (a position table's length
    bounds a sequence) and refuses code that fixes it; the names are ours (`DimNames`),
    and inputs naming one dim alike are checked equal when called."""
    spec: list[Any] = [None] * len(args)
    for i, axis in wanted:
        spec[i] = {**(spec[i] or {}), axis: torch.export.Dim.DYNAMIC}
    return tuple(spec)


def widened(args: tuple[Any, ...], wanted: dict[tuple[int, int], str]) -> tuple[Any, ...]:
    """The example arguments with each dynamic dim of size 0 or 1 made 2: torch.export
    specializes those sizes (broadcasting would be ambiguous), which would contradict the
    dim being dynamic. A size-1 example is repeated, an empty one filled with zeros."""
    out = list(args)
    for (i, axis), _ in wanted.items():
        x = out[i]
        if x.shape[axis] == 1:
            out[i] = x.expand(*[2 if a == axis else -1 for a in range(x.dim())]).contiguous()
        elif x.shape[axis] == 0:
            out[i] = x.new_zeros([2 if a == axis else d for a, d in enumerate(x.shape)])
    return tuple(out)


class DimNames:
    """torch's shape symbols renamed to the user's dim names."""

    def __init__(self, wanted: dict[tuple[int, int], str]):
        self.wanted = wanted
        self.names: dict[str, str] = {}

    def bind_input(self, position: int, val: torch.Tensor) -> tuple[str | None, ...]:
        """The dim names of input `position` (None for a static dim), learning which
        torch symbol each dynamic one is."""
        out: list[str | None] = []
        for axis, d in enumerate(val.shape):
            if isinstance(d, int):
                out.append(None)
                continue
            symbol = str(d.node.expr)
            name = self.names.setdefault(symbol, self.wanted.get((position, axis),
                                                                 f"dim{len(self.names)}"))
            out.append(name)
        return tuple(out)

    def size(self, d: Any) -> int | SymDim:
        """An IR size for a torch size (an int, or a SymInt over the bound symbols)."""
        if isinstance(d, int):
            return d
        if isinstance(d, torch.SymInt) and d.node.expr.is_number:
            return int(d.node.expr)
        text = str(d.node.expr) if isinstance(d, torch.SymInt) else str(d)
        return size_from_text(text, lambda symbol: self._name(symbol, text))

    def _name(self, symbol: str, text: str) -> str:
        if symbol not in self.names:
            raise TraceError(f"the size {text} depends on {symbol}, which is no dynamic dim "
                             "of an input (a data-dependent size)")
        return self.names[symbol]

    def sizes(self, val: Any) -> tuple[int | SymDim, ...]:
        return tuple(self.size(d) for d in val.shape)
