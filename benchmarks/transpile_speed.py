"""Transpiling torch models (the paper's Table 1 method): latency of each zoo model in
torch eager, `torch.compile`, transpiled by ivy_ir to JAX (jit), TensorFlow (XLA),
torch (eager and `torch.compile`) and NumPy, and run on JAX by `torchax`; plus each
column's compile time to first result and its max |error| against torch eager.

Run from the repository root (install the zoo first: `bash scripts/setup_bench.sh`):

    .venv/bin/python benchmarks/transpile_speed.py [--models resnet18,bert] [--rounds 20]

Each model (`transpile_zoo.py`: batch 8, random weights) runs in its own process:
every column is built (the first call included in its compile time), checked against
torch eager, warmed up, then timed interleaved round by round (the order rotating), each
round a batch of ~`--batch-ms` of calls per column; a column's latency is the median
over rounds. NumPy is timed in rounds of its own after the others. `torchax` is
imported last (after every other column is built) and only in these worker processes:
importing it changes torch globally (`torch.compile` calls after it fail, the
`nn.TransformerEncoder` fast path is switched off; the worker switches it back on).
Every framework runs on `--threads` intra-op threads (1 by default). Inference only
(`torch.set_grad_enabled(False)`). Writes benchmarks/results/transpile_speed.json and
docs/transpile_speed.png; `--report` redraws both from the JSON.
"""

# ruff: noqa: E402 (the thread settings come before NumPy and the frameworks load)
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # not the site-packages `benchmarks`

import transpile_zoo as zoo

ROOT = Path(__file__).resolve().parents[1]
JSON = ROOT / "benchmarks" / "results" / "transpile_speed.json"
PNG = ROOT / "docs" / "transpile_speed.png"
COLUMNS = ("torch eager", "torch.compile", "ivy->jax", "ivy->tf xla", "ivy->torch",
           "ivy->torch.compile", "ivy->numpy", "torchax")
TORCH_MODES = ("torch eager", "torch.compile")
IVY = ("ivy->jax", "ivy->tf xla", "ivy->torch", "ivy->torch.compile", "ivy->numpy")
SEPARATE = ("ivy->numpy",)
"""Timed in rounds of their own: NumPy's BLAS threads keep spinning after a call and
slow whatever runs next."""
GOALS = {"best ivy / best torch, mean": 1.27, "ivy->jax / torchax, mean": 1.2}

Call = Callable[[], Any]


# ---------------------------------------------------------------- worker (one model)

def _worker(name: str, threads: int, rounds: int, batch_s: float, numpy_rounds: int,
            skip: set[str], out: Path) -> None:
    zoo.fix_threads(threads)
    with tempfile.TemporaryDirectory(prefix="inductor-") as cache:
        # a fresh inductor cache: compile times are not what an earlier run left on disk
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = cache
        _run_worker(name, threads, rounds, batch_s, numpy_rounds, skip, out)


