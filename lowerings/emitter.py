"""The one source emitter shared by every target.

It walks the entry function of an ivy module and writes a plain Python function,
looking each op up in the target's rule table. Nothing from the IR is pasted into
the source as code: SSA and parameter names become sanitised identifiers, parameter
keys and string attributes are written with `repr` (inert literals), and large
constants are handed over as data in the function's namespace.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.ir import Block, Operation, SSAValue

from ivy_ir.core.module import Module
from ivy_ir.core.rules import LoweringError, expression, literal, literal_array
from ivy_ir.dialect import SPECS, FusedOp, IvyOp, TensorSpec, YieldOp

from .target import Target

INLINE_CONSTANT = 16


_IDENT = re.compile(r"[^0-9a-zA-Z_]")
RESERVED = frozenset({"np", "jnp", "jax", "lax", "torch", "F", "tf", "math", "params",
                      "CONSTANTS", "float", "int", "bool", "None", "True", "False", "len",
                      "range", "tuple", "list", "slice", "max", "min", "abs", "sum"})


class Names:
    """Unique, safe Python identifiers for SSA values."""

    def __init__(self, reserved: set[str]):
        self.taken = set(reserved) | RESERVED
        self.of: dict[SSAValue, str] = {}

    def fresh(self, hint: str | None) -> str:
        base = _IDENT.sub("_", hint or "v")[:40] or "v"
        if base[0].isdigit() or base.startswith("__"):
            base = "v_" + base.lstrip("_")
        if keyword.iskeyword(base) or keyword.issoftkeyword(base):
            base += "_"
        name, i = base, 0
        while name in self.taken:
            i += 1
            name = f"{base}_{i}"
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
        self.hoisted: list[str] = []
        self.prologue: list[str] = []
        self.inputs: list[str] = []
        """Local names of the function's tensors: its inputs, then its parameters."""
        self.locals: dict[str, str] = {}

    def add_data(self, value: np.ndarray) -> str:
        """Source that reads `value` from the namespace (data, never pasted as code)."""
        key = f"c{len(self.data)}"
        self.data[key] = value
        return f"CONSTANTS[{key!r}]"

    def hoist(self, expr: str, hint: str = "const") -> str:
        """Bind `expr` once at module level (built at load time, not per call)."""
        name = self.names.fresh(hint)
        self.hoisted.append(f"{name} = {expr}")
        return name

    def local(self, expr: str, hint: str) -> str:
        """A name bound to `expr` once per call, in the prologue (shared by all rules)."""
        if expr not in self.locals:
            self.locals[expr] = self.names.fresh(hint)
            self.prologue.append(f"{self.locals[expr]} = {expr}")
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


def emit_source(module: Module, target: Target, fn_name: str = "main"
                ) -> tuple[str, dict[str, Any]]:
    """Python source of the entry function, and the data its namespace needs."""
    fn: func.FuncOp = module.entry
    em = Emission(target, module)
    names = em.names
    header, body = [], []
    inputs, param_locals = [], []
    for arg, info in zip(fn.body.block.args, module.args(), strict=True):
        if info.param is None:
            inputs.append(names.bind(arg))
        else:
            local = names.bind(arg, info.param.replace(".", "_"))
            header.append(f"{local} = params[{info.param!r}]")
            param_locals.append(local)
    em.inputs = inputs + param_locals
    used_helpers: set[str] = set()
    schedule, alias = _schedule(fn.body.block, target)

    def canon(value: SSAValue) -> SSAValue:
        while value in alias:
            value = alias[value]
        return value

    last_use = {canon(v): i for i, op in enumerate(schedule) for v in op.operands}
    for i in range(len(schedule) - 1, -1, -1):  # a viewed buffer lives as long as its views
        op = schedule[i]
        if isinstance(op, IvyOp) and op.SPEC.name in target.view_ops:
            base = canon(op.operands[0])
            last_use[base] = max(last_use[base], *(last_use.get(canon(r), i) for r in op.results))
    temporaries: set[SSAValue] = set()
    for i, op in enumerate(schedule):
        for v in op.operands:
            names.of[v] = names.of[canon(v)]
        if isinstance(op, func.ReturnOp):
            outs = [names.of[v] for v in op.operands]
            single = len(outs) == 1 and not module.returns_sequence
            body.append("return " + (outs[0] if single else "(" + ", ".join(outs)
                                     + ("," if len(outs) == 1 else "") + ")"))
            continue
        if isinstance(op, IvyOp) and op.SPEC.name == "constant":
            value = op.attr_values()["value"]
            make = target.constant or (lambda v, e: e.hoist(e.array_expr(v)))
            names.of[op.results[0]] = make(value, em)
            continue
        if isinstance(op, FusedOp):
            from .fused import emit_expressions  # it builds on this module

            lines = emit_expressions(op, em)
            used_helpers.update(h for h in target.helpers if any(_calls(h, ln) for ln in lines))
            body += lines
            temporaries.update(op.results)
            continue
        expr = emit_op(op, em)
        used_helpers.update(h for h in target.helpers if _calls(h, expr))
        dead = list(dict.fromkeys(canon(v) for v in op.operands
                                  if canon(v) in temporaries and last_use[canon(v)] == i))
        if target.reuse_names and len(op.results) == 1 and dead:
            into = next((v for v in dead if _overwritable(v, op, target)), None)
            reused = dead[0] if into is None else into
            name = names.of[op.results[0]] = names.of[reused]
            temporaries.discard(reused)
            if into is not None:
                expr = f"{expr[:-1]}, out={name})"
        else:
            for r in op.results:
                names.bind(r)
        temporaries.update(op.results)
        targets = [names.of[r] for r in op.results]
        lhs = ", ".join(targets) if targets else "_"
        if len(targets) == 1 and op.SPEC.variadic_results:
            lhs += ","
        body.append(f"{lhs} = {expr}")
    lines = [target.imports, ""]
    lines += [_helper_source(target.helpers[h]) for h in sorted(_closure(target, used_helpers))]
    if em.hoisted:
        lines += em.hoisted + [""]
    lines.append(f"def {fn_name}(params, {', '.join(inputs)}):" if inputs
                 else f"def {fn_name}(params):")
    lines += ["    " + s for s in header + em.prologue + body]
    return "\n".join(lines) + "\n", {"CONSTANTS": em.data}


