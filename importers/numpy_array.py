"""The NumPy tracer: `NpArray` stands in for an `np.ndarray` while a NumPy program runs.

NumPy hands every call on such an object back to it (`__array_ufunc__` for ufuncs and
operators, `__array_function__` for `np.sum`, `np.einsum`, ...; operators and methods
are spelled as those calls in `numpy_methods`). The array passes each call, and its
indexing, to the `Handlers` of its trace's `Session`, which the entry module
(`importers.numpy`) fills from the op-family modules: those record registry ops and
import this module, never the other way round.

NumPy itself is the oracle for what a call means: its result dtype and shape come from
`ufunc.resolve_dtypes` or from running the same function on zero arrays of the operands'
shapes and dtypes, so promotion (NEP 50: Python scalars weak, NumPy scalars strong),
axis handling and argument errors are NumPy's own.

In-place updates are functional: an array's contents live in a `Storage` cell that
`+=`, `out=` and `x[k] = v` rebind. A view (basic indexing, transposes, `flip`,
`expand_dims`/`squeeze`, `broadcast_to`) keeps its parent and the step that made it,
so writing to it rebinds the parent too and reading it after the parent changed
re-derives it: aliasing behaves as in NumPy. `reshape`/`ravel` return a view or a copy
depending on memory layout; mixing them with in-place updates raises `TraceError`
instead of guessing.
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from xdsl.ir import Attribute, SSAValue

from ivy_ir.core.errors import TraceError, UnsupportedOpsError
from ivy_ir.core.graph import INLINE_LIMIT
from ivy_ir.core.locations import user_location
from ivy_ir.dialect import TensorSpec
from ivy_ir.dialect.types import numpy_dtype

from .common import ImportBuilder, dtype_of, location_str
from .numpy_methods import ArrayMethods

_NUMPY_DIR = (os.path.dirname(np.__file__) + os.sep,)


def numpy_user_location() -> Attribute:
    """`ivy_ir.core.locations.user_location` that also steps out of NumPy's own Python code: a
    NumPy function that does not dispatch to the tracer (`np.take` of a NumPy array at
    traced indices) converts it inside NumPy, and the error must name the user's line."""
    return user_location(skip=_NUMPY_DIR)


USER_ERRORS = (ValueError, TypeError, IndexError, ArithmeticError, np.linalg.LinAlgError)
"""What NumPy raises for bad arguments: re-raised with the user's line in front."""


class ViewStep(Protocol):
    """How a view derives from its parent, and how writing to it updates the parent."""

    def apply(self, session: Session, parent: SSAValue) -> SSAValue: ...

    def put(self, session: Session, parent: SSAValue, new: SSAValue) -> SSAValue: ...


@dataclass(frozen=True)
class Handlers:
    """What a traced array does with the NumPy calls it receives: given to the `Session`
    by the entry module, so that this module needs none of the op tables."""

    ufunc: Callable[[Session, np.ufunc, str, tuple[Any, ...], dict[str, Any]], Any]
    """`(session, ufunc, method, inputs, kwargs)`, as `__array_ufunc__` gets them."""
    function: Callable[[Session, Any, tuple[Any, ...], dict[str, Any]], Any]
    """`(session, func, args, kwargs)`, as `__array_function__` gets them."""
    get_item: Callable[[NpArray, Any], NpArray]
    set_item: Callable[[NpArray, Any, Any], None]


