"""The one source emitter shared by every target.

It walks the entry function of an ivy module and builds a plain Python function as an
AST, each op an assignment of the expression its target's rule writes
(`emission.py`). Statements are data until the end, so what the generated code does
with memory is decided here from the ops' metadata, never by editing text:

- liveness: every intermediate is dropped right after its last use, by giving its name
  to the next result (`h = f(h)`) or by `del`, so dead tensors are freed as in
  hand-written code instead of living until the function returns;
- `out=`: where a target's rule for an op is one call that writes into `out=`
  (`Target.inplace_ops`, NumPy's ufuncs) and the dead operand is a fresh array of the
  result's type, the result is written into it (`v = np.add(v, c, out=v)`); eager torch
  uses the op's in-place method on such an operand when this op is its only user
  (`v = v.relu_()` after a `linear`: `fused.overwritable_operand`);
- fused groups: eager targets emit an `ivy.fused` group as nested expressions with
  in-place methods (`fused.py`); the others splice its body in place, op by op;
- control flow: each region of an `ivy.cond`/`ivy.while_loop`/`ivy.scan` becomes a
  nested function (written by its own `_Writer`, so bodies get the same liveness and
  fusion) that returns the yielded values as a tuple; the op's rule passes those
  functions to the target's `run_*` kernel (`lax.scan`, `tf.while_loop`, a `for`).
"""

from __future__ import annotations

import ast
import functools
import inspect
import textwrap
from collections.abc import Callable
from typing import Any

from xdsl.dialects import func
from xdsl.ir import Block, Operation, SSAValue

from ivy_ir.core.module import Module
from ivy_ir.core.rules import LoweringError
from ivy_ir.dialect import SPECS, FusedOp, IvyOp, OpSpec, TensorSpec, YieldOp
from ivy_ir.dialect.symbolic import PREFIX
from ivy_ir.dialect.types import CLASS_MEMBERS

from .emission import Emission, assign, name, names, op_expr
from .fused import emit_expressions, in_place_call, overwritable_operand
from .target import Target


def emit_source(module: Module, target: Target, fn_name: str = "main"
                ) -> tuple[str, dict[str, Any]]:
    """Python source of the entry function, and the data its namespace needs."""
    fn: func.FuncOp = module.entry
    em = Emission(target, module)
    header: list[ast.stmt] = []
    inputs, param_locals = [], []
    for arg, info in zip(fn.body.block.args, module.args(), strict=True):
        if info.param is None:
            inputs.append(em.names.bind(arg))
        else:
            local = em.names.bind(arg, info.param.replace(".", "_"))
            header.append(assign([local], ast.Subscript(name("params"),
                                                        ast.Constant(info.param))))
            param_locals.append(local)
    em.inputs = inputs + param_locals
    header += _dim_bindings(module, fn, em, target)
    writer = _Writer(em, *_schedule(fn.body.block, target))
    body = writer.write()
    args = ast.arguments(posonlyargs=[], args=[ast.arg(a) for a in ["params", *inputs]],
                         kwonlyargs=[], kw_defaults=[], defaults=[])
    main = ast.FunctionDef(fn_name, args, header + em.prologue + body, [], lineno=0)
    code = ast.unparse(ast.Module([*em.hoisted, main], []))
    helpers = [_helper_source(target.helpers[h]) for h in sorted(_closure(target, em.helpers))]
    return "\n".join([target.imports, *helpers, code]) + "\n", {"CONSTANTS": em.data}


def _dim_bindings(module: Module, fn: func.FuncOp, em: Emission, target: Target
                  ) -> list[ast.stmt]:
    """`_dim_batch = x.shape[0]` for each dynamic dim the program's sizes name."""
    args = fn.body.block.args
    return [ast.parse(f"{PREFIX}{dim} = " + target.dim_size.format(
        x=em.names.of[args[i]], axis=axis)).body[0] for dim, (i, axis) in module.dims.items()]