def _run_worker(name: str, threads: int, rounds: int, batch_s: float, numpy_rounds: int,
                skip: set[str], out: Path) -> None:
    import numpy as np
    import torch

    zoo.set_torch_threads(threads)
    torch.set_grad_enabled(False)
    import jax

    from ivy_ir.demo_showcase import quiet_stderr  # after fix_threads: it loads NumPy

    with quiet_stderr():
        import tensorflow as tf

        tf.config.threading.set_intra_op_parallelism_threads(threads)
        tf.config.threading.set_inter_op_parallelism_threads(1)
        tf.function(lambda v: v + 1, jit_compile=True)(tf.constant(0.0))
    import ivy_ir

    _warm_up(ivy_ir, torch)
    model, x = zoo.build(name)
    ref = model(x).numpy()
    xnp = x.numpy()
    runners: dict[str, Call] = {}
    info: dict[str, dict[str, Any]] = {}

    def host(y: Any) -> np.ndarray:
        return np.asarray(y.detach() if hasattr(y, "detach") else y)

    def add(column: str, build: Callable[[], Call], sync: Callable[[Any], Any]) -> None:
        if column in skip:
            return
        start = time.perf_counter()
        try:
            fn = build()
            y = sync(fn())
        except Exception as exc:  # a failing column is reported, the others go on
            info[column] = {"error": f"{type(exc).__name__}: {exc}"[:300]}
            print(f"  {name:<20} {column:<19} FAILED: {info[column]['error']}", flush=True)
            return
        first = time.perf_counter() - start
        err = float(np.max(np.abs(host(y).astype(np.float64) - ref)))
        runners[column] = (lambda f=fn: sync(f()))
        info[column] = {"first_s": first, "err": err}
        print(f"  {name:<20} {column:<19} compile to first result {first:7.2f} s, "
              f"max |err| {err:.1e}", flush=True)

    def ivy(target: str, **options: Any) -> Callable[[], Call]:
        def build() -> Call:
            c = ivy_ir.compile(model, target=target, args=(x,), **options)
            xs = c.runtime.to_native(xnp)
            return lambda: c(xs)
        return build

    plain = lambda y: y  # noqa: E731
    add("torch eager", lambda: lambda: model(x), plain)
    add("torch.compile", lambda: (lambda f: lambda: f(x))(torch.compile(model)), plain)
    add("ivy->jax", ivy("jax"), jax.block_until_ready)
    add("ivy->tf xla", ivy("tensorflow", jit_compile=True), lambda y: y.numpy())
    add("ivy->torch", ivy("torch"), plain)
    add("ivy->torch.compile", ivy("torch", torch_compile=True), plain)
    add("ivy->numpy", ivy("numpy"), plain)
    if "torchax" not in skip:
        fastpath = torch.backends.mha.get_fastpath_enabled()
        start = time.perf_counter()
        import torchax_shim

        try:
            torchax_shim.import_torchax()
        except ImportError as exc:  # not installed: scripts/setup_bench.sh
            info["torchax"] = {"error": f"not installed ({exc})"}
            print(f"  {name:<20} torchax             not installed", flush=True)
        else:
            print(f"  {name:<20} (import torchax {time.perf_counter() - start:.1f} s)",
                  flush=True)
            xj = jax.device_put(xnp)

            def torchax_build() -> Call:
                f = torchax_shim.torchax_jit(model, xj)
                return lambda: f(xj)
            add("torchax", torchax_build, jax.block_until_ready)
        torch.backends.mha.set_fastpath_enabled(fastpath)  # torch eager keeps its fast path

    main = [c for c in COLUMNS if c in runners and c not in SEPARATE]
    separate = [c for c in COLUMNS if c in runners and c in SEPARATE]
    samples = zoo.interleaved_rounds(name, runners, main, rounds, batch_s)
    samples.update(zoo.interleaved_rounds(name, runners, separate, numpy_rounds, batch_s))
    for column, s in samples.items():
        info[column].update(ms=statistics.median(s) * 1e3, samples_ms=[v * 1e3 for v in s])
        print(f"  {name:<20} {column:<19} {info[column]['ms']:9.2f} ms", flush=True)
    out.write_text(json.dumps({"model": name, "what": zoo.MODELS[name][1],
                               "columns": info}))


def _warm_up(ivy_ir: Any, torch: Any) -> None:
    """Run a tiny model through every path once, so that the compile times below are
    the model's own, not one-off start-up (torch.export's, dynamo's and inductor's
    imports, each target's lowering module) that only the first column would pay."""
    tiny = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU()).eval()
    x = torch.ones(2, 4)
    torch.compile(tiny)(x)
    for target, options in (("jax", {}), ("tensorflow", {"jit_compile": True}),
                            ("torch", {}), ("torch", {"torch_compile": True}),
                            ("numpy", {})):
        c = ivy_ir.compile(tiny, target=target, args=(x,), **options)
        c(c.runtime.to_native(x.numpy()))


# ---------------------------------------------------------------- driver and report

def _versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    found = {}
    for pkg in ("torch", "jax", "tensorflow-cpu", "numpy", "timm", "transformers", "torchax"):
        try:
            found[pkg] = version(pkg)
        except PackageNotFoundError:
            pass
    return found


def _machine() -> str:
    model = platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores"


