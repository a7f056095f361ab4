"""One NumPy call being imported: its context `Call` (an `importers.common.ImportContext`)
and the dispatch of `np.*` functions to the rules of a function table.

A rule is called as `rule(call, *args, **kwargs)` with the NumPy call's own arguments.
Before it runs, NumPy runs the same call on stand-in arrays (`Session.oracle`): that
gives NumPy's own errors for bad arguments and the exact result dtypes and shapes
(`Call.examples`, `Call.out`), which the rule casts to and which are checked afterwards.
Argument values a rule does not cover raise `Unmapped(argument name)` and are reported
as `numpy.f(arg=)`; functions without an entry as `numpy.f`.

The tables themselves live in the op-family modules (`numpy_math`, `numpy_reduce`,
`numpy_shape`, `numpy_index`, `numpy_linalg`); `importers.numpy` merges them and hands
`call_function` over that table to the session, so this module imports no family.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple
from xdsl.ir import SSAValue

from ivy_ir.dialect import TensorSpec
from ivy_ir.dialect.types import DTYPES, numpy_dtype

from .common import Rule, Unmapped, spec_of
from .numpy_array import NpArray, Session

NO = np._NoValue
"""NumPy's "argument not given" default."""

STATIC = frozenset({"shape", "ndim", "size", "result_type", "iscomplexobj", "isrealobj",
                    "can_cast", "min_scalar_type", "broadcast_shapes"})
"""Functions of shapes and dtypes only: NumPy's answer on stand-ins is the answer."""
DATA_DEPENDENT = frozenset({"nonzero", "argwhere", "flatnonzero", "unique", "unique_values",
                            "unique_counts", "unique_inverse", "unique_all", "compress",
                            "extract", "trim_zeros"})


class Call:
    """The context of one NumPy call: the session, the NumPy name of what is called
    (`sum`, `linalg.inv`, the ufunc `add`) and NumPy's result on the stand-ins
    (`examples`, one array per result; for a ufunc computed only if a rule asks)."""

    __slots__ = ("s", "name", "_examples", "_oracle")

    def __init__(self, s: Session, name: str, examples: Any = None,
                 oracle: Callable[[], Any] | None = None):
        self.s, self.name = s, name
        self._examples = None if oracle is not None else _as_list(examples)
        self._oracle = oracle

    @property
    def examples(self) -> list[Any]:
        if self._examples is None:
            assert self._oracle is not None
            self._examples = _as_list(self._oracle())
        return self._examples

    # ---- ImportContext ----
    def emit(self, op: str, *operands: Any, **attrs: Any) -> SSAValue:
        return self.s.emit(op, *operands, **attrs)

    def emit_all(self, op: str, *operands: Any, **attrs: Any) -> list[SSAValue]:
        return self.s.emit_all(op, *operands, **attrs)

    def cast(self, value: Any, dtype: Any) -> SSAValue:
        """`value` in `dtype` (a registry name or any NumPy dtype)."""
        return self.s.builder.cast(self.s.lift(value), self._dtype_name(dtype))

    def const(self, value: Any, dtype: Any) -> SSAValue:
        name = self._dtype_name(dtype)
        return self.s.lift(value, numpy_dtype(name))

    def spec(self, value: Any) -> TensorSpec:
        if isinstance(value, (NpArray, SSAValue)):
            return spec_of(value.value if isinstance(value, NpArray) else value)
        array = np.asarray(value)
        return TensorSpec(array.shape, self.s.dtype_name(array.dtype))

    def known(self, value: Any) -> np.ndarray | None:
        """Everything but traced arrays is known: NumPy arrays and Python values."""
        return None if isinstance(value, (NpArray, SSAValue)) else np.asarray(value)

    @property
    def out(self) -> TensorSpec:
        example = np.asarray(self.examples[0])
        return TensorSpec(example.shape, self.s.dtype_name(example.dtype))

    # ---- NumPy extras ----
    @property
    def dtype(self) -> np.dtype:
        """NumPy's dtype of the (first) result."""
        return self.examples[0].dtype

    @property
    def shape(self) -> tuple[int, ...]:
        return self.examples[0].shape

    def val(self, x: Any, dtype: Any = None) -> SSAValue:
        """`x` in `dtype` (default: the result dtype)."""
        return self.s.lift(x, self.dtype if dtype is None else dtype)

    def new(self, v: SSAValue, dtype: Any = None) -> NpArray:
        """A traced array of `v` in `dtype` (default: the result dtype)."""
        return self.s.new(self.s.cast(v, self.dtype if dtype is None else dtype))

    def _dtype_name(self, dtype: Any) -> str:
        return dtype if isinstance(dtype, str) and dtype in DTYPES else self.s.dtype_name(dtype)


