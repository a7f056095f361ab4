"""The model zoo of issue 17: every model of `tests/model_zoo.py` compiled for numpy, JAX,
torch and TensorFlow and checked against its source; the results go to `docs/zoo.md`
(a table per family, totals, library versions), `docs/zoo.png` (the pass/fail grid)
and `docs/zoo.json` (every check, which later partial runs update).

    .venv/bin/python scripts/zoo.py [--only NAME ...] [--families FAMILY ...]

Models run in worker processes, one family at a time: a failure is a row of the doc,
never the end of the run, and a worker that dies or stalls (`--stall` seconds without
a result) costs the model it was on, which is recorded as failing, and the worker is
started again after it. With `--only`/`--families` the other models keep their
previous results from `docs/zoo.json`. `ZOO_TRACEBACKS=1` prints each failure's
traceback to the log. The exit status is 1 while any check fails.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import model_zoo as zoo  # noqa: E402 - found through the path set above
import model_zoo_core as core  # noqa: E402
from model_zoo_failures import DIAGNOSES  # noqa: E402

LIBRARIES = {"torch": ("torch",), "torchvision": ("torchvision",), "timm": ("timm",),
             "transformers": ("transformers",), "kornia": ("kornia",),
             "tensorflow": ("tensorflow", "tensorflow-cpu"), "keras": ("keras",),
             "jax": ("jax",), "flax": ("flax",), "numpy": ("numpy",)}
"""Each library by the distributions that install it (TensorFlow's CPU wheel has its
own name)."""
DOCS = ROOT / "docs"


def worker(results: Path, names: list[str]) -> None:
    """Check `names`, appending a `{"start": name}` line before each model and one line
    per result to `results`: the parent reads how far it got."""
    with results.open("a") as out:
        for name in names:
            out.write(json.dumps({"start": name}) + "\n")
            out.flush()
            for r in core.check_each(zoo.BY_NAME[name]):
                out.write(json.dumps(asdict(r)) + "\n")
                out.flush()
                print(f"{r.model} -> {r.target}: {r.status} {r.err:.1e} "
                      f"{r.compile_s:.1f}+{r.run_s:.1f} s {r.error[:160]}", flush=True)


def _read(path: Path) -> tuple[list[zoo.Result], str | None]:
    """The results written so far, and the last model the worker started."""
    rows, current = [], None
    for line in path.read_text().splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:  # the last line of a worker killed while writing
            continue
        if "start" in record:
            current = record["start"]
        else:
            rows.append(zoo.Result(**record))
    return rows, current


def run_family(names: list[str], stall: float) -> list[zoo.Result]:
    """`names` in worker processes, restarted after a death or a stall."""
    rows: list[zoo.Result] = []
    while names:
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
            path = Path(f.name)
        cmd = [sys.executable, __file__, "--worker", str(path), "--only", *names]
        proc = subprocess.Popen(cmd, start_new_session=True)
        last, size = time.monotonic(), 0
        while proc.poll() is None:
            time.sleep(2)
            if path.stat().st_size != size:
                last, size = time.monotonic(), path.stat().st_size
            elif time.monotonic() - last > stall:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        got, current = _read(path)
        path.unlink()
        rows += got
        pending = [n for n in names if sum(r.model == n for r in got) < len(zoo.TARGETS)]
        if not pending:  # all done (an exit status of a crash at shutdown is no loss)
            break
        current = current if current in pending else pending[0]
        why = (f"no result for {stall:.0f} s: the worker was stopped" if proc.returncode ==
               -signal.SIGKILL else f"the worker process died (exit status {proc.returncode})")
        seen = {r.target for r in got if r.model == current}
        model = zoo.BY_NAME[current]
        rows += [zoo.Result(current, model.family, t, "fail", why) for t in zoo.TARGETS
                 if t not in seen]
        names = names[names.index(current) + 1:]
    return rows


def _cell(r: zoo.Result | None, footnote: dict[tuple[str, str], int]) -> str:
    if r is None:
        return "no result"
    if r.status == "not run":
        return "not run"
    time_s = f"{r.compile_s:.1f}+{r.run_s:.1f} s"
    if r.status == "pass":
        return f"pass · {r.err:.1e} · {time_s}"
    return f"**FAIL** [{footnote[(r.model, r.error)]}]"


def _tolerance(model: zoo.Model) -> str:
    if model.tolerance == core.F32_TOL:
        return "default"
    return f"rtol {model.tolerance[0]:g}, atol {model.tolerance[1]:g}: {model.why}"


def _versions() -> str:
    def version(dists: tuple[str, ...]) -> str:
        for dist in dists:
            try:
                return metadata.version(dist)
            except metadata.PackageNotFoundError:
                pass
        return "not installed"
    return ", ".join(f"{n} {version(d)}" for n, d in LIBRARIES.items())


def render(results: dict[tuple[str, str], zoo.Result]) -> str:
    rows = [r for r in results.values()]
    failures: dict[tuple[str, str], int] = {}
    for r in rows:
        if r.status == "fail":
            failures.setdefault((r.model, r.error), len(failures) + 1)
    targets = zoo.TARGETS
    lines = [
        "# The model zoo: third-party models on every target", "",
        "Generated by `.venv/bin/python scripts/zoo.py` from the table in "
        "`tests/model_zoo.py` (one file per family, `tests/model_zoo_<family>.py`); the CI "
        "subset is `tests/test_model_zoo.py`, whose test also checks that this page lists "
        f"every model of the table. Libraries: {_versions()}. CPU, float32. Every check's "
        "numbers are in `docs/zoo.json`, which a run of some models (`--only`, "
        "`--families`) updates.", "",
        "Each model is built seeded with random weights and a small config (nothing is "
        "downloaded), in eval mode except the Flax models, which run dropout in training "
        "mode. Each target compiles it with `ivy_ir.compile(program, target=..., "
        "args=...)` and is called as the source's user calls it (the same list, dict or "
        "keyword arguments, the arrays as NumPy arrays); its outputs are compared with "
        "the source running itself.", "",
        "A cell reads **pass · max |got - want| · compile + first call seconds** (compile "
        "includes the import: each target traces the model anew, as `ivy_ir.compile` of "
        "a model does; JAX and TensorFlow compile their kernels on the first call). It "
        "passes when every output has the source's shape and dtype and |got - want| <= "
        "atol x max(1, max |want|) + rtol x |want| with the model's tolerance (default "
        f"rtol {core.F32_TOL[0]:g}, atol {core.F32_TOL[1]:g}; "
        "see `model_zoo_core.compare` for the scaled atol). Times are on a shared 2-core "
        "CPU. **FAIL [n]** refers to the failure list below the tables.", "",
        "## Totals", "",
        f"| family | models | run | {' | '.join(targets)} | all four |",
        "|---|---|---|" + "---|" * (len(targets) + 1)]
    for family, models in [*zoo.FAMILIES.items(), ("all", zoo.MODELS)]:
        names = [m.name for m in models]
        ran = [n for n in names if any(results.get((n, t)) and results[(n, t)].status !=
                                       "not run" for t in targets)]
        passed = {t: sum(results[(n, t)].status == "pass" for n in ran if (n, t) in results)
                  for t in targets}
        every = sum(all((n, t) in results and results[(n, t)].status == "pass"
                        for t in targets) for n in ran)
        lines.append(f"| {family} | {len(names)} | {len(ran)} | "
                     + " | ".join(f"{passed[t]}/{len(ran)}" for t in targets)
                     + f" | {every}/{len(ran)} |")
    for family, models in zoo.FAMILIES.items():
        lines += ["", f"## {family}", "", f"| model | {' | '.join(targets)} | tolerance |",
                  "|---|" + "---|" * (len(targets) + 1)]
        for m in models:
            cells = [_cell(results.get((m.name, t)), failures) for t in targets]
            lines.append(f"| `{m.name}` | {' | '.join(cells)} | {_tolerance(m)} |")
    if failures:
        lines += ["", "## Failures", "",
                  "Each with the error's first line, where it was raised in this "
                  "repository, the targets it fails on, and its diagnosed cause.", ""]
        for (model, error), n in failures.items():
            on = [t for t in targets if (model, t) in results and
                  results[(model, t)].error == error and results[(model, t)].status == "fail"]
            where = next(results[(model, t)].where for t in on)
            cause = DIAGNOSES.get(f"{model}:{on[0]}") or DIAGNOSES.get(model, "not diagnosed")
            lines.append(f"{n}. `{model}` on {', '.join(on)}: `{error}`"
                         + (f" (raised at `{where}`)" if where else "") + f". Cause: {cause}")
    skipped = {r.model: r.error for r in rows if r.status == "not run"}
    skipped |= {m.name: "no result yet: run `scripts/zoo.py`" for m in zoo.MODELS
                if not any((m.name, t) in results for t in targets)}
    if skipped:
        lines += ["", "## Not run", ""] + [f"- `{m}`: {why}" for m, why in skipped.items()]
    return "\n".join(lines) + "\n"


def draw(results: dict[tuple[str, str], zoo.Result], path: Path) -> None:
    """The pass/fail grid: models (by family, in three columns) x targets."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap
    columns = [["timm", "torchvision", "transformers"], ["kornia"],
               ["keras.applications", "keras", "flax"]]
    code = {"pass": 2, "fail": 1, "not run": 0}
    fig, axes = plt.subplots(1, 3, figsize=(15, 12))
    for ax, families in zip(axes, columns):
        names = [m.name for f in families for m in zoo.FAMILIES[f]]
        grid = [[code[results[(n, t)].status] if (n, t) in results else 0
                 for t in zoo.TARGETS] for n in names]
        ax.imshow(grid, cmap=ListedColormap(["#bbbbbb", "#d62728", "#2ca02c"]), vmin=0,
                  vmax=2, aspect="auto", interpolation="nearest")
        ax.set_yticks(range(len(names)), [n.removeprefix("kornia.") for n in names],
                      fontsize=6)
        ax.set_xticks(range(len(zoo.TARGETS)), zoo.TARGETS, fontsize=8, rotation=30)
        ax.set_title(", ".join(families), fontsize=9)
        start = 0
        for f in families[:-1]:
            start += len(zoo.FAMILIES[f])
            ax.axhline(start - 0.5, color="black", linewidth=1)
    fig.suptitle("ivy_ir model zoo: green pass, red fail, grey not run")
    fig.tight_layout()
    fig.savefig(path, dpi=80)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=[], metavar="NAME")
    parser.add_argument("--families", nargs="*", default=[], choices=list(zoo.FAMILIES))
    parser.add_argument("--stall", type=float, default=900.0,
                        help="seconds without a result before a worker is stopped")
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    opts = parser.parse_args(argv)
    if opts.worker:
        worker(opts.worker, opts.only)
        return 0
    unknown = [n for n in opts.only if n not in zoo.BY_NAME]
    if unknown:
        parser.error(f"not in the zoo: {', '.join(unknown)}")
    record = DOCS / "zoo.json"
    results = {(r["model"], r["target"]): zoo.Result(**r)
               for r in (json.loads(record.read_text()) if record.exists() else [])
               if r["model"] in zoo.BY_NAME}
    for family, models in zoo.FAMILIES.items():
        names = [m.name for m in models if (not opts.only or m.name in opts.only)
                 and (not opts.families or family in opts.families)]
        if names:
            print(f"== {family}: {len(names)} models", flush=True)
            for r in run_family(names, opts.stall):
                results[(r.model, r.target)] = r
    order = {(m.name, t): i for i, (m, t) in enumerate(
        (m, t) for m in zoo.MODELS for t in zoo.TARGETS)}
    ordered = dict(sorted(results.items(), key=lambda kv: order[kv[0]]))
    record.write_text("[\n" + ",\n".join(json.dumps(asdict(r)) for r in ordered.values())
                      + "\n]\n")  # a line per check: a partial run's diff reads as one
    (DOCS / "zoo.md").write_text(render(ordered))
    draw(ordered, DOCS / "zoo.png")
    passed = sum(r.status == "pass" for r in ordered.values())
    print(f"wrote docs/zoo.md: {passed} of {len(ordered)} checks pass")
    return int(any(r.status == "fail" for r in ordered.values()))


if __name__ == "__main__":
    sys.exit(main())
