"""The state of one program being emitted, and each op's expression as a Python AST.

A rule renders an op as one expression of the target's API (`ivy_ir.core.rules`); the
emitter parses it into an `ast.expr` and from then on works on code as data: it binds
results with `ast.Assign`, adds `out=` keywords to calls, nests expressions of fused
groups and drops dead names with `ast.Delete`, and `ast.unparse` writes the source.
Nothing from the IR is pasted into the source as code: SSA and parameter names become
sanitised identifiers, parameter keys and string attributes are `repr` literals, and
large constants are handed over as data in the function's namespace.
"""

from __future__ import annotations

import ast
import functools
import keyword
import re
from typing import Any

import numpy as np
from xdsl.ir import Operation, SSAValue

from ivy_ir.core.module import Module
from ivy_ir.core.rules import LoweringError, expression, literal, literal_array
from ivy_ir.dialect import IvyOp, TensorSpec

from .target import Target

INLINE_CONSTANT = 16
"""Constants with at most this many elements are written as literals; larger ones are
data in the namespace."""

_IDENT = re.compile(r"[^0-9a-zA-Z_]")
RESERVED = frozenset({"np", "jnp", "jax", "lax", "torch", "F", "tf", "math", "params",
                      "CONSTANTS", "float", "int", "bool", "None", "True", "False", "len",
                      "range", "tuple", "list", "slice", "max", "min", "abs", "sum"})


class Names:
    """Unique, safe Python identifiers for SSA values."""

    def __init__(self, reserved: set[str]):
        self.taken = set(reserved) | RESERVED
        self.of: dict[SSAValue, str] = {}
        self._next: dict[str, int] = {}
        """Per base name, the suffix to try next (so naming n values is linear)."""

    def fresh(self, hint: str | None) -> str:
        base = _IDENT.sub("_", hint or "v")[:40] or "v"
        if base[0].isdigit() or base.startswith("__"):
            base = "v_" + base.lstrip("_")
        if keyword.iskeyword(base) or keyword.issoftkeyword(base):
            base += "_"
        name, i = base, self._next.get(base, 0)
        if i:
            name = f"{base}_{i}"
        while name in self.taken:
            i += 1
            name = f"{base}_{i}"
        self._next[base] = i + 1
        self.taken.add(name)
        return name

    def bind(self, value: SSAValue, hint: str | None = None) -> str:
        self.of[value] = self.fresh(hint if hint is not None else value.name_hint)
        return self.of[value]


class Emission:
    """State of one emitted program: names, module-level constants, shared data."""

    def __init__(self, target: Target, module: Module):
        self.target = target
        self.module = module
        self.names = Names(set(target.helpers))
        self.data: dict[str, np.ndarray] = {}
        self.hoisted: list[ast.stmt] = []
        self.prologue: list[ast.stmt] = []
        self.inputs: list[str] = []
        """Local names of the function's tensors: its inputs, then its parameters."""
        self.locals: dict[str, str] = {}
        self.helpers: set[str] = set()
        """The target's helper kernels the program names (calls, or hands to one)."""

    def add_data(self, value: np.ndarray) -> str:
        """Source that reads `value` from the namespace (data, never pasted as code)."""
        key = f"c{len(self.data)}"
        self.data[key] = value
        return f"CONSTANTS[{key!r}]"

    def hoist(self, expr: str, hint: str = "const") -> str:
        """Bind `expr` once at module level (built at load time, not per call)."""
        name = self.names.fresh(hint)
        self.hoisted.append(assign([name], parse(expr)))
        return name

    def local(self, expr: str, hint: str) -> str:
        """A name bound to `expr` once per call, in the prologue (shared by all rules)."""
        if expr not in self.locals:
            self.locals[expr] = self.names.fresh(hint)
            self.prologue.append(assign([self.locals[expr]], parse(expr)))
        return self.locals[expr]

    def array_expr(self, value: np.ndarray) -> str:
        """A target-array expression of `value`: a literal when small, else data."""
        t = self.target
        dtype = t.dtype(TensorSpec.of(value).dtype)
        if value.size == 0:  # a nested-list literal cannot say (0, 3) from (0,)
            return f"{t.array}([], dtype={dtype}).reshape({literal(value.shape)})"
        if value.size <= INLINE_CONSTANT:
            return f"{t.array}({literal_array(value)}, dtype={dtype})"
        return f"{t.array}({self.add_data(value)})"

    def constant(self, value: np.ndarray) -> str:
        """The name of an `ivy.constant`'s value (hoisted, or the target's own way)."""
        make = self.target.constant or (lambda v, e: e.hoist(e.array_expr(v)))
        return make(value, self)


@functools.lru_cache(maxsize=8192)
def parse(expr: str) -> ast.expr:
    """An expression the rules wrote, as an AST node. Programs repeat expressions
    (`np.add(v, c)` once names are reused), so parses are cached, and the emitter
    treats every node as immutable: it builds new nodes around them, never edits one."""
    return ast.parse(expr, mode="eval").body


def name(identifier: str, store: bool = False) -> ast.Name:
    return ast.Name(identifier, ast.Store() if store else ast.Load())


def assign(targets: list[str], value: ast.expr, unpack: bool = False) -> ast.Assign:
    """`a = value`, or `a, b = value` (`unpack`: also `a, = value` for one target)."""
    if len(targets) == 1 and not unpack:
        lhs: ast.expr = name(targets[0], store=True)
    else:
        lhs = ast.Tuple([name(t, store=True) for t in targets], ast.Store())
    return ast.Assign([lhs], value, lineno=0)


def op_expr(op: Operation, em: Emission) -> ast.expr:
    """The target expression of one registry op (operands named by `em.names.of`)."""
    if not isinstance(op, IvyOp):
        raise LoweringError(f"{op.name} is not an ivy op; the {em.target.name} target only "
                            "lowers the ivy dialect")
    expr = expression(op, em.target.emitted, em.names.of.__getitem__, em)
    em.helpers |= names(expr, em.target.helpers)
    return parse(expr)


_BARE_NAME = re.compile(r"(?<![\w.])([A-Za-z_]\w*)")


def names(code: str, helpers: Any) -> set[str]:
    """The helpers `code` names: calls, and functions handed on (`jax.jit(helper)`)."""
    return {n for n in _BARE_NAME.findall(code) if n in helpers}
