"""`ivy-ir demo` (the showcase): two PyTorch models transpiled to every target.

The models are `examples/torch_models.py` (a timm-style CNN and a small transformer),
loaded by path as the drone demo loads its example: they import torch, which nothing in
`ivy_ir` may. Each model is traced once, its IR summarised before and after the default
passes, lowered to JAX, TensorFlow, NumPy and torch, checked against torch eager, and
timed against torch eager and `torch.compile`, interleaved round by round so that
machine noise hits every runner alike. A progress line per stage goes to stderr: the
first calls (jit, tf.function, torch.compile) take seconds.
"""

from __future__ import annotations

import os
import runpy
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import numpy as np

import lowerings

from . import api
from .core.errors import TraceError
from .core.module import Module
from .passes import DEFAULT_ORDER, run_pipeline

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "torch_models.py"
TARGETS = ("jax", "tensorflow", "numpy", "torch")
RTOL = 1e-5
"""Outputs match when max |diff| <= RTOL * max(1, max |torch eager|): float32 kernels of
different libraries sum in different orders, so bitwise equality is not the bar."""
OPTIONAL = frozenset({"jax", "jaxlib", "tensorflow", "torch"})
"""Frameworks a target may lack: its row says "not installed" and the run goes on."""
COLUMNS = ("runner", "median ms", "vs eager", "max |diff|", "first call s", "check")
SAMPLE_S = 0.01
"""Target duration of one timing sample (several calls when a call is short)."""


@dataclass
class Row:
    """One runner of one model: its speed and how its output compares with eager."""

    model: str
    runner: str
    ms: float = float("nan")
    ratio: float = float("nan")
    err: float = float("nan")
    first_s: float = float("nan")
    ok: bool = True
    note: str = ""


@dataclass
class Showcase:
    """What a run found: every row of every table, and the rendered tables."""

    rows: list[Row] = field(default_factory=list)
    text: str = ""

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.rows)

    def emit(self, lines: list[str], stream: TextIO) -> None:
        """Print a part of the report as soon as it is known, and keep it in `text`."""
        part = "\n".join(lines) + "\n"
        self.text += part
        print(part, end="", file=stream, flush=True)


class Progress:
    """Stage lines on stderr with the seconds since the start: the compile steps are
    silent for seconds and a fresh `torch.compile` for tens of them."""

    def __init__(self, stream: TextIO | None):
        self.stream, self.start = stream, time.perf_counter()

    def __call__(self, message: str) -> None:
        if self.stream is not None:
            print(f"[{time.perf_counter() - self.start:5.1f}s] {message}", file=self.stream,
                  flush=True)


def run(out: str | None = "ivy_ir_demo.png", quick: bool = False, rounds: int = 11,
        threads: int = 1, stream: TextIO = sys.stdout,
        progress: TextIO | None = sys.stderr) -> Showcase:
    """Run the showcase, print its report to `stream` and draw the speed table to `out`.
    `quick` (the tests): two timing rounds of one call each, no `torch.compile`.
    `threads` > 0 gives every framework that many intra-op threads (see `_fix_threads`,
    which changes this process's environment); 0 keeps each framework's default."""
    if not EXAMPLE.exists():
        raise TraceError(f"the showcase's models are not here ({EXAMPLE}); run the demo "
                         "from a checkout of the repository (pip install -e .)")
    say = Progress(progress)
    say("loading the models (torch)")
    result = Showcase()
    result.emit(_fix_threads(threads), stream)
    models = runpy.run_path(str(EXAMPLE))
    if threads > 0:
        models["set_threads"](threads)
    for name, what in models["MODELS"].items():
        model, x = models["build"](name)
        result.emit([f"== {name}: {what}; input {x.dtype}{list(x.shape)} =="], stream)
        lines, rows = _showcase_model(name, model, x, models["torch_runners"], quick,
                                      rounds, say)
        result.rows += rows
        result.emit(lines + [""], stream)
    result.emit(_footer(result), stream)
    if out and _draw(result.rows, out):
        result.emit([f"speed chart: {Path(out).resolve()}"], stream)
    say("done")
    return result


