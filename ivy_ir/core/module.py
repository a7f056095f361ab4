"""`ivy_ir.Module`: a traced or parsed IR module plus the values of its parameters.

Parameters (weights, buffers, large constants) are arguments of the entry function
marked `{ivy.param = "dotted.name"}` (trainable) or `{ivy.buffer = "name"}`, so printed
IR never carries weight data and stays readable; the arrays live in `params`. A random
key input is marked `{ivy.rng}`, and a trailing result marked `{ivy.update = "name"}` is
the new value of buffer `name` (training mode), so the program itself stays pure. An
input with dynamic dims names them, `{ivy.dims = ["batch", "", "seq"]}` ("" for a static
dim): the symbolic sizes in the program's attributes are expressions over those names
(`ivy_ir.dialect.symbolic`).
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from ..dialect import IvyOp, TensorSpec
from ..dialect.ops import location_text
from ..dialect.spec import SIZE_KINDS
from ..dialect.symbolic import is_dim_name, sym_dims
from . import dim_flow
from .graph import ALIASES, DIMS, RNG_KEY

PARAM_KEYS = ("ivy.param", "ivy.buffer")
UPDATE = "ivy.update"
"""The result attribute naming the buffer a trailing result is the new value of."""


class CallTree(Protocol):
    """What an importer records where a program's arguments or results are structured
    (`importers.torch_cache.CallTree`: KV caches); `ivy_ir.compiled` calls it."""

    def flatten(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any] | None:
        """The flat inputs of a call, or None when its structure is not the traced one."""

    def unflatten(self, outs: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """The flat results in the caller's structure."""

    def examples(self, args: tuple[Any, ...], kwargs: dict[str, Any]
                 ) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """The source's example arguments for this call, to trace it anew."""


@dataclass(frozen=True)
class ArgInfo:
    """One argument of the entry function: a user input or a named parameter."""

    spec: TensorSpec
    param: str | None = None
    trainable: bool = False
    rng: bool = False
    """The random key input (`Graph.rng_key`): supplied by the compiled call."""
    aliases: tuple[str, ...] = ()
    """The parameter's other names in the source's state (tied weights)."""
    dims: tuple[str | None, ...] = ()
    """The names of the input's dynamic dims, None for a static one (or () if none)."""


