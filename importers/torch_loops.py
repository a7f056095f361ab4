"""Python `while` loops over tensor data, rewritten as `torch.while_loop` so that
`torch.export` can capture them (what autograph does for TensorFlow programs).

torch.export runs the program on symbolic tensors, so `while <tensor test>:` fails: the
test's truth value is not known while tracing. When an export fails that way at a
`while` statement, `LoopRewriter.learn` rewrites the function holding it from its
source, and `export` tries again with the rewrite in place:

    while <test>:              def _while_cond_L(a, b):
        <body>          ->         return <test>
                               def _while_body_L(a, b):
                                   <body>
                                   return (a, b)
                               (a, b) = __ivy_while_loop(_while_cond_L, _while_body_L,
                                                         (a, b), ('a', 'b'), 'file:L')

The carried names (`a`, `b`) are those the body assigns and that the test reads, the
body reads before assigning them, or code after the loop reads. Everything else the
body reads is closed over (torch lifts closed-over tensors into the loop's inputs).
The rewrite is installed by swapping the function object's `__code__` (and adding the
helper `__ivy_while_loop` to its module's globals) only while exporting: every
reference to the function sees it, and `applied` restores both afterwards.

Limits, each refused with a `TraceError` naming the line rather than guessed at:
- `break`, `continue`, `return`, `yield` or `global`/`nonlocal` in the loop, and
  `while ... else`: torch.while_loop has one exit, the test;
- carried values that are not tensors (a Python counter): torch.while_loop carries
  tensors only;
- loops in nested functions (a new closure each call, so no single object to patch),
  in async functions, and functions whose source is unavailable or whose closure the
  rewrite changes (zero-argument `super()`).
A data-dependent loop inside another one's body is not rewritten: torch traces a
`torch.while_loop` body with dynamo, whose failure names no line to rewrite; the export
fails as before, showing the rewrite so far.
A name first assigned inside the loop and read after it starts as zeros shaped like
what one run of the body on the entry values gives it (the run is traced and left
unused): Python would leave it unbound if the loop ran zero times. The test may be
wrapped in `bool(...)`; other Python-level logic in it (`and`, `or`, `not` on tensors)
still needs a tensor value and fails as before. Liveness is by position: a name read
anywhere after the loop (or anywhere in an enclosing loop) counts as read after it.
"""

from __future__ import annotations

import ast
import contextlib
import gc
import inspect
import textwrap
import types
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from ivy_ir.core.errors import TraceError
from ivy_ir.core.locations import short_path

from .torch_capture import data_dependent, user_frame

HELPER = "__ivy_while_loop"
_FACTORY = "__ivy_rewritten"
_MAX_REWRITES = 16
"""Most loops rewritten for one export: each rewrite costs one more export attempt."""


def while_loop(cond: Callable[..., Any], body: Callable[..., tuple[Any, ...]],
               carried: Sequence[Any], names: Sequence[str], where: str) -> tuple[Any, ...]:
    """Run a rewritten loop as `torch.while_loop` (called by the rewritten code).

    `None` in `carried` marks a name first assigned inside the loop: it starts as zeros
    of the shape and dtype one run of the body gives it."""
    for name, value in zip(names, carried):
        if value is not None and not isinstance(value, torch.Tensor):
            raise TraceError(f"cannot rewrite the data-dependent `while` loop at {where} "
                             f"as torch.while_loop: it carries `{name}` of type "
                             f"{type(value).__name__}, and torch.while_loop carries "
                             "tensors only; make it a tensor before the loop")
    if any(v is None for v in carried):
        probe = body(*carried)
        for name, value in zip(names, probe):
            if not isinstance(value, torch.Tensor):
                raise TraceError(f"cannot rewrite the data-dependent `while` loop at "
                                 f"{where}: its body assigns `{name}` a value of type "
                                 f"{type(value).__name__}; torch.while_loop carries "
                                 "tensors only")
        carried = [torch.zeros(p.shape, dtype=p.dtype, device=p.device) if v is None else v
                   for v, p in zip(carried, probe)]

    def test(*values: torch.Tensor) -> torch.Tensor:
        result = torch.as_tensor(cond(*values))
        return (result != 0 if result.dtype != torch.bool else result).reshape(())

    def step(*values: torch.Tensor) -> tuple[torch.Tensor, ...]:
        # torch.while_loop rejects a body returning one of its inputs (`old = new`)
        return tuple(out.clone() if any(out is v for v in values) else out
                     for out in body(*values))

    return tuple(torch.while_loop(test, step, tuple(carried)))


