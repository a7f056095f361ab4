"""TF graph plumbing -> values: identities, constants, variables, calls and draws.

These ops compute nothing themselves: an identity passes its inputs' values through
(known arrays stay known, so folding sees through it), a `Const` is a known array, a
variable read is the variable's IR parameter (or the value last assigned to it: an
assignment, e.g. Keras' batch-norm moving statistics in training mode, becomes an
`{ivy.update}` result of the program), and a call inlines the called function's body
in place. Stateless random draws take the program's random key (`Graph.rng_key`) in
place of TF's seed: a compiled call draws a fresh key each time, as Keras' seed
generator advances on every training step.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import tensorflow as tf

from .common import Rule, Unmapped, drop_gradient_rule, location_str
from .tensorflow_ctx import Ctx, Value, VarRef

_TF_DIR = os.path.dirname(tf.__file__) + os.sep


def _identity(c: Ctx, *inputs: Value, **_: Any) -> list[Value]:
    # Identity, IdentityN, ...: values pass through (known arrays stay known)
    return list(inputs)


def _identity_n(c: Ctx, *inputs: Value, _gradient_op_type: Any = None, **_: Any
                ) -> list[Value]:
    """IdentityN, which `tf.custom_gradient` tags with its gradient function: the IR has
    no custom-gradient op, so that rule is dropped, and the user hears of it unless the
    rule is TensorFlow's own (`ctc_loss`'s: the true gradient, written for speed)."""
    if _gradient_op_type and not _tensorflows_own_rule(c.op):
        drop_gradient_rule(f"tf.custom_gradient rule at {location_str(c.b.graph.location)}")
    return list(inputs)


def _tensorflows_own_rule(op: Any) -> bool:
    """Whether the custom-gradient function that made `op` was called from TF's code."""
    frames = list(getattr(op, "traceback", None) or [])
    entry = next((i for i, f in enumerate(frames)
                  if f.filename.endswith(os.path.join("ops", "custom_gradient.py"))), 0)
    return entry > 0 and frames[entry - 1].filename.startswith(_TF_DIR)


def _const(c: Ctx, *, value: np.ndarray, dtype: str, **_: Any) -> np.ndarray:
    if c.outs[0] is None:
        raise Unmapped(f"constant of dtype {dtype}")
    return np.asarray(value)


def _read_variable(c: Ctx, ref: Value, **_: Any) -> Any:
    if not isinstance(ref, VarRef):
        raise Unmapped("read of a resource that is not a captured variable")
    return c.read_variable(ref)


def _assign_by(op: str | None) -> Rule:
    """AssignVariableOp (None), AssignAdd/SubVariableOp (`op` of the current value)."""
    def rule(c: Ctx, ref: Value, value: Value, **_: Any) -> list[Value]:
        if not isinstance(ref, VarRef):
            raise Unmapped("assignment to a resource that is not a captured variable")
        new = c.operand(value)
        if op is not None:
            new = c.b.emit(op, [c.read_variable(ref), new])
        c.graphs.assign_variable(ref, new)
        return []
    return rule


def _key_counter(c: Ctx, seed: Value, **_: Any) -> list[Value]:
    # the key and counter only feed the draws below, which take the program's key
    return [np.zeros(1, np.uint64), np.zeros(2, np.uint64)]


def _draw(op: str) -> Rule:
    def rule(c: Ctx, shape: Value, *_: Value, dtype: str, **__: Any) -> Value:
        return c.b.emit(op, [c.b.rng_key()], shape=c.ints(shape, "shape"), dtype=dtype)
    return rule


def _call(c: Ctx, *args: Value, f: str, **_: Any) -> list[Value]:
    """(Stateful)PartitionedCall: the called function's body, inlined."""
    return c.inline(f, *args)


GRAPH: dict[str, Rule] = {
    "IdentityN": _identity_n,
    **dict.fromkeys(("Identity", "Snapshot",
                     "EnsureShape", "CheckNumerics"), _identity),
    "Const": _const, "ReadVariableOp": _read_variable, "AssignVariableOp": _assign_by(None),
    "AssignAddVariableOp": _assign_by("add"), "AssignSubVariableOp": _assign_by("subtract"),
    "StatelessRandomGetKeyCounter": _key_counter,
    "StatelessRandomUniformV2": _draw("random_uniform"),
    "StatelessRandomNormalV2": _draw("random_normal"),
    "PartitionedCall": _call, "StatefulPartitionedCall": _call,
}
"""TF raw op -> rule: graph plumbing (identities, constants, variables, calls)."""
