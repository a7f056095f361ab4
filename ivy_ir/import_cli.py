"""`ivy-ir import`: load a program from a user's Python file (or an ONNX model file),
import it from its framework, optimize it, and print the IR, the generated target
source, or a report of the source ops that have no mapping.

The program is named `FILE.py:NAME` (default NAME: `model`, else `main`). Example inputs
come from `--arg DTYPE[d0,d1,...]` flags (random data, seeded) or, when none are given,
from a function `example_args()` in the same file returning a tuple (or a
`(args, params)` pair for `apply(params, x)`-style programs, with `--params`).
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np

from importers import SOURCES

from . import api
from .core.errors import UnsupportedOpsError
from .dialect.types import dtype_name, numpy_dtype
from .passes import run_pipeline

_SPEC = re.compile(r"^\s*([A-Za-z0-9_]+)\s*\[\s*([0-9,\s]*)\]\s*$")


class CliError(Exception):
    """A user mistake on the command line or in the named file: printed, exit 1."""


def example_array(text: str, rng: np.random.Generator) -> np.ndarray:
    """A random array for a spec such as `float32[2,3]` or `i64[5]`."""
    m = _SPEC.match(text)
    if not m:
        raise CliError(f"bad --arg '{text}': expected DTYPE[d0,d1,...], e.g. float32[2,3]")
    try:
        dtype = dtype_name(m.group(1))
    except TypeError as exc:
        raise CliError(f"bad --arg '{text}': {exc}") from None
    shape = tuple(int(d) for d in m.group(2).replace(" ", "").split(",") if d)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype in ("float16", "bfloat16", "float32", "float64"):
        return rng.standard_normal(shape).astype(numpy_dtype(dtype))
    if dtype in ("complex64", "complex128"):
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    return rng.integers(0, 4, shape).astype(dtype)


def load_program(target: str) -> tuple[Any, Any]:
    """The object named by `FILE.py[:NAME]` and the file's `example_args` (or None)."""
    path, _, name = target.partition(":")
    file = Path(path)
    if not file.is_file():
        raise CliError(f"no such file: {path}")
    spec = importlib.util.spec_from_file_location(f"_ivy_ir_user_{file.stem}", file)
    if spec is None or spec.loader is None:
        raise CliError(f"{path} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(file.resolve().parent))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.pop(0)
    names = [name] if name else ["model", "main"]
    for n in names:
        if hasattr(module, n):
            return getattr(module, n), getattr(module, "example_args", None)
    raise CliError(f"{path} defines no {' or '.join(repr(n) for n in names)}; "
                   "name the program as FILE.py:NAME")


def run(args: argparse.Namespace) -> int:
    onnx_file = args.program.lower().endswith(".onnx")
    if onnx_file and not Path(args.program).is_file():
        raise CliError(f"no such file: {args.program}")
    # an ONNX model is data: it is read, never executed
    program, example = (args.program, None) if onnx_file else load_program(args.program)
    params = None
    if args.arg:
        rng = np.random.default_rng(0)
        inputs = tuple(example_array(a, rng) for a in args.arg)
    elif example is not None:
        made = example()
        inputs, params = made if args.params else (made, None)
        inputs = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    elif onnx_file:
        inputs = ()  # the model's declared input types
    else:
        raise CliError("give example inputs with --arg DTYPE[dims] or define "
                       "example_args() in the file")
    try:
        module = api.trace(program, inputs, params=params, source=args.source)
    except (TypeError, ValueError) as exc:
        if not onnx_file:
            raise
        hint = "" if inputs else " (here: --arg DTYPE[d0,d1,...] per input)"
        raise CliError(f"{exc}{hint}") from None  # symbolic input dims, a malformed file
    except UnsupportedOpsError as exc:
        if args.list_unsupported:
            print(exc)
            return 1
        raise
    if args.list_unsupported:
        print(f"every op is supported: {module.op_count()} ivy ops imported")
        return 0
    optimized = run_pipeline(module, args.passes)
    if args.output:
        if not args.target:
            raise CliError("-o needs --target (e.g. --target onnx -o model.onnx)")
        compiled = api.lower(optimized, target=args.target)
        if compiled.model is not None:
            compiled.save(args.output)  # the target's model file (ONNX)
        else:
            Path(args.output).write_text(compiled.source)
        print(f"wrote {args.output}")
    elif args.target:
        print(api.lower(optimized, target=args.target).source)
    if args.print_ir or not args.target:
        print(optimized.to_text(locations=args.locations))
    return 0


def add_parser(sub: Any) -> None:
    p = sub.add_parser("import", help="import a torch/jax/tf/numpy program or an ONNX "
                       "model from a file")
    p.add_argument("program", help="FILE.py[:NAME] (default NAME: model, else main), or "
                   "MODEL.onnx (inputs: --arg, else the model's declared types)")
    p.add_argument("--arg", action="append", metavar="DTYPE[DIMS]",
                   help="an example input, e.g. float32[2,3] (repeat per input)")
    p.add_argument("--params", action="store_true",
                   help="example_args() returns (args, params): call NAME(params, *args)")
    p.add_argument("--source", choices=SOURCES,
                   help="the program's framework (default: detected)")
    p.add_argument("--passes", default="default", help="pass pipeline (default: default)")
    p.add_argument("--target", help="also lower and print the source for this target")
    p.add_argument("-o", "--output", metavar="FILE", help="write the lowered program to FILE "
                   "instead of printing it (--target onnx: the .onnx model)")
    p.add_argument("--print-ir", action="store_true", help="print the IR (default without "
                   "--target)")
    p.add_argument("--locations", action="store_true", help="print source locations")
    p.add_argument("--list-unsupported", action="store_true",
                   help="only report source ops without a mapping (exit 1 if any)")
    p.set_defaults(run=run)
