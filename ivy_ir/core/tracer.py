"""The tracer: registry ops called on `Tracer` values are recorded into a `Graph`.

`record` is the one way an op call becomes IR: it binds a call to the op's operands and
attributes, promotes the operands' dtypes, and emits the op. The facade (`ivy/`) calls
it for traced values and runs its own eager path otherwise; decompositions call it
through `OPS`, and a `Tracer`'s operators and methods through the same function.

Promotion is shared with the facade's eager path, so both agree: the operands of an
op's dtype group are promoted to a common dtype (complex over real floats over
integers), Python scalars adopt the dtype of their group (a complex scalar makes a real
group complex), and an integer operand of a float-only (or float-or-complex) op becomes
float32, as the Ivy/torch facades do.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
from xdsl.ir import SSAValue

from ..dialect import SPECS, OpSpec, TensorSpec
from ..dialect.infer import InferError
from ..dialect.spec import GROUPED_CLASSES
from ..dialect.types import (
    CLASS_MEMBERS,
    COMPLEX,
    FLOATS,
    INT64_MAX,
    INT64_MIN,
    dtype_name,
)
from .errors import TraceError
from .graph import Graph, graph_of_sizes
from .locations import user_location, where

DEFAULT_FLOAT = "float32"
DEFAULT_COMPLEX = "complex64"
_DEFAULT_FOR_SCALAR = {bool: "bool", int: "int64", float: DEFAULT_FLOAT,
                       complex: DEFAULT_COMPLEX}


class Tracer:
    """A symbolic array: operators and methods record ops into its graph."""

    __slots__ = ("value", "graph")
    __array_priority__ = 1000

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        """NumPy hands a ufunc called on a Tracer (`np.add(x, t)`, `ndarray + t`) back
        here: a function in `FOREIGN`, else an operator's op, else NumPy's TypeError."""
        if method != "__call__" or kwargs:
            return NotImplemented
        handler = FOREIGN.get(ufunc)
        if handler is not None:
            return handler(*inputs)
        op = _UFUNC_OPS.get(ufunc.__name__, ufunc.__name__)
        return record(SPECS[op], inputs, {}) if op in _OPERATOR_OPS else NotImplemented

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        handler = FOREIGN.get(func)
        return NotImplemented if handler is None or kwargs else handler(*args)

    @classmethod
    def __torch_function__(cls, func: Any, types: Any, args: Any = (),
                           kwargs: Any = None) -> Any:
        """torch hands a function called on a Tracer (`torch.sqrt(t)`) back here, as
        NumPy does: a function in `FOREIGN` records its op. Any other is refused with a
        TypeError, which torch's operators (`tensor + t`) read as NotImplemented, so
        that Python then asks the Tracer's reflected operator."""
        handler = FOREIGN.get(func)
        if handler is None or kwargs:
            name = getattr(func, "__name__", func)
            raise TypeError(f"torch's {name}() was called on a traced array"
                            f"{where(user_location())}: traced code records ivy functions "
                            f"and operators; call ivy's function for it instead")
        return handler(*args)

    def __init__(self, value: SSAValue, graph: Graph):
        self.value = value
        self.graph = graph

    @property
    def spec(self) -> TensorSpec:
        return TensorSpec.from_xdsl(self.value.type)

    @property
    def shape(self) -> tuple[Any, ...]:
        """Static sizes as ints; a dynamic dim as its size (`SymDim`: `batch`, `2 * seq`)
        where the trace declared dynamic dims, so shape code (`x.reshape(b, -1)`)
        stays symbolic; None where nothing names it."""
        return self.graph.sizes(self.value)

    @property
    def dtype(self) -> str:
        return self.spec.dtype

    @property
    def ndim(self) -> int:
        return self.spec.rank

    def __len__(self) -> int:
        shape = self.spec.shape
        if not shape or shape[0] is None:
            raise TypeError("len() of a 0-d or dynamic-size tracer")
        return shape[0]

    def __bool__(self) -> bool:
        raise TraceError(f"data-dependent Python control flow{where(user_location())}: the "
                         "truth value of a traced array is not known while tracing; use "
                         "ivy.where instead")

    def __float__(self) -> float:
        raise _concrete("float")

    def __int__(self) -> int:
        raise _concrete("int")

    def __complex__(self) -> complex:
        raise _concrete("complex")

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return f"Tracer({self.spec})"

    def __getitem__(self, key: Any) -> Any:
        return _getitem(self, key)

    def reshape(self, *shape: Any) -> Tracer:
        flat = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        return OPS.reshape(self, shape=list(flat))

    @property
    def T(self) -> Tracer:  # noqa: N802 (the array attribute's name)
        return OPS.permute_dims(self, axes=list(range(self.ndim))[::-1])

    def transpose(self, *axes: Any) -> Tracer:
        order = list(axes[0] if len(axes) == 1 else axes) or list(range(self.ndim))[::-1]
        return OPS.permute_dims(self, axes=order)


