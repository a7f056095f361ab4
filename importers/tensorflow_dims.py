"""Dynamic dims of a TF/Keras program: `import_program(fn, args, dynamic=...)`.

The user names dims as for torch (`dynamic={"x": {0: "batch", 1: "seq"}}`, keys an
input's name or position, or `dynamic=True`: dim 0 of every array input is `batch`).
TF then traces the function on `tf.TensorSpec`s whose named dims are `None`, so its
graph computes with unknown sizes there, and the entry's inputs declare the names
(`{ivy.dims}`). What TF's graph does with sizes (`tf.shape(x)[0]` packed into a
`Reshape` target, Keras' `Flatten`) is folded at import into size expressions
(`tensorflow_sizes`); for that the importer follows, for every IR value, its sizes as
expressions of the input dims (`DimFlow`, with the per-op rules of
`tensorflow_dimflow`). A value whose dynamic sizes no rule names has no such shape, and
`tf.shape` of it is reported instead of guessed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.ir import SSAValue

from ivy_ir.core.graph import is_array
from ivy_ir.dialect.symbolic import SymDim

from .common import Rule, Unmapped, spec_of
from .dynamic import requested as dynamic_request
from .tensorflow_ctx import Ctx, Sizes, Value
from .tensorflow_dimflow import DIM_RULES, merged
from .tensorflow_sizes import PASS_THROUGH, SIZE_RULES

Shape = tuple[int | SymDim, ...]


def requested(dynamic: Any, args: Sequence[Any], arrays: Sequence[int],
              names: Sequence[str]) -> dict[tuple[int, int], str]:
    """(argument position, axis) -> dim name, from `dynamic=` (`names`: the array
    arguments' input names, in `arrays` order), read as every importer reads it."""
    named: list[Any] = [None] * len(args)
    for i, name in zip(arrays, names):
        named[i] = name
    return dynamic_request(dynamic, args, named,
                           lambda a: int(np.ndim(a)) if is_array(a) else None)


def input_dims(wanted: dict[tuple[int, int], str], args: Sequence[Any],
               arrays: Sequence[int]) -> list[tuple[str | None, ...]]:
    """Per array argument, the name of each of its dims (None: static)."""
    return [tuple(wanted.get((i, a)) for a in range(np.ndim(args[i]))) for i in arrays]


class DimFlow:
    """The sizes of IR values as expressions of the input dims, while a graph is walked:
    inputs are bound by name, and each op's results get theirs from `DIM_RULES` (where
    TF's static shape leaves a dim unknown). Values fully static need no entry."""

    def __init__(self, inputs: Sequence[SSAValue], dims: Sequence[Sequence[str | None]]):
        """`dims`: per input, the name of each dim (None: static)."""
        self.shapes: dict[SSAValue, Shape] = {}
        for value, names in zip(inputs, dims):
            sizes = spec_of(value).shape
            self.shapes[value] = tuple(SymDim(n) if n else d for n, d in zip(names, sizes))

    def shape_of(self, value: Value) -> Shape | None:
        """The sizes of `value` (None: a dynamic size no rule named)."""
        if isinstance(value, np.ndarray):
            return tuple(value.shape)
        if isinstance(value, Sizes):
            return tuple(value.shape)
        if not isinstance(value, SSAValue):
            return None
        shape = spec_of(value).shape
        if None not in shape:
            return shape  # type: ignore[return-value]
        return self.shapes.get(value)

    def rule_for(self, op_type: str, table_rule: Rule | None) -> Rule:
        """The rule for an op of which an input is a `Sizes`: shape arithmetic and the
        ops taking a shape operand fold it; ops that only pass values on (identities,
        calls) keep their own rule; any other op is reported."""
        if op_type in SIZE_RULES:
            return SIZE_RULES[op_type]
        if op_type in PASS_THROUGH and table_rule is not None:
            return table_rule

        def refuse(c: Ctx, *inputs: Value, **_: Any) -> None:
            held = [str(e) for v in inputs if isinstance(v, Sizes)
                    for e in v.entries.flat if isinstance(e, SymDim)]
            raise Unmapped(f"uses the dynamic size(s) {', '.join(dict.fromkeys(held))} as "
                           "a tensor value; sizes fold only through shape arithmetic "
                           "(slices, packs, + - * // %) into a shape operand")
        return refuse

    def record(self, c: Ctx, attrs: dict[str, Any], results: Sequence[Value]) -> None:
        """Name the dynamic sizes of the op's SSA results that have none yet."""
        todo = [i for i, v in enumerate(results) if isinstance(v, SSAValue)
                and v not in self.shapes and None in spec_of(v).shape]
        rule = DIM_RULES.get(c.op.type)
        if not todo or rule is None:
            return
        inputs = [self.shape_of(v) for v in c.inputs]
        try:
            out = rule(c, inputs, **attrs)
        except (Unmapped, TypeError, ValueError, IndexError, KeyError):
            return  # a size no rule can name stays unknown: a `Shape` of it is reported
        outs = out if isinstance(out, list) else [out]
        for i in todo:
            if i < len(outs):
                shape = merged(c.op.outputs[i].shape, outs[i], spec_of(results[i]).shape)
                if shape is not None:
                    self.shapes[results[i]] = shape
