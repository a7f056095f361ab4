"""Generate `docs/ops.md`, the op reference, from the registry (`ops.spec`).

`tests/test_docs.py` checks the committed file equals this output, so the reference
can never drift from the dialect. Regenerate after changing ops.spec:

    .venv/bin/python scripts/gen_op_table.py
"""

from __future__ import annotations

import sys
from pathlib import Path

from ivy_ir.core.decompose import DECOMPOSITIONS
from ivy_ir.dialect.spec import GROUPED_CLASSES, AttrArg, OpSpec, TensorArg, load_specs
from ivy_ir.dialect.types import CLASS_MEMBERS, DTYPES
from lowerings import TARGETS, get_target

OUT = Path(__file__).resolve().parent.parent / "docs" / "ops.md"
CLASS_ORDER = ("any", "num", "real", "inexact", "float", "int", "intbool", "bool", "index",
               "cond", "mask", "value", "castable")


def _operand(t: TensorArg) -> str:
    prefix = "*" if t.variadic else ""
    suffix = "?" if t.optional else ""
    return f"`{prefix}{t.name}{suffix}: {t.dtype_class}`"


def _attr(a: AttrArg) -> str:
    # choices comma-separated: a "|" would split the markdown table cell
    kind = a.kind + ("{" + ", ".join(f'"{c}"' for c in a.choices) + "}" if a.choices else "")
    if a.default is not None:
        default = a.default
        if isinstance(default, tuple):
            default = list(default)
        if isinstance(default, bool):
            default = str(default).lower()
        elif a.kind == "str":
            default = f'"{default}"'
        return f"`{a.name}: {kind} = {default}`"
    return f"`{a.name}: {kind}{'?' if a.optional else ''}`"


def _coverage(s: OpSpec, target: str) -> str:
    """How a target lowers the op: a native rule, its decomposition, or not at all; and
    the dtypes the registry declares it cannot run the op in."""
    tgt = get_target(target)
    if s.name in tgt.refused:
        return "refused"
    if s.name == "constant" or s.name in tgt.rules:
        how = "native"
    else:
        how = "decomposed" if s.name in DECOMPOSITIONS else "**missing**"
    gaps = [d for d in DTYPES if d in s.unsupported.get(target, ())
            or d in tgt.dtype_gaps.get(s.name, ())]
    hosted = [d for d in gaps if d in tgt.host_dtypes]
    gaps = [d for d in gaps if d not in tgt.host_dtypes]
    if hosted and how == "**missing**":
        how = f"host ({', '.join(hosted)})"
    return f"{how} (not {', '.join(gaps)})" if gaps else how


def _row(s: OpSpec) -> str:
    operands = ", ".join(_operand(t) for t in s.operands) or "-"
    attrs = ", ".join(_attr(a) for a in s.attrs) or "-"
    results = ("*" if s.variadic_results else "") + ", ".join(s.results)
    if s.regions:
        results += " `{" + ", ".join(s.regions) + "}`"
    tags = ", ".join(sorted(s.tags)) or "-"
    targets = " | ".join(_coverage(s, t) for t in TARGETS)
    return (f"| `ivy.{s.name}` | {operands} | {attrs} | {results} | {tags} | `{s.infer}` "
            f"| {targets} |")


def render() -> str:
    specs = load_specs()
    lines = [
        "# ivy ops",
        "",
        "Generated from `ivy_ir/dialect/ops.spec` by `scripts/gen_op_table.py`; do not edit.",
        "",
        f"{len(specs)} ops. Dtypes: {', '.join(DTYPES)}. Operand dtype classes: "
        + "; ".join(f"{c} ({', '.join(d for d in DTYPES if d in CLASS_MEMBERS[c])})"
                    for c in CLASS_ORDER)
        + ". Of these, " + ", ".join(c for c in CLASS_ORDER if c in GROUPED_CLASSES)
        + " form one group (all such operands of an op share a dtype); the others stand "
        "apart. `?` marks an optional operand or attribute, `*` a variadic one; `{a, b}` "
        "after the results names a control-flow op's regions (their signatures are "
        "checked by `ivy_ir/dialect/infer_control.py`). The "
        "inference rule lives in `ivy_ir/dialect/infer*.py`. The target columns form the "
        "coverage matrix: `native` is a rule in that target's lowering table, `decomposed` "
        "goes through the op's decomposition in `ivy_ir/core/decompose.py`; `(not ...)` "
        "lists the dtypes the registry declares that target cannot run the op in "
        "(`unsupported=` in ops.spec, or the target's own `dtype_gaps`: compiling them "
        "fails with an error naming each); `host (string)`: the target's framework has no "
        "arrays of that dtype, so the op runs in a host stage through the NumPy lowering "
        "(`lowerings/staged.py`); `refused`: the target has no exact form of the "
        "op (onnx: see docs/onnx.md). The onnx column's `native` is a rule of the ONNX "
        "exporter's table; composite ops use ONNX's fused operator where the opset has one "
        "and decompose otherwise; no complex dtype exports to onnx.",
        "",
        "| op | operands | attributes | results | tags | inference | "
        + " | ".join(TARGETS) + " |",
        "|---|---|---|---|---|---|" + "---|" * len(TARGETS),
    ]
    lines += [_row(s) for s in specs.values()]
    return "\n".join(lines) + "\n"


def main() -> None:
    OUT.write_text(render())
    sys.stdout.write(f"wrote {OUT}\n")


if __name__ == "__main__":
    main()
