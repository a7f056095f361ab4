"""The tables and the figure of `applied_overhead.py`, from its rows (one per backend
and function: native time, overhead set globally and inferred, their spreads, A/A)."""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

GOAL = 0.02
"""The issue's goal: mean eager overhead at most 2% on 1e4-element batches."""
TRAIN = "training step (Adam)"
"""The training step's row name; its gradients half is named after it."""


def _counted(rows: list[dict[str, Any]], backend: str) -> list[dict[str, Any]]:
    """A backend's applied-function rows (the training step is reported apart)."""
    return [r for r in rows if r["backend"] == backend and not r["function"].startswith(TRAIN)]


def summary(rows: list[dict[str, Any]], backends: list[str]) -> str:
    """Markdown for docs/benchmarks.md: every row, then each backend's means against the
    goal (the A/A mean beside them, so that a mean within the noise reads as such)."""
    lines = ["| backend | function | native | ivy, set globally | ivy, inferred | A/A |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['backend']} | {r['function']} | {r['native_us']:.0f} us | "
                     f"{r['global']:+.1%} (±{r['global spread']:.1%}) | "
                     f"{r['inferred']:+.1%} (±{r['inferred spread']:.1%}) | "
                     f"{r['native again']:+.1%} |")
    lines += ["", "| backend | mean, set globally | mean, inferred | mean A/A | "
              "training step, global / inferred | goal (mean <= 2%) |",
              "|---|---|---|---|---|---|"]
    for b in backends:
        mine = _counted(rows, b)
        means = {k: statistics.mean(r[k] for r in mine)
                 for k in ("global", "inferred", "native again")}
        train = [r for r in rows if r["backend"] == b and r["function"] == TRAIN]
        step = (f"{train[0]['global']:+.1%} / {train[0]['inferred']:+.1%}" if train
                else "(no autodiff)")
        met = {m: "met" if means[m] <= GOAL else "not met" for m in ("global", "inferred")}
        lines.append(f"| {b} | {means['global']:+.1%} | {means['inferred']:+.1%} | "
                     f"{means['native again']:+.1%} | {step} | global {met['global']}, "
                     f"inferred {met['inferred']} |")
    return "\n".join(lines)


def _label(function: str) -> str:
    """A short axis label: the function's own name, or which half of the training step."""
    if function.startswith(TRAIN):
        return "train: gradients" if function != TRAIN else "train: step"
    return function.rpartition(".")[2]


def plot(rows: list[dict[str, Any]], backends: list[str], path: Path) -> None:
    """One panel per backend: bars per function and mode with the paired spread as
    error bars, the A/A overhead as a black tick, the goal as a dashed line."""
    try:
        import matplotlib
    except ImportError:
        print("(matplotlib is not installed: no PNG)")
        return
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, len(backends), figsize=(3.2 * len(backends), 4.2),
                             sharey=True, squeeze=False)
    for ax, b in zip(axes[0], backends):
        mine = [r for r in rows if r["backend"] == b]
        xs = range(len(mine))
        for i, mode in enumerate(("global", "inferred")):
            ax.bar([x + 0.38 * i for x in xs], [100 * r[mode] for r in mine], 0.38,
                   yerr=[100 * r[f"{mode} spread"] for r in mine], label=mode, capsize=2)
        ax.scatter([x + 0.19 for x in xs], [100 * r["native again"] for r in mine],
                   marker="_", color="black", s=120, zorder=3, label="A/A (noise)")
        ax.axhline(100 * GOAL, color="grey", lw=0.8, ls="--")
        ax.axhline(0, color="black", lw=0.5)
        ax.set_xticks([x + 0.19 for x in xs],
                      [_label(r["function"]) for r in mine],
                      rotation=60, ha="right", fontsize=7)
        ax.set_title(b)
    axes[0][0].set_ylabel("eager overhead vs the same code native (%)")
    axes[0][0].legend(fontsize=7)
    fig.suptitle("ivy.applied and an Adam step: facade overhead, 1e4-item float32 batches "
                 "(error bars: half IQR of paired rounds; dashed: 2% goal)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
