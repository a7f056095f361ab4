"""The tracer: records facade calls made on `Tracer` values as ivy ops in a `Graph`.

A `Graph` is an insertion point plus the bookkeeping of parameters; the same class
builds whole traced functions and splices decompositions in front of a composite op.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.builder import Builder
from xdsl.dialects.builtin import (
    DictionaryAttr,
    FileLineColLoc,
    IntAttr,
    StringAttr,
    UnknownLoc,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint

from .dialect import OP_CLASSES, SPECS, TensorSpec

INLINE_LIMIT = 16
"""Arrays with more elements than this become parameters instead of inline constants."""

_OWN_DIRS = tuple(os.path.dirname(os.path.dirname(__file__)) + os.sep + d + os.sep
                  for d in ("ivy_ir", "ivy", "lowerings", "importers"))


def user_location() -> Attribute:
    """The innermost stack frame outside this package: where the user called the op."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_OWN_DIRS):
        frame = frame.f_back
    if frame is None:
        return UnknownLoc()
    pos = frame.f_code.co_positions()
    col = 0
    for i, p in enumerate(pos):
        if i == frame.f_lasti // 2 and p[2] is not None:
            col = p[2] + 1
            break
    return FileLineColLoc(StringAttr(_short(frame.f_code.co_filename)), IntAttr(frame.f_lineno),
                          IntAttr(col))


def _short(path: str) -> str:
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


class TraceError(RuntimeError):
    """A traced program did something that a static graph cannot record."""


class Graph:
    """Where recorded ops go, and the parameters discovered while recording."""

    def __init__(self, block: Block, before: Operation | None = None,
                 location: Attribute | None = None, allow_params: bool = True):
        self.block = block
        self.allow_params = allow_params
        self.builder = Builder(InsertPoint.before(before) if before else InsertPoint.at_end(block))
        self.location = location
        self.params: dict[str, np.ndarray] = {}
        self.param_attrs: dict[int, DictionaryAttr] = {}
        self._lifted: dict[int, SSAValue] = {}

    def emit(self, name: str, operands: Sequence[Any], attrs: dict[str, Any]) -> list[SSAValue]:
        loc = self.location or user_location()
        op = OP_CLASSES[name].build(*operands, location=loc, **attrs)
        self.builder.insert(op)
        return list(op.results)

    def add_param(self, name: str, array: np.ndarray, trainable: bool = True) -> SSAValue:
        arg = self.block.insert_arg(TensorSpec.of(array).to_xdsl(), len(self.block.args))
        arg.name_hint = name.replace(".", "_")
        self.params[name] = array
        key = "ivy.param" if trainable else "ivy.buffer"
        self.param_attrs[arg.index] = DictionaryAttr({key: StringAttr(name)})
        return arg

    def lift(self, value: Any, dtype: str | None = None) -> SSAValue:
        """An SSA value for a Tracer, array or Python scalar met during tracing."""
        if isinstance(value, Tracer):
            return value.value
        array = np.asarray(value) if dtype is None else np.asarray(value, dtype=dtype)
        if self.allow_params and array.size > INLINE_LIMIT and isinstance(value, np.ndarray):
            if id(value) not in self._lifted:
                self._lifted[id(value)] = self.add_param(f"const{len(self._lifted)}", value,
                                                         trainable=False)
            return self._lifted[id(value)]
        return self.emit("constant", [], {"value": array})[0]


class Tracer:
    """A symbolic array: operators and methods record ops into its graph."""

    __slots__ = ("value", "graph")
    __array_ufunc__ = None  # make NumPy defer to our reflected operators
    __array_priority__ = 1000

    def __init__(self, value: SSAValue, graph: Graph):
        self.value = value
        self.graph = graph

    @property
    def spec(self) -> TensorSpec:
        return TensorSpec.from_xdsl(self.value.type)

    @property
    def shape(self) -> tuple[int | None, ...]:
        return self.spec.shape

    @property
    def dtype(self) -> str:
        return self.spec.dtype

    @property
    def ndim(self) -> int:
        return self.spec.rank

    def __len__(self) -> int:
        if not self.shape or self.shape[0] is None:
            raise TypeError("len() of a 0-d or dynamic-size tracer")
        return self.shape[0]

    def __bool__(self) -> bool:
        loc = user_location()
        where = f" at {loc.filename.data}:{loc.line.data}" if isinstance(loc, FileLineColLoc) else ""
        raise TraceError(f"data-dependent Python control flow{where}: the truth value of a "
                         "traced array is not known while tracing; use ivy.where instead")

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return f"Tracer({self.spec})"


def _operator(op_name: str, reflected: bool = False):
    def method(self: Tracer, other: Any) -> Any:
        from . import functional as F

        fn = getattr(F, op_name)
        return fn(other, self) if reflected else fn(self, other)
    return method


_BINARY = {"add": "add", "sub": "subtract", "mul": "multiply", "truediv": "divide",
           "floordiv": "floor_divide", "mod": "remainder", "pow": "pow", "matmul": "matmul",
           "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor",
           "lshift": "bitwise_left_shift", "rshift": "bitwise_right_shift"}
for _py, _op in _BINARY.items():
    setattr(Tracer, f"__{_py}__", _operator(_op))
    setattr(Tracer, f"__r{_py}__", _operator(_op, reflected=True))
for _py, _op in {"lt": "less", "le": "less_equal", "gt": "greater", "ge": "greater_equal",
                 "eq": "equal", "ne": "not_equal"}.items():
    setattr(Tracer, f"__{_py}__", _operator(_op))
assert all(op in SPECS for op in _BINARY.values())


def _unary(op_name: str):
    def method(self: Tracer) -> Any:
        from . import functional as F

        return getattr(F, op_name)(self)
    return method


Tracer.__neg__ = _unary("negative")  # type: ignore[attr-defined]
Tracer.__abs__ = _unary("abs")  # type: ignore[attr-defined]
Tracer.__invert__ = _unary("bitwise_invert")  # type: ignore[attr-defined]
