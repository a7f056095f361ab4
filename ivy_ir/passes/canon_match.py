"""What rewrite rules know about values, and how they build replacement ops.

Rules of `canonicalize` and `strip-wrappers` are plain functions `rule(op, emit)` that
return the value(s) replacing `op`'s results, or None when they do not apply. They read
the IR through the helpers here (which op produced a value, which scalar every element
of a value equals) and create ops only through an `Emit`, which builds them *detached*:
the driver inserts them only once the rule has succeeded and the replacement has the
very result types of the op it replaces, so a rule can never leave half a rewrite in
the IR.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr
from xdsl.ir import Operation, OpResult, SSAValue

from ..dialect import OP_CLASSES, IvyOp, TensorSpec
from ..dialect.attrs import dense_value
from ..dialect.types import COMPLEX, FLOATS, numpy_dtype

Replacement = SSAValue | Sequence[SSAValue] | None
Rule = Callable[[IvyOp, "Emit"], Replacement]

FILL_VALUES: dict[str, Callable[[dict[str, Any]], float]] = {
    "zeros": lambda a: 0.0, "zeros_like": lambda a: 0.0,
    "ones": lambda a: 1.0, "ones_like": lambda a: 1.0,
    "full": lambda a: a["fill_value"], "full_like": lambda a: a["fill_value"],
}
"""Creation ops whose every element is one scalar (cast to the result dtype)."""


class Emit:
    """Builds replacement ops for one matched op, at its location, without inserting."""

    def __init__(self, op: IvyOp):
        self.op = op
        self.ops: list[Operation] = []

    def build(self, name: str, *operands: Any, **attrs: Any) -> IvyOp:
        new = OP_CLASSES[name].build(*operands, location=self.op.location, **attrs)
        self.ops.append(new)
        return new

    def __call__(self, name: str, *operands: Any, **attrs: Any) -> SSAValue:
        """The (first) result of a new `ivy.<name>` op."""
        return self.build(name, *operands, **attrs).results[0]

    def clone(self, op: Operation, mapping: dict[SSAValue, SSAValue]) -> Operation:
        """A copy of an existing op (a body op being inlined or hoisted out of its region),
        its operands looked up in `mapping`, which learns the copy's results; the copy
        keeps the op's location."""
        new = op.clone(value_mapper=mapping)
        self.ops.append(new)
        return new

    def discard(self) -> None:
        """Drop the ops built so far (they hold uses of their operands until erased)."""
        for new in reversed(self.ops):
            new.erase()
        self.ops.clear()


def spec(value: SSAValue) -> TensorSpec:
    return TensorSpec.from_xdsl(value.type)


def is_float(value: SSAValue) -> bool:
    """A real float or complex value: one that can hold NaN, inf and -0.0, which break
    most integer identities."""
    return spec(value).dtype in FLOATS | COMPLEX


def is_complex(value: SSAValue) -> bool:
    return spec(value).dtype in COMPLEX


def producer(value: SSAValue | None, *names: str) -> IvyOp | None:
    """The ivy op (one of `names`, or any when none given) whose result `value` is."""
    owner = value.owner if isinstance(value, OpResult) else None
    if isinstance(owner, IvyOp) and (not names or owner.SPEC.name in names):
        return owner
    return None


def source(op: IvyOp) -> SSAValue:
    """The first (data) operand of a single-input op."""
    return op.operands[0]


def constant_array(value: SSAValue | None) -> np.ndarray | None:
    """The array of an `ivy.constant` result (what constant folding evaluates)."""
    op = producer(value, "constant")
    if op is None:
        return None
    return dense_value(op.properties["value"])


def splat(value: SSAValue | None) -> np.generic | None:
    """The scalar every element of `value` equals, when the IR says so statically.

    Reads the raw bytes of a constant instead of unpacking it, so a big splat costs one
    bytes comparison; creation ops (`zeros`, `full_like`, ...) give their fill value.
    """
    op = producer(value, "constant", *FILL_VALUES)
    if op is None:
        return None
    dtype = spec(value).dtype
    if op.SPEC.name in FILL_VALUES:
        fill, dt = FILL_VALUES[op.SPEC.name](op.attr_values()), numpy_dtype(dtype)
        if dt.kind in "iu" and not (math.isfinite(fill) and
                                    np.iinfo(dt).min <= fill <= np.iinfo(dt).max):
            return None  # no integer holds it: what the op gives is up to the target
        return np.asarray(fill).astype(dt)[()]
    attr = op.properties["value"]
    assert isinstance(attr, DenseIntOrFPElementsAttr)
    raw = attr.data.data
    width = 1 if dtype == "bool" else numpy_dtype(dtype).itemsize
    if not raw or raw != raw[:width] * (len(raw) // width):
        return None
    first = np.frombuffer(raw[:width], dtype=np.uint8 if dtype == "bool" else numpy_dtype(dtype))
    return first.astype(numpy_dtype(dtype))[0]


def is_constant_like(value: SSAValue) -> bool:
    """Produced by an op without operands (constant, zeros, full, arange, ...); a
    control-flow op without operands (a scan over nothing) computes its regions, so it
    is none."""
    op = producer(value)
    return op is not None and not op.operands and not op.SPEC.regions


def size(value: SSAValue) -> int | None:
    shape = spec(value).shape
    return None if None in shape else math.prod(shape)


def merge(*tables: Mapping[str, Sequence[Rule]]) -> dict[str, tuple[Rule, ...]]:
    """Rule tables combined op by op, earlier tables' rules tried first."""
    out: dict[str, tuple[Rule, ...]] = {}
    for table in tables:
        for name, rules in table.items():
            out[name] = (*out.get(name, ()), *rules)
    return out
