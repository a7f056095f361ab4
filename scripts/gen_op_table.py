"""Generate `docs/ops.md`, the op reference, from the registry (`ops.spec`).

`tests/test_docs.py` checks the committed file equals this output, so the reference
can never drift from the dialect. Regenerate after changing ops.spec:

    .venv/bin/python scripts/gen_op_table.py
"""

from __future__ import annotations

import sys
from pathlib import Path

from ivy_ir.core.decompose import DECOMPOSITIONS
from ivy_ir.dialect.spec import AttrArg, OpSpec, TensorArg, load_specs
from lowerings import TARGETS, get_target

OUT = Path(__file__).resolve().parent.parent / "docs" / "ops.md"


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


def _coverage(name: str, target: str) -> str:
    """How a target lowers the op: a native rule, its decomposition, or not at all."""
    if name == "constant" or name in get_target(target).rules:
        return "native"
    return "decomposed" if name in DECOMPOSITIONS else "**missing**"


def _row(s: OpSpec) -> str:
    operands = ", ".join(_operand(t) for t in s.operands) or "-"
    attrs = ", ".join(_attr(a) for a in s.attrs) or "-"
    results = ("*" if s.variadic_results else "") + ", ".join(s.results)
    tags = ", ".join(sorted(s.tags)) or "-"
    targets = " | ".join(_coverage(s.name, t) for t in TARGETS)
    return (f"| `ivy.{s.name}` | {operands} | {attrs} | {results} | {tags} | `{s.infer}` "
            f"| {targets} |")


def render() -> str:
    specs = load_specs()
    lines = [
        "# ivy ops",
        "",
        "Generated from `ivy_ir/dialect/ops.spec` by `scripts/gen_op_table.py`; do not edit.",
        "",
        f"{len(specs)} ops. Operand dtype classes: any, num, float, int, intbool, bool form "
        "one group (all such operands of an op share a dtype); index, cond and mask stand "
        "apart. `?` marks an optional operand or attribute, `*` a variadic one. The "
        "inference rule lives in `ivy_ir/dialect/infer*.py`. The target columns form the "
        "coverage matrix: `native` is a rule in that target's lowering table, `decomposed` "
        "goes through the op's decomposition in `ivy_ir/core/decompose.py`.",
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
