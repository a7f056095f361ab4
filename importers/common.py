"""What every importer shares: the rule signature and context protocol of its mapping
tables, the one-to-one name tables, and building the entry function (registry ops with
source locations, dtype casts, parameters, the all-at-once unsupported-op report).

An importer walks its framework's graph (torch.export FX graph, jaxpr, TF GraphDef,
recorded NumPy calls) and, per source op, looks up a mapping table entry: a `Rule`
called as `rule(ctx, *args, **kwargs)` with the source op's own arguments, which emits
ivy ops through the `ImportContext` it is given. Ops without an entry (or a rule that
raises `Unmapped`) are recorded with `builder.unsupported(...)`, which hands back
placeholder values of the right type so the walk goes on; `finish()` then raises one
`UnsupportedOpsError` naming every missing op, its count and where the user wrote it.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FileLineColLoc,
    IntAttr,
    ModuleOp,
    StringAttr,
    UnknownLoc,
)
from xdsl.ir import Attribute, Block, Region, SSAValue

from ivy_ir.core.errors import CustomGradientWarning, UnsupportedOpsError
from ivy_ir.core.graph import Graph
from ivy_ir.core.locations import identifier, user_stacklevel
from ivy_ir.core.module import DIMS, UPDATE, Module
from ivy_ir.core.resample import resample_taps
from ivy_ir.core.rules import PLAIN_ELEMENTWISE
from ivy_ir.core.tracer import Tracer
from ivy_ir.dialect import SPECS, TensorSpec
from ivy_ir.dialect.symbolic import SymDim
from ivy_ir.dialect.types import FLOATS, dtype_name, numpy_dtype

Rule = Callable[..., Any]
"""`rule(ctx, *args, **kwargs) -> value | list[value]`: the registry ops for one source op,
called with an `ImportContext` and the op's arguments as its framework passes them (ATen
node arguments, a jaxpr equation's inputs and params, a TF op's inputs and attributes,
a NumPy call's arguments)."""


class ImportContext(Protocol):
    """What a rule may count on from every importer's context (each adds what its
    framework needs, such as torch's promotion or TF's attribute reader)."""

    def emit(self, op: str, *operands: Any, **attrs: Any) -> Any:
        """Emit registry op `op` (attributes left out or None take their default); its
        (first) result."""

    def emit_all(self, op: str, *operands: Any, **attrs: Any) -> list[Any]:
        """Emit registry op `op`; all its results."""

    def cast(self, value: Any, dtype: str) -> Any:
        """`value` in `dtype`, with an `astype` only where the dtype differs."""

    def const(self, value: Any, dtype: str) -> Any:
        """A constant of `dtype` (inline when small, a buffer otherwise)."""

    def spec(self, value: Any) -> TensorSpec:
        """The type of an operand value."""

    def known(self, value: Any) -> np.ndarray | None:
        """The value of an operand fixed at import time, or None."""

    @property
    def out(self) -> TensorSpec:
        """The source framework's own type for the op's (first) result."""


class Unmapped(Exception):
    """The source op (or this use of it) has no exact registry form: the walker records
    it in the all-at-once unsupported-op report, with `detail` after the op name."""

    def __init__(self, detail: str = ""):
        super().__init__(detail)
        self.detail = detail


UNARY_OPS = frozenset(op for op in PLAIN_ELEMENTWISE if len(SPECS[op].operands) == 1)
BINARY_OPS = PLAIN_ELEMENTWISE - UNARY_OPS


