"""Run the Array API standard's conformance suite against `ivy` with each backend set,
and write the per-backend counts and the failures grouped by cause to docs/array_api.md.

The suite is the unmodified copy in ../shared/array-api-tests (see its SOURCE.md), or
the folder given with --suite. Run from the repository root:

    .venv/bin/python scripts/array_api.py [--backends numpy,jax,torch,tensorflow]
        [--max-examples 5] [--suite PATH]

JAX runs with JAX_ENABLE_X64=1 in the suite's own process (the standard's int64 and
float64 need it; the facade itself never switches it on). Hypothesis does not shrink
failing examples (`array_api_no_shrink.py`): the same tests pass and fail, much faster.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUITE = next((p for p in (Path(os.environ.get("ARRAY_API_TESTS_DIR", "/nonexistent")),
                          ROOT.parent / "shared" / "array-api-tests",
                          Path("/work/shared/array-api-tests")) if p.is_dir()),
             ROOT.parent / "shared" / "array-api-tests")
"""The suite: $ARRAY_API_TESTS_DIR, else ../shared beside this checkout, else the
machines' shared folder (a clone elsewhere still finds it)."""


def run(backend: str, suite: Path, max_examples: int, extra: list[str]) -> dict:
    """The suite's JSON report for one backend."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        env = dict(os.environ, ARRAY_API_TESTS_VERSION="2024.12",
                   ARRAY_API_TESTS_MODULE=f"exec('import ivy; ivy.set_backend(\"{backend}\");"
                                          " xp = ivy')")
        if backend == "jax":
            env["JAX_ENABLE_X64"] = "1"
        cmd = [sys.executable, "-m", "pytest", str(suite / "array_api_tests"),
               "-p", "no:cacheprovider", f"--max-examples={max_examples}",
               "--disable-deadline", "-q", "-W", "ignore", "--json-report",
               f"--json-report-file={report}", "-p", "array_api_no_shrink", *extra]
        # from an empty folder: Hypothesis keeps failing examples in `.hypothesis/` of the
        # working directory and replays them first, which would mix backends and runs
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), str(ROOT / "scripts"),
                                                          env.get("PYTHONPATH")]))
        subprocess.run(cmd, cwd=tmp, env=env, stdout=subprocess.DEVNULL, check=False)
        return json.loads(report.read_text())


NOTES = {
    "numpy": "What fails is float `floor_divide` at infinities and signed zeros, through "
             "`ivy.floor_divide` and the `ndarray` operators `//`, `//=` alike: NaN where the "
             "standard gives an infinity, -1 where it gives -0 (NumPy's divmod, which is the "
             "IR's documented meaning, docs/semantics.md). The complex functions' special "
             "values all pass (`ivy_ir/core/complex_cases.py`).",
    "jax": "JAX arrays are immutable (`__setitem__`); `floor_divide`, `remainder` and the "
           "`jax.Array` operators at infinities and signed zeros (as on NumPy, and XLA's "
           "zero signs). The complex functions' special values all pass (the JAX target's "
           "kernel puts in what XLA misses).",
    "torch": "The `torch.Tensor` operators (`//`, `%` with infinities and signed zeros, uint "
             "dtypes), which the spellings cannot reach; `torch.Tensor` lacks "
             "`__array_namespace__` and `to_device`; torch has almost no kernels for "
             "uint16/32/64, which the suite's own reference code uses on our results "
             "(`test_outer` and others when those dtypes are drawn); torch indexing refuses "
             "negative slice steps.",
    "tensorflow": "Most failures are the array type's, not the functions': `tf.Tensor.shape` is "
                  "a `TensorShape`, not the tuple the standard requires, which the suite's "
                  "own helpers reject before checking any value (114 tests); TF's operators "
                  "(`+`, `**`, `%`, `<<`, unary `+`) promote nothing and lack unsigned "
                  "kernels (41); the array lacks `__array_namespace__`, `to_device`, `T`, "
                  "`mT`, `size` (15); no integer-array or mask indexing (5); tensors are "
                  "immutable (2); DLPack `copy=`/`dl_device` (2). With `TensorShape` "
                  "registered as a sequence (not done: it would change a TF type "
                  "process-wide) the same functions pass 1,288.",
}
"""Why what still fails fails, per backend (from reading every failure)."""


def cause(test: dict) -> str:
    """The first line of a failure's error: what groups failures by cause."""
    call = test.get("call") or test.get("setup") or {}
    crash = (call.get("crash") or {}).get("message", "") or call.get("longrepr", "")
    line = next((ln.strip() for ln in crash.splitlines() if ln.strip()), "unknown")
    return line[:160]


def summarize(backend: str, report: dict) -> tuple[collections.Counter, dict]:
    counts: collections.Counter = collections.Counter()
    failures: dict[str, list[str]] = collections.defaultdict(list)
    for test in report["tests"]:
        outcome = test["outcome"]
        counts[outcome] += 1
        if outcome in ("failed", "error"):
            name = test["nodeid"].split("::", 1)[1].split("[")[0]
            failures[f"`{name}`: {cause(test)}"].append(test["nodeid"])
    return counts, failures


def write(results: dict, max_examples: int) -> str:
    lines = ["# Array API conformance", "",
             "The standard's own test suite (data-apis/array-api-tests, version 2024.12, "
             f"`--max-examples={max_examples}`) run against `ivy` with each backend set "
             "globally, by `scripts/array_api.py`, which writes this page. CI runs the "
             "numpy backend, and the JAX backend's complex special cases "
             "(`tests/test_array_api.py`). Reference under the same "
             "settings: `array_api_strict` 2.6 passes 1,338; NumPy 2.4's own namespace "
             "1,319; `jax.numpy` 1,292; `array_api_compat.torch` 1,301.", "",
             "| backend | passed | failed | skipped |", "|---|---|---|---|"]
    for backend, (counts, _) in results.items():
        lines.append(f"| {backend} | {counts['passed']} | "
                     f"{counts['failed'] + counts['error']} | {counts['skipped']} |")
    for backend, (_, failures) in results.items():
        lines += ["", f"## Failures on {backend}, by cause", "", NOTES.get(backend, ""), ""]
        for what, ids in sorted(failures.items(), key=lambda kv: -len(kv[1])):
            lines.append(f"- {len(ids)} x {what}")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--backends", default="numpy,jax,torch,tensorflow")
    parser.add_argument("--max-examples", type=int, default=5)
    parser.add_argument("--suite", type=Path, default=SUITE)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "array_api.md")
    opts = parser.parse_args()
    results = {}
    for backend in opts.backends.split(","):
        results[backend] = summarize(backend, run(backend, opts.suite, opts.max_examples, []))
        c = results[backend][0]
        print(f"{backend}: {c['passed']} passed, {c['failed'] + c['error']} failed, "
              f"{c['skipped']} skipped", flush=True)
    opts.out.write_text(write(results, opts.max_examples))


if __name__ == "__main__":
    main()
