"""`Target`: what the shared emitter needs to know about one lowering target.

A target is data: its rule table (`RuleTable`: a rule per op, dtype spelling, helper
kernels) plus how to spell arrays and imports, and the switches that pick how the
emitter writes temporaries and fused groups. `Widening` runs ops in dtypes the
framework has no kernels for through a wider one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

import numpy as np

from ivy_ir.core.rules import OpContext, Rule, RuleTable, render
from ivy_ir.dialect import IvyOp, TensorSpec


@dataclass(frozen=True)
class Reinterpreting:
    """Unsigned dtypes as wide as the dtype they compute in (torch: uint64 in int64),
    which cannot hold every value: their ops run on the same bits read as the signed
    dtype. Sums, products, left shifts and the bits wrap alike in both readings; orders
    do not, so `ordered` ops compute on order keys, the bits with the sign bit flipped
    (`x ^ 2**63` orders as the unsigned value), and their results of the dtype are
    flipped back; `rules` render the ops that read the bits as unsigned otherwise
    (quotients, right shifts, abs), in the signed dtype as a widened rule is."""

    dtypes: frozenset[str]
    view: str
    """The target's reinterpretation of `{x}`'s bits as the dtype `{dtype}`."""
    key: str
    """`{x}` of the signed dtype with its sign bit flipped (its own inverse)."""
    ordered: frozenset[str]
    rules: dict[str, Rule]


@dataclass(frozen=True)
class Widening:
    """Ops in dtypes a framework has few kernels for (torch: uint16, uint32), run in a
    wider dtype it has them for: the op's rule renders it as if its operands, results
    and dtype attributes were of the wide dtype, between casts of the operands up and
    of the results back. The cast back keeps the low bits, so sums, products, shifts
    and negations wrap exactly as NumPy's do in the narrow dtype (the wide dtype's own
    wrap, mod 2**64, keeps them too), and comparisons, orders and quotients agree, as
    the wide dtype holds every narrow value (else see `Reinterpreting`)."""

    dtypes: dict[str, str]
    """narrow dtype -> the wide dtype its ops compute in."""
    native: dict[str, Callable[[dict[str, Any]], bool] | None]
    """op -> None where the framework runs it in the narrow dtypes itself (no casts:
    the fast path), or a test of the op's attributes saying where it does. Every other
    op is widened, so an op added to the registry computes right before it is listed."""
    cast: str
    """The target's cast of an expression `{x}` to a dtype `{dtype}`."""
    same_width: Reinterpreting | None = None
    """How the narrow dtypes as wide as their wide dtype compute (they are in `dtypes`)."""

    def applies(self, op: str, dtypes: Iterable[str], attrs: dict[str, Any]) -> bool:
        """Whether `op`, with values of `dtypes` and these attributes, is widened."""
        if op in self.native:
            test = self.native[op]
            if test is None or test(attrs):
                return False
        return any(d in self.dtypes for d in dtypes)

    def rule(self, rule: Rule) -> Rule:
        """`rule`, widened where `applies` says so."""
        def widened(c: OpContext) -> str:
            name = c.op.SPEC.name
            dtypes = set(_dtypes(c))
            if not self.applies(name, dtypes, c.attrs):
                return render(rule, c)
            same = self.same_width
            if same is not None and dtypes & same.dtypes:
                return self._back(render(same.rules.get(name, rule), self._wide(c)), c)
            return self._back(render(rule, self._wide(c)), c)
        return widened

    def _convert(self, expr: str, narrow: str, up: bool, c: OpContext) -> str:
        """`expr` cast from `narrow` to its wide dtype (`up`) or back: a same-width
        dtype's bits reinterpreted, as order keys where the op is ordered."""
        same, wide = self.same_width, c.target.dtype(self.dtypes[narrow])
        if same is None or narrow not in same.dtypes:
            return self.cast.format(x=expr, dtype=wide if up else c.target.dtype(narrow))
        keyed = c.op.SPEC.name in same.ordered and c.op.SPEC.name not in same.rules
        if up:
            bits = same.view.format(x=expr, dtype=wide)
            return same.key.format(x=bits) if keyed else bits
        bits = same.key.format(x=expr) if keyed else expr
        return same.view.format(x=bits, dtype=c.target.dtype(narrow))

    def _wide(self, c: OpContext) -> OpContext:
        """What the rule sees of the op in the wide dtype: its operands cast up, its
        types and dtype attributes wide."""
        kinds = c.op.SPEC.attr_map
        return replace(
            c, args={**c.args, **{k: self._up(c.args[k], t, c) for k, t in c.in_types.items()
                                  if t is not None}},
            in_types={k: self._spec(t) for k, t in c.in_types.items()},
            out_types=[self._spec(t) for t in c.out_types],
            attrs={k: self.dtypes.get(v, v) if kinds[k].kind == "dtype" else v
                   for k, v in c.attrs.items()})

    def _spec(self, t: Any) -> Any:
        """A type (or a variadic operand's types) in the wide dtype."""
        if isinstance(t, list):
            return [self._spec(s) for s in t]
        return t if t is None else t.with_(dtype=self.dtypes.get(t.dtype, t.dtype))

    def _up(self, expr: str, t: TensorSpec | list[TensorSpec], c: OpContext) -> str:
        """An operand's expression cast to the wide dtype (a variadic operand's `[a, b]`,
        whose names are identifiers, cast one by one)."""
        if isinstance(t, list):
            names = [n for n in expr[1:-1].split(", ") if n]
            return "[" + ", ".join(self._up(n, s, c) for n, s in zip(names, t, strict=True)) \
                + "]"
        return expr if t.dtype not in self.dtypes else self._convert(expr, t.dtype, True, c)

    def _back(self, expr: str, c: OpContext) -> str:
        """The widened expression's results cast back to the op's result dtypes."""
        if len(c.out_types) == 1 and not c.op.SPEC.variadic_results:
            if c.out.dtype not in self.dtypes:
                return expr
            return self._convert(f"({expr})", c.out.dtype, False, c)
        same = self.same_width
        if same is not None and any(t.dtype in same.dtypes for t in c.out_types):
            # values of the dtype beside indices (top_k): only the values go back
            (narrow,) = {t.dtype for t in c.out_types if t.dtype in self.dtypes}
            flags = ", ".join(str(t.dtype == narrow) for t in c.out_types)
            return f"[{self._convert('r', narrow, False, c)} if n else r " \
                f"for r, n in zip({expr}, ({flags},))]"
        dtypes = ", ".join(c.target.dtype(t.dtype) for t in c.out_types)
        return f"[{self.cast.format(x='r', dtype='d')} for r, d in zip({expr}, ({dtypes},))]"