class _Writer:
    """The function body: one statement per scheduled op, then the names it frees."""

    def __init__(self, em: Emission, schedule: list[Operation],
                 alias: dict[SSAValue, SSAValue]):
        self.em, self.schedule, self.alias = em, schedule, alias
        self.produced: set[SSAValue] = set()
        """Values the function computes (not inputs, parameters or constants)."""
        self.last_use: dict[SSAValue, int] = {}
        for i, op in enumerate(schedule):
            for v in op.operands:
                self.last_use[self.canon(v)] = i
        view_ops = em.target.view_ops
        for i in range(len(schedule) - 1, -1, -1):  # a viewed buffer lives as long as its views
            op = schedule[i]
            if isinstance(op, IvyOp) and op.SPEC.name in view_ops:
                base = self.canon(op.operands[0])
                self.last_use[base] = max(self.last_use[base],
                                          *(self.last_use.get(self.canon(r), i)
                                            for r in op.results))
        self.dies: dict[int, list[SSAValue]] = {}
        for v, last in self.last_use.items():
            self.dies.setdefault(last, []).append(v)

    def canon(self, value: SSAValue) -> SSAValue:
        while value in self.alias:
            value = self.alias[value]
        return value

    def write(self) -> list[ast.stmt]:
        body: list[ast.stmt] = []
        names = self.em.names
        for i, op in enumerate(self.schedule):
            for v in op.operands:
                names.of[v] = names.of[self.canon(v)]
            if isinstance(op, func.ReturnOp):
                body.append(self._return(op))
                continue
            if isinstance(op, YieldOp):  # the end of a region's function
                outs = [name(names.of[v]) for v in op.operands]
                body.append(ast.Return(ast.Tuple(outs, ast.Load())))
                continue
            if isinstance(op, IvyOp) and op.SPEC.name == "constant":
                names.of[op.results[0]] = self.em.constant(op.attr_values()["value"])
                continue
            reused: SSAValue | None = None
            if isinstance(op, FusedOp):
                body += emit_expressions(op, self.em)
            else:
                if isinstance(op, IvyOp) and op.SPEC.regions:
                    body += self._regions(op)
                statement, reused = self._statement(i, op)
                body.append(statement)
            self.produced.update(op.results)
            body += self._drop(i, op, reused)
        return body

    def _regions(self, op: IvyOp) -> list[ast.stmt]:
        """A nested function per region, named in `names.of` for the op's rule."""
        em, names = self.em, self.em.names
        defs: list[ast.stmt] = []
        for label, region in zip(op.SPEC.regions, op.regions):
            fn = names.fresh(f"{op.SPEC.name}_{label}")
            params = [ast.arg(names.bind(a)) for a in region.block.args]
            inner = _Writer(em, *_schedule(region.block, em.target)).write()
            args = ast.arguments(posonlyargs=[], args=params, kwonlyargs=[], kw_defaults=[],
                                 defaults=[])
            defs.append(ast.FunctionDef(fn, args, inner, [], lineno=0))
            names.of[region] = fn  # type: ignore[index]  # a rule's `{body}` names it
        return defs

    def _statement(self, i: int, op: Operation) -> tuple[ast.stmt, SSAValue | None]:
        """`results = expression`, the single result taking over a dead operand's name
        (and its buffer, with `out=` or an in-place method, where the target allows)."""
        em, names = self.em, self.em.names
        assert isinstance(op, IvyOp)
        dead = [v for v in dict.fromkeys(self.canon(v) for v in op.operands)
                if v in self.produced and self.last_use[v] == i]
        k = overwritable_operand(op, em.target, lambda t: t in dead)  # dead holds canon values
        if k is not None:  # `v = v.relu_()`
            reused = op.operands[k]
            names.of[op.results[0]] = names.of[reused]
            return assign([names.of[reused]], in_place_call(op, k, em)), reused
        expr = op_expr(op, em)
        reused = None
        if len(op.results) == 1 and dead:
            into = next((v for v in dead if isinstance(expr, ast.Call)
                         and _overwritable(v, op, em.target)), None)
            reused = dead[0] if into is None else into
            names.of[op.results[0]] = names.of[reused]
            if into is not None:
                assert isinstance(expr, ast.Call)
                expr = ast.Call(expr.func, expr.args,
                                [*expr.keywords, ast.keyword("out", name(names.of[reused]))])
        else:
            for r in op.results:
                names.bind(r)
        targets = [names.of[r] for r in op.results] or ["_"]
        unpack = op.SPEC.variadic_results and bool(op.results)
        return assign(targets, expr, unpack=unpack), reused

    def _drop(self, i: int, op: Operation, reused: SSAValue | None) -> list[ast.stmt]:
        """`del` of the values computed here whose last use this is, and of results no
        one uses (a reused name now holds the result)."""
        dying = [v for v in self.dies.get(i, ()) if v in self.produced and v is not reused]
        dying += [r for r in op.results if self.canon(r) not in self.last_use]
        gone = dict.fromkeys(self.em.names.of[v] for v in dying)
        return [ast.Delete([ast.Name(n, ast.Del()) for n in gone])] if gone else []

    def _return(self, op: func.ReturnOp) -> ast.Return:
        outs = [name(self.em.names.of[v]) for v in op.operands]
        single = len(outs) == 1 and not self.em.module.returns_sequence
        return ast.Return(outs[0] if single else ast.Tuple(outs, ast.Load()))


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
    """The helpers `used` names, and the helpers those name, transitively."""
    todo, seen = list(used), set()
    while todo:
        h = todo.pop()
        if h not in seen:
            seen.add(h)
            todo += names(_helper_source(target.helpers[h]), target.helpers)
    return seen


@functools.cache
def _helper_source(fn: Callable[..., Any]) -> str:
    return textwrap.dedent(inspect.getsource(fn)) + "\n"


def missing_rules(target: Target, decomposable: set[str]) -> list[str]:
    """Registry ops with neither a rule nor a decomposition on this target. An op the
    registry declares unsupported on the target in every dtype it takes (the text ops
    on torch and JAX) needs none: compiling it is refused before anything is emitted."""
    return sorted(n for n in SPECS if n not in target.rules and n not in decomposable
                  and n != "constant" and not _never_runs(SPECS[n], target.name))


def _never_runs(spec: OpSpec, target: str) -> bool:
    gaps = spec.unsupported.get(target, frozenset())
    return any(CLASS_MEMBERS[a.dtype_class] <= gaps for a in spec.operands)


__all__ = ["LoweringError", "Target", "emit_source", "missing_rules"]