class Session:
    """One NumPy trace: the ImportBuilder plus NumPy-flavoured helpers around it, and
    the handlers of the NumPy calls its arrays receive."""

    def __init__(self, builder: ImportBuilder, handlers: Handlers):
        self.builder = builder
        self.handlers = handlers

    # ---- where we are ----
    def here(self) -> None:
        """Point the ops emitted next at the user's current source line."""
        self.builder.at(numpy_user_location())

    @property
    def where(self) -> str:
        return location_str(self.builder.graph.location)

    def trace_error(self, message: str) -> TraceError:
        return TraceError(f"{self.where}: {message}")

    def rethrow(self, exc: Exception, what: str) -> Exception:
        """NumPy's error for a bad call, of the same type, with the user's line in front."""
        message = f"{self.where}: {what}: {exc}"
        for cls in type(exc).__mro__:
            try:
                return cls(message)
            except Exception:  # some NumPy errors take other constructor arguments
                continue
        return ValueError(message)

    # ---- dtypes and values ----
    def dtype_name(self, dtype: Any) -> str:
        try:
            return dtype_of(dtype)
        except TypeError:
            raise TypeError(f"{self.where}: NumPy dtype {np.dtype(dtype)} has no equivalent in "
                            "the ivy dialect") from None

    def emit(self, op: str, *operands: Any, **attrs: Any) -> SSAValue:
        """Registry op `op` (a variadic operand is one list); its (first) result."""
        return self.builder.emit(op, operands, **attrs)

    def emit_all(self, op: str, *operands: Any, **attrs: Any) -> list[SSAValue]:
        return self.builder.emit_all(op, operands, **attrs)

    def cast(self, value: SSAValue, dtype: Any) -> SSAValue:
        return self.builder.cast(value, self.dtype_name(dtype))

    def lift(self, x: Any, dtype: Any = None) -> SSAValue:
        """An SSA value for a traced array, NumPy array/scalar, Python scalar or SSA value, in
        `dtype` when given (Python scalars take it as NumPy does: out-of-range ints fail)."""
        if isinstance(x, (NpArray, SSAValue)):
            value = x.value if isinstance(x, NpArray) else x
            return value if dtype is None else self.cast(value, dtype)
        if isinstance(x, np.ndarray) and x.size > INLINE_LIMIT:
            return self._large_constant(x, dtype)
        try:
            array = np.asarray(x) if dtype is None else np.asarray(x, dtype=dtype)
        except (OverflowError, ValueError, TypeError) as exc:
            raise self.rethrow(exc, f"constant {x!r}") from None
        self.dtype_name(array.dtype)
        return self.builder.constant(array)

    def _large_constant(self, x: np.ndarray, dtype: Any) -> SSAValue:
        first = x.flat[0]
        uniform = bool(np.all(x == first)) and x.dtype.kind in "biuf" and (
            x.dtype.kind != "f" or bool(np.all(np.signbit(x) == np.signbit(first))))
        if uniform and (x.dtype.kind != "i" or abs(int(first)) < 2**53):
            # a filled array (np.zeros((b, h)), np.ones(...)): one `full`, no buffer
            want = x.dtype if dtype is None else np.dtype(dtype)
            return self.emit("full", shape=list(x.shape),
                             fill_value=float(np.asarray(first).astype(want)),
                             dtype=self.dtype_name(want))
        self.dtype_name(x.dtype)
        value = self.builder.graph.lift(x)  # one buffer per closed-over array
        return value if dtype is None else self.cast(value, dtype)

    def new(self, value: SSAValue) -> NpArray:
        return NpArray(self, value)

    def array(self, x: Any, dtype: Any = None) -> NpArray:
        if isinstance(x, NpArray) and dtype is None:
            return x
        return self.new(self.lift(x, dtype))

    # ---- NumPy as the oracle ----
    def oracle(self, fn: Callable[..., Any], args: Sequence[Any], kwargs: dict[str, Any],
               what: str, eye: bool = False) -> Any:
        """`fn` run by NumPy on stand-ins (zeros, or identities for square matrices
        when `eye`) of the traced operands: NumPy's result types and its errors."""
        def dummy(x: Any) -> Any:
            if isinstance(x, NpArray):
                return x.dummy(eye)
            if isinstance(x, (list, tuple)) and any(isinstance(i, (NpArray, list, tuple))
                                                    for i in x):
                return type(x)(dummy(i) for i in x) if not hasattr(x, "_fields") \
                    else type(x)(*(dummy(i) for i in x))
            return x
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                return fn(*[dummy(a) for a in args], **{k: dummy(v) for k, v in kwargs.items()})
            except USER_ERRORS as exc:
                raise self.rethrow(exc, what) from None

    def unsupported(self, name: str, example: Any) -> Any:
        """Record the unmapped NumPy call `name`; stand-ins shaped like NumPy's result
        (`example`) keep the program going so that one error can list every gap."""
        items = list(example) if isinstance(example, (tuple, list)) else [example]
        specs = []
        for item in items:
            if not isinstance(item, (np.ndarray, np.generic)):
                self._stop(name)
            try:
                specs.append(TensorSpec(np.shape(item), dtype_of(_stand_in(item.dtype))))
            except TypeError:
                self._stop(name)
        outs = [self.new(v) for v in self.builder.unsupported(name, specs)]
        if isinstance(example, list):
            return outs
        return tuple(outs) if isinstance(example, tuple) else outs[0]

    def _stop(self, name: str) -> None:
        """An unmapped call whose result is no array: nothing can stand in for it."""
        self.builder.missing.setdefault(name, []).append(self.where)
        raise UnsupportedOpsError("numpy", self.builder.missing)


def _stand_in(dtype: np.dtype) -> np.dtype:
    """A dialect dtype to stand in for a result the dialect has no dtype for (complex:
    its real part's, as `.real` of it reads; wide unsigned: int64), so the walk goes on."""
    if dtype.kind == "c":
        return np.finfo(dtype).dtype
    if dtype.kind == "u" and dtype.itemsize > 1:
        return np.dtype(np.int64)
    return dtype


class Storage:
    """The current contents of an array and of every view of it."""

    __slots__ = ("value", "version", "link", "poisoned")

    def __init__(self, value: SSAValue):
        self.value = value
        self.version = 0
        self.link: tuple[Storage, int, str] | None = None
        """For a `reshape`/`ravel` result: the storage it may alias, its version then,
        and where the reshape was."""
        self.poisoned: str | None = None


