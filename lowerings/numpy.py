"""The NumPy target: the reference rules (`ivy_ir/core/reference.py`) as plain source.

The rules are the reference semantics themselves, shared with the evaluator that
folds constants; this module adds how the emitter writes NumPy programs: ufunc
chains write into the buffers of dead temporaries (`out=`). The
helper kernels' source is copied into the generated code, so `compiled.source` is
self-contained.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from operator import methodcaller
from typing import Any

from ivy_ir.core.module import Module
from ivy_ir.core.reference import NAMES, REFERENCE
from ivy_ir.core.rules import PLAIN_ELEMENTWISE, RuleTable, native_names

from .runtime import Runtime, copy_shared
from .target import Target

TARGET = Target(
    **{f.name: getattr(REFERENCE, f.name) for f in dataclasses.fields(RuleTable)},
    imports="import math\nimport re\n\nimport numpy as np\n",
    # the ufunc calls (they take out=)
    inplace_ops=frozenset(native_names(PLAIN_ELEMENTWISE, NAMES)),
    fresh_ops=frozenset({"astype", "where", "erf", "erfc", "rsqrt", "cbrt", "lgamma", "digamma",
                         "bessel_i0e", "population_count"}),
    view_ops=frozenset({"reshape", "permute_dims", "expand_dims", "squeeze", "flip", "split",
                        "bitcast", "stop_gradient"}))


class NumpyRuntime(Runtime):
    """NumPy arrays are mutable, and the program's parameters and hoisted constants live
    as long as it does: a result that is one of them (or a view of one) is copied, so
    writing into a result never changes `c.params` or the next call's answer."""

    def own_outputs(self, fn: Callable[..., Any], module: Module) -> Callable[..., Any]:
        return copy_shared(fn, module, TARGET.view_ops, methodcaller("copy"))


RUNTIME = NumpyRuntime()