@dataclass
class _Rewrite:
    original: types.CodeType
    lines: set[int] = field(default_factory=set)
    code: types.CodeType | None = None
    text: str = ""


class LoopRewriter:
    """The loops rewritten for one export: `learn` adds one from a failure, `applied`
    installs them all while torch exports, `note` shows them when the export still fails."""

    def __init__(self) -> None:
        self._rewrites: dict[types.FunctionType, _Rewrite] = {}

    def learn(self, exc: BaseException) -> bool:
        """Rewrite the `while` loop whose test made torch fail; True when there is a new
        rewrite to export with. Raises `TraceError` for a loop it cannot rewrite."""
        if not data_dependent(exc) or \
                sum(len(r.lines) for r in self._rewrites.values()) >= _MAX_REWRITES:
            return False
        frames = []
        tb = exc.__traceback__
        while tb is not None:
            if user_frame(tb.tb_frame.f_code.co_filename):
                frames.append((tb.tb_frame.f_code, tb.tb_lineno))
            tb = tb.tb_next
        if not frames:
            return False
        code, line = frames[-1]
        fn = self._function_of(code)
        record = self._rewrites[fn] if fn in self._rewrites else _Rewrite(code)
        if line in record.lines:
            return False  # rewritten already, and failing again
        try:
            source, first = inspect.getsourcelines(record.original)
        except (OSError, TypeError):
            return False
        tree = ast.parse(textwrap.dedent("".join(source)))
        ast.increment_lineno(tree, first - 1)
        func = tree.body[0]
        if not any(isinstance(n, ast.While) and _holds(n, line) for n in ast.walk(func)):
            return False
        where = f"{short_path(record.original.co_filename)}:{line}"
        if fn is None or isinstance(func, ast.AsyncFunctionDef):
            raise TraceError(f"data-dependent `while` loop at {where}: it is in a nested "
                             "function (a new function object each call) or an async one, "
                             "which cannot be rewritten as torch.while_loop; write the loop "
                             "with torch.while_loop")
        record.lines.add(line)
        record.code, record.text = _compile(fn, record.original, func, record.lines)
        self._rewrites[fn] = record
        return True

    def _function_of(self, code: types.CodeType) -> types.FunctionType | None:
        for fn, record in self._rewrites.items():
            if code is record.code or code is record.original:
                return fn
        if "<locals>" in code.co_qualname:
            return None  # patching one closure would miss those made by later calls
        found = [o for o in gc.get_referrers(code)
                 if isinstance(o, types.FunctionType) and o.__code__ is code]
        return found[0] if len(found) == 1 else None

    @contextlib.contextmanager
    def applied(self) -> Iterator[None]:
        """The rewrites in place, for the duration of one export attempt."""
        added: list[dict[str, Any]] = []
        patched: list[types.FunctionType] = []
        try:
            for fn, record in self._rewrites.items():
                if HELPER not in fn.__globals__:
                    fn.__globals__[HELPER] = while_loop
                    added.append(fn.__globals__)
                fn.__code__ = record.code
                patched.append(fn)
            yield
        finally:
            for fn in patched:
                fn.__code__ = self._rewrites[fn].original
            for namespace in added:
                del namespace[HELPER]

    def note(self) -> str:
        """The rewritten functions, for an export that fails with them in place."""
        return "".join(f"\n  ({r.original.co_qualname} was exported with its data-dependent "
                       f"`while` loops rewritten as torch.while_loop:)\n"
                       + textwrap.indent(r.text, "    ")
                       for r in self._rewrites.values())


def _holds(loop: ast.While, line: int) -> bool:
    return loop.lineno <= line <= (loop.test.end_lineno or loop.lineno)