def _showcase_model(name: str, model: Any, x: np.ndarray, torch_runners: Callable[..., Any],
                    quick: bool, rounds: int, say: Progress) -> tuple[list[str], list[Row]]:
    """Trace, summarise, lower, check and time one model: the report's lines and rows."""
    say(f"{name}: tracing torch -> ivy IR")
    t0 = time.perf_counter()
    traced = api.trace(model, (x,))
    t_trace = time.perf_counter() - t0
    say(f"{name}: running the default passes")
    t0 = time.perf_counter()
    optimized = run_pipeline(traced, "default")
    lines = _summary(traced, optimized, t_trace, time.perf_counter() - t0)
    say(f"{name}: torch eager" + ("" if quick else " and torch.compile (its first call "
                                  "compiles: slow on a fresh machine)"))
    runners: dict[str, Callable[[], Any]] = {}
    rows: dict[str, Row] = {}
    for runner, fn in torch_runners(model, x, not quick).items():
        rows[runner] = Row(name, runner)
        try:
            runners[runner] = _first_call(fn, rows[runner])
        except Exception as exc:  # torch.compile needs a C++ compiler: a baseline missing
            if runner == "torch eager":  # is no fault of ivy_ir, the reference's is fatal
                raise
            rows[runner].note = f"unavailable: {type(exc).__name__}: {exc}"[:200]
    ref = _host(runners["torch eager"]())
    for target in TARGETS:
        runner = f"ivy_ir -> {target}"
        say(f"{name}: lowering to {target} and the first call")
        rows[runner] = Row(name, runner)
        try:
            with quiet_stderr(target == "tensorflow" and "tensorflow" not in sys.modules):
                runners[runner] = _lowered(optimized, target, x, rows[runner])
        except Exception as exc:  # a showcase reports a failing target, then the rest
            if isinstance(exc, ImportError) and exc.name in OPTIONAL:
                rows[runner].note = f"not installed ({exc.name})"
                continue
            rows[runner].ok = False
            rows[runner].note = f"FAIL: {type(exc).__name__}: {exc}"[:200]
    for runner, fn in runners.items():
        row = rows[runner]
        row.err = float(np.max(np.abs(_host(fn()) - ref)))
        row.ok = bool(row.err <= RTOL * max(1.0, float(np.max(np.abs(ref)))))
    say(f"{name}: timing {len(runners)} runners, interleaved")
    _time(runners, rows, 2 if quick else rounds, quick)
    return lines + _table(list(rows.values())), list(rows.values())


def _fix_threads(threads: int) -> list[str]:
    """Give NumPy's BLAS, XLA and TensorFlow `threads` intra-op threads (torch gets them
    from the models' module). Each framework sizes its pools its own way, and on a small
    shared machine the pools of four frameworks in one process spin against each other
    (torch eager ran up to 15x slower right after a TF call on 2 cores); one setting for
    all keeps the ratios about the programs. XLA takes no thread count, only "one" (its
    Eigen pool off). Environment variables only reach a framework not yet loaded: the
    report says which kept their own."""
    if threads <= 0:
        return ["threads: each framework's default"]
    n = str(threads)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                "TF_NUM_INTRAOP_THREADS"):
        os.environ[var] = n
    os.environ["TF_NUM_INTEROP_THREADS"] = "1"
    if threads == 1 and "xla_cpu_multi_thread_eigen" not in os.environ.get("XLA_FLAGS", ""):
        os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "")
                                   + " --xla_cpu_multi_thread_eigen=false").strip()
    late = [m for m in ("jax", "tensorflow") if m in sys.modules]
    return [f"threads: {threads} intra-op thread(s) per framework (--threads)"
            + (f"; already loaded, left as they were: {', '.join(late)}" if late else "")]


@contextmanager
def quiet_stderr(quiet: bool = True) -> Iterator[None]:
    """Silence file descriptor 2 while TensorFlow loads: its C++ logging writes start-up
    lines (oneDNN, absl) past Python, between the progress lines; errors still raise."""
    if not quiet:
        yield
        return
    sys.stderr.flush()
    saved, null = os.dup(2), os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 2)
    try:
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(null)


def _first_call(fn: Callable[[], Any], row: Row) -> Callable[[], Any]:
    """`fn`, called once: torch.compile compiles there, and says so in `first_s`."""
    t0 = time.perf_counter()
    _sync(fn())
    row.first_s = time.perf_counter() - t0
    return fn


def _lowered(module: Module, target: str, x: np.ndarray, row: Row) -> Callable[[], Any]:
    """The module lowered to `target`, as a call on an input already converted (the
    timing measures the program, not the conversion); the first call (jit compile,
    tf.function trace) is timed with the lowering."""
    t0 = time.perf_counter()
    compiled = api.lower(module, target=target)
    if compiled.module is not None and hasattr(compiled.module, "requires_grad_"):
        compiled.module.requires_grad_(False)  # inference, as the eager baseline's no_grad
    native = compiled.runtime.to_native(x)
    _first_call(lambda: compiled(native), row)
    row.first_s = time.perf_counter() - t0
    return lambda: compiled(native)


def _sync(y: Any) -> Any:
    """Wait for an asynchronously dispatched result (JAX); others are ready."""
    wait = getattr(y, "block_until_ready", None)
    return wait() if callable(wait) else y


def _host(y: Any) -> np.ndarray:
    return np.asarray(lowerings.runtime.host_array(y), np.float64)


def _time(runners: dict[str, Callable[[], Any]], rows: dict[str, Row], rounds: int,
          quick: bool) -> None:
    """Median ms per call of each runner over `rounds` samples taken in turn, each
    sample ~SAMPLE_S long; ratios are against torch eager's median."""
    reps = {}
    for runner, fn in runners.items():
        t0 = time.perf_counter()
        _sync(fn())
        reps[runner] = 1 if quick else max(1, int(SAMPLE_S / (time.perf_counter() - t0)))
    samples: dict[str, list[float]] = {r: [] for r in runners}
    names = list(runners)
    for i in range(rounds):
        for runner in names[i % len(names):] + names[:i % len(names)]:  # rotate who follows whom
            fn = runners[runner]
            t0 = time.perf_counter()
            for _ in range(reps[runner]):
                _sync(fn())
            samples[runner].append((time.perf_counter() - t0) / reps[runner])
    for runner, times in samples.items():
        rows[runner].ms = 1e3 * statistics.median(times)
    base = rows["torch eager"].ms
    for row in rows.values():
        row.ratio = row.ms / base


