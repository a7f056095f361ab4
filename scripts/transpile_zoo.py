"""The transpile zoo's full matrix: every model of `tests/transpile_zoo.py` to torch,
JAX and TensorFlow (its own framework included), each pair checked as
`tests/test_transpile_zoo.py` checks its CI subset, written to `docs/transpile_zoo.md`.

    .venv/bin/python scripts/transpile_zoo.py [--only MODEL[:TARGET] ...] [--out PATH]

A pair that raises is a failure with its error in the doc, never a skip: the doc is
the record of what transpiles and trains today. Models whose library does not import
are listed as not run, with the reason.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import transpile_zoo as zoo  # noqa: E402 - found through the path set above

TARGETS = ("torch", "jax", "tensorflow")
KNOWN = {
    "gpt2": (
        "Tied weights. `lm_head.weight` *is* `transformer.wte.weight` in the source (one "
        "parameter, `named_parameters()` lists only `transformer.wte.weight`). "
        "`torch.export` lifts both names as placeholders and routes every use (the "
        "embedding lookup and the LM head) through the last one, `p_lm_head_weight`, "
        "leaving `p_transformer_wte_weight` with no users; the torch importer "
        "(`importers/torch.py`, `_Walker._state`) makes each placeholder its own "
        "parameter. So every target has an extra trainable `lm_head.weight` carrying the "
        "tied weight's whole gradient (it matches the source's `transformer.wte.weight` "
        "gradient to 3e-9) and a dead `transformer.wte.weight` whose gradient is zero. "
        "Training still follows the source (the SGD gap is ~1e-7), but the names and the "
        "gradient under the source's name are wrong, and after training a torch target's "
        "`state_dict()` holds a stale `transformer.wte.weight`. Smallest reproducer: an "
        "`nn.Embedding(10, 4)` and an `nn.Linear(4, 10, bias=False)` whose `weight` is "
        "set to the embedding's, `forward(ids) = head(emb(ids))`, transpiled to any "
        "target: its parameters are `emb.weight` (gradient None) and `head.weight`, and "
        "the IR reads `%head_weight` for both `ivy.embedding` and `ivy.linear`. The fix "
        "belongs in the importer: placeholders whose state tensors are one object become "
        "one parameter under the source's first name (the torch runtime then registers "
        "the same `nn.Parameter` under each alias, as the source's `state_dict()` does)."),
}
"""Analysed causes of failures, printed under the failures while a model fails."""


@dataclass
class Row:
    model: str
    source: str
    target: str
    out_err: float = float("nan")
    grad_err: float = float("nan")
    worst: str = ""
    names: str = ""
    """Empty when the names equal the source's, else what differs."""
    gap: float = float("nan")
    seconds: float = 0.0
    error: str = ""

    @property
    def passed(self) -> bool:
        return (not self.error and not self.names and self.out_err <= zoo.OUT_TOL[0]
                and self.grad_err <= zoo.GRAD_RTOL and self.gap <= zoo.LOSS_RTOL)


