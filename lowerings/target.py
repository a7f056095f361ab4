"""`Target`: what the shared emitter needs to know about one lowering target.

A target is data: its rule table (`RuleTable`: a rule per op, dtype spelling, helper
kernels) plus how to spell arrays and imports, and the switches that pick how the
emitter writes temporaries and fused groups.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ivy_ir.core.rules import RuleTable


@dataclass(frozen=True, kw_only=True)
class Target(RuleTable):
    """A lowering target: a rule table plus how the emitter writes its programs."""

    imports: str
    array: str = "np.asarray"
    """Call that makes a target array from a nested list or a NumPy array (+ dtype=)."""
    constant: Callable[[np.ndarray, Any], str] | None = None
    """Custom spelling of `ivy.constant`; the default hoists one module-level array."""
    hoists: bool = False
    """Split parameter work off into a `prepare` program whose results a call keeps
    while the parameters are unchanged (`hoist.py`; the runtime's `hoisted`)."""
    channels_last: bool = False
    """Run channels-first layers channels-last (the `channels-last` pass) before emitting:
    for frameworks whose kernels only take channels-last data."""
    inplace_ops: frozenset[str] = frozenset()
    """Ops whose rule is one call that accepts `out=` and returns a fresh array (NumPy's
    ufuncs): when one consumes the last use of a temporary made by another such op (or
    by a `fresh_ops` op), with the result's type, it writes into it
    (`v = np.add(v, c, out=v)`)."""
    fresh_ops: frozenset[str] = frozenset()
    """Further ops whose rule always returns a newly allocated array (no view, no
    input returned as is), so their temporaries may be overwritten too."""
    view_ops: frozenset[str] = frozenset()
    """Ops whose rule may return a view of their first operand (`np.transpose`): the
    operand's buffer then lives as long as the view, and no `out=` may overwrite it
    before."""
    fuse_elementwise: bool = False
    """The lowering outlines elementwise groups into `ivy.fused` (the fuse-elementwise
    pass) before emitting, because this target emits a group better than op by op."""
    self_fusing_options: frozenset[str] = frozenset()
    """Options under which the framework's own compiler fuses (`torch_compile`): the
    lowering then leaves elementwise ops unfused."""
    fused_as_expressions: bool = False
    """Emit an `ivy.fused` body as nested expressions, so an eager framework frees each
    single-use intermediate at once, using `inplace_methods` on fresh intermediates;
    otherwise its ops are emitted one statement each, like ops outside a group."""
    inplace_methods: dict[str, str] = field(default_factory=dict)
    """op -> in-place method of its first operand with the rule's semantics
    (`add` -> `add_`), for `fused_as_expressions`."""
    saves_result: frozenset[str] = frozenset()
    """Ops whose autograd keeps their result for the backward pass (exp, tanh, ...):
    an in-place op must never overwrite such a result."""

    refused: dict[str, str] = field(default_factory=dict)
    """op -> why the target cannot run it at all (no exact form); compiling it fails."""
    dtype_gaps: dict[str, frozenset[str]] = field(default_factory=dict)
    """op -> dtypes the target's framework cannot run it in, beyond the registry's
    `unsupported=` (which holds the gaps of the Python-source targets)."""
    builds: Callable[..., Any] | None = None
    """For a target whose program is a model file, not Python source (ONNX):
    `builds(module, values, trainable, options) -> (text, run, params, model)`, called
    in place of the emitter once the module is decomposed."""
    option_rules: dict[str, dict[str, Any]] = field(default_factory=dict)
    """option -> rules replacing the table's when the option is set (what runs fastest
    under the framework's compiler differs from what runs fastest without it)."""

    def with_options(self, options: dict[str, Any]) -> Target:
        """This target as lowered with `options` (its `option_rules` applied)."""
        extra = {op: rule for o, rules in self.option_rules.items() if options.get(o)
                 for op, rule in rules.items()}
        return replace(self, rules={**self.rules, **extra}) if extra else self

    def fuses(self, options: dict[str, Any]) -> bool:
        """Whether lowering with these options outlines elementwise groups first."""
        return self.fuse_elementwise and not any(options.get(o)
                                                 for o in self.self_fusing_options)


__all__ = ["Target"]
