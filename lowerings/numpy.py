"""The NumPy target: the reference rules (`ivy_ir/core/reference.py`) as plain source.

The rules are the reference semantics themselves, shared with the evaluator that
folds constants; this module adds how the emitter writes NumPy programs: ufunc
chains write into the buffers of dead temporaries (`out=`). The
helper kernels' source is copied into the generated code, so `compiled.source` is
self-contained.
"""

from __future__ import annotations

from ivy_ir.core.reference import REFERENCE
from ivy_ir.core.rules import PLAIN_ELEMENTWISE

from .runtime import Runtime
from .target import Target

TARGET = Target(
    name=REFERENCE.name, rules=REFERENCE.rules, dtype=REFERENCE.dtype,
    namespace=REFERENCE.namespace, helpers=REFERENCE.helpers, scalar=REFERENCE.scalar,
    imports="import math\n\nimport numpy as np\n",
    inplace_ops=PLAIN_ELEMENTWISE - {"rsqrt", "erf"},
    fresh_ops=frozenset({"astype", "where", "erf", "rsqrt"}),
    view_ops=frozenset({"reshape", "permute_dims", "expand_dims", "squeeze", "flip", "split"}))

RUNTIME = Runtime()