def ratio(row: dict[str, Any], slow: str, fast: str) -> float:
    """How many times faster `fast` ran than `slow`: the median over rounds of the
    per-round ratio where both were timed in the same rounds (paired, so that load
    which comes and goes during the run cancels), else the ratio of the medians."""
    a, b = row["columns"].get(slow, {}), row["columns"].get(fast, {})
    if "ms" not in a or "ms" not in b:
        return float("nan")
    sa, sb = a.get("samples_ms", []), b.get("samples_ms", [])
    if slow not in SEPARATE and fast not in SEPARATE and sa and len(sa) == len(sb):
        return statistics.median(x / y for x, y in zip(sa, sb))
    return a["ms"] / b["ms"]


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per model the speedups the goals name, and the goals' verdicts."""
    def fastest(row: dict[str, Any], cols: tuple[str, ...]) -> str:
        timed = [(row["columns"][c]["ms"], c) for c in cols if "ms" in row["columns"].get(c, {})]
        return min(timed)[1]

    per = {}
    for row in rows:
        torch_best, ivy_best = fastest(row, TORCH_MODES), fastest(row, IVY)
        per[row["model"]] = {
            "best torch": torch_best, "best ivy": ivy_best,
            "best ivy / best torch": ratio(row, torch_best, ivy_best),
            "ivy->torch / torch eager": ratio(row, "torch eager", "ivy->torch"),
            "ivy->jax / torchax": ratio(row, "torchax", "ivy->jax")}

    def mean(key: str) -> float:
        vals = [p[key] for p in per.values() if p[key] == p[key]]
        return statistics.fmean(vals) if vals else float("nan")

    def geomean(key: str) -> float:
        vals = [p[key] for p in per.values() if p[key] == p[key]]
        return statistics.geometric_mean(vals) if vals else float("nan")

    keys = ("best ivy / best torch", "ivy->torch / torch eager", "ivy->jax / torchax")
    means = {k: mean(k) for k in keys}
    goals = {
        "best ivy >= best torch on every model":
            all(p["best ivy / best torch"] >= 1 for p in per.values()),
        "best ivy / best torch, mean >= 1.27": means[keys[0]] >= 1.27,
        "ivy->torch >= torch eager on every model":
            all(p["ivy->torch / torch eager"] >= 1 for p in per.values()),
        "ivy->jax >= torchax on every model":
            all(p["ivy->jax / torchax"] >= 1 for p in per.values()),
        "ivy->jax / torchax, mean >= 1.2": means[keys[2]] >= 1.2}
    return {"per_model": per, "mean": means, "geomean": {k: geomean(k) for k in keys},
            "goals": goals}


def table(result: dict[str, Any]) -> str:
    """The markdown tables of `docs/benchmarks.md`."""
    rows, summary = result["rows"], result["summary"]
    cols = [c for c in COLUMNS if any(c in r["columns"] for r in rows)]

    def cell(row: dict[str, Any], col: str, key: str, fmt: str) -> str:
        v = row["columns"].get(col, {})
        return format(v[key], fmt) if key in v else ("fail" if "error" in v else "-")

    head = "| model | " + " | ".join(cols) + " |\n|---|" + "---|" * len(cols) + "\n"
    lat = "".join(f"| {r['model']} | " + " | ".join(cell(r, c, "ms", ".1f") for c in cols)
                  + " |\n" for r in rows)
    first = "".join(f"| {r['model']} | " + " | ".join(cell(r, c, "first_s", ".1f")
                                                      for c in cols) + " |\n" for r in rows)
    err = "".join(f"| {r['model']} | " + " | ".join(cell(r, c, "err", ".0e") for c in cols)
                  + " |\n" for r in rows)
    keys = list(summary["mean"])
    sp = "| model | best torch | best ivy | " + " | ".join(keys) + " |\n|---|---|---|" + \
        "---|" * len(keys) + "\n"
    for model, p in summary["per_model"].items():
        sp += f"| {model} | {p['best torch']} | {p['best ivy']} | " + \
            " | ".join(f"{p[k]:.2f}x" for k in keys) + " |\n"
    sp += "| **mean** (geometric mean) | | | " + " | ".join(
        f"**{summary['mean'][k]:.2f}x** ({summary['geomean'][k]:.2f}x)" for k in keys) + " |\n"
    goals = "".join(f"- {g}: {'holds' if ok else 'FAILS'}\n"
                    for g, ok in summary["goals"].items())
    return (f"Latency (ms per call, median):\n\n{head}{lat}\n"
            "Speedups (median over rounds of the paired latency ratio, > 1: the ivy_ir "
            f"column is faster):\n\n{sp}\n"
            f"Compile time to first result (s):\n\n{head}{first}\n"
            f"Max |error| against torch eager:\n\n{head}{err}\n{goals}")


