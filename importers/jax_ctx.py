"""What a lax rule sees: `Ctx`, the JAX importer's `ImportContext`.

The walker (`jax_walk.py`) calls every rule of the lax table as
`rule(ctx, *ins, **eqn.params)` with a `Ctx` made for that one equation: its primitive
name and result types, on top of what all equations of one import share (the builder,
constants by value, and facts a rule leaves for later rules: average-pool window sums,
iota results).

Values are either SSA values of the IR being built or *known* NumPy arrays (literals,
closed-over constants, results folded at import time). Rules read static facts from
known values (`known`) and pass either kind to `emit`, which materializes a known
array as a constant only where an op uses it.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
from xdsl.ir import SSAValue

from ivy_ir.core.graph import INLINE_LIMIT
from ivy_ir.dialect import TensorSpec
from ivy_ir.dialect.types import numpy_dtype

from .common import ImportBuilder, spec_of

Value = SSAValue | np.ndarray

FOLD_LIMIT = INLINE_LIMIT
"""Equations on known inputs are evaluated at import time when their results are this
small: larger results stay ops (an `iota` of 1000 reads better as `ivy.arange`)."""


class Ctx:
    """One jaxpr equation being imported (`primitive`, `outs`), and the state every
    equation of the import shares (`for_equation` makes a context that shares it)."""

    def __init__(self, builder: ImportBuilder):
        self.b = builder
        self.primitive = ""
        """The lax primitive's name (for `Unmapped` details)."""
        self.outs: tuple[TensorSpec, ...] = ()
        """JAX's types for all of the equation's results."""
        self._constants: dict[Any, tuple[np.ndarray, SSAValue]] = {}
        self.window_sums: dict[SSAValue, tuple[SSAValue, float]] = {}
        """`reduce_window_sum` results: the average pool they came from and the window
        size, so that `sum / size` (Flax `avg_pool`) imports as the pool itself."""
        self.iotas: dict[SSAValue, int] = {}
        """`iota` results and their dimension (`argsort` is a sort keyed on an iota)."""

    def for_equation(self, primitive: str, outs: Sequence[TensorSpec]) -> Ctx:
        """A context for one equation, sharing the builder, constants and facts."""
        ctx = copy.copy(self)
        ctx.primitive, ctx.outs = primitive, tuple(outs)
        return ctx

    @property
    def out(self) -> TensorSpec:
        """JAX's type for the equation's first result."""
        return self.outs[0]

    def ssa(self, value: Value) -> SSAValue:
        """An SSA value for `value`; a known array becomes a constant (once)."""
        if isinstance(value, SSAValue):
            return value
        # small constants are shared by value (each literal read is a fresh array)
        key: Any = (value.dtype.str, value.shape, value.tobytes()) \
            if value.size <= INLINE_LIMIT else id(value)
        if key not in self._constants:
            self._constants[key] = (value, self.b.constant(value))
        return self._constants[key][1]

    @contextmanager
    def region(self) -> Iterator[None]:
        """Scope for recording a region's body: the constants made meanwhile are that
        region's, never handed to code after it or to another region (an inline constant
        lives in the block it was made in; a large array's buffer is a function argument,
        which the graph's own cache hands back to every region that uses it)."""
        outer = self._constants
        self._constants = {}
        try:
            yield
        finally:
            self._constants = outer

    def emit(self, op: str, *operands: Value | list[Value] | None, **attrs: Any) -> SSAValue:
        """Emit registry op `op` (a variadic operand is one list); its first result."""
        return self.emit_all(op, *operands, **attrs)[0]

    def emit_all(self, op: str, *operands: Value | list[Value] | None,
                 **attrs: Any) -> list[SSAValue]:
        return self.b.emit_all(op, [self._operand(v) for v in operands], **attrs)

    def _operand(self, v: Value | list[Value] | None) -> Any:
        if isinstance(v, list):
            return [self.ssa(x) for x in v]
        return None if v is None else self.ssa(v)

    def cast(self, value: Value, dtype: str) -> Value:
        """`value` in `dtype` (an `astype` op only where the dtype differs)."""
        if isinstance(value, np.ndarray):
            return value.astype(numpy_dtype(dtype), copy=False)
        return self.b.cast(value, dtype)

    def const(self, value: Any, dtype: str) -> np.ndarray:
        """A known array of `dtype`: a constant (inline when small, a buffer otherwise)
        wherever an op uses it."""
        return np.asarray(value, dtype=numpy_dtype(dtype))

    @staticmethod
    def known(value: Value) -> np.ndarray | None:
        return value if isinstance(value, np.ndarray) else None

    @staticmethod
    def spec(value: Value) -> TensorSpec:
        return TensorSpec.of(value) if isinstance(value, np.ndarray) else spec_of(value)

    def index0(self, x: Value, i: int) -> Value:
        """`x[i]` along the leading axis."""
        if isinstance(x, np.ndarray):
            return np.asarray(x[i])
        shape = self.spec(x).shape
        part = self.emit("slice", x, start=[i] + [0] * (len(shape) - 1),
                         stop=[i + 1, *shape[1:]], step=[1] * len(shape))
        return self.emit("squeeze", part, axis=[0])
