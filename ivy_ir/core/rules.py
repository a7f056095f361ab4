"""Rule tables: how an ivy op is spelled as one Python expression of a target's API.

A rule is a format string over the op's operand names and attribute literals (`{x}`,
`{axis}`, `{out_dtype}`, `{ns}` for the table's array namespace), or a function of the
`OpContext` when the spelling depends on types. The reference evaluator renders the
NumPy table with them, and the lowerings' emitter renders every target's table, so a
rule means the same thing in both.

The native names of plain elementwise ops come from one derivation shared by every
table: the registry's own name in the target's namespace (`np.asin`, `torch.asin`,
`tf.math.asin`), with per-table overrides only where a framework spells it otherwise.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from xdsl.ir import BlockArgument, SSAValue

from ..dialect import COMPOSITE, ELEMENTWISE, SPECS, FusedOp, IvyOp, TensorSpec
from ..dialect.dtypes import HALF
from ..dialect.symbolic import SymDim
from ..dialect.types import INT64_MAX, INT64_MIN, STORAGE_INT_BITS

Rule = str | Callable[["OpContext"], str]

PLAIN_ELEMENTWISE = frozenset(
    n for n in ELEMENTWISE - COMPOSITE
    if not SPECS[n].attrs and [a.name for a in SPECS[n].operands] in (["x"], ["x", "y"]))
"""Elementwise ops that every array API spells as one call `name(x)` or `name(x, y)`."""

PLAIN_REDUCTIONS = frozenset({"sum", "prod", "mean", "min", "max", "all", "any"})
"""Reductions that every array API spells as one call over `x`, axes and keepdims."""

SCATTER_COMBINES = {"scatter_add": "add", "scatter_mul": "multiply",
                    "scatter_max": "maximum", "scatter_min": "minimum"}
"""The combining scatters -> the elementwise op that folds each update into its place."""

SCATTER_REDUCTIONS = {"scatter_add": "sum", "scatter_mul": "prod", "scatter_max": "max",
                      "scatter_min": "min"}
"""The combining scatters -> the reduction that folds many updates of one place."""


def native_names(ops: frozenset[str], overrides: Mapping[str, str | None]) -> dict[str, str]:
    """op -> native function name: the registry name unless `overrides` renames it
    (None: the framework has none, and the table writes its own rule)."""
    return {op: overrides.get(op, op) for op in sorted(ops) if overrides.get(op, op)}


def elementwise_calls(prefix: str, overrides: Mapping[str, str | None] = {}) -> dict[str, Rule]:
    """Rules `prefix.name({x}[, {y}])` for the plain elementwise ops."""
    def call(op: str, name: str) -> str:
        operands = ", ".join(f"{{{a.name}}}" for a in SPECS[op].operands)
        return f"{name if '.' in name else f'{prefix}.{name}'}({operands})"
    return {op: call(op, name) for op, name in native_names(PLAIN_ELEMENTWISE,
                                                           overrides).items()}


@dataclass(frozen=True, kw_only=True)
class RuleTable:
    """A rule per op plus how a target spells dtypes; the lowerings' `Target` adds how
    its emitter writes statements."""

    name: str
    rules: dict[str, Rule]
    dtype: Callable[[str], str]
    namespace: str = ""
    """The array namespace `{ns}` stands for in rules shared between targets (`np`)."""
    helpers: dict[str, Callable[..., Any]] = field(default_factory=dict)
    """Functions the rules call by bare name (kernels taking more than one call)."""
    scalar: str = "{}"
    """Wraps the expression of a 0-d result (NumPy turns those into scalars otherwise)."""


@dataclass
class OpContext:
    """What a rule sees of one op: operand expressions, attributes and types."""

    op: IvyOp
    target: RuleTable
    args: dict[str, str]
    attrs: dict[str, Any]
    in_types: dict[str, Any]
    out_types: list[TensorSpec]
    emission: Any = None
    """The program being emitted, if any (rules that bind per-call locals, e.g. a device,
    use its `local`; `is_buffer` reads its module's arguments)."""

    def lit(self, name: str) -> str:
        value = self.attrs[name]
        kind = self.op.SPEC.attr_map[name].kind
        return self.target.dtype(value) if kind == "dtype" and value else literal(value)

    @property
    def ns(self) -> str:
        return self.target.namespace

    def is_buffer(self, operand: str) -> bool:
        """Whether an operand is a non-trainable parameter (a buffer) of the program."""
        value = getattr(self.op, operand)
        while isinstance(value, BlockArgument) and isinstance(value.owner.parent_op(), FusedOp):
            value = value.owner.parent_op().inputs[value.index]  # through a fused group
        if not isinstance(value, BlockArgument) or self.emission is None:
            return False
        info = self.emission.module.args()[value.index]
        return info.param is not None and not info.trainable

    @property
    def out(self) -> TensorSpec:
        return self.out_types[0]

    def out_shape(self) -> tuple[int | SymDim | None, ...]:
        """The result's shape as a reshape target: a `shape` attribute with symbolic
        sizes as it is, else the type's dims (one dynamic dim as -1)."""
        shape = self.attrs.get("shape")
        if isinstance(shape, tuple) and any(isinstance(d, SymDim) for d in shape):
            return shape
        return reshape_target(self.out.shape)

    def fields(self) -> dict[str, str]:
        f = dict(self.args)
        f.update({k: self.lit(k) for k in self.attrs if k not in f and
                  self.op.SPEC.attr_map[k].kind != "dense"})
        f["out_dtype"] = self.target.dtype(self.out.dtype)
        f["out_shape"] = literal(self.out_shape())
        f["ns"] = self.target.namespace
        return f


class LoweringError(NotImplementedError):
    """A target cannot lower an op: no rule (and no decomposition), or not in a dtype."""


class UnsupportedDtypeError(LoweringError):
    """The registry declares the target unable to run an op in a dtype (`unsupported=`
    in ops.spec): a known limit of that framework, which callers such as the ONNX
    backend report as unsupported rather than as a wrong lowering."""


def expression(op: IvyOp, table: RuleTable, name_of: Callable[[SSAValue], str],
               emission: Any = None) -> str:
    """The target expression of one registry op, operands named by `name_of`."""
    spec = op.SPEC
    rule = table.rules.get(spec.name)
    if rule is None:
        raise LoweringError(f"the {table.name} target has no rule for ivy.{spec.name}")
    args: dict[str, str] = {}
    in_types: dict[str, Any] = {}
    for r, region in zip(spec.regions, op.regions):
        args[r] = name_of(region)  # type: ignore[arg-type]  # emitters name regions too
    for a, g in zip(spec.operands, op.operand_groups(), strict=True):
        if a.variadic:
            args[a.name] = "[" + ", ".join(name_of(v) for v in g) + "]"
            in_types[a.name] = [TensorSpec.from_xdsl(v.type) for v in g]
        else:
            args[a.name] = "None" if g is None else name_of(g)
            in_types[a.name] = None if g is None else TensorSpec.from_xdsl(g.type)
    ctx = OpContext(op, table, args, op.attr_values(), in_types,
                    [TensorSpec.from_xdsl(r.type) for r in op.results], emission)
    expr = render(rule, ctx)
    if len(ctx.out_types) == 1 and ctx.out.rank == 0 and not spec.variadic_results:
        expr = table.scalar.format(expr)
    return expr


def render(rule: Rule, ctx: OpContext) -> str:
    return rule(ctx) if callable(rule) else rule.format(**ctx.fields())


def rounded_once(rule: Rule, cast: str) -> Rule:
    """`rule`, which in float16/bfloat16 computes in float32 and rounds once, as torch's
    kernels do, for the ops whose half-float kernels lose more: sums, means and
    normalizations (XLA told the dtype, TF's scans and ml_dtypes round every partial sum
    to 8 or 11 bits, several units off after a few hundred terms; a layer norm's
    statistics so rounded are 10-30 units off), XLA's float16 division by a broadcast
    operand, torch's half `erf` (docs/semantics.md). `cast` spells a conversion of `{x}`
    to `{dtype}`. The rule keeps `rule` as its `plain` form, which the `ivy` facade's
    eager functions call (a framework's own eager kernel, as for every other op)."""
    def rule_(c: OpContext) -> str:
        if c.out.dtype not in HALF or len(c.out_types) > 1:
            return render(rule, c)
        wide = c.target.dtype("float32")
        half = {k for k, t in c.in_types.items()
                if isinstance(t, TensorSpec) and t.dtype in HALF}
        f32 = replace(
            c, args={k: cast.format(x=v, dtype=wide) if k in half else v
                     for k, v in c.args.items()},
            in_types={k: t.with_(dtype="float32") if k in half else t
                      for k, t in c.in_types.items()},
            out_types=[c.out.with_(dtype="float32")])
        return cast.format(x=f"({render(rule, f32)})", dtype=c.target.dtype(c.out.dtype))
    rule_.plain = rule  # type: ignore[attr-defined]
    return rule_


def reshape_target(shape: tuple[int | None, ...]) -> tuple[int | None, ...]:
    """`shape` as a reshape target: one dynamic dim becomes -1, which every framework
    infers from the element count (a None would reach the framework and fail)."""
    return tuple(-1 if d is None else d for d in shape) if shape.count(None) == 1 else shape


def literal(value: Any) -> str:
    """Python source for an attribute value; only numbers, bools, None, str and tuples
    (a complex number as a `complex(re, im)` call: inf and NaN parts stay exact)."""
    if value is None or isinstance(value, (bool, np.bool_)):
        return repr(None if value is None else bool(value))
    if isinstance(value, (int, np.integer)):
        return repr(int(value))
    if isinstance(value, (float, np.floating)):
        v = float(value)
        return repr(v) if math.isfinite(v) else f"float({str(v)!r})"
    if isinstance(value, (complex, np.complexfloating)):
        return f"complex({literal(value.real)}, {literal(value.imag)})"
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, SymDim):
        return value.python()
    if isinstance(value, (tuple, list)):
        inner = ", ".join(literal(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    raise TypeError(f"no literal form for {type(value).__name__}")


def storage_int_value(as_int32: str, dtype: str) -> str:
    """The value of a storage integer (`STORAGE_INT_BITS`) from its byte read as an
    int32 expression: the low bits, the sign bit extended for the signed ones. Every
    target that carries these dtypes as bytes reads them so."""
    bits = STORAGE_INT_BITS[dtype]
    value = f"({as_int32} & {(1 << bits) - 1})"
    half = 1 << (bits - 1)
    return value if dtype.startswith("u") else f"(({value} ^ {half}) - {half})"


def literal_array(value: np.ndarray) -> str:
    """Nested-list source of a small array (numbers only)."""
    if value.ndim == 0:
        return literal(value.item())
    return "[" + ", ".join(literal_array(v) for v in value) + "]"


def slice_parts(attrs: dict[str, Any]) -> list[str]:
    """Python slice text per axis of an `ivy.slice` (`1:`, `::-1`, `2:5:2`)."""
    def bound(v: int | SymDim) -> str:
        if isinstance(v, SymDim):
            return v.python()
        return "" if v in (INT64_MIN, INT64_MAX) else str(v)
    return [f"{bound(b)}:{bound(e)}" + ("" if s == 1 else f":{s}")
            for b, e, s in zip(attrs["start"], attrs["stop"], attrs["step"])]


def arange_stop(attrs: dict[str, Any], start: str, stop: str, larger: str, smaller: str
                ) -> str:
    """`ivy.arange`'s stop for a framework that refuses one lying against the step (torch,
    TensorFlow), where NumPy's range is empty: a symbolic bound clamped to the start by
    `larger`/`smaller` (static ones the verifier has checked). `arange(seq)` needs none:
    a size without a minus sign is never negative."""
    lo, hi, step = attrs["start"], attrs["stop"], attrs["step"]
    if not isinstance(lo, SymDim) and (not isinstance(hi, SymDim)
                                       or (step > 0 and lo <= 0 and "-" not in hi.expr)):
        return stop
    return f"{larger if step > 0 else smaller}({stop}, {start})"


def collect_helpers(*modules: Any) -> dict[str, Callable[..., Any]]:
    """A table's helper kernels: every name in each module's `__all__` (names are
    unique across the modules, as the emitter copies each function under its name)."""
    helpers: dict[str, Callable[..., Any]] = {}
    for module in modules:
        for name in module.__all__:
            if name in helpers:
                raise ValueError(f"helper '{name}' is defined twice")
            helpers[name] = getattr(module, name)
    return helpers


def _scan_call(c: OpContext) -> str:
    """The step outputs' slice shapes and dtypes go along, for a scan of length 0."""
    ys = c.out_types[c.attrs["num_carry"]:]
    like = ", ".join(f"({literal(t.shape[1:])}, {c.target.dtype(t.dtype)})" for t in ys)
    return (f"run_scan({c.args['body']}, {c.args['inputs']}, {c.lit('num_carry')}, "
            f"{c.lit('length')}, {c.lit('reverse')}, {c.lit('unroll')}, [{like}])")


CONTROL_CALLS: dict[str, Rule] = {
    # every table spreads these; its `run_*` helpers run the regions, which the emitter
    # writes as nested functions named by the region (`{then}`, `{body}`)
    "cond": "run_cond({pred}, {then}, {orelse}, {inputs})",
    "while_loop": "run_while({cond}, {body}, {inputs})",
    "scan": _scan_call,
}


LAYER_KERNEL_CALLS: dict[str, Rule] = {
    # tables whose conv/pool/resample kernels share these signatures spread this one
    "conv": "conv({x}, {weight}, {bias}, {strides}, {padding}, {dilations}, {groups}, {layout})",
    "conv_transpose": ("conv_transpose({x}, {weight}, {bias}, {strides}, {padding}, "
                       "{output_padding}, {dilations}, {groups}, {layout})"),
    "max_pool": ("max_pool({x}, {kernel}, {strides}, {padding}, {dilations}, {ceil_mode}, "
                 "{layout})"),
    "avg_pool": ("avg_pool({x}, {kernel}, {strides}, {padding}, {ceil_mode}, "
                 "{count_include_pad}, {layout})"),
    "adaptive_avg_pool": "adaptive_avg_pool({x}, {output_size}, {layout})",
    "interpolate": "interpolate({x}, {size}, {mode}, {align_corners}, {layout})",
}


DATA_KERNEL_CALLS: dict[str, Rule] = {
    # every target has a kernel of these signatures (`*_data_kernels.py`)
    "unique": "unique({x}, {axis}, {sorted})",
    "non_max_suppression": ("non_max_suppression({boxes}, {scores}, "
                            "{max_output_boxes_per_class}, {iou_threshold}, "
                            "{score_threshold}, {center_point_box})"),
}
