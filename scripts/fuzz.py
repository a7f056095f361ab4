"""Mutation fuzzing of everything that reads IR text from strangers.

Every mutant of a corpus entry (the lit tests' IR and generated programs' IR) goes to
`ivy_ir.parse` and to `ivy-opt` (in-process, with a random flag set); a mutant that
parses and verifies is also lowered to each target and called on random inputs of its
declared types. A run passes when nothing raises an exception type outside the stage's
allow-list of user errors (`INTERNAL`), no reader takes more than 1 s plus 1 s per
10 kB of its own CPU time (`SLOW`: the thread's time, so a busy machine, such as the
test suite's other worker, does not count; the cyclic garbage collector is paused, as
its full sweeps of a big process would count too; a stage over budget is timed once
more and counts only if it is over again), and every lowered call returns the
declared shapes and dtypes (`WRONG-TYPE`). Reproducers of failures are written to
`--out`, one file each, with the stage and the exception on the first line.

    python scripts/fuzz.py --minutes 5 [--seed 0] [--targets numpy,jax,torch,tensorflow]

`tests/test_fuzz.py` runs the same harness for a fixed number of mutants in CI.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import hashlib
import io
import logging
import os
import random
import re
import shutil
import signal
import sys
import tempfile
import time
import warnings
import weakref
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
TARGETS = ("numpy", "jax", "torch", "tensorflow")
HANG_S = 20.0
"""A stage still running after this long is stopped and counted as SLOW."""
MAX_RUN_ELEMENTS = 100_000
"""Mutants whose values are bigger than this are parsed but not run: a mutant that asks
for a huge tensor asks for it legitimately."""

LOWER_USER_ERRORS: tuple[type[BaseException], ...] = (TypeError, ValueError,
                                                      NotImplementedError)
"""What lowering or calling may raise for a program it declines (IRError is a
ValueError); anything else, or one of these with an interpreter's message, is a bug."""
_INTERPRETER_WORDS = re.compile(
    r"object is not (subscriptable|callable|iterable)|unsupported operand|positional "
    r"argument|required positional|has no len|unhashable type|values to unpack|NoneType|"
    r"invalid literal for int|object cannot be interpreted|index out of range")

_DATA_ERROR_WORDS = re.compile(
    r"not positive-definite|singular|Integers to negative integer powers are not allowed")
"""Errors a framework raises on the values at run time, which docs/semantics.md lists as
errors (a non-invertible matrix, an integer raised to a negative power): counted as
`data:`, like NumPy's LinAlgError (a ValueError) already is as `user:`."""

TOKENS = (
    '"', "\\", '"\\q"', '"' + "a" * 40, "[", "]", "{", "}", "(", ")", "<", ">", "->", "%",
    "@", "#", "!", "^", ":", ",", "=", "?", "x", "*", "...", "{-#", "#-}", "// -----",
    'loc("f")', 'loc("f":1:2)', "loc(unknown)", 'loc(fused[loc("a"), loc("b":1:1)])',
    'loc(callsite(loc("a") at loc("b":3:4)))', 'loc("n"(loc("m":1:1)))', "0", "-1", "1.5",
    "1.0e300", "-1.0e300", "1.0e-320", "1.0e999", "3.4028235e+38", "65520.0",
    "9223372036854775807", "9223372036854775808", "-9223372036854775809",
    "18446744073709551615", "18446744073709551616", "99999999999999999999999", "0x7FC00000",
    "0xFFFFFFFFFFFFFFFF", "0x1FFFFFFFFFFFFFFFF", "nan", "inf", "true", "false", "i0", "i1",
    "i2", "i128", "si32", "ui1", "ui64", "f80", "f8E4M3FN", "index", "none", "complex<i32>",
    "tensor<*xf32>", "tensor<?x?xf32>", "tensor<0xf32>", "tensor<100000000xf32>",
    "tensor<4294967296x4294967296xf32>", "tensor<2xtensor<2xf32>>", "vector<4xf32>",
    "dense<1.0> : tensor<100000000xf32>", 'dense<"0x0000803F"> : tensor<100000000xf32>',
    "dense<> : tensor<0xf32>", "dense<[[1, 2], [3]]>", "array<i64: 1, 2>", "array<i8: 300>",
    "\ud800", "\udcff", "\x00", "\u202e", "\u00e9", "\t", "\n", "[" * 80, "]" * 80,
    "(" * 80, "{" * 80, "<" * 80, "ivy.exp", "ivy.add", "ivy.while_loop", "ivy.cond",
    "ivy.yield", "ivy.constant", "ivy.full", "ivy.reshape", "func.call @main()",
    "func.return", "builtin.module {", "^bb0:", "^bb1(%z: tensor<f32>):", "%0", "%x0",
    "%0:2", "@main", "attributes {ivy.param = \"w\"}", "{axis = -7}", "{axes = [9]}",
    "{shape = [-2]}", "{dtype = i128}", "<{value = 1}>",
)
"""Tokens a mutation inserts or substitutes: syntax, extreme numbers, odd types and
text, nesting, and pieces of ops."""