@dataclass
class Module:
    op: ModuleOp
    params: dict[str, np.ndarray] = field(default_factory=dict)
    returns_sequence: bool = False
    """Return a tuple even for one result (the traced function returned a sequence)."""
    tree: CallTree | None = None
    """How a call's structured arguments (a KV cache) become the flat inputs and the flat
    results the caller's structure; None: the inputs and results are flat."""

    @property
    def entry(self) -> func.FuncOp:
        funcs = [o for o in self.op.ops if isinstance(o, func.FuncOp)]
        if not funcs:
            raise ValueError("the module holds no func.func")
        return next((f for f in funcs if f.sym_name.data == "main"), funcs[0])

    def args(self) -> list[ArgInfo]:
        fn = self.entry
        attrs = fn.arg_attrs.data if fn.arg_attrs is not None else ()
        out = []
        for i, t in enumerate(fn.function_type.inputs.data):
            d = attrs[i].data if i < len(attrs) else {}
            name = next((d[k] for k in PARAM_KEYS if k in d), None)
            aliases = tuple(a.data for a in d[ALIASES].data) if ALIASES in d else ()
            dims = tuple(a.data or None for a in d[DIMS].data) \
                if isinstance(d.get(DIMS), ArrayAttr) else ()
            out.append(ArgInfo(TensorSpec.from_xdsl(t),
                               name.data if isinstance(name, StringAttr) else None,
                               "ivy.param" in d, RNG_KEY in d, aliases, dims))
        return out

    @property
    def dims(self) -> dict[str, tuple[int, int]]:
        """Each dynamic dim's name -> (entry argument index, axis) of its first input."""
        out: dict[str, tuple[int, int]] = {}
        for i, arg in enumerate(self.args()):
            for axis, dim in enumerate(arg.dims):
                if dim is not None:
                    out.setdefault(dim, (i, axis))
        return out

    @property
    def inputs(self) -> list[TensorSpec]:
        """The user's inputs (not parameters, not the random key)."""
        return [a.spec for a in self.args() if a.param is None and not a.rng]

    @property
    def input_names(self) -> list[str | None]:
        """The inputs' names as traced (the source's parameter and keyword names), by
        which a compiled call takes keyword arguments."""
        return [arg.name_hint for arg, info in zip(self.entry.body.block.args, self.args())
                if info.param is None and not info.rng]

    @property
    def user_outputs(self) -> list[TensorSpec]:
        """The program's own results: `outputs` less the trailing buffer updates."""
        outputs = self.outputs
        return outputs[:len(outputs) - len(self.updates)]

    @property
    def draws(self) -> bool:
        """Whether the program takes a random key (its last input)."""
        return any(a.rng for a in self.args())

    @property
    def updates(self) -> list[str]:
        """The parameters (buffers) the program updates, one per trailing result marked
        `{ivy.update = "name"}`: batch-norm running statistics in training mode."""
        attrs = self.entry.res_attrs.data if self.entry.res_attrs is not None else ()
        return [d.data[UPDATE].data for d in attrs if UPDATE in d.data]

    @property
    def outputs(self) -> list[TensorSpec]:
        return [TensorSpec.from_xdsl(t) for t in self.entry.function_type.outputs.data]

    def verify(self) -> None:
        """Check what every target needs before anything is lowered: the structure
        (`check_structure`), each op's own verifier, then that the ops hold for every
        size of the dynamic dims (`dim_flow`). Raises `VerifyException` naming the op
        and, where it has one, its location."""
        check_structure(self.op)
        try:
            self.op.verify()
        except VerifyException as exc:
            culprit, text = self.op, str(exc)
            for op in self.op.walk():  # the failing op, to name it (the error path only)
                try:
                    op.verify(verify_nested_ops=False)
                except VerifyException as own:
                    culprit, text = op, str(own)
                    break
            if culprit.name in text:  # ivy ops name themselves and their location
                raise VerifyException(text) from None
            raise VerifyException(f"{_where(culprit)}: {text}") from None
        errors = dim_flow.of_module(self).errors if self.dims else []
        if errors:  # ops that need two dynamic dims equal (`dim_flow`)
            raise errors[0]

    def to_text(self, locations: bool = True, dims: bool = False) -> str:
        """The IR text; `dims` adds each dynamic size's name as comments (`dim_flow`)."""
        buf = io.StringIO()
        Printer(stream=buf, print_debuginfo=locations).print_op(self.op)
        text = buf.getvalue() + "\n"
        return dim_flow.annotated(text, self) if dims and self.dims else text

    def __str__(self) -> str:
        return self.to_text()

    def clone(self) -> Module:
        return Module(self.op.clone(), dict(self.params), self.returns_sequence, self.tree)

    def op_count(self) -> int:
        return sum(1 for o in self.entry.walk() if o.name.startswith("ivy."))


def check_structure(module: ModuleOp) -> None:
    """Refuse a module no target can run, which xDSL's verifier lets through: no
    entry function, a function of several blocks (control flow is structured, so a
    second block would be dropped silently by a lowering), an op other than an ivy op
    or `func.return` in a body, or a value used before its definition."""
    funcs = []
    for op in module.ops:
        if not isinstance(op, func.FuncOp):
            raise VerifyException(f"{_where(op)}: a module holds func.func ops only")
        funcs.append(op)
    if not funcs:
        raise VerifyException("the module has no entry function (no func.func)")
    for fn in funcs:
        what = f"function @{fn.sym_name.data}"
        if not fn.body.blocks:
            raise VerifyException(f"{what} is a declaration without a body; it cannot run")
        if len(fn.body.blocks) > 1:
            raise VerifyException(f"{what} has {len(fn.body.blocks)} blocks; a function body "
                                  "is one block (control flow is structured ops)")
        for op in fn.body.walk():
            if not (isinstance(op, func.ReturnOp) or op.dialect_name() == "ivy"):
                raise VerifyException(f"{_where(op)} in {what}: only ivy ops and "
                                      "func.return may appear in a function body")
        _defined_before_use(fn.body.block, set())
        _check_state(fn, what)


