"""`Graph`: where recorded ops go, and the parameters discovered while recording.

One class serves every producer of IR: the facade tracer, the importers (through
their builder), and the passes that splice a decomposition in front of a composite op.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
from xdsl.builder import Builder
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, StringAttr, UnitAttr
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint

from ..dialect import OP_CLASSES, TensorSpec
from ..dialect.symbolic import SymbolicError, SymDim
from .dim_flow import DimFlow
from .locations import identifier, user_location
from .size_poly import Poly

INLINE_LIMIT = 16
"""Arrays with more elements than this become parameters instead of inline constants."""


def is_array(v: Any) -> bool:
    """Whether an example argument is an array (an IR input) rather than a static
    Python value: NumPy arrays and scalars, and any framework's tensors (`__array__`)."""
    if isinstance(v, (bool, int, float, complex, str, bytes)) or v is None:
        return False
    return isinstance(v, (np.ndarray, np.generic)) or hasattr(v, "__array__")


def input_names(fn: Callable[..., Any], args: tuple[Any, ...], skip_first: bool) -> list[str]:
    """Name IR inputs after the function's parameters, so printed IR reads like the source."""
    try:
        names = list(inspect.signature(fn).parameters)[int(skip_first):]
    except (TypeError, ValueError):
        names = []
    names += [f"arg{i}" for i in range(len(names), len(args))]
    return [n for n, a in zip(names, args) if is_array(a)]


RNG_KEY = "ivy.rng"
"""The argument attribute of a program's random key input."""
ALIASES = "ivy.aliases"
"""The argument attribute listing a parameter's other names (tied weights)."""
DIMS = "ivy.dims"
"""The argument attribute naming an input's dynamic dims ("" for a static one)."""


class TracedSize(SymDim):
    """A dynamic size met while tracing (`x.shape[0]`), which knows the graph it belongs
    to: an op built from sizes alone (`ivy.ones((b, 16))`) records there. Arithmetic
    keeps the graph."""

    def __init__(self, expr: str, graph: Graph):
        super().__init__(expr)
        object.__setattr__(self, "graph", graph)

    def _combine(self, other: Any, op: str, flip: bool = False) -> Any:
        out = super()._combine(other, op, flip)
        return TracedSize(out.expr, self.graph) if isinstance(out, SymDim) else out

    def __neg__(self) -> TracedSize:
        return TracedSize(super().__neg__().expr, self.graph)

    def _compare(self, other: Any) -> bool:
        raise SymbolicError(f"the dynamic size '{self.expr}' has no value while tracing, so "
                            "no Python code can compare it; use ivy.where on arrays, or "
                            "keep the dim static")

    __lt__ = __le__ = __gt__ = __ge__ = _compare


def graph_of_sizes(values: Any) -> Graph | None:
    """The graph of the first traced size among `values` (looking into lists)."""
    for v in values:
        if isinstance(v, TracedSize):
            return v.graph
        if isinstance(v, (list, tuple)):
            found = graph_of_sizes(v)
            if found is not None:
                return found
    return None