def one_to_one(ops: Iterable[str], spell: Callable[[str], str] = str,
               renamed: Mapping[str, str | None] = {},
               aliases: Mapping[str, str] = {}) -> dict[str, str]:
    """Source op name -> registry op, for source ops with one registry op of the same
    meaning: every op of `ops` under its name in the source's naming convention
    (`spell`), unless `renamed` gives the source's own name for it (None: the source has
    no such op, or a rule of its own handles it), plus `aliases`: more source names,
    each for a registry op. The same registry op sets serve every importer, so an op
    added to the registry is mapped everywhere its name is spelled the usual way."""
    table = {renamed.get(op, spell(op)): op for op in sorted(ops)}
    table.pop(None, None)
    unknown = sorted(set(aliases.values()) - set(SPECS))
    if unknown:
        raise ValueError(f"aliases name non-registry ops: {', '.join(unknown)}")
    return {**table, **aliases}


def merge_tables(*tables: Mapping[str, Rule]) -> dict[str, Rule]:
    """The op family tables of one source as its one table; a source op mapped by two
    families would shadow one of the rules, so that is an error."""
    merged: dict[str, Rule] = {}
    for table in tables:
        clash = sorted(merged.keys() & table.keys())
        if clash:
            raise ValueError(f"source ops mapped by two tables: {', '.join(clash)}")
        merged.update(table)
    return merged


def camel(op: str) -> str:
    """TensorFlow's raw-op spelling of a registry name: `logical_not` -> `LogicalNot`."""
    return "".join(part.capitalize() for part in op.split("_"))


def location(file: str | None, line: int | None, col: int = 0) -> Attribute:
    """A `loc("file":line:col)`, or `loc(unknown)` when the framework kept no position."""
    if not file or line is None:
        return UnknownLoc()
    return FileLineColLoc(StringAttr(file), IntAttr(int(line)), IntAttr(int(col)))


def location_str(loc: Attribute) -> str:
    if isinstance(loc, FileLineColLoc):
        return f"{loc.filename.data}:{loc.line.data}"
    return "<unknown location>"


class ImportBuilder:
    """Builds one entry function from a source program, op by op."""

    def __init__(self, framework: str, inputs: Sequence[TensorSpec],
                 input_names: Sequence[str] = (),
                 dims: Sequence[Sequence[str | None]] = ()):
        """`dims`: per input, the names of its dynamic dims (None for a static dim)."""
        self.framework = framework
        self.block = Block(arg_types=[s.to_xdsl() for s in inputs])
        for arg, name in zip(self.block.args, input_names):
            arg.name_hint = identifier(name)
        self.graph = Graph(self.block, location=UnknownLoc())
        for i, names in enumerate(dims):
            if any(names):
                self.graph.param_attrs[i] = DictionaryAttr({DIMS: ArrayAttr(
                    [StringAttr(n or "") for n in names])})
        self.missing: dict[str, list[str]] = {}

    @property
    def inputs(self) -> list[SSAValue]:
        return list(self.block.args)

    def at(self, loc: Attribute) -> ImportBuilder:
        """Attach `loc` to every op emitted from now on (until the next `at`)."""
        self.graph.location = loc
        return self

    def emit(self, op: str, operands: Sequence[Any] = (), **attrs: Any) -> SSAValue:
        """Emit registry op `op`; returns its (first) result. Attributes left out or
        None take the registry default."""
        return self.emit_all(op, operands, **attrs)[0]

    def emit_all(self, op: str, operands: Sequence[Any] = (), **attrs: Any) -> list[SSAValue]:
        attrs = {k: v for k, v in attrs.items() if v is not None}
        return self.graph.emit(op, list(operands), attrs)

    def param(self, name: str, array: Any, trainable: bool = True) -> SSAValue:
        """A named weight (dotted name as the source framework spells it)."""
        return self.graph.add_param(name, np.asarray(array), trainable)

    def rng_key(self) -> SSAValue:
        """A random key for one op (see `Graph.rng_key`)."""
        return self.graph.rng_key()

    def constant(self, value: Any, dtype: str | None = None) -> SSAValue:
        """A constant: inline when small, otherwise a buffer parameter."""
        array = np.asarray(value) if dtype is None else np.asarray(value, numpy_dtype(dtype))
        if array.dtype == np.dtype("O"):
            raise TypeError(f"cannot import a constant of Python type {type(value).__name__}")
        return self.graph.lift(array)

    def cast(self, value: SSAValue, dtype: str) -> SSAValue:
        """`value` in `dtype`, with an explicit `astype` only where the dtype differs."""
        if spec_of(value).dtype == dtype:
            return value
        return self.emit("astype", [value], dtype=dtype)

    def unsupported(self, op_name: str, results: Sequence[TensorSpec] = ()) -> list[SSAValue]:
        """Record a source op with no mapping; placeholders keep the walk going."""
        loc = self.graph.location or UnknownLoc()
        self.missing.setdefault(op_name, []).append(location_str(loc))
        return [self._placeholder(s) for s in results]

    def _placeholder(self, spec: TensorSpec) -> SSAValue:
        """A stand-in for an unmapped op's result: zeros, or (no op makes text) a text
        parameter. The walk goes on only to report every unmapped op at once."""
        shape = _static(spec.shape)
        if spec.dtype != "string":
            return self.emit("zeros", shape=list(shape), dtype=spec.dtype)
        name = f"unmapped{sum(map(len, self.missing))}"
        return self.graph.add_param(name, np.full(shape, "", np.str_), trainable=False)

    def finish(self, outputs: Sequence[SSAValue], returns_sequence: bool,
               name: str = "main", updates: Sequence[tuple[SSAValue, str]] = ()) -> Module:
        """Close the entry function, raise the unsupported-op report, verify. `updates`
        are new values of buffers (name): trailing results marked `{ivy.update}`."""
        if self.missing:
            raise UnsupportedOpsError(self.framework, self.missing)
        block = self.block
        results = [*outputs, *(v for v, _ in updates)]
        block.add_op(func.ReturnOp(*results))
        fn = func.FuncOp(name, ([a.type for a in block.args], [v.type for v in results]),
                         Region(block))
        fn.arg_attrs = ArrayAttr([self.graph.param_attrs.get(i, DictionaryAttr({}))
                                  for i in range(len(block.args))])
        if updates:
            fn.res_attrs = ArrayAttr([DictionaryAttr({})] * len(outputs) + [
                DictionaryAttr({UPDATE: StringAttr(n)}) for _, n in updates])
        module = Module(ModuleOp([fn]), dict(self.graph.params), returns_sequence)
        module.verify()
        return module


