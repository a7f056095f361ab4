"""Symbolic dimensions: sizes known only when a program runs (a batch, a sequence).

A dynamic dim is `?` in a tensor type; where a size enters an attribute (a reshape
target, a broadcast shape, the shape of a `full`), a dynamic one is a `SymDim`: an
integer expression over the names of the entry's dynamic input dims (`batch`,
`batch * seq`, `(seq - 1) // 2 + 1`). The entry function declares those names on its
arguments (`{ivy.dims = ["batch", ""]}`: dim 0 of that argument is `batch`), so
every expression can be evaluated once the inputs are there: lowerings bind each name
to the input's size at the top of the generated function and print the expressions as
code. Only `+`, `-`, `*`, `//` and `%` on names and integer literals are allowed:
enough for what shape arithmetic in models computes, and closed under what every
target's integer arithmetic means (floor division and modulo on Python ints, torch
SymInts and TF int32 scalars alike).
"""

from __future__ import annotations

import ast
import keyword
import operator
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

BINARY: dict[type, Callable[[int, int], int]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
}
NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*\Z")
PREFIX = "_dim_"
"""What a dim's name is bound as in generated code: no SSA value name starts so."""


class SymbolicError(ValueError):
    """A symbolic size expression outside the allowed arithmetic, or a dim name that is
    not an identifier."""


def _check(node: ast.AST) -> None:
    if isinstance(node, ast.BinOp) and type(node.op) in BINARY:
        _check(node.left)
        _check(node.right)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        _check(node.operand)
    elif isinstance(node, ast.Constant) and type(node.value) is int:
        pass
    elif not isinstance(node, ast.Name):
        raise SymbolicError(f"'{ast.unparse(node)}' is not integer arithmetic on dim names "
                            "(+, -, *, //, % of names and integers)")


def _parse(text: str) -> ast.expr:
    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        raise SymbolicError(f"'{text}' is not a size expression") from None
    _check(tree)
    return tree


class SizeArithmetic:
    """The integer operators of a size, either operand first, each one call of
    `_combine(other, op, flip)` with `op` the Python operator's symbol: shared by the
    IR's size expressions and what computes them in a target (ONNX graph sizes)."""

    def _combine(self, other: Any, op: str, flip: bool = False) -> Any:
        raise NotImplementedError

    def __add__(self, o: Any) -> Any:
        return self._combine(o, "+")

    def __radd__(self, o: Any) -> Any:
        return self._combine(o, "+", True)

    def __sub__(self, o: Any) -> Any:
        return self._combine(o, "-")

    def __rsub__(self, o: Any) -> Any:
        return self._combine(o, "-", True)

    def __mul__(self, o: Any) -> Any:
        return self._combine(o, "*")

    def __rmul__(self, o: Any) -> Any:
        return self._combine(o, "*", True)

    def __floordiv__(self, o: Any) -> Any:
        return self._combine(o, "//")

    def __rfloordiv__(self, o: Any) -> Any:
        return self._combine(o, "//", True)

    def __mod__(self, o: Any) -> Any:
        return self._combine(o, "%")

    def __rmod__(self, o: Any) -> Any:
        return self._combine(o, "%", True)


@dataclass(frozen=True)
class SymDim(SizeArithmetic):
    """One dynamic size: `expr` is its canonical text (`ast.unparse` of the parse)."""

    expr: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "expr", ast.unparse(_parse(self.expr)))

    @property
    def names(self) -> frozenset[str]:
        return frozenset(n.id for n in ast.walk(_parse(self.expr)) if isinstance(n, ast.Name))

    def evaluate(self, sizes: Mapping[str, Any]) -> Any:
        """The size for the given dim sizes (ints, or a framework's scalar sizes)."""
        def run(node: ast.AST) -> Any:
            if isinstance(node, ast.BinOp):
                return BINARY[type(node.op)](run(node.left), run(node.right))
            if isinstance(node, ast.UnaryOp):
                return -run(node.operand)
            if isinstance(node, ast.Constant):
                return node.value
            if node.id not in sizes:
                raise SymbolicError(f"size '{self.expr}' names '{node.id}', which no input "
                                    "dim declares")
            return sizes[node.id]
        return run(_parse(self.expr))

    def python(self) -> str:
        """Source text for generated code, each name as its `PREFIX`ed binding."""
        tree = _parse(self.expr)
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                node.id = PREFIX + node.id
        return f"({ast.unparse(tree)})"

    def _combine(self, other: Any, op: str, flip: bool = False) -> SymDim | int:
        if not isinstance(other, (int, SymDim)) or isinstance(other, bool):
            return NotImplemented
        a, b = (other, self) if flip else (self, other)
        if (op in "+-" and b == 0) or (op in ("*", "//") and b == 1):
            return a
        if op == "+" and a == 0 or op == "*" and a == 1:
            return b
        return SymDim(f"({_text(a)}) {op} ({_text(b)})")

    def __neg__(self) -> SymDim:
        return SymDim(f"-({self.expr})")

    def __index__(self) -> int:
        raise SymbolicError(f"the dynamic size '{self.expr}' has no value while tracing: "
                            "only shape arithmetic (+, -, *, //, %) may use it")

    def __bool__(self) -> bool:
        raise SymbolicError(f"the dynamic size '{self.expr}' has no value while tracing, so "
                            "no Python branch can test it")

    def __str__(self) -> str:
        return self.expr


def _text(v: int | SymDim) -> str:
    return v.expr if isinstance(v, SymDim) else str(v)


def size_entry(value: Any) -> int | SymDim:
    """An attribute's size entry: an int, or a `SymDim` (from one, or from its text)."""
    if isinstance(value, SymDim):
        return value
    if isinstance(value, str):
        return SymDim(value)
    return value


def sym_dims(value: Any) -> list[SymDim]:
    """The symbolic sizes in a size-kind attribute's value (a shape, or one bound)."""
    return [d for d in (value if isinstance(value, tuple) else (value,))
            if isinstance(d, SymDim)]


def is_dim_name(name: str) -> bool:
    """An identifier that is no Python keyword (size expressions parse as Python)."""
    return bool(NAME.match(name)) and not keyword.iskeyword(name) and \
        name not in ("None", "True", "False")


def check_dim_names(names: Iterable[str | None]) -> None:
    for name in names:
        if name is not None and not is_dim_name(name):
            raise SymbolicError(f"dim name {name!r} is not an identifier (or is a Python "
                                "keyword)")