class Graph:
    """An insertion point plus the bookkeeping of parameters."""

    def __init__(self, block: Block, before: Operation | None = None,
                 location: Attribute | None = None, allow_params: bool = True):
        self.block = block
        self.allow_params = allow_params
        self.builder = Builder(InsertPoint.before(before) if before else InsertPoint.at_end(block))
        self.location = location
        self.params: dict[str, np.ndarray] = {}
        self.param_attrs: dict[int, DictionaryAttr] = {}
        self._lifted: dict[tuple[int, str], tuple[np.ndarray, SSAValue]] = {}
        self._key: SSAValue | None = None
        self._draws = 0
        self.flow: DimFlow | None = None
        """Each value's named sizes, where some input declares dynamic dims."""
        self._followed: set[Operation] = set()

    def declare_dims(self, arg: BlockArgument, names: Sequence[str | None]) -> None:
        """Mark `arg`'s dims `names` (None: static) as dynamic, `{ivy.dims}`."""
        attrs = dict(self.param_attrs[arg.index].data) if arg.index in self.param_attrs else {}
        attrs[DIMS] = ArrayAttr([StringAttr(n or "") for n in names])
        self.param_attrs[arg.index] = DictionaryAttr(attrs)
        self.flow = self.flow or DimFlow()
        static = TensorSpec.from_xdsl(arg.type).shape
        self.flow.shapes[arg] = tuple(Poly.of(n) if n else Poly.of(d) if d is not None
                                      else self.flow.fresh() for n, d in zip(names, static))

    def sizes(self, value: SSAValue) -> tuple[int | SymDim | None, ...]:
        """`value`'s shape: static sizes, and where dims are dynamic, their names."""
        if self.flow is None:
            return TensorSpec.from_xdsl(value.type).shape
        for op in self.block.ops:
            if op not in self._followed:
                self._followed.add(op)
                self.flow.visit(op)
        return tuple(TracedSize(d.expr, self) if isinstance(d, SymDim) else d
                     for d in self.flow.sizes(value))

    def rng_key(self) -> SSAValue:
        """A key for one random op of a program that draws (dropout in training mode):
        the program's key input, added on first use and marked `{ivy.rng}` (the compiled
        program supplies a fresh one per call, from the target's own RNG idiom), plus a
        per-op offset, so no two ops draw the same stream."""
        if self._key is None:
            arg = self.block.insert_arg(TensorSpec((), "int32").to_xdsl(), len(self.block.args))
            arg.name_hint = "rng"
            self.param_attrs[arg.index] = DictionaryAttr({RNG_KEY: UnitAttr()})
            self._key = arg
        self._draws += 1
        if self._draws == 1:
            return self._key
        offset = self.emit("constant", [], {"value": np.asarray(self._draws - 1, np.int32)})
        return self.emit("add", [self._key, offset[0]], {})[0]

    @contextmanager
    def inside(self, block: Block) -> Iterator[Block]:
        """Record into `block` (a region's body) for the duration; parameters still
        go to the function's own block."""
        saved = self.builder
        self.builder = Builder(InsertPoint.at_end(block))
        try:
            yield block
        finally:
            self.builder = saved

    def emit(self, name: str, operands: Sequence[Any], attrs: dict[str, Any]) -> list[SSAValue]:
        loc = self.location or user_location()
        op = OP_CLASSES[name].build(*operands, location=loc, **attrs)
        self.builder.insert(op)
        return list(op.results)

    def add_param(self, name: str, array: np.ndarray, trainable: bool = True) -> SSAValue:
        if name in self.params:  # two arguments of one name would merge into one value
            raise ValueError(f"two parameters are named '{name}'")
        arg = self.block.insert_arg(TensorSpec.of(array).to_xdsl(), len(self.block.args))
        arg.name_hint = identifier(name)
        self.params[name] = array
        key = "ivy.param" if trainable else "ivy.buffer"
        self.param_attrs[arg.index] = DictionaryAttr({key: StringAttr(name)})
        return arg

    def alias(self, param: SSAValue, name: str) -> None:
        """Another name of parameter `param` (a tied weight): the source's state holds
        it under both, so a module built from the program registers it under both."""
        attrs = dict(self.param_attrs[param.index].data)
        names = [a.data for a in attrs[ALIASES].data] if ALIASES in attrs else []
        attrs[ALIASES] = ArrayAttr([StringAttr(n) for n in (*names, name)])
        self.param_attrs[param.index] = DictionaryAttr(attrs)

    def lift(self, value: Any, dtype: str | None = None) -> SSAValue:
        """An SSA value for an array or Python scalar met during recording: an inline
        constant when small, a buffer parameter otherwise."""
        array = np.asarray(value) if dtype is None else np.asarray(value, dtype=dtype)
        if self.allow_params and array.size > INLINE_LIMIT and isinstance(value, np.ndarray):
            # one buffer per array and dtype; holding `value` keeps its id from being reused
            key = (id(value), array.dtype.str)
            if key not in self._lifted:
                arg = self.add_param(self._fresh_const_name(), array, trainable=False)
                self._lifted[key] = (value, arg)
            return self._lifted[key][1]
        return self.emit("constant", [], {"value": array})[0]

    def _fresh_const_name(self) -> str:
        """`const<n>` for a lifted array, never a name the user gave a parameter."""
        n = len(self._lifted)
        while f"const{n}" in self.params:
            n += 1
        return f"const{n}"