def rel_err(got: np.ndarray, want: np.ndarray, rtol: float, atol: float) -> float:
    """max |got - want| / (|want| + atol / rtol): at most `rtol` exactly when
    `np.testing.assert_allclose(got, want, rtol, atol)` passes."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    if got.shape != want.shape:
        return float("inf")
    return float(np.max(np.abs(got - want) / (np.abs(want) + atol / rtol), initial=0.0))


def name_problem(want: zoo.Record, got: zoo.Record) -> str:
    """What differs between the trainable names (and, for a torch target, between the
    `state_dict()` keys and the source's checkpoint names); empty if nothing."""
    problems = []
    pairs = [("parameters", want.names, got.names)]
    if got.state is not None:
        pairs.append(("state_dict", want.state, got.state))
    for what, w, g in pairs:
        extra, lost = sorted(set(g) - set(w)), sorted(set(w) - set(g))
        if extra or lost or len(g) != len(set(g)):
            problems.append(f"{what}: extra {extra[:4]}, missing {lost[:4]}")
    return "; ".join(problems)


def check(entry: zoo.Entry, to: str) -> Row:
    row = Row(entry.name, entry.source, to)
    start = time.perf_counter()
    try:
        want, got = zoo.run_pair(entry, to)
        row.out_err = max(rel_err(g, w, *zoo.OUT_TOL) for g, w in zip(got.out, want.out)) \
            if len(got.out) == len(want.out) else float("inf")
        atol = zoo.grad_atol(want)
        errs = {k: rel_err(got.grads[k], w, zoo.GRAD_RTOL, atol) if k in got.grads
                else float("inf") for k, w in want.grads.items()}
        row.worst = max(errs, key=errs.__getitem__)
        row.grad_err = errs[row.worst]
        row.names = name_problem(want, got)
        row.gap = max(abs(g - w) / abs(w) for g, w in zip(got.losses, want.losses))
    except Exception as e:  # noqa: BLE001 - a failing pair is a row of the doc
        row.error = f"{type(e).__name__}: {e}".strip()
        traceback.print_exc()
    row.seconds = time.perf_counter() - start
    return row


def _num(x: float) -> str:
    return "-" if np.isnan(x) else f"{x:.1e}"


def render(rows: list[Row], skipped: dict[str, str]) -> str:
    libs = ", ".join(f"{m} {sys.modules[m].__version__}" for m in
                     ("torch", "jax", "flax", "tensorflow", "keras", "transformers", "timm")
                     if m in sys.modules)
    lines = [
        "# The transpile zoo: training parity across frameworks", "",
        "Generated by `.venv/bin/python scripts/transpile_zoo.py` (models in "
        "`tests/transpile_zoo.py`, CI subset in `tests/test_transpile_zoo.py`). "
        f"Libraries: {libs}. CPU, float32.", "",
        "Each pair transpiles a fresh, seeded source model with `ivy.transpile` and "
        "compares the result with the source running natively:", "",
        f"- **out err**: max |got - want| / (|want| + atol/rtol) over the outputs, "
        f"rtol={zoo.OUT_TOL[0]:g}, atol={zoo.OUT_TOL[1]:g}; passes at <= {zoo.OUT_TOL[0]:g} "
        "(`assert_allclose` with those tolerances).",
        f"- **grad err**: the same for d loss / d parameter (loss = sum over outputs of "
        f"mean(o**2)), rtol={zoo.GRAD_RTOL:g}, atol={zoo.GRAD_ATOL:g} x the source's "
        f"largest gradient entry; the worst parameter is named. Passes at <= "
        f"{zoo.GRAD_RTOL:g}.",
        "- **names**: the trainable parameter names equal the source's as a set (Keras "
        "target: '/' read as '_'); for a torch target the `state_dict()` keys also equal "
        "the source's checkpoint names.",
        f"- **SGD gap**: {zoo.STEPS} plain SGD steps on each side (torch.optim.SGD, Keras "
        "SGD, p - lr*g in JAX); max |target loss - source loss| / |source loss| over the "
        f"losses before each step and after the last. Passes at <= {zoo.LOSS_RTOL:g}.",
        "- **time**: wall seconds for the pair (build, transpile, both sides' checks and "
        "training) on a shared 2-core CPU; a model's first pair also pays for imports and "
        "first compilations.", "",
        "| model | source | target | out err | grad err (worst parameter) | names | "
        "SGD gap | result | time |",
        "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        grad = f"{_num(r.grad_err)} ({r.worst})" if r.worst else "-"
        names = "-" if r.error else ("equal" if not r.names else "differ")
        lines.append(f"| {r.model} | {r.source} | {r.target} | {_num(r.out_err)} | {grad} | "
                     f"{names} | {_num(r.gap)} | {'pass' if r.passed else '**FAIL**'} | "
                     f"{r.seconds:.1f} s |")
    failed = [r for r in rows if not r.passed]
    lines += ["", f"{len(rows) - len(failed)} of {len(rows)} pairs pass.", ""]
    if failed:
        lines += ["## Failures", ""]
        for r in failed:
            why = r.error or "; ".join(filter(None, [
                r.names, f"out err {r.out_err:.2e}" if r.out_err > zoo.OUT_TOL[0] else "",
                f"grad err {r.grad_err:.2e} at {r.worst}" if r.grad_err > zoo.GRAD_RTOL
                else "", f"SGD gap {r.gap:.2e}" if r.gap > zoo.LOSS_RTOL else ""]))
            lines.append(f"- **{r.model} -> {r.target}**: {why.splitlines()[0][:600]}")
        for model in dict.fromkeys(r.model for r in failed if r.model in KNOWN):
            lines += ["", f"### Why {model} fails", "", KNOWN[model]]
        lines.append("")
    if skipped:
        lines += ["## Not run", ""] + [f"- {m}: {why}" for m, why in skipped.items()] + [""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=[], help="MODEL or MODEL:TARGET")
    parser.add_argument("--out", default=str(ROOT / "docs" / "transpile_zoo.md"))
    opts = parser.parse_args(argv)
    wanted = [tuple(o.split(":")) for o in opts.only]
    pairs = [(e, t) for e in zoo.ZOO for t in TARGETS
             if not wanted or (e.name,) in wanted or (e.name, t) in wanted]
    rows, skipped = [], {}
    for i, (entry, to) in enumerate(pairs, 1):
        reason = skipped.get(entry.name) or zoo.missing(entry)
        if reason:
            skipped[entry.name] = reason
            print(f"[{i}/{len(pairs)}] {entry.name} -> {to}: not run ({reason})", flush=True)
            continue
        row = check(entry, to)
        rows.append(row)
        print(f"[{i}/{len(pairs)}] {entry.name} ({entry.source}) -> {to}: "
              f"{'pass' if row.passed else 'FAIL'} out {_num(row.out_err)} "
              f"grad {_num(row.grad_err)} gap {_num(row.gap)} {row.seconds:.1f}s"
              f"{' ' + row.error[:200] if row.error else ''}"
              f"{' names: ' + row.names if row.names else ''}", flush=True)
    Path(opts.out).write_text(render(rows, skipped))
    print(f"wrote {opts.out}: {sum(r.passed for r in rows)} of {len(rows)} pairs pass")
    return 0 if all(r.passed for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