def _schedule(block: Block, target: Target) -> tuple[list[Operation],
                                                     dict[SSAValue, SSAValue]]:
    """The ops to emit, in order, and value aliases. Unless the target emits fused
    groups as expressions, an `ivy.fused` body is spliced in place of the op (its
    block arguments alias its operands, its results the yielded values), so a group's
    ops share the statement machinery (name reuse, `out=`) of every other op."""
    ops: list[Operation] = []
    alias: dict[SSAValue, SSAValue] = {}
    for op in block.ops:
        if isinstance(op, FusedOp) and not target.fused_as_expressions:
            alias.update(zip(op.block.args, op.inputs))
            alias.update(zip(op.results, op.yielded()))
            ops += [o for o in op.block.ops if not isinstance(o, YieldOp)]
        else:
            ops.append(op)
    return ops, alias


def _overwritable(dead: SSAValue, op: IvyOp, target: Target) -> bool:
    """Whether `op` may write its result into the dead temporary: same type, not 0-d,
    `op` takes `out=`, and the temporary was made by an op whose result is always a
    fresh array (never a view of an input that writing would corrupt)."""
    maker = dead.owner
    return (op.SPEC.name in target.inplace_ops and isinstance(maker, IvyOp)
            and maker.SPEC.name in target.inplace_ops | target.fresh_ops
            and dead.type == op.results[0].type and TensorSpec.from_xdsl(dead.type).rank > 0)


def _closure(target: Target, used: set[str]) -> set[str]:
    import inspect

    todo, seen = list(used), set()
    while todo:
        h = todo.pop()
        if h in seen:
            continue
        seen.add(h)
        src = inspect.getsource(target.helpers[h])
        todo += [o for o in target.helpers if o != h and _calls(o, src)]
    return seen


def _calls(helper: str, code: str) -> bool:
    """Whether `code` calls the bare function `helper` (not `np.helper` or `x_helper`)."""
    return re.search(rf"(?<![\w.]){helper}\(", code) is not None


def _helper_source(fn: Callable[..., Any]) -> str:
    import inspect
    import textwrap

    return textwrap.dedent(inspect.getsource(fn)) + "\n"


def emit_op(op: Operation, em: Emission) -> str:
    """The target expression of one registry op (operands named by `em.names.of`)."""
    if not isinstance(op, IvyOp):
        raise LoweringError(f"{op.name} is not an ivy op; the {em.target.name} target only "
                            "lowers the ivy dialect")
    return expression(op, em.target, em.names.of.__getitem__, em)


def missing_rules(target: Target, decomposable: set[str]) -> list[str]:
    """Registry ops with neither a rule nor a decomposition on this target."""
    return sorted(n for n in SPECS if n not in target.rules and n not in decomposable
                  and n != "constant")