def _summary(traced: Module, optimized: Module, t_trace: float, t_passes: float) -> list[str]:
    """Op counts (the 8 most frequent names), totals and parameters, before and after."""
    before, after = _op_names(traced), _op_names(optimized)
    n_values = sum(int(v.size) for v in traced.params.values())
    lines = [f"IR: {traced.op_count()} ops traced in {t_trace:.2f} s -> "
             f"{optimized.op_count()} after the default passes in {t_passes:.2f} s "
             f"({', '.join(DEFAULT_ORDER)})",
             f"  ops on activations {traced.op_count() - _on_params(traced)} -> "
             f"{optimized.op_count() - _on_params(optimized)}, on parameters only "
             f"{_on_params(traced)} -> {_on_params(optimized)}"
             + (" (batch norms folded into the convs' weights and biases)"
                if after["ivy.batch_norm"] < before["ivy.batch_norm"] else ""),
             f"parameters: {len(traced.params)} tensors, {n_values:,} values",
             f"  {'op':<28} {'traced':>7} {'optimized':>10}"]
    top = sorted(set(before) | set(after), key=lambda k: (-max(before[k], after[k]), k))
    for op in top[:8]:
        lines.append(f"  {op:<28} {before[op]:>7} {after[op]:>10}")
    rest = top[8:]
    if rest:
        lines.append(f"  {f'{len(rest)} other op names':<28} {sum(before[k] for k in rest):>7} "
                     f"{sum(after[k] for k in rest):>10}")
    return lines


def _on_params(module: Module) -> int:
    """Ivy ops that read only parameters and constants: what folding a batch norm into
    the conv before it adds (a few ops on weights instead of a pass over activations)."""
    fixed = {id(a) for a, info in zip(module.entry.body.block.args, module.args())
             if info.param is not None}
    count = 0
    for op in module.entry.body.block.ops:
        if op.name.startswith("ivy.") and all(id(v) in fixed for v in op.operands):
            fixed.update(id(r) for r in op.results)
            count += 1
    return count


def _op_names(module: Module) -> Counter[str]:
    return Counter(o.name for o in module.entry.walk() if o.name.startswith("ivy."))


def _table(rows: list[Row]) -> list[str]:
    head = (f"  {COLUMNS[0]:<22} {COLUMNS[1]:>10} {COLUMNS[2]:>9} {COLUMNS[3]:>11} "
            f"{COLUMNS[4]:>13} {COLUMNS[5]:>6}")
    out = [head]
    for r in rows:
        if r.note:
            out.append(f"  {r.runner:<22} {r.note}")
            continue
        first = f"{r.first_s:.2f}"
        out.append(f"  {r.runner:<22} {r.ms:>10.3f} {r.ratio:>8.2f}x {r.err:>11.1e} "
                   f"{first:>13} {'ok' if r.ok else 'FAIL':>6}")
    return out


def _footer(result: Showcase) -> list[str]:
    bad = [f"{r.model}/{r.runner}" for r in result.rows if not r.ok]
    return ["first call s: the first call (where torch.compile, jax.jit and tf.function "
            "compile), after ivy_ir's lowering for its rows; vs eager: median time / torch "
            f"eager's (lower is faster); check: max |diff| <= {RTOL:g} * max(1, |eager|)",
            "all outputs match torch eager" if not bad else f"MISMATCH: {', '.join(bad)}"]


def _draw(rows: list[Row], out: str) -> bool:
    """Horizontal bars of median ms per runner, one panel per model."""
    try:
        import matplotlib  # optional: only the picture needs it
    except ImportError:
        print("matplotlib is not installed: no chart (pip install matplotlib)")
        return False
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # after choosing the file backend above

    models = list(dict.fromkeys(r.model for r in rows))
    fig, axes = plt.subplots(1, len(models), figsize=(5.5 * len(models), 3.6), squeeze=False)
    for ax, model in zip(axes[0], models):
        mine = [r for r in rows if r.model == model and not r.note][::-1]
        colors = ["tab:red" if not r.ok else "0.55" if r.runner.startswith("torch")
                  else "tab:blue" for r in mine]
        ax.barh([r.runner for r in mine], [r.ms for r in mine], color=colors)
        for i, r in enumerate(mine):
            ax.annotate(f" {r.ms:.2f} ms ({r.ratio:.2f}x)", (r.ms, i), va="center",
                        fontsize=8)
        ax.set_title(model)
        ax.set_xscale("log")  # NumPy is tens of times slower than the rest
        ax.set_xlabel("median ms per call (CPU, log scale)")
        ax.set_xlim(0.5 * min(r.ms for r in mine), 5 * max(r.ms for r in mine))
    fig.suptitle("ivy_ir: torch models transpiled, vs torch eager and torch.compile")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return True