OPT_FLAGS: tuple[tuple[str, ...], ...] = (
    (), ("-p", "default"), ("-p", "canonicalize,cse,dce"), ("-p", "decompose,fuse-elementwise"),
    ("--split-input-file",), ("--split-input-file", "--verify-diagnostics"),
    ("--parsing-diagnostics",), ("--print-op-generic",), ("--print-debuginfo",),
    ("-p", "{{{"), ("-p", "canonicalize{fold-limit=x}"), ("-p", "recompose,"), ("--bogus",),
    ("-p", "default", "--print-ir-after-all"), ("--no-implicit-module",),
    ("--max-nesting", "8"), ("--max-dense-elements", "4"),
)


def corpus(programs: int = 40) -> list[str]:
    """IR of the lit tests (one entry per `// -----` chunk, without comments) and of
    generated programs (tests/program_gen.py, traced through the facade)."""
    out = []
    for path in sorted((ROOT / "tests" / "lit").rglob("*.mlir")):
        for chunk in path.read_text().split("// -----"):
            body = "\n".join(ln for ln in chunk.splitlines() if not ln.lstrip().startswith("//"))
            if body.strip():
                out.append(body.strip() + "\n")
    sys.path.insert(0, str(ROOT / "tests"))
    from program_gen import build_program
    out.extend(str(build_program(seed).module) for seed in range(programs))
    return out


_GENTLE = (
    (re.compile(r"(?<![\w%#^@.])-?\d+(?:\.\d+)?(?:e[-+]?\d+)?(?![\w.])"),
     ("0", "1", "2", "3", "-1", "-2", "7", "64", "0.5", "-0.0", "1.0e300", "65536")),
    (re.compile(r"\b(?:[fi](?:16|32|64)|bf16|i1|i8|ui8|complex<f(?:32|64)>)\b"),
     ("f16", "bf16", "f32", "f64", "i1", "i8", "i32", "i64", "ui8", "complex<f32>")),
    (re.compile(r"\bivy\.[a-z_0-9]+"), ()),
)
"""Edits that keep the text well-formed more often than not, so that mutants get past
the parser into the verifier and the lowerings: a number, a dtype or an op name
replaced by another."""