class ConcretizationError(TraceError, TypeError):
    """A traced array converted to a Python number. A TypeError too, as Python's own
    conversions raise one, so code that probes `float(v)` keeps working."""


def _concrete(kind: str) -> ConcretizationError:
    return ConcretizationError(
        f"{kind}() of a traced array{where(user_location())}: its value is not known while "
        "tracing; keep it an array (ivy ops accept arrays wherever they accept numbers), "
        "or pass the number as a static (non-array) argument")


# ---- binding and promotion (shared with the facade's eager path) ----

def bind(spec: OpSpec, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[list[Any], dict]:
    """Split a call into operands (in spec order) and attributes."""
    kwargs = dict(kwargs)
    operands: list[Any] = []
    pos = list(args)
    for arg in spec.operands:
        if pos:
            v = pos.pop(0)
        elif arg.name in kwargs:
            v = kwargs.pop(arg.name)
        elif arg.optional:
            v = None
        else:
            raise TypeError(f"ivy.{spec.name}() missing tensor argument '{arg.name}'")
        if arg.variadic:
            if not isinstance(v, (list, tuple)):
                raise TypeError(f"ivy.{spec.name}() takes '{arg.name}' as a list of arrays")
            v = list(v)
        operands.append(v)
    if pos:
        raise TypeError(f"ivy.{spec.name}() takes {len(spec.operands)} tensor argument(s); "
                        "attributes are keyword-only")
    return operands, kwargs


def scalar_dtype(v: Any) -> str:
    """The dtype a Python scalar (or array-like) takes when nothing else decides it."""
    if isinstance(v, (bool, int, float, complex)):
        return _DEFAULT_FOR_SCALAR[type(v)]
    return dtype_name(np.asarray(v).dtype)


def _dtype_of(v: Any) -> str | None:
    if isinstance(v, Tracer):
        return v.dtype
    if isinstance(v, (np.ndarray, np.generic)):
        return dtype_name(v.dtype)
    return None


def _promote(dtypes: list[str]) -> str:
    """Floats win over integers whatever their width; complex wins over real floats, in
    the width that holds both (complex64 with float64 gives complex128)."""
    complexes = [d for d in dtypes if d in COMPLEX]
    if complexes:
        wide = "complex128" in complexes or "float64" in dtypes
        return "complex128" if wide else "complex64"
    floats = [d for d in dtypes if d in FLOATS]
    if floats:
        return str(np.result_type(*[np.dtype(d) for d in floats])) if "bfloat16" not in floats \
            else "bfloat16"
    return dtype_name(np.result_type(*[np.dtype(d) for d in dtypes]))


def group_dtype(spec: OpSpec, operands: list[Any]) -> str | None:
    """The common dtype of the op's grouped operands, after promotion."""
    typed, scalars = [], []
    for arg, v in zip(spec.operands, operands):
        if arg.dtype_class not in GROUPED_CLASSES or v is None:
            continue
        for item in (v if arg.variadic else [v]):
            d = _dtype_of(item)
            (typed if d else scalars).append(d or scalar_dtype(item))
    if not typed and not scalars:
        return None
    common = _promote(typed) if typed else _promote(scalars)
    if typed and scalars and common not in COMPLEX:
        # a Python float scalar makes an integer group float, a complex one makes any
        # real group complex (of the float's width)
        if DEFAULT_COMPLEX in scalars:
            common = "complex128" if common == "float64" else DEFAULT_COMPLEX
        elif DEFAULT_FLOAT in scalars and common not in FLOATS:
            common = DEFAULT_FLOAT
    classes = {a.dtype_class for a in spec.operands if a.dtype_class in GROUPED_CLASSES}
    if common not in FLOATS | COMPLEX and classes <= {"float", "inexact"}:
        common = DEFAULT_FLOAT
    return common


def find_graph(operands: list[Any]) -> Graph | None:
    """The graph of the first traced operand, None when nothing is traced."""
    for v in operands:
        for item in (v if isinstance(v, list) else [v]):
            if isinstance(item, Tracer):
                return item.graph
    return None


# ---- recording ----

def record_bound(spec: OpSpec, graph: Graph, operands: list[Any], attrs: dict[str, Any],
                 common: str | None) -> Any:
    """Emit a bound call (see `bind`, `group_dtype`) into `graph`; Tracers of the results."""
    values = []
    for arg, v in zip(spec.operands, operands):
        items = v if arg.variadic else [v]
        lifted = [None if i is None else _lift(graph, arg.dtype_class, i, common)
                  for i in items]
        values.append(lifted if arg.variadic else lifted[0])
    try:
        emitted = graph.emit(spec.name, values, attrs)
    except InferError as exc:  # operands that do not fit (shapes that do not broadcast)
        raise InferError(f"{exc}{where(user_location())}") from None
    results = [Tracer(r, graph) for r in emitted]
    return results if spec.variadic_results else results[0] if len(results) == 1 \
        else tuple(results)


def record(spec: OpSpec, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """Record the op call `spec(*args, **kwargs)`; at least one operand is a Tracer."""
    operands, attrs = bind(spec, args, kwargs)
    graph = find_graph(operands) or graph_of_sizes(attrs.values())
    if graph is None:
        raise TypeError(f"ivy.{spec.name}: no traced operand to record the op on")
    return record_bound(spec, graph, operands, attrs, group_dtype(spec, operands))


def value_of(graph: Graph, v: Any) -> SSAValue:
    """The SSA value of a traced result, or of an array or scalar met while tracing."""
    return v.value if isinstance(v, Tracer) else graph.lift(v)


def _lift(graph: Graph, cls: str, v: Any, common: str | None) -> SSAValue:
    want = common if cls in GROUPED_CLASSES else None
    if isinstance(v, Tracer):
        if want and v.dtype != want:
            return graph.emit("astype", [v.value], {"dtype": want})[0]
        if cls == "mask" and v.dtype not in CLASS_MEMBERS["mask"]:
            return graph.emit("astype", [v.value], {"dtype": DEFAULT_FLOAT})[0]
        return v.value
    if want is None and not isinstance(v, np.ndarray):
        want = scalar_dtype(v)
    return graph.lift(v, want)


def _recorder(spec: OpSpec) -> Any:
    def op(*args: Any, **kwargs: Any) -> Any:
        return record(spec, args, kwargs)
    op.__name__ = op.__qualname__ = spec.name
    return op


OPS = SimpleNamespace(**{name: _recorder(spec) for name, spec in SPECS.items()
                         if not spec.regions})
"""Every registry op as a recording function: `OPS.add(x, 1)` on Tracers (control-flow
ops take bodies: `ivy_ir.core.control` records those)."""


# ---- operators, methods and indexing of Tracer ----

def _operator(op_name: str, reflected: bool = False) -> Any:
    spec = SPECS[op_name]

    def method(self: Tracer, other: Any) -> Any:
        return record(spec, (other, self) if reflected else (self, other), {})
    return method


def _method(op_name: str) -> Any:
    spec = SPECS[op_name]

    def method(self: Tracer, *args: Any, **kwargs: Any) -> Any:
        return record(spec, (self, *args), kwargs)
    method.__name__ = op_name
    return method


BINARY_OPERATORS = {"add": "add", "sub": "subtract", "mul": "multiply", "truediv": "divide",
                    "floordiv": "floor_divide", "mod": "remainder", "pow": "pow",
                    "matmul": "matmul", "and": "bitwise_and", "or": "bitwise_or",
                    "xor": "bitwise_xor", "lshift": "bitwise_left_shift",
                    "rshift": "bitwise_right_shift"}
COMPARISONS = {"lt": "less", "le": "less_equal", "gt": "greater", "ge": "greater_equal",
               "eq": "equal", "ne": "not_equal"}
UNARY_OPERATORS = {"neg": "negative", "abs": "abs", "invert": "bitwise_invert"}
_OPERATOR_OPS = {*BINARY_OPERATORS.values(), *COMPARISONS.values(), *UNARY_OPERATORS.values()}
_UFUNC_OPS = {"power": "pow", "left_shift": "bitwise_left_shift",
              "right_shift": "bitwise_right_shift", "absolute": "abs",
              "invert": "bitwise_invert"}
"""The ufuncs behind NumPy's operators whose names differ from their ops' (`ndarray ** t`
calls `np.power`); the rest share the op's name."""
FOREIGN: dict[Any, Any] = {}
"""Framework functions that hand a Tracer argument back to it (NumPy's ufuncs and array
functions, torch's functions), each with the function that records the call. The facade
enters each framework function it binds into `ivy` itself, so that code traced while
that framework is the backend records what it calls; this registry is filled once per
function and never changes what a function means."""
METHODS = ("sum", "mean", "max", "min", "prod", "std", "var", "argmax", "argmin", "all",
           "any", "astype", "flip", "squeeze")

for _py, _op in BINARY_OPERATORS.items():
    setattr(Tracer, f"__{_py}__", _operator(_op))
    setattr(Tracer, f"__r{_py}__", _operator(_op, reflected=True))
for _py, _op in COMPARISONS.items():
    setattr(Tracer, f"__{_py}__", _operator(_op))
for _py, _op in UNARY_OPERATORS.items():
    setattr(Tracer, f"__{_py}__", _method(_op))
for _name in METHODS:
    setattr(Tracer, _name, _method(_name))


def _getitem(self: Tracer, key: Any) -> Any:
    """Basic indexing (ints, slices, None, Ellipsis) as slice/squeeze/expand_dims ops."""
    key = key if isinstance(key, tuple) else (key,)
    if any(isinstance(k, (Tracer, np.ndarray, list)) for k in key):
        raise TraceError(f"advanced (array) indexing of a traced array{where(user_location())}"
                         " is not supported; use ivy.take or ivy.gather_nd")
    n_real = sum(1 for k in key if k is not None and k is not Ellipsis)
    if n_real > self.ndim:
        raise IndexError(f"too many indices for a rank-{self.ndim} array"
                         f"{where(user_location())}")
    if sum(k is Ellipsis for k in key) > 1:
        raise IndexError(f"an index can only have a single ellipsis ('...')"
                         f"{where(user_location())}")
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
        size = self.spec.shape[dim]
        if isinstance(k, (int, np.integer)):
            if size is not None and not -size <= k < size:
                raise IndexError(f"index {k} is out of bounds for axis {dim} with size {size}"
                                 f"{where(user_location())}")
            k = int(k) % size if size is not None else int(k)
            start.append(k), stop.append(k + 1), step.append(1)
            drop.append(dim)
        else:
            s = 1 if k.step is None else int(k.step)
            if s == 0:
                raise ValueError(f"slice step cannot be zero{where(user_location())}")
            start.append(int(k.start) if k.start is not None else (0 if s > 0 else INT64_MAX))
            stop.append(int(k.stop) if k.stop is not None else (INT64_MAX if s > 0 else INT64_MIN))
            step.append(s)
        dim += 1
    out = self
    if any((b, e, s) != (0, INT64_MAX, 1) for b, e, s in zip(start, stop, step)):
        out = OPS.slice(out, start=start, stop=stop, step=step)
    if drop:
        out = OPS.squeeze(out, axis=drop)
    if new:
        out = OPS.expand_dims(out, axis=new)
    return out