def _as_list(example: Any) -> list[Any]:
    return list(example) if isinstance(example, (tuple, list)) else [example]


def on_identities(rule: Rule) -> Rule:
    """Mark `rule` to have NumPy's oracle run on identity matrices instead of zeros, so
    that decompositions and solvers check their arguments without failing on singular
    stand-ins."""
    rule.on_identities = True  # type: ignore[attr-defined]
    return rule


_signature = functools.cache(inspect.signature)


def public_name(func: Any) -> str:
    """The key of a NumPy function in the function table: `sum`, `linalg.norm`."""
    module = getattr(func, "__module__", None) or "numpy"
    sub = module[len("numpy."):] if module.startswith("numpy.") else ""
    return f"{sub}.{func.__name__}" if sub and not sub.startswith("_") else func.__name__


def call_function(table: Mapping[str, Rule], s: Session, func: Any, args: tuple[Any, ...],
                  kwargs: dict[str, Any]) -> Any:
    """`func(*args, **kwargs)` on traced arrays, through its rule in `table`."""
    s.here()
    name = public_name(func)
    what = f"numpy.{name}"
    if name in STATIC:
        return s.oracle(func, args, kwargs, what)
    if name in DATA_DEPENDENT:
        raise s.trace_error(f"{what} of a traced array has a data-dependent shape or value, "
                            "which a static graph cannot hold")
    rule = table.get(name)
    if rule is None:
        return s.unsupported(what, s.oracle(func, args, kwargs, what))
    example = s.oracle(func, args, kwargs, what, eye=getattr(rule, "on_identities", False))
    out = kwargs.get("out")
    given = {k: v for k, v in kwargs.items() if k != "out"} if out is not None else kwargs
    signature = _signature(rule)
    try:
        signature.bind(None, *args, **given)
    except TypeError:
        unknown = [k for k in given if k not in signature.parameters] or ["args"]
        return s.unsupported(f"{what}({', '.join(unknown)}=)", example)
    try:
        result = rule(Call(s, name, example), *args, **given)
    except Unmapped as exc:
        return s.unsupported(f"{what}({exc.detail}=)", example)
    if example is not None:  # np.copyto answers None
        _check(what, result, example)
    if out is not None:
        return store_out(s, what, s.array(result).value, out, np.shape(example), True,
                         "unsafe")
    return result


def _check(what: str, got: Any, want: Any) -> None:
    """The import must give NumPy's result types: a mismatch is a bug of this importer."""
    have = [(g.shape, g.dtype) if isinstance(g, NpArray) else (np.shape(g), np.asarray(g).dtype)
            for g in _as_list(got)]
    need = [(np.shape(w), np.asarray(w).dtype) for w in _as_list(want)]
    if have != need:
        raise RuntimeError(f"internal error importing {what}: the importer produced {have} "
                           f"where NumPy gives {need}")


def store_out(s: Session, what: str, r: SSAValue, o: Any, shape: tuple[int | None, ...],
              where: Any, casting: str) -> NpArray:
    """Write a result into its `out=` array, under NumPy's casting rule."""
    if not isinstance(o, NpArray):
        raise s.trace_error(f"{what}: out= must be a traced array; a NumPy array cannot be "
                            "updated in place while tracing")
    have = numpy_dtype(spec_of(r).dtype)
    if not np.can_cast(have, o.dtype, casting):
        raise TypeError(f"{s.where}: Cannot cast ufunc '{what[6:]}' output from {have!r} to "
                        f"{o.dtype!r} with casting rule '{casting}'")
    if np.broadcast_shapes(shape, o.shape) != o.shape:
        raise ValueError(f"{s.where}: {what}: non-broadcastable output operand with shape "
                         f"{o.shape} doesn't match the broadcast shape "
                         f"{np.broadcast_shapes(shape, o.shape)}")
    r = s.cast(r, o.dtype)
    if where is not True:
        r = s.emit("where", s.lift(where, np.bool_), r, o.value)
    if spec_of(r).shape != o.shape:
        r = s.emit("broadcast_to", r, shape=list(o.shape))
    o.assign(r)
    return o


def axes_of(axis: Any, ndim: int) -> list[int] | None:
    """NumPy's `axis` argument as non-negative axes (None: all)."""
    return None if axis is None else list(normalize_axis_tuple(axis, ndim))