class NpArray(ArrayMethods):
    """A traced `np.ndarray`: NumPy functions, ufuncs, operators, methods and indexing
    on it are recorded as ivy ops (operators and methods: `numpy_methods`)."""

    __slots__ = ("session", "_storage", "_parent", "_step", "_cache", "_version", "_spec",
                 "_dtype")
    __array_priority__ = 1000.0

    def __init__(self, session: Session, value: SSAValue, parent: NpArray | None = None,
                 step: ViewStep | None = None):
        self.session = session
        self._spec = TensorSpec.from_xdsl(value.type)
        self._dtype = numpy_dtype(self._spec.dtype)
        self._parent, self._step = parent, step
        self._storage = Storage(value) if parent is None else parent._storage
        self._cache, self._version = value, self._storage.version

    # ---- what NumPy sees ----
    @property
    def shape(self) -> tuple[int, ...]:
        return self._spec.shape  # type: ignore[return-value]

    @property
    def dtype(self) -> np.dtype:
        return self._dtype

    @property
    def ndim(self) -> int:
        return len(self._spec.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def itemsize(self) -> int:
        return self._dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.size * self._dtype.itemsize

    def dummy(self, eye: bool = False) -> np.ndarray:
        """A stand-in of this array's type for running NumPy as the oracle."""
        if eye and self.ndim >= 2 and self.shape[-1] == self.shape[-2]:
            return np.broadcast_to(np.eye(self.shape[-1], dtype=self._dtype), self.shape).copy()
        return np.zeros(self.shape, self._dtype)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self) -> Any:
        if not self.shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.shape[0]))

    def __repr__(self) -> str:
        return f"NpArray(shape={self.shape}, dtype={self._dtype})"

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        return self.session.handlers.ufunc(self.session, ufunc, method, inputs, kwargs)

    def __array_function__(self, func: Any, types: Any, args: tuple[Any, ...],
                           kwargs: dict[str, Any]) -> Any:
        return self.session.handlers.function(self.session, func, args, kwargs)

    def __getitem__(self, key: Any) -> NpArray:
        self.session.here()
        return self.session.handlers.get_item(self, key)

    def __setitem__(self, key: Any, value: Any) -> None:
        self.session.here()
        self.session.handlers.set_item(self, key, value)

    def __getattr__(self, name: str) -> Any:
        # only reached for names NpArray lacks: other ndarray API is recorded as unmapped
        if name.startswith("_") or not hasattr(np.ndarray, name):
            raise AttributeError(f"'numpy.ndarray' object has no attribute '{name}'")
        if not callable(getattr(np.ndarray, name)):
            self.session.here()
            raise self.session.trace_error(f"ndarray.{name} of a traced array is not "
                                           "available while tracing")

        def method(*args: Any, **kwargs: Any) -> Any:
            s = self.session
            s.here()
            example = s.oracle(lambda a, *r, **k: getattr(a, name)(*r, **k), (self, *args),
                               kwargs, f"ndarray.{name}")
            return s.unsupported(f"numpy.ndarray.{name}", example)
        return method

    # ---- contents ----
    @property
    def value(self) -> SSAValue:
        """The SSA value of the current contents (re-derived after in-place updates)."""
        st = self._storage
        if st.poisoned:
            raise TraceError(st.poisoned)
        if st.link is not None and st.link[0].version != st.link[1]:
            self.session.here()
            raise self.session.trace_error(
                f"this array comes from reshape/ravel at {st.link[2]}, which NumPy makes a "
                "view or a copy depending on memory layout, and its input was changed in "
                "place since; call .copy() on the reshape result to make the intent explicit")
        if self._version != st.version:
            if self._parent is None:
                self._cache = st.value
            else:
                assert self._step is not None
                self._cache = self._step.apply(self.session, self._parent.value)
            self._version = st.version
        return self._cache

    def is_view(self, parent: NpArray, step: ViewStep) -> bool:
        """Whether this array is `step` of `parent` and still current (`x[k] += v`
        writes through the view, so the assignment Python adds after it is a no-op)."""
        return self._parent is parent and self._step == step and \
            self._version == self._storage.version

    def view(self, step: ViewStep) -> NpArray:
        """A view of this array made by `step` (shares its contents)."""
        return NpArray(self.session, step.apply(self.session, self.value), self, step)

    def maybe_view(self, value: SSAValue) -> NpArray:
        """The result of reshape/ravel: NumPy may alias it with this array or not."""
        out = NpArray(self.session, value)
        out._storage.link = (self._storage, self._storage.version, self.session.where)
        return out

    def assign(self, new: SSAValue) -> None:
        """Replace the contents (same shape and dtype) as NumPy's in-place ops do: a view
        writes through to its parent, so every alias sees the update."""
        st = self._storage
        if self._parent is None:
            self.value  # noqa: B018  (raises if this array may alias an updated one)
            if st.link is not None:
                st.link[0].poisoned = (
                    f"{self.session.where}: writing into the result of reshape/ravel at "
                    f"{st.link[2]} changes its input only if NumPy made a view there, "
                    "which depends on memory layout; call .copy() on the reshape result "
                    "first")
                st.link = None
            st.value = new
            st.version += 1
        else:
            assert self._step is not None
            self._parent.assign(self._step.put(self.session, self._parent.value, new))
        self._cache, self._version = new, st.version