def wrap_pad(ctx: ImportContext, x: Any, shape: Sequence[int], grow: Sequence[int]) -> Any:
    """Circular padding (ONNX's `wrap`, torch's `circular`), which the registry's `pad`
    has no mode for: per axis, the last `before` elements in front and the first `after`
    behind, a `concat` of slices. `grow` holds (before, after) per axis of `shape`."""
    shape, rank = list(shape), len(shape)
    for a in range(rank):
        before, after = grow[2 * a], grow[2 * a + 1]
        if max(before, after) > shape[a]:
            raise Unmapped("wrap padding wider than the input")
        if not before and not after:
            continue
        parts = []
        for lo, hi in ((shape[a] - before, shape[a]), (0, shape[a]), (0, after)):
            start, stop = [0] * rank, list(shape)
            start[a], stop[a] = lo, hi
            if hi > lo:
                parts.append(ctx.emit("slice", x, start=start, stop=stop, step=[1] * rank))
        x = ctx.emit("concat", parts, axis=a)
        shape[a] += before + after
    return x


def drop_gradient_rule(rule: str) -> None:
    """Warn that the source's own gradient rule `rule` (a `jax.custom_vjp` of f at its
    line, a `tf.custom_gradient` at its line) is not imported: the IR has no
    custom-gradient op, so the program keeps only the forward computation."""
    warnings.warn(f"the {rule} is not carried into the ivy program: it runs the "
                  "function's forward computation, and gradients of the compiled program "
                  "(on every target) are that computation's, not the rule's",
                  CustomGradientWarning, stacklevel=user_stacklevel())