def mutate(text: str, rng: random.Random, others: Sequence[str]) -> str:
    """Two times in five, one gentle edit (`_GENTLE`); otherwise one to four edits:
    delete, duplicate, insert or substitute a token, splice in a piece of another entry,
    swap lines, repeat a line or the whole text, truncate."""
    if rng.random() < 0.4:
        pattern, choices = rng.choice(_GENTLE)
        found = list(pattern.finditer(text))
        if found:
            m = rng.choice(found)
            new = rng.choice(choices or _op_names())
            return text[:m.start()] + new + text[m.end():]
    for _ in range(rng.randint(1, 4)):
        n = len(text)
        i, j = sorted(rng.randrange(n + 1) for _ in range(2))
        j = min(j, i + rng.choice((1, 2, 8, 40)))
        kind = rng.randrange(10)
        if kind == 0:
            text = text[:i] + text[j:]
        elif kind == 1:
            text = text[:j] + text[i:j] + text[j:]
        elif kind == 2:
            text = text[:i] + rng.choice(TOKENS) + text[i:]
        elif kind in (3, 4):
            words = list(re.finditer(r"[\w.$]+|\S", text))
            if words:
                w = rng.choice(words)
                text = text[:w.start()] + rng.choice(TOKENS) + text[w.end():]
        elif kind == 5:
            other = rng.choice(others)
            k = rng.randrange(len(other) + 1)
            text = text[:i] + other[k:k + rng.randint(1, 200)] + text[i:]
        elif kind == 6:
            lines = text.splitlines(keepends=True)
            if len(lines) > 1:
                a, b = rng.randrange(len(lines)), rng.randrange(len(lines))
                lines[a], lines[b] = lines[b], lines[a]
                text = "".join(lines)
        elif kind == 7:
            lines = text.splitlines(keepends=True) or [""]
            a = rng.randrange(len(lines))
            text = "".join(lines[:a] + lines[a:a + 1] * rng.choice((2, 2, 2, 50, 1000))
                           + lines[a + 1:])
        elif kind == 8:
            text = text * rng.choice((2, 2, 10)) if n < 20_000 else text
        else:
            text = text[:i]
    return text


def _op_names() -> tuple[str, ...]:
    import ivy_ir

    return tuple(f"ivy.{name}" for name in ivy_ir.list_ops())


class Timeout(BaseException):
    """Raised by the alarm into a stage that runs too long (a BaseException, so that no
    `except Exception` in the code under test swallows it)."""


@contextlib.contextmanager
def deadline(seconds: float) -> Iterator[None]:
    def expire(signum: int, frame: Any) -> None:
        raise Timeout(f"still running after {seconds:.0f} s")

    try:
        old = signal.signal(signal.SIGALRM, expire)
    except ValueError:  # not the main thread: no alarm, no guard
        yield
        return
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic collector off while a stage runs: a full collection of the test
    process's heap (gigabytes, seconds of CPU) would be charged to whichever reader's
    allocation set it off, and count as SLOW; reference counting still frees."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def allowed_s(text: str) -> float:
    return 1.0 + len(text) / 10_000


def _cpu_seconds(call: Callable[[], Any]) -> float:
    """The thread's CPU time for a second run of a stage that ran over its budget: a
    reader is SLOW only when both runs are, so a one-off cost (a cache filled, a host
    whose other worker thrashes the shared caches) is not charged to it."""
    start = time.thread_time()
    try:
        with deadline(HANG_S), _collector_paused():
            call()
    except Timeout:
        return HANG_S
    except Exception:  # noqa: BLE001 - the first run already counted the outcome
        pass
    return time.thread_time() - start


WARM_UP = """func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = ivy.exp %x : (tensor<2xf32>) -> tensor<2xf32>
  func.return %y : tensor<2xf32>
}
"""


