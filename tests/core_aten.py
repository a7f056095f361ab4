"""Coverage of torch's core ATen op set by the torch importer.

Each core op's example (`core_aten_examples`) is exported with `torch.export`, compiled
with `ivy_ir.compile(..., target="numpy")` and compared with torch running it. The op
then counts as one of

- `imports`: the exported graph holds the op and a rule of the ATen table maps it;
- `decomposed`: the graph holds the op, the table has no rule, and the importer's
  normalization pre-pass decomposes it with torch's own decompositions into mapped ops;
- `draws`: a rule maps the op onto the registry's keyed random ops: torch's
  distribution, not its stream, so `DRAWS` checks what every draw must satisfy
  (range, a permutation; and torch's shape and dtype) instead of the values;
- `folded`: the graph does not hold the op at all: with static shapes `torch.export`
  evaluates it while tracing (size and stride queries);
- `missing`: the program does not import; `MISSING` says why, and the test checks the
  reason still holds (an op listed there that starts importing fails it too).

`scripts/gen_import_matrix.py` writes `render()` into `docs/import_matrix.md`;
`tests/test_core_aten.py` checks every op and that the document is current.
"""

from __future__ import annotations

import functools
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from core_aten_examples import core_ops, example, program_of, tensors_of
from doc_sections import section

import ivy_ir
from importers.torch_table import lookup

DATA_DEPENDENT = "data-dependent output shape"
MISSING: dict[str, str] = {}
"""Core ops that do not import, with the reason."""
DRAWS: dict[str, Callable[[np.ndarray], bool]] = {
    "rand.default": lambda u: bool(u.min() >= 0 and u.max() < 1 and u.std() > 0.2),
    "randn.default": lambda z: bool(np.isfinite(z).all() and 0.7 < z.std() < 1.3),
    "randperm.default": lambda p: bool(np.array_equal(np.sort(p), np.arange(p.size))),
}
"""Core ops that draw from torch's global generator: what their values must satisfy."""
SECTION = "## torch: the core ATen op set"
RTOL, ATOL = 1e-4, 1e-5


@dataclass(frozen=True)
class Coverage:
    status: str
    detail: str = ""


class _Program(torch.nn.Module):
    def __init__(self, fn: Any):
        super().__init__()
        self.fn = fn

    def forward(self, *args: torch.Tensor) -> Any:
        return self.fn(*args)


def _tensors(out: Any) -> list[np.ndarray]:
    out = out if isinstance(out, (tuple, list)) else [out]
    return [np.asarray(o.detach().numpy() if isinstance(o, torch.Tensor) else o)
            for o in out if isinstance(o, (torch.Tensor, np.ndarray))]


@functools.cache
def classify(name: str) -> Coverage:
    """Import op `name`'s example program, run it on the NumPy target, compare."""
    op = core_ops()[name]
    ex = example(name, op)
    inputs = tuple(tensors_of(ex.args))
    program = program_of(op, ex)
    try:
        with torch.no_grad():
            want = _tensors(program(*inputs))
        ep = torch.export.export(_Program(program), inputs)
        present = any(n.target is op for n in ep.graph.nodes)
        got = _tensors(ivy_ir.compile(ep, target="numpy", args=inputs)(
            *(t.numpy() for t in inputs)))
        assert len(got) == len(want), f"{len(got)} outputs, torch gives {len(want)}"
        for g, w in zip(got, want):
            assert g.shape == w.shape and g.dtype == w.dtype, f"{g.shape} {g.dtype} vs " \
                f"torch's {w.shape} {w.dtype}"
            if name in DRAWS:
                assert DRAWS[name](g), "the draws are not of torch's distribution"
            else:
                np.testing.assert_allclose(g, w, rtol=RTOL, atol=ATOL)
    except Exception as exc:  # noqa: BLE001 - the reason is the result
        return Coverage("missing", traceback.format_exception_only(exc)[-1].strip())
    if not present:
        return Coverage("folded")
    if name in DRAWS:
        return Coverage("draws")
    return Coverage("imports" if lookup(op) is not None else "decomposed")


STATUSES = {
    "imports": "a rule of the ATen table maps it",
    "draws": "a rule maps it onto the keyed random ops: torch's distribution, not its "
             "stream (checked: shape, dtype, range)",
    "decomposed": "torch's decomposition (in the importer's normalization pre-pass) "
                  "into mapped ops",
    "folded": "evaluated by `torch.export` while tracing (static shapes): never in a graph",
    "missing": "does not import (reasons below)",
}


def render() -> str:
    """The coverage section of `docs/import_matrix.md`."""
    names = list(core_ops())
    by_status: dict[str, list[str]] = {s: [] for s in STATUSES}
    for name in names:
        by_status[classify(name).status].append(name)
    dependent = [n for n in by_status["missing"] if MISSING.get(n) == DATA_DEPENDENT]
    covered = len(names) - len(by_status["missing"])
    goal = len(names) - len(dependent)
    lines = [
        SECTION,
        "",
        "Generated by `scripts/gen_import_matrix.py` from `tests/core_aten.py` (checked by",
        "`tests/test_core_aten.py`). The core set: the ATen op overloads tagged",
        f"`torch.Tag.core` in torch {torch.__version__.split('+')[0]}. Each op's example "
        "program",
        "(`tests/core_aten_examples.py`) is exported with `torch.export`, compiled with",
        "`ivy_ir.compile(..., target=\"numpy\")` and compared with torch (rtol "
        f"{RTOL:g}, atol {ATOL:g};",
        "integers and bools exactly).",
        "",
        f"**{covered} of {len(names)} core ops import; {covered} of the {goal} without a "
        f"data-dependent output shape ({100 * covered / goal:.1f}%).**",
        "",
        "| status | meaning | ops |",
        "|---|---|---|",
    ]
    for status, meaning in STATUSES.items():
        lines.append(f"| {status} | {meaning} | {len(by_status[status])} |")
    for status in ("imports", "draws", "decomposed", "folded"):
        lines += ["", f"{status.capitalize()}: " +
                  ", ".join(f"`{n}`" for n in by_status[status]) + "."]
    if by_status["missing"]:
        lines += ["", "Missing:", "", "| op | reason |", "|---|---|"]
        lines += [f"| `{n}` | {MISSING.get(n, classify(n).detail)} |"
                  for n in by_status["missing"]]
    return "\n".join(lines) + "\n"


def documented(text: str) -> str:
    """The coverage section of the document's `text`."""
    return section(text, SECTION)