def real_reflectors(a: SSAValue) -> SSAValue:
    """The Householder reflectors `linalg_compositions.householder_product` takes: real
    floats (it applies no conjugates), not half floats (they would round at every
    reflector)."""
    dtype = spec_of(a).dtype
    if dtype not in FLOATS or dtype in ("float16", "bfloat16"):
        raise Unmapped(f"{dtype} reflectors")
    return a


def swapped(ctx: ImportContext, x: Any) -> Any:
    """`x` with its last two axes swapped (the standard's `matrix_transpose`), which the
    linear-algebra rules of every source need around solves and factors."""
    rank = ctx.spec(x).rank
    return ctx.emit("permute_dims", x, axes=[*range(rank - 2), rank - 1, rank - 2])


def size_value(ctx: ImportContext, size: int | SymDim, dtype: str = "int64") -> Any:
    """A size as a 0-d tensor of `dtype` (an index wrapped by an axis' length): a
    constant, or a symbolic size as the one element of `arange(size, size + 1)`, the op
    that turns a size into data."""
    if not isinstance(size, SymDim):
        return ctx.const(size, dtype)
    point = ctx.emit("arange", start=size, stop=size + 1, dtype=dtype)
    return ctx.emit("reshape", point, shape=[])


def traced(graph: Graph, fn: Callable[..., Any], *operands: Any, **attrs: Any) -> Any:
    """`fn` (a composition over the recording ops, `ivy_ir.core`) applied to imported
    values: each SSA value (operand or keyword) a tracer of the builder's `graph`, the
    result's tracers their values again (one, or a list)."""
    def wrap(v: Any) -> Any:
        return Tracer(v, graph) if isinstance(v, SSAValue) else v
    out = fn(*map(wrap, operands), **{k: wrap(v) for k, v in attrs.items()})
    if isinstance(out, (list, tuple)):
        return [o.value for o in out]
    return out.value


def spec_of(value: SSAValue) -> TensorSpec:
    return TensorSpec.from_xdsl(value.type)


def dtype_of(array_dtype: Any) -> str:
    """The registry dtype name of a NumPy-compatible dtype (raises for unsupported ones)."""
    return dtype_name(np.dtype(array_dtype))


def _static(shape: Sequence[int | None]) -> list[int]:
    return [1 if d is None else d for d in shape]


def taps_matrix(i0: np.ndarray, i1: np.ndarray, lam: np.ndarray | None, d: int) -> np.ndarray:
    """The (o, d) weight matrix of taps `x[i0] * (1 - lam) + x[i1] * lam` (nearest:
    `lam` None)."""
    rows = np.arange(len(i0))
    w = np.zeros((len(rows), d))
    if lam is None:
        w[rows, i0] = 1.0
        return w
    lam = lam.astype(np.float64)
    np.add.at(w, (rows, i0), 1.0 - lam)
    np.add.at(w, (rows, i1), lam)
    return w


def interpolate_weights(d: int, o: int, mode: str, align_corners: bool,
                        dtype: Any) -> np.ndarray:
    """The (o, d) weights the registry's `interpolate` applies along one axis, which
    importers compare a framework's resize with to pick the exact registry form."""
    return taps_matrix(*resample_taps(d, o, mode, align_corners, dtype), d)


def matrix_along(ctx: ImportContext, y: Any, w: np.ndarray, ax: int, rank: int) -> Any:
    """w (o, d) applied to axis ax of y: a matmul for the last two axes, else a
    tensordot that leaves the new axis last, moved back."""
    if ax == rank - 1:
        return ctx.emit("matmul", y, np.ascontiguousarray(w.T))
    if ax == rank - 2:
        return ctx.emit("matmul", w, y)
    moved = ctx.emit("tensordot", y, np.ascontiguousarray(w.T), axes_x=[ax], axes_y=[0])
    perm = list(range(ax)) + [rank - 1] + list(range(ax, rank - 1))
    return ctx.emit("permute_dims", moved, axes=perm)