class Harness:
    """Runs the stages on one mutant at a time and keeps the counts and the failures."""

    def __init__(self, targets: Sequence[str] = TARGETS, out: Path | None = None):
        import ivy_ir
        from ivy_ir.opt import USER_ERRORS, run

        self.ivy_ir, self.opt_run, self.opt_user_errors = ivy_ir, run, USER_ERRORS
        self.targets = tuple(targets)
        self.out = out
        self.counts: Counter[tuple[str, str]] = Counter()
        self.failures: list[str] = []
        self.examples: dict[tuple[str, str], str] = {}
        """The first message of each kind of user error, to judge that it is one."""
        folder = tempfile.mkdtemp(prefix="ivy-fuzz-")  # ivy-opt reads its input from a file
        weakref.finalize(self, shutil.rmtree, folder, True)
        self._tmp = Path(folder) / "input.mlir"
        warm = ivy_ir.parse(WARM_UP)
        for target in self.targets:  # imports and first traces are no mutant's cost
            ivy_ir.lower(warm, target)(np.ones(2, np.float32))

    def _fail(self, stage: str, what: str, detail: str, text: str) -> None:
        self.counts[(stage, what)] += 1
        first = (detail.strip().splitlines() or [""])[0][:300]
        self.failures.append(f"{stage}: {what}: {first}")
        if self.out is not None:
            self.out.mkdir(parents=True, exist_ok=True)
            tag = hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:10]
            body = f"// {stage}: {what}: {first}\n{text}"
            (self.out / f"{stage}-{what.split(':')[-1]}-{tag}.mlir").write_bytes(
                body.encode("utf-8", "surrogatepass"))

    def _timed(self, stage: str, text: str, call: Callable[[], Any],
               user: tuple[type[BaseException], ...]) -> Any:
        """Run one stage: count its outcome, record a failure; the value or None."""
        start = time.thread_time()
        try:
            with deadline(HANG_S), _collector_paused():
                value = call()
        except Timeout as exc:
            self._fail(stage, "SLOW", str(exc), text)
            return None
        except user as exc:
            if isinstance(exc, LOWER_USER_ERRORS) and _INTERPRETER_WORDS.search(str(exc)) \
                    and not isinstance(exc, self.ivy_ir.IRError):
                self._fail(stage, f"INTERNAL:{type(exc).__name__}", str(exc), text)
            else:
                what = f"user:{type(exc).__name__}"
                self.counts[(stage, what)] += 1
                self.examples.setdefault((stage, what), str(exc).strip().split("\n")[0][:160])
            value = None
        except Exception as exc:  # the point of fuzzing: anything else is a bug
            if stage.startswith("run:") and _DATA_ERROR_WORDS.search(str(exc)):
                self.counts[(stage, f"data:{type(exc).__name__}")] += 1
                return None
            self._fail(stage, f"INTERNAL:{type(exc).__name__}", str(exc) or repr(exc), text)
            return None
        else:
            self.counts[(stage, "ok")] += 1
        elapsed = time.thread_time() - start
        if stage in ("parse", "ivy-opt") and elapsed > allowed_s(text):
            elapsed = min(elapsed, _cpu_seconds(call))
            if elapsed > allowed_s(text):
                self._fail(stage, "SLOW", f"{elapsed:.2f} s for {len(text)} characters", text)
        return value

    def check(self, text: str, flags: Sequence[str] = ()) -> None:
        """All stages for one mutant; one that verifies and is small enough to run is
        also lowered to each target and called."""
        module = self._timed("parse", text, lambda: self.ivy_ir.parse(text),
                             (self.ivy_ir.IRError,))
        self._timed("ivy-opt", text, lambda: self._opt(text, flags), self.opt_user_errors)
        if module is not None and _small(module):
            for target in self.targets:
                self._run(module, target, text)

    def _opt(self, text: str, flags: Sequence[str]) -> None:
        self._tmp.write_bytes(text.encode("utf-8", "surrogatepass"))
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                self.opt_run([str(self._tmp), *flags])
            except SystemExit:  # --help, --version: argparse's own exits
                pass
        if "Traceback" in out.getvalue() + err.getvalue():
            raise RuntimeError("ivy-opt printed a traceback")

    def _run(self, module: Any, target: str, text: str) -> None:
        stage = f"lower:{target}"
        rng = np.random.default_rng(len(text))

        def lower() -> tuple[Any, list[np.ndarray]]:
            params = {a.param: _random(a.spec, rng) for a in module.args() if a.param}
            compiled = self.ivy_ir.lower(module, target, params)
            return compiled, [_random(s, rng) for s in module.inputs]

        with warnings.catch_warnings():  # NaN from random inputs is no finding
            warnings.simplefilter("ignore")
            lowered = self._timed(stage, text, lower, LOWER_USER_ERRORS)
            if lowered is None:
                return
            compiled, inputs = lowered
            result = self._timed(f"run:{target}", text, lambda: compiled(*inputs),
                                 LOWER_USER_ERRORS)
        if result is None:
            return
        outs = result if isinstance(result, (tuple, list)) else (result,)
        got = [(tuple(int(d) for d in o.shape), _dtype_name(o.dtype)) for o in outs]
        want = [(s.shape, s.dtype) for s in module.user_outputs]  # updates are written back
        if len(got) != len(want) or any(
                g[1] != w[1] or len(g[0]) != len(w[0])
                or any(d is not None and d != e for d, e in zip(w[0], g[0]))
                for g, w in zip(got, want)):
            self._fail(f"run:{target}", "WRONG-TYPE", f"returned {got}, declared {want}", text)

    def report(self) -> str:
        lines = [f"{n:7d}  {stage:18s} {what}" for (stage, what), n in sorted(self.counts.items())]
        return "\n".join(lines)