def _compile(fn: types.FunctionType, original: types.CodeType, func: ast.FunctionDef,
             lines: set[int]) -> tuple[types.CodeType, str]:
    """The code of `func` with the loops at `lines` rewritten, closing over the same
    names as the original, and the rewritten source."""
    func.decorator_list = []  # already applied to the function object
    func.returns = None
    for arg in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs,
                func.args.vararg, func.args.kwarg):
        if arg is not None:
            arg.annotation = None
    # defaults live on the function object; evaluating them again is not needed
    func.args.defaults = []
    func.args.kw_defaults = [None] * len(func.args.kwonlyargs)
    func = _Converter(func, lines, original.co_filename).visit(func)
    text = ast.unparse(func)
    # a factory binding the original's free variables, so that the rewrite closes over
    # the same names and can take the function's closure
    factory = ast.FunctionDef(
        name=_FACTORY, args=ast.arguments([], [], None, [], [], None, []),
        body=[*(ast.Assign([ast.Name(v, ast.Store())], ast.Constant(None))
                for v in original.co_freevars),
              func, ast.Return(ast.Name(func.name, ast.Load()))],
        decorator_list=[], returns=None)
    module = ast.fix_missing_locations(ast.Module([factory], []))
    namespace: dict[str, Any] = {}
    exec(compile(module, original.co_filename, "exec", dont_inherit=True),
         fn.__globals__, namespace)
    code = namespace[_FACTORY]().__code__
    if code.co_freevars != original.co_freevars:
        raise TraceError(f"cannot rewrite the data-dependent `while` loops of "
                         f"{original.co_qualname} ({short_path(original.co_filename)}:"
                         f"{original.co_firstlineno}): the rewrite changes the names the "
                         "function closes over")
    return code.replace(co_name=original.co_name, co_qualname=original.co_qualname), text


class _Names(ast.NodeVisitor):
    """The names a piece of code reads and assigns (with their lines), not counting
    those local to nested functions, lambdas, classes or comprehensions."""

    def __init__(self) -> None:
        self.reads: list[tuple[str, int]] = []
        self.stores: list[tuple[str, int]] = []

    def visit_Name(self, node: ast.Name) -> None:
        (self.reads if isinstance(node.ctx, ast.Load) else self.stores).append(
            (node.id, node.lineno))

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if isinstance(node.target, ast.Name):
            self.reads.append((node.target.id, node.lineno))
        self.generic_visit(node)

    def _scope(self, node: ast.AST) -> None:
        """A nested scope: its own name is assigned, and what it reads from outside
        is read (an over-approximation: its parameters and locals count too)."""
        if hasattr(node, "name"):
            self.stores.append((node.name, node.lineno))
        inner = _Names()
        for child in ast.iter_child_nodes(node):
            inner.visit(child)
        self.reads.extend(inner.reads)

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _scope
    visit_Lambda = visit_ListComp = visit_SetComp = visit_DictComp = _scope
    visit_GeneratorExp = _scope


def _names(*nodes: ast.AST) -> _Names:
    found = _Names()
    for node in nodes:
        found.visit(node)
    return found


