"""The NumPy target: the reference rules (`ivy_ir/core/reference.py`) as plain source.

The rules are the reference semantics themselves, shared with the evaluator that
folds constants; this module adds how the emitter writes NumPy programs: ufunc
chains write into the buffers of dead temporaries (`out=`). The
helper kernels' source is copied into the generated code, so `compiled.source` is
self-contained.
"""

from __future__ import annotations

import dataclasses

from ivy_ir.core.reference import NAMES, REFERENCE
from ivy_ir.core.rules import PLAIN_ELEMENTWISE, RuleTable, native_names

from .runtime import Runtime
from .target import Target

TARGET = Target(
    **{f.name: getattr(REFERENCE, f.name) for f in dataclasses.fields(RuleTable)},
    imports="import math\n\nimport numpy as np\n",
    # the ufunc calls (they take out=)
    inplace_ops=frozenset(native_names(PLAIN_ELEMENTWISE, NAMES)),
    fresh_ops=frozenset({"astype", "where", "erf", "rsqrt"}),
    view_ops=frozenset({"reshape", "permute_dims", "expand_dims", "squeeze", "flip", "split"}))

RUNTIME = Runtime()
