"""What every importer shares about dynamic dims: reading the user's `dynamic=` and
turning a framework's printed size expression into an IR size (`SymDim`).

`dynamic=True` names dim 0 of every array argument `batch`; a dict names dims per
argument, `{"x": {0: "batch", 1: "seq"}}` (an argument's name or position -> axis ->
name). A name used twice is one size, which the framework's tracer then checks.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ivy_ir.core.errors import TraceError
from ivy_ir.dialect.symbolic import SymbolicError, SymDim, check_dim_names

CALLS = {"floordiv": ast.FloorDiv(), "mod": ast.Mod()}
"""Function-call spellings of integer division in printed sizes (JAX's `floordiv(a, b)`)."""


def requested(dynamic: Any, args: Sequence[Any], names: Sequence[str] | None,
              rank_of: Callable[[Any], int | None]) -> dict[tuple[int, int], str]:
    """(argument position, axis) -> dim name, from `dynamic=`; `rank_of(arg)` is an array
    argument's rank, None for other arguments."""
    if dynamic is True:
        return {(i, 0): "batch" for i, a in enumerate(args) if rank_of(a)}
    if not isinstance(dynamic, Mapping):
        raise TypeError("dynamic= must be True or a dict {input name or position: "
                        f"{{axis: dim name}}}}, not {type(dynamic).__name__}")
    out: dict[tuple[int, int], str] = {}
    for key, axes in dynamic.items():
        i = key if isinstance(key, int) else \
            (list(names).index(key) if names and key in names else None)
        rank = rank_of(args[i]) if i is not None and 0 <= i < len(args) else None
        if rank is None:
            labels = [repr(names[j]) if names and j < len(names) else str(j)
                      for j, a in enumerate(args) if rank_of(a) is not None]
            raise TypeError(f"dynamic=: {key!r} names no array argument (positional array "
                            f"arguments: {', '.join(labels)})")
        for axis, name in dict(axes).items():
            if not -rank <= axis < rank:
                raise TypeError(f"dynamic=: axis {axis} of {key!r} is out of range for "
                                f"rank {rank}")
            out[(i, axis % rank)] = name
    try:
        check_dim_names(out.values())
    except SymbolicError as exc:
        raise TypeError(f"dynamic=: {exc}") from None
    return out


def arange_count(start: Any, stop: Any, step: Any) -> int | SymDim | None:
    """The length of `arange(start, stop, step)` whose bounds may be sizes, ceil((stop -
    start) / step), for integer bounds and step (None otherwise): `arange(seq)` has
    `seq` elements. Sizes are taken to be non-negative, and so is this count."""
    ends = (start, stop, step)
    if any(not isinstance(v, SymDim) and int(v) != v for v in ends):
        return None
    lo, hi, by = (v if isinstance(v, SymDim) else int(v) for v in ends)
    span, stride = (hi - lo, by) if by > 0 else (lo - hi, -by)
    return (span + (stride - 1)) // stride


class _Calls(ast.NodeTransformer):
    def visit_Call(self, node: ast.Call) -> ast.AST:  # noqa: N802 (the visitor protocol)
        self.generic_visit(node)
        name = node.func.id if isinstance(node.func, ast.Name) else None
        if name in CALLS and len(node.args) == 2 and not node.keywords:
            return ast.BinOp(node.args[0], CALLS[name], node.args[1])
        return node


def size_from_text(text: str, rename: Callable[[str], str] = lambda n: n) -> SymDim:
    """The IR size of a framework's printed size expression (`2*batch`,
    `floordiv(batch*seq, 2)`), each name passed through `rename`. Raises TraceError
    beyond + - * // %."""
    try:
        tree = _Calls().visit(ast.parse(text.strip(), mode="eval"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and node.id not in CALLS:
                node.id = rename(node.id)
        return SymDim(ast.unparse(tree))
    except (SyntaxError, SymbolicError):
        raise TraceError(f"the size {text} is beyond the IR's size arithmetic "
                         "(+, -, *, //, % of dims)") from None