def _check_state(fn: func.FuncOp, what: str) -> None:
    """The state attributes mean what the lowerings rely on: at most one random key, a
    0-d int32 input; each `{ivy.update = "name"}` result trailing and of the type of
    the parameter or buffer it names."""
    args = fn.body.block.args
    arg_attrs = [a.data for a in fn.arg_attrs.data] if fn.arg_attrs is not None else \
        [{} for _ in args]
    keys = [a for a, d in zip(args, arg_attrs) if RNG_KEY in d]
    if len(keys) > 1 or any(TensorSpec.from_xdsl(k.type) != TensorSpec((), "int32")
                            or any(p in d for p in PARAM_KEYS)
                            for k, d in zip(keys, arg_attrs) if RNG_KEY in d):
        raise VerifyException(f"{what}: {{ivy.rng}} marks one argument, a tensor<i32> input")
    named = _check_dims(args, arg_attrs, what)
    for op in fn.walk():
        values = op.attr_values() if isinstance(op, IvyOp) else {}
        for a in op.SPEC.attrs if isinstance(op, IvyOp) else ():
            for d in sym_dims(values[a.name]) if a.kind in SIZE_KINDS else ():
                if not d.names <= named:
                    raise VerifyException(
                        f"{_where(op)}: size '{d}' names "
                        f"{', '.join(sorted(d.names - named))}, which no input's "
                        f"{{{DIMS}}} declares")
    params = {d[k].data: a.type for a, d in zip(args, arg_attrs) for k in PARAM_KEYS
              if k in d and isinstance(d[k], StringAttr)}
    res_attrs = [d.data for d in fn.res_attrs.data] if fn.res_attrs is not None else []
    types = fn.function_type.outputs.data
    marked = [i for i, d in enumerate(res_attrs) if UPDATE in d]
    if marked and marked != list(range(len(types) - len(marked), len(types))):
        raise VerifyException(f"{what}: results marked {{ivy.update}} must come last")
    for i in marked:
        target = res_attrs[i][UPDATE]
        name = target.data if isinstance(target, StringAttr) else None
        if name not in params or params[name] != types[i]:
            raise VerifyException(f"{what}: result {i} updates {target}, which is no "
                                  "parameter or buffer of its type")


def _check_dims(args: Any, arg_attrs: list[Any], what: str) -> set[str]:
    """`{ivy.dims}` lists one name (or "") per dim of an input, each named dim dynamic
    in its type; the names declared."""
    named: set[str] = set()
    for i, (a, d) in enumerate(zip(args, arg_attrs)):
        if DIMS not in d:
            continue
        shape = TensorSpec.from_xdsl(a.type).shape
        entries = d[DIMS].data if isinstance(d[DIMS], ArrayAttr) else None
        if entries is None or len(entries) != len(shape) or any(
                not isinstance(e, StringAttr) or (e.data and (
                    not is_dim_name(e.data) or s is not None)) for e, s in zip(entries, shape)):
            raise VerifyException(f"{what}: argument {i}: {{{DIMS}}} must list one "
                                  "identifier per dynamic dim ('' for a static one)")
        named.update(e.data for e in entries if e.data)
    return named


def _defined_before_use(block: Block, seen: set[SSAValue]) -> None:
    """Every operand is a value defined above its use: an argument of an enclosing
    block or a result of an earlier op (the text parser accepts forward references).
    `seen` holds the values visible here; what the block defines leaves it again on
    the way out, so the walk stays linear in the number of ops."""
    local: list[SSAValue] = list(block.args)
    seen.update(local)
    for op in block.ops:
        for i, value in enumerate(op.operands):
            if value not in seen:
                shown = f"%{value.name_hint}" if value.name_hint else f"operand #{i}"
                raise VerifyException(f"{_where(op)}: {shown} is used before its definition")
        for region in op.regions:
            for inner in region.blocks:
                _defined_before_use(inner, seen)
        seen.update(op.results)
        local.extend(op.results)
    seen.difference_update(local)


def _where(op: Operation) -> str:
    """`op.name at file:line:col` (just the name where the op has no location)."""
    loc = location_text(op.location)
    return f"{op.name} at {loc}" if loc else op.name
