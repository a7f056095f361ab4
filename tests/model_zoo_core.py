"""The model zoo's machinery: what an entry is, how a built model is compiled for a
target and checked against its source, and what one check records.

An entry (`Model`) builds a seeded model with random weights (`Built`): the program
handed to `ivy_ir.compile`, its example inputs as the source's user holds them, and
the source's own forward as the reference. `check` compiles the program for each
target through the public API (`ivy_ir.compile(program, target=..., args=...)`) and
calls the result as the user would: the same argument structure (a Keras model's list
of inputs stays a list, unless `Built.call` gives the documented form), the arrays as
NumPy arrays, which every target accepts. `ZOO_TRACEBACKS=1` prints each failure's
traceback.
"""

from __future__ import annotations

import importlib
import os
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from zoo_common import F32_TOL

TARGETS = ("numpy", "jax", "torch", "tensorflow")
ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Built:
    program: Any
    """What `ivy_ir.compile` takes: a model, a function, a Flax NNX module."""
    args: tuple[Any, ...]
    reference: Callable[[], Any]
    """The source running itself on `args`/`kwargs`: the expected outputs."""
    kwargs: dict[str, Any] = field(default_factory=dict)
    params: Any = None
    """The variables of a JAX-style `fn(params, *args)` (Flax linen's `apply`)."""
    call: Callable[[Any, tuple[Any, ...], dict[str, Any]], Any] | None = None
    """`call(compiled, args, kwargs)`, the arguments as NumPy: how the compiled program
    is called where the documented form differs from the source's call (a Keras model
    of several inputs takes them as positional arrays); by default as the source is."""


@dataclass(frozen=True)
class Model:
    name: str
    family: str
    build: Callable[[], Built]
    needs: str
    """The module the entry imports: when it does not import, the entry is not run."""
    tolerance: tuple[float, float] = F32_TOL
    why: str = ""
    """Why the tolerance is looser than `F32_TOL`, when it is."""
    not_run: str = ""
    """Why the entry is listed but not run (too heavy for the machine), when it is."""


@dataclass
class Result:
    """One (model, target) check: `status` is "pass", "fail" or "not run"; `error` the
    failure's first line (or why not run) and `where` the innermost repository frame
    it was raised from; `err` the largest |got - want| and `ratio` the largest
    |got - want| / (atol + rtol |want|), which passes at <= 1."""
    model: str
    family: str
    target: str
    status: str
    error: str = ""
    where: str = ""
    err: float = float("nan")
    ratio: float = float("nan")
    compile_s: float = float("nan")
    run_s: float = float("nan")


def to_numpy(x: Any) -> Any:
    """A leaf as a NumPy array (torch, JAX, TF, Keras tensors); other values as they are."""
    if isinstance(x, np.ndarray) or x is None or isinstance(x, (bool, int, float, str)):
        return x
    if hasattr(x, "detach"):
        return x.detach().cpu().numpy()
    if hasattr(x, "numpy"):
        return np.asarray(x.numpy())
    if hasattr(x, "__array__"):
        return np.asarray(x)
    return x


def host(tree: Any) -> Any:
    """The call's arguments as NumPy arrays, keeping the lists, tuples and dicts."""
    if isinstance(tree, dict):
        return {k: host(v) for k, v in tree.items()}
    if isinstance(tree, (list, tuple)):
        return type(tree)(host(v) for v in tree)
    return to_numpy(tree)


def leaves(out: Any) -> list[np.ndarray]:
    """A call's outputs as a flat list of arrays: a transformers `ModelOutput` gives its
    non-None fields in order (`to_tuple`), as a traced model returns them."""
    if hasattr(out, "to_tuple"):
        out = out.to_tuple()
    if isinstance(out, dict):
        out = list(out.values())
    if isinstance(out, (list, tuple)):
        return [leaf for o in out for leaf in leaves(o)]
    return [] if out is None else [np.asarray(to_numpy(out))]