def _small(module: Any) -> bool:
    """Every value in the module is static and at most MAX_RUN_ELEMENTS big."""
    from ivy_ir.dialect import TensorSpec

    for op in module.op.walk():
        for value in (*op.results, *(a for r in op.regions for b in r.blocks for a in b.args)):
            try:
                shape = TensorSpec.from_xdsl(value.type).shape
            except TypeError:
                return False
            if None in shape or int(np.prod(shape, dtype=object)) > MAX_RUN_ELEMENTS:
                return False
    return True


def _random(spec: Any, rng: np.random.Generator) -> np.ndarray:
    """Exact, tame values (small positive integers, multiples of 1/8) of `spec`'s type."""
    from ivy_ir.dialect.types import numpy_dtype

    shape = tuple(2 if d is None else d for d in spec.shape)
    if spec.dtype == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    if spec.dtype.startswith(("int", "uint")):
        return rng.integers(1, 4, shape).astype(numpy_dtype(spec.dtype))
    values = rng.integers(-16, 17, shape) / 8
    if spec.dtype.startswith("complex"):
        values = values + 1j * rng.integers(-16, 17, shape) / 8
    return values.astype(numpy_dtype(spec.dtype))


def _dtype_name(dtype: Any) -> str:
    name = getattr(dtype, "name", None)
    return name if isinstance(name, str) else str(dtype).removeprefix("torch.")


def fuzz(minutes: float | None = None, mutants: int | None = None, seed: int = 0,
         targets: Sequence[str] = TARGETS, out: Path | None = None) -> Harness:
    """Check mutants until the time or the count is spent."""
    rng = random.Random(seed)
    entries = corpus()
    harness = Harness(targets, out)
    stop = time.monotonic() + 60 * minutes if minutes is not None else float("inf")
    done = 0
    while time.monotonic() < stop and (mutants is None or done < mutants):
        harness.check(mutate(rng.choice(entries), rng, entries), rng.choice(OPT_FLAGS))
        done += 1
    harness.counts[("all", "mutants")] = done
    return harness


def main(argv: list[str] | None = None) -> int:
    # the targets' own chatter (TF logs, NumPy's warnings on NaN) would bury the report
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    logging.disable(logging.WARNING)
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--targets", default=",".join(TARGETS))
    ap.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "ivy-fuzz",
                    help="folder for reproducers of failures")
    args = ap.parse_args(argv)
    harness = fuzz(args.minutes, seed=args.seed, out=args.out,
                   targets=[t for t in args.targets.split(",") if t])
    print(harness.report())
    print(f"{len(harness.failures)} failure(s)" + (f"; reproducers in {args.out}"
                                                    if harness.failures else ""))
    return 1 if harness.failures else 0


if __name__ == "__main__":
    sys.exit(main())