def plot(result: dict[str, Any]) -> None:
    """Top: every column's speedup over torch eager; bottom: the goals' ratios."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    rows, summary = result["rows"], result["summary"]
    cols = [c for c in COLUMNS if c != "torch eager" and any(c in r["columns"] for r in rows)]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(11, 7.5), height_ratios=(3, 2))
    xs = np.arange(len(rows))
    names = [r["model"] for r in rows]

    def bars(ax: Any, series: list[tuple[str, list[float]]]) -> None:
        width = 0.8 / len(series)
        for i, (label, vals) in enumerate(series):
            ax.bar(xs + (i - (len(series) - 1) / 2) * width, vals, width, label=label)
        ax.axhline(1.0, color="black", lw=0.8)
        ax.set_xticks(xs, names)

    bars(top, [(c, [ratio(r, "torch eager", c) if "ms" in r["columns"].get(c, {}) else 0.0
                    for r in rows]) for c in cols])
    top.set_ylabel("speedup over torch eager")
    top.set_title(f"torch models on CPU, batch {zoo.BATCH}, {result['threads']} thread(s): "
                  "higher is faster")
    top.legend(ncol=len(cols), fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.08))
    per = summary["per_model"]
    keys = list(summary["mean"])
    bars(bottom, [(k, [per[n][k] for n in names]) for k in keys])
    for goal, color in ((GOALS["best ivy / best torch, mean"], "C0"),
                        (GOALS["ivy->jax / torchax, mean"], "C2")):
        bottom.axhline(goal, color=color, lw=0.8, ls="--")
    bottom.set_ylabel("ratio (goal lines dashed)")
    bottom.legend(fontsize=7, ncol=3, loc="upper center", bbox_to_anchor=(0.5, -0.08))
    fig.tight_layout()
    PNG.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(PNG, dpi=100)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default=",".join(zoo.MODELS))
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--numpy-rounds", type=int, default=5)
    ap.add_argument("--batch-ms", type=float, default=200.0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--skip", default="",
                    help="columns to leave out, comma-separated: " + ", ".join(COLUMNS))
    ap.add_argument("--json", type=Path, default=JSON)
    ap.add_argument("--report", action="store_true", help="redraw tables/PNG from --json")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--worker-out", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    if args.worker:
        _worker(args.worker, args.threads, args.rounds, args.batch_ms / 1e3,
                args.numpy_rounds, skip, args.worker_out)
        return
    if args.report:
        result = json.loads(args.json.read_text())
    else:
        start = time.perf_counter()
        rows = []
        for name in args.models.split(","):
            print(f"{name}: {zoo.MODELS[name][1]}", flush=True)
            with tempfile.TemporaryDirectory() as tmp:
                out = Path(tmp) / "row.json"
                cmd = [sys.executable, __file__, "--worker", name, "--worker-out", str(out),
                       "--threads", str(args.threads), "--rounds", str(args.rounds),
                       "--numpy-rounds", str(args.numpy_rounds),
                       "--batch-ms", str(args.batch_ms), "--skip", args.skip]
                proc = subprocess.run(cmd, env=os.environ.copy())
                if proc.returncode or not out.exists():
                    print(f"{name}: worker failed (exit {proc.returncode})", flush=True)
                    continue
                rows.append(json.loads(out.read_text()))
        result = {"date": datetime.date.today().isoformat(), "threads": args.threads,
                  "rounds": args.rounds, "numpy_rounds": args.numpy_rounds,
                  "batch_ms": args.batch_ms, "machine": _machine(),
                  "python": platform.python_version(), "versions": _versions(),
                  "wall_s": time.perf_counter() - start, "rows": rows}
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=1))
    result["summary"] = summarize(result["rows"])
    print(table(result))
    plot(result)
    print(f"wrote {args.json} and {PNG}" + (f" in {result['wall_s'] / 60:.1f} min"
                                           if "wall_s" in result else ""))


if __name__ == "__main__":
    main()