class _Converter(ast.NodeTransformer):
    """Rewrites the `while` statements holding one of `lines` (inner loops first)."""

    def __init__(self, func: ast.FunctionDef, lines: set[int], filename: str):
        self.lines, self.filename = lines, filename
        self.all = _names(*func.body)
        self.params = {a.arg for a in (*func.args.posonlyargs, *func.args.args,
                                       *func.args.kwonlyargs, func.args.vararg,
                                       func.args.kwarg) if a is not None}
        self.loops: list[ast.While | ast.For] = []  # the loops enclosing the visit

    def visit_For(self, node: ast.For) -> ast.AST:
        self.loops.append(node)
        try:
            return self.generic_visit(node)
        finally:
            self.loops.pop()

    def visit_While(self, node: ast.While) -> ast.AST | list[ast.stmt]:
        line = next((n for n in sorted(self.lines) if _holds(node, n)), None)
        self.loops.append(node)
        try:
            self.generic_visit(node)
        finally:
            self.loops.pop()
        return node if line is None else self._convert(node, line)

    def _refuse(self, line: int, why: str) -> TraceError:
        return TraceError(f"cannot rewrite the data-dependent `while` loop at "
                          f"{short_path(self.filename)}:{line} as torch.while_loop: {why}")

    def _convert(self, loop: ast.While, line: int) -> list[ast.stmt]:
        if loop.orelse:
            raise self._refuse(line, "it has an `else` clause")
        for node, what in sorted(_exits(loop.body), key=lambda e: e[0].lineno)[:1]:
            raise self._refuse(line, f"its `{what}` at line {node.lineno} leaves the loop "
                                     "other than by its test; torch.while_loop has one exit")
        carried = self._carried(loop)
        if not carried:
            raise self._refuse(line, "its body assigns nothing that its test or the code "
                                     "after it reads")
        before = {n for n, at in self.all.stores if at < loop.lineno} | self.params
        n = loop.lineno
        cond_fn, body_fn = f"_while_cond_{n}", f"_while_body_{n}"
        test = loop.test
        if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and \
                test.func.id == "bool" and len(test.args) == 1 and not test.keywords:
            test = test.args[0]  # the loop's test is made a tensor anyway

        def load(names: list[str]) -> ast.Tuple:
            return ast.Tuple([ast.Name(v, ast.Load()) for v in names], ast.Load())

        params = ast.arguments([], [ast.arg(v) for v in carried], None, [], [], None, [])
        entry = ast.Tuple([ast.Name(v, ast.Load()) if v in before else ast.Constant(None)
                           for v in carried], ast.Load())
        call = ast.Call(ast.Name(HELPER, ast.Load()),
                        [ast.Name(cond_fn, ast.Load()), ast.Name(body_fn, ast.Load()), entry,
                         ast.Tuple([ast.Constant(v) for v in carried], ast.Load()),
                         ast.Constant(f"{short_path(self.filename)}:{n}")], [])
        out = [ast.FunctionDef(cond_fn, params, [ast.Return(test)], [], None),
               ast.FunctionDef(body_fn, params, [*loop.body, ast.Return(load(carried))], [],
                               None),
               ast.Assign([ast.Tuple([ast.Name(v, ast.Store()) for v in carried],
                                     ast.Store())], call)]
        for stmt in out:
            ast.copy_location(stmt, loop)
        return out

    def _carried(self, loop: ast.While) -> list[str]:
        """The names the body assigns that the test reads, the body reads before
        assigning them, or code after the loop reads; in order of first assignment."""
        body = _names(*loop.body)
        needed = {n for n, _ in _names(loop.test).reads}
        assigned: set[str] = set()
        for stmt in loop.body:
            needed |= {n for n, _ in _names(stmt).reads} - assigned
            if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                assigned |= {n for n, _ in _names(stmt).stores}
        end = loop.end_lineno or loop.lineno
        outer = self.loops[0] if self.loops else None
        for name, at in self.all.reads:
            if at > end or (outer is not None and
                            outer.lineno <= at <= (outer.end_lineno or outer.lineno)):
                needed.add(name)
        return [n for n in dict.fromkeys(n for n, _ in body.stores) if n in needed]


def _exits(body: list[ast.stmt]) -> Iterator[tuple[ast.AST, str]]:
    """The statements that would leave the loop (or change scopes) other than by its
    test: `break`/`continue` outside inner loops, `return`/`yield`/`await` and
    `global`/`nonlocal` outside nested functions."""
    todo: list[tuple[ast.AST, bool]] = [(s, False) for s in body]
    while todo:
        node, in_inner_loop = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                             ast.ClassDef)):
            continue
        if isinstance(node, (ast.Break, ast.Continue)) and not in_inner_loop:
            yield node, type(node).__name__.lower()
        elif isinstance(node, (ast.Return, ast.Yield, ast.YieldFrom, ast.Await,
                               ast.Global, ast.Nonlocal)):
            yield node, type(node).__name__.lower().replace("yieldfrom", "yield from")
        inner = in_inner_loop or isinstance(node, (ast.For, ast.While, ast.AsyncFor))
        todo.extend((c, inner) for c in ast.iter_child_nodes(node))
