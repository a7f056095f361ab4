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
from .dialect.types import INT64_MAX, INT64_MIN

INLINE_LIMIT = 16
"""Arrays with more elements than this become parameters instead of inline constants."""

OWN_DIRS = tuple(os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep + d
                 + os.sep for d in ("ivy_ir", "ivy", "lowerings", "importers"))
"""This project's source folders: frames in them are never the user's code."""


def user_location(skip: tuple[str, ...] = ()) -> Attribute:
    """The innermost stack frame outside this package (and the folders in `skip`):
    where the user called the op."""
    skipped = OWN_DIRS + skip
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(skipped):
        frame = frame.f_back
    if frame is None:
        return UnknownLoc()
    pos = frame.f_code.co_positions()
    col = 0
    for i, p in enumerate(pos):
        if i == frame.f_lasti // 2 and p[2] is not None:
            col = p[2] + 1
            break
    return FileLineColLoc(StringAttr(short_path(frame.f_code.co_filename)),
                          IntAttr(frame.f_lineno), IntAttr(col))


def short_path(path: str) -> str:
    """`path` relative to the working directory when below it: short, stable IR text."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def is_array(v: Any) -> bool:
    """Whether an example argument is an array (an IR input) rather than a static
    Python value: NumPy arrays and scalars, and any framework's tensors (`__array__`)."""
    if isinstance(v, (bool, int, float, complex, str, bytes)) or v is None:
        return False
    return isinstance(v, (np.ndarray, np.generic)) or hasattr(v, "__array__")


def identifier(name: str) -> str:
    """An SSA name hint for a source name such as `layers.0.w` or `dense/kernel`."""
    out = "".join(c if c.isalnum() or c == "_" else "_" for c in name)
    return out if out and not out[0].isdigit() else f"_{out}"


class TraceError(RuntimeError):
    """A traced program did something that a static graph cannot record."""


class UnsupportedOpsError(TraceError):
    """Source ops with no mapping to the ivy dialect, all of them at once.

    `missing` maps each framework op name to the locations (`file:line`) of its uses.
    """

    def __init__(self, framework: str, missing: dict[str, list[str]]):
        self.framework = framework
        self.missing = {k: list(v) for k, v in missing.items()}
        total = sum(len(v) for v in missing.values())
        lines = [f"{total} {framework} op{'s' * (total != 1)} of {len(missing)} kind"
                 f"{'s' * (len(missing) != 1)} cannot be imported (no mapping to the ivy "
                 "dialect):"]
        for name, locs in sorted(missing.items()):
            shown = ", ".join(dict.fromkeys(locs))
            lines.append(f"  {name} (x{len(locs)}): {shown}")
        super().__init__("\n".join(lines))


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
        self._lifted: dict[tuple[int, str], tuple[np.ndarray, SSAValue]] = {}

    def emit(self, name: str, operands: Sequence[Any], attrs: dict[str, Any]) -> list[SSAValue]:
        loc = self.location or user_location()
        op = OP_CLASSES[name].build(*operands, location=loc, **attrs)
        self.builder.insert(op)
        return list(op.results)

    def add_param(self, name: str, array: np.ndarray, trainable: bool = True) -> SSAValue:
        arg = self.block.insert_arg(TensorSpec.of(array).to_xdsl(), len(self.block.args))
        arg.name_hint = identifier(name)
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
            # one buffer per array and dtype; holding `value` keeps its id from being reused
            key = (id(value), array.dtype.str)
            if key not in self._lifted:
                arg = self.add_param(f"const{len(self._lifted)}", array, trainable=False)
                self._lifted[key] = (value, arg)
            return self._lifted[key][1]
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
        where = (f" at {loc.filename.data}:{loc.line.data}"
                 if isinstance(loc, FileLineColLoc) else "")
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




def _getitem(self: Tracer, key: Any) -> Any:
    """Basic indexing (ints, slices, None, Ellipsis) as slice/squeeze/expand_dims ops."""
    from . import functional as F

    key = key if isinstance(key, tuple) else (key,)
    if any(isinstance(k, (Tracer, np.ndarray, list)) for k in key):
        raise TraceError("advanced (array) indexing of a traced array is not supported; "
                         "use ivy.take or ivy.gather_nd")
    n_real = sum(1 for k in key if k is not None and k is not Ellipsis)
    if n_real > self.ndim:
        raise IndexError(f"too many indices for a rank-{self.ndim} array")
    if Ellipsis in key:
        i = key.index(Ellipsis)
        key = key[:i] + (slice(None),) * (self.ndim - n_real) + key[i + 1:]
    else:
        key = key + (slice(None),) * (self.ndim - n_real)
    start, stop, step, drop, new = [], [], [], [], []
    dim = 0
    for k in key:
        if k is None:
            new.append(len(start) - len(drop) + len(new))
            continue
        size = self.shape[dim]
        if isinstance(k, (int, np.integer)):
            if size is not None and not -size <= k < size:
                raise IndexError(f"index {k} is out of bounds for axis {dim} with size {size}")
            k = int(k) % size if size is not None else int(k)
            start.append(k), stop.append(k + 1), step.append(1)
            drop.append(dim)
        else:
            s = 1 if k.step is None else int(k.step)
            start.append(int(k.start) if k.start is not None else (0 if s > 0 else INT64_MAX))
            stop.append(int(k.stop) if k.stop is not None else (INT64_MAX if s > 0 else INT64_MIN))
            step.append(s)
        dim += 1
    out = self
    if any((b, e, s) != (0, INT64_MAX, 1) for b, e, s in zip(start, stop, step)):
        out = F.slice(out, start=start, stop=stop, step=step)
    if drop:
        out = F.squeeze(out, axis=drop)
    if new:
        out = F.expand_dims(out, axis=new)
    return out


def _method(op_name: str):
    def method(self: Tracer, *args: Any, **kwargs: Any) -> Any:
        from . import functional as F

        return getattr(F, op_name)(self, *args, **kwargs)
    method.__name__ = op_name
    return method


Tracer.__getitem__ = _getitem  # type: ignore[attr-defined]
for _name in ("sum", "mean", "max", "min", "prod", "std", "var", "argmax", "argmin", "all",
              "any", "astype", "flip", "squeeze"):
    setattr(Tracer, _name, _method(_name))
Tracer.reshape = lambda self, *shape: _method("reshape")(  # type: ignore[attr-defined]
    self, shape=list(shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list))
                     else shape))
Tracer.T = property(lambda self: _method("permute_dims")(  # type: ignore[attr-defined]
    self, axes=list(range(self.ndim))[::-1]))
Tracer.transpose = lambda self, *axes: _method("permute_dims")(  # type: ignore[attr-defined]
    self, axes=list(axes[0] if len(axes) == 1 else axes) or list(range(self.ndim))[::-1])