def compare(got: list[np.ndarray], want: list[np.ndarray],
            tolerance: tuple[float, float]) -> tuple[float, float]:
    """(max |got - want|, max ratio to the tolerance); raises AssertionError naming the
    first output that differs in count, shape, dtype or value. An output's atol is
    `tolerance[1]` times max(1, its largest |value|): float32 rounding scales with the
    terms summed, so a deep random network's large logits carry proportionally larger
    absolute noise on their near-zero entries, which no relative bound covers."""
    if len(got) != len(want):
        raise AssertionError(f"{len(got)} outputs, the source gives {len(want)}")
    rtol, atol = tolerance
    worst_err = worst_ratio = 0.0
    for i, (g, w) in enumerate(zip(got, want)):
        if g.shape != w.shape:
            raise AssertionError(f"output {i}: shape {g.shape}, the source's {w.shape}")
        if g.dtype != w.dtype:
            raise AssertionError(f"output {i}: dtype {g.dtype}, the source's {w.dtype}")
        if not w.size:
            continue
        g64, w64 = g.astype(np.float64), w.astype(np.float64)
        same = (g64 == w64) | (np.isnan(g64) & np.isnan(w64))
        diff = np.where(same, 0.0, np.abs(g64 - w64))
        scale = max(1.0, float(np.nanmax(np.abs(np.where(np.isfinite(w64), w64, 0)))))
        ratio = np.where(same, 0.0, diff / (atol * scale + rtol * np.abs(w64)))
        err, r = float(np.nanmax(diff)), float(np.max(np.nan_to_num(ratio, nan=np.inf)))
        worst_err, worst_ratio = max(worst_err, err), max(worst_ratio, r)
        if r > 1 or (w.dtype.kind in "biu" and err):
            raise AssertionError(f"output {i}: max |got - want| {err:.3g} is {r:.3g} x the "
                                 f"tolerance (rtol={rtol:g}, atol={atol:g} x {scale:.3g})")
    return worst_err, worst_ratio


def missing(model: Model) -> str:
    """Why the entry cannot run here (its library does not import), or ""."""
    from transpile_zoo import register_torchvision_schemas
    try:
        if model.family in ("timm", "torchvision", "transformers", "kornia"):
            register_torchvision_schemas()
        importlib.import_module(model.needs)
    except Exception as e:  # noqa: BLE001 - whatever stops the import: not here
        return f"{model.needs} does not import: {type(e).__name__}: {e}"
    return ""


def first_line(e: BaseException) -> str:
    """The error's first line, with the next one when it ends in ':' (an error that
    lists what it names on the following lines)."""
    lines = [line.strip() for line in f"{type(e).__name__}: {e}".splitlines() if line.strip()]
    text = " ".join(lines[:2]) if len(lines) > 1 and lines[0].endswith(":") else lines[0]
    return text[:400]


def origin(e: BaseException) -> str:
    """The innermost frame of the traceback inside this repository's packages
    (importers/, lowerings/, ivy_ir/, ivy/): where a failure is to be looked for."""
    where = ""
    for frame in traceback.extract_tb(e.__traceback__):
        path = Path(frame.filename).resolve()
        if ROOT in path.parents and path.relative_to(ROOT).parts[0] in (
                "importers", "lowerings", "ivy_ir", "ivy"):
            where = f"{path.relative_to(ROOT)}:{frame.lineno} ({frame.name})"
    return where


def check(model: Model, targets: tuple[str, ...] = TARGETS) -> list[Result]:
    """Every target's result for `model` (see `check_each`)."""
    return list(check_each(model, targets))


def check_each(model: Model, targets: tuple[str, ...] = TARGETS) -> Iterator[Result]:
    """Build `model` once, run its source once, and check each target, yielding each
    result as it is known (`scripts/zoo.py` records them one by one, so a crash keeps
    what came before); never raises: a failure is a `Result` with its error's first
    line."""
    def results(status: str, error: str = "", where: str = "") -> Iterator[Result]:
        return (Result(model.name, model.family, t, status, error, where) for t in targets)
    reason = model.not_run or missing(model)
    if reason:
        yield from results("not run", reason)
        return
    try:
        built = model.build()
        want = leaves(built.reference())
        if all(w.min() == w.max() for w in want if w.size):
            raise AssertionError("every output of the source is constant: the check would "
                                 "have no teeth")
    except Exception as e:  # noqa: BLE001 - the source itself fails: every target fails
        traceback.print_exc()
        yield from results("fail", "source: " + first_line(e), origin(e))
        return
    for target in targets:
        yield check_target(model, built, want, target)


def check_target(model: Model, built: Built, want: list[np.ndarray], target: str) -> Result:
    import ivy_ir
    row = Result(model.name, model.family, target, "fail")
    start = time.perf_counter()
    try:
        compiled = ivy_ir.compile(built.program, target=target, args=built.args,
                                  kwargs=built.kwargs or None, params=built.params)
        row.compile_s = time.perf_counter() - start
        start = time.perf_counter()
        args, kwargs = host(built.args), host(built.kwargs)
        got = leaves(built.call(compiled, args, kwargs) if built.call else
                     compiled(*args, **kwargs))
        row.run_s = time.perf_counter() - start
        row.err, row.ratio = compare(got, want, model.tolerance)
        row.status = "pass"
    except Exception as e:  # noqa: BLE001 - a failing target is a row of the table
        if os.environ.get("ZOO_TRACEBACKS"):
            traceback.print_exc()
        row.error, row.where = first_line(e), origin(e)
    return row
