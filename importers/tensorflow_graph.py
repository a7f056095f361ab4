"""TF graph plumbing -> values: identities, constants, variable reads and function calls.

These ops compute nothing themselves: an identity passes its inputs' values through
(known arrays stay known, so folding sees through it), a `Const` is a known array, a
variable read is the variable's IR parameter, and a call inlines the called function's
body in place.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .common import Rule, Unmapped
from .tensorflow_ctx import Ctx, Value, VarRef


def _identity(c: Ctx, *inputs: Value, **_: Any) -> list[Value]:
    # Identity, IdentityN, StopGradient, ...: values pass through (known arrays stay known)
    return list(inputs)


def _const(c: Ctx, *, value: np.ndarray, dtype: str, **_: Any) -> np.ndarray:
    if c.outs[0] is None:
        raise Unmapped(f"constant of dtype {dtype}")
    return np.asarray(value)


def _read_variable(c: Ctx, ref: Value, **_: Any) -> Any:
    if not isinstance(ref, VarRef):
        raise Unmapped("read of a resource that is not a captured variable")
    return c.read_variable(ref)


def _call(c: Ctx, *args: Value, f: str, **_: Any) -> list[Value]:
    """(Stateful)PartitionedCall: the called function's body, inlined."""
    return c.inline(f, *args)


GRAPH: dict[str, Rule] = {
    **dict.fromkeys(("Identity", "IdentityN", "StopGradient", "PreventGradient", "Snapshot",
                     "EnsureShape", "CheckNumerics"), _identity),
    "Const": _const, "ReadVariableOp": _read_variable,
    "PartitionedCall": _call, "StatefulPartitionedCall": _call,
}
"""TF raw op -> rule: graph plumbing (identities, constants, variables, calls)."""
