"""ONNX's own backend conformance harness (`onnx.backend.test.BackendTest`) against
ivy_ir, target by target: pass / fail / skip counts per test group, every failure's
reason, and the operators behind the skips.

    python scripts/onnx_conformance.py                       # all targets, all groups
    python scripts/onnx_conformance.py --targets numpy --groups node --filter 'conv'
    python scripts/onnx_conformance.py --write               # docs/onnx_conformance.{md,png}

Skips are the tests whose model uses an operator, an attribute value or a dtype the
registry cannot express exactly (the importer's all-at-once report is the reason);
a failure is a wrong answer or a crash on a model the importer accepted. The `light`
group is the nine real models stored in the `onnx` package (AlexNet ... ZFNet-512),
checked against their stored reference outputs; the harness writes their dummy inputs
under a temporary ONNX_HOME, so nothing is downloaded.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import time
import unittest
import warnings
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

GROUPS = {"NodeModel": "node", "SimpleModel": "simple",
          "PyTorchConvertedModel": "pytorch-converted",
          "PyTorchOperatorModel": "pytorch-operator", "RealModel": "light"}
TARGETS = ("numpy", "jax", "torch", "tensorflow")
MISSING = re.compile(r"^\s+(\S.*?) \(x\d+\):", re.M)
"""One line of the importer's unsupported-op report: `  Name (opset N) (xK): where`."""
DTYPE_GAP = re.compile(r"^\s+(ivy\.\S+) in (.+?) at ", re.M)
"""One line of the lowering's `UnsupportedDtypeError`: `  ivy.op in dtype, dtype at where`."""


@dataclass
class Outcomes:
    """What one target did on one group: test name -> outcome, and the reasons."""

    passed: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)


class Recorder(unittest.TestResult):
    """Sorts each finished test into its group's outcomes and shows progress."""

    def __init__(self, results: dict[str, Outcomes], total: int):
        super().__init__()
        self.results, self.total, self.done = results, total, 0

    def _group(self, test: unittest.TestCase) -> tuple[Outcomes, str]:
        category = type(test).__name__.removeprefix("OnnxBackend").removesuffix("Test")
        return self.results[GROUPS[category]], test._testMethodName.removesuffix("_cpu")

    def stopTest(self, test: unittest.TestCase) -> None:
        self.done += 1
        if self.done % 100 == 0 or self.done == self.total:
            print(f"  {self.done}/{self.total}", flush=True)

    def addSuccess(self, test: unittest.TestCase) -> None:
        group, name = self._group(test)
        group.passed.append(name)

    def addFailure(self, test: unittest.TestCase, err) -> None:
        group, name = self._group(test)
        group.failed[name] = _reason(err[1])

    addError = addFailure

    def addSkip(self, test: unittest.TestCase, reason: str) -> None:
        group, name = self._group(test)
        group.skipped[name] = reason