def _dtypes(c: OpContext) -> Iterable[str]:
    """The dtypes of an op's operands and results."""
    for t in c.in_types.values():
        for s in t if isinstance(t, list) else [t]:
            if s is not None:
                yield s.dtype
    yield from (t.dtype for t in c.out_types)


@dataclass(frozen=True, kw_only=True)
class Target(RuleTable):
    """A lowering target: a rule table plus how the emitter writes its programs."""

    imports: str
    array: str = "np.asarray"
    """Call that makes a target array from a nested list or a NumPy array (+ dtype=)."""
    dim_size: str = "{x}.shape[{axis}]"
    """How the generated code reads a dynamic input dim's size (`{x}`, `{axis}`): a
    Python int on the eager targets and under `jax.jit` (which traces each shape once)."""
    constant: Callable[[np.ndarray, Any], str] | None = None
    """Custom spelling of `ivy.constant`; the default hoists one module-level array."""
    hoists: bool = False
    """Split parameter work off into a `prepare` program whose results a call keeps
    while the parameters are unchanged (`hoist.py`; the runtime's `hoisted`)."""
    channels_last: bool = False
    """Run channels-first layers channels-last (the `channels-last` pass) before the
    parameter work is split off (so the weights' permutes are parameter work): for
    frameworks whose kernels only take channels-last data, or run it faster."""
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
    lowering then leaves elementwise ops unfused and out of place."""
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

    host_dtypes: frozenset[str] = frozenset()
    """Dtypes the framework has no arrays of (text on JAX and torch): the ops reading or
    making such values run on the host through the NumPy lowering (`staged.py`)."""
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
    widening: Widening | None = None
    """Dtypes the framework lacks kernels for that the emitter computes in wider ones."""

    def with_options(self, options: dict[str, Any]) -> Target:
        """This target as lowered with `options` (its `option_rules` applied)."""
        extra = {op: rule for o, rules in self.option_rules.items() if options.get(o)
                 for op, rule in rules.items()}
        changes: dict[str, Any] = {"rules": {**self.rules, **extra}} if extra else {}
        if any(options.get(o) for o in self.self_fusing_options):
            changes["inplace_methods"] = {}  # its compiler plans the buffers itself
        return replace(self, **changes) if changes else self

    @cached_property
    def emitted(self) -> Target:
        """The table the emitter renders ops with: the rules, widened (`widening`). Kept
        apart from `rules`, whose plain templates the facade's eager functions reuse."""
        if self.widening is None:
            return self
        return replace(self, rules={op: self.widening.rule(r) for op, r in self.rules.items()})

    def widens(self, op: IvyOp) -> bool:
        """Whether the emitter renders `op` widened (so it has no in-place form)."""
        if self.widening is None:
            return False
        values = [*op.operands, *op.results]
        return self.widening.applies(op.SPEC.name, (TensorSpec.from_xdsl(v.type).dtype
                                                    for v in values
                                                    if hasattr(v.type, "element_type")),
                                     op.attr_values())

    def fuses(self, options: dict[str, Any]) -> bool:
        """Whether lowering with these options outlines elementwise groups first."""
        return self.fuse_elementwise and not any(options.get(o)
                                                 for o in self.self_fusing_options)


__all__ = ["Reinterpreting", "Target", "Widening"]
