"""What every importer shares: building the entry function, emitting registry ops with
source locations, dtype casts, parameters, and the all-at-once unsupported-op report.

An importer walks its framework's graph (torch.export FX graph, jaxpr, TF GraphDef,
recorded NumPy calls) and, per source op, looks up a mapping table entry that emits
ivy ops through an `ImportBuilder`. Ops without an entry are recorded with
`builder.unsupported(...)`, which hands back placeholder values of the right type so
the walk goes on; `finish()` then raises one `UnsupportedOpsError` naming every missing
op, its count and where the user wrote it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

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

from ivy_ir.dialect import TensorSpec
from ivy_ir.dialect.types import dtype_name, numpy_dtype
from ivy_ir.module import Module
from ivy_ir.tracer import Graph, UnsupportedOpsError, identifier


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
                 input_names: Sequence[str] = ()):
        self.framework = framework
        self.block = Block(arg_types=[s.to_xdsl() for s in inputs])
        for arg, name in zip(self.block.args, input_names):
            arg.name_hint = identifier(name)
        self.graph = Graph(self.block, location=UnknownLoc())
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
        return [self.emit("zeros", shape=list(_static(s.shape)), dtype=s.dtype)
                for s in results]

    def finish(self, outputs: Sequence[SSAValue], returns_sequence: bool,
               name: str = "main") -> Module:
        """Close the entry function, raise the unsupported-op report, verify."""
        if self.missing:
            raise UnsupportedOpsError(self.framework, self.missing)
        block = self.block
        block.add_op(func.ReturnOp(*outputs))
        fn = func.FuncOp(name, ([a.type for a in block.args], [v.type for v in outputs]),
                         Region(block))
        fn.arg_attrs = ArrayAttr([self.graph.param_attrs.get(i, DictionaryAttr({}))
                                  for i in range(len(block.args))])
        module = Module(ModuleOp([fn]), dict(self.graph.params), returns_sequence)
        module.verify()
        return module


def spec_of(value: SSAValue) -> TensorSpec:
    return TensorSpec.from_xdsl(value.type)


def dtype_of(array_dtype: Any) -> str:
    """The registry dtype name of a NumPy-compatible dtype (raises for unsupported ones)."""
    return dtype_name(np.dtype(array_dtype))


def _static(shape: Sequence[int | None]) -> list[int]:
    return [1 if d is None else d for d in shape]