def _reason(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    text = " / ".join(lines[:3]) if lines else ""
    return f"{type(exc).__name__}: {text}"[:300]


def run(target: str, groups: list[str], pattern: str | None) -> dict[str, Outcomes]:
    """Run the harness's CPU tests of `groups` on `target`."""
    from onnx.backend.test import BackendTest

    from ivy_ir.onnx_backend import backend

    harness = BackendTest(backend(target, skip_unsupported=True), __name__)
    harness.include(r"_cpu$")
    selected = [c for c, g in GROUPS.items() if g in groups]
    suite = unittest.TestSuite()
    for name, case in harness.test_cases.items():
        category = name.removeprefix("OnnxBackend").removesuffix("Test")
        if category not in selected:
            continue
        for test in unittest.defaultTestLoader.loadTestsFromTestCase(case):
            method = test._testMethodName
            if method.endswith("_cpu") and (pattern is None or re.search(pattern, method)):
                suite.addTest(test)
    results = {g: Outcomes() for g in groups}
    start = time.perf_counter()
    suite.run(Recorder(results, suite.countTestCases()))
    print(f"  {time.perf_counter() - start:.0f} s", flush=True)
    return results


def missing_operators(outcomes: Outcomes) -> Counter[str]:
    """How many skipped tests each unsupported operator (or use) accounts for."""
    count: Counter[str] = Counter()
    for reason in outcomes.skipped.values():
        found = MISSING.findall(reason) or [f"{op} in {dtypes} (not on this target)" for op, dtypes
                                            in DTYPE_GAP.findall(reason)] \
            or [reason.splitlines()[0][:120]]
        count.update(set(found))
    return count


def summary_rows(all_results: dict[str, dict[str, Outcomes]]) -> list[list[str]]:
    rows = []
    for target, groups in all_results.items():
        for group, o in groups.items():
            total = len(o.passed) + len(o.failed) + len(o.skipped)
            share = f"{100 * len(o.passed) / total:.1f}%" if total else "-"
            rows.append([target, group, str(len(o.passed)), str(len(o.failed)),
                         str(len(o.skipped)), str(total), share])
    return rows


def write_docs(all_results: dict[str, dict[str, Outcomes]], command: str,
               complete: bool) -> None:
    """`complete`: every test of every group ran (no --filter), so the skip list CI
    reads may be rewritten."""
    header = ["target", "group", "pass", "fail", "skip", "total", "pass share"]
    rows = summary_rows(all_results)
    lines = ["# ONNX backend conformance", "",
             "ONNX's own harness (`onnx.backend.test.BackendTest`, onnx "
             f"{_onnx_version()}) run against ivy_ir through each target "
             "(`ivy_ir.onnx_backend`). Produced by", "", f"    {command}", "",
             "A skip is a test whose model needs an operator, attribute value or dtype "
             "the registry cannot express exactly (the importer's report is the reason); "
             "a failure is a wrong answer or a crash on a model the importer accepted.",
             "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    for target, groups in all_results.items():
        lines += ["", f"## {target}", ""]
        failed = {f"{g}/{n}": r for g, o in groups.items() for n, r in o.failed.items()}
        lines += [f"Failures ({len(failed)}):", ""]
        lines += [f"- `{n}`: {r.replace('|', '/')}"
                  for n, r in sorted(failed.items())] or ["- none"]
        skipped: Counter[str] = Counter()
        for o in groups.values():
            skipped.update(missing_operators(o))
        lines += ["", "Skipped tests by what they need:", ""]
        lines += [f"- {op}: {n}" for op, n in skipped.most_common()] or ["- none"]
    if complete and "numpy" in all_results:
        _write_unsupported(all_results["numpy"])
    out = ROOT / "docs" / "onnx_conformance.md"
    out.write_text("\n".join(lines) + "\n")
    _plot(all_results, ROOT / "docs" / "onnx_conformance.png")
    print(f"wrote {out}")


def _write_unsupported(groups: dict[str, Outcomes]) -> None:
    """The tests CI's harness run (`tests/test_onnx_backend.py`) skips by name: those
    the NumPy target skipped here as unsupported, each with what it needs."""
    lines = ["# ONNX backend tests whose models the registry cannot express (written by",
             "# scripts/onnx_conformance.py --write; tests/test_onnx_backend.py skips them)."]
    for group in ("node", "simple", "pytorch-converted", "pytorch-operator"):
        for name, reason in sorted(groups.get(group, Outcomes()).skipped.items()):
            needs = ", ".join(MISSING.findall(reason)) or reason.splitlines()[0]
            lines.append(f"{name}  # {needs[:100]}")
    (ROOT / "tests" / "onnx_unsupported.txt").write_text("\n".join(lines) + "\n")


def _plot(all_results: dict[str, dict[str, Outcomes]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels, bars = [], defaultdict(list)
    for target, groups in all_results.items():
        for group, o in groups.items():
            total = max(1, len(o.passed) + len(o.failed) + len(o.skipped))
            labels.append(f"{target}\n{group}")
            for kind, n in (("pass", len(o.passed)), ("fail", len(o.failed)),
                            ("skip", len(o.skipped))):
                bars[kind].append(100 * n / total)
    fig, ax = plt.subplots(figsize=(max(6, 0.9 * len(labels)), 4))
    bottom = [0.0] * len(labels)
    for kind, color in (("pass", "#3a7"), ("fail", "#d44"), ("skip", "#bbb")):
        ax.bar(labels, bars[kind], bottom=bottom, color=color, label=kind)
        bottom = [b + v for b, v in zip(bottom, bars[kind])]
    ax.set_ylabel("% of tests")
    ax.set_title("ONNX backend conformance of ivy_ir, per target and test group")
    ax.legend(loc="lower right")
    ax.tick_params(axis="x", labelsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def _onnx_version() -> str:
    import onnx

    return onnx.__version__


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", nargs="+", default=list(TARGETS), choices=TARGETS)
    parser.add_argument("--groups", nargs="+", default=list(GROUPS.values()),
                        choices=list(GROUPS.values()))
    parser.add_argument("--filter", help="regular expression on test names")
    parser.add_argument("--write", action="store_true",
                        help="write docs/onnx_conformance.md and .png")
    parser.add_argument("--show", action="store_true", help="print every failure's reason")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    os.environ.setdefault("ONNX_HOME", tempfile.mkdtemp(prefix="onnx_home_"))
    all_results = {}
    for target in args.targets:
        print(f"{target}:", flush=True)
        all_results[target] = run(target, args.groups, args.filter)
        for row in summary_rows({target: all_results[target]}):
            print("  " + "  ".join(row))
        if args.show:
            for group, o in all_results[target].items():
                for name, reason in sorted(o.failed.items()):
                    print(f"  FAIL {group}/{name}: {reason}")
    if args.write:
        write_docs(all_results, "python " + " ".join(["scripts/onnx_conformance.py",
                                                     *sys.argv[1:]]),
                   complete=args.filter is None and set(args.groups) >= set(GROUPS.values()))


if __name__ == "__main__":
    main()
