"""`ivy-opt`: xdsl-opt with the ivy dialect and the ivy passes registered.

Subclassing `xDSLOptMain` keeps every xdsl-opt flag (`-p`, `--print-op-generic`,
`--split-input-file`, `--verify-diagnostics`, ...) and the built-in passes
(canonicalize, cse, dce); `-p` also takes the preset names of `ivy_ir.passes.PRESETS`
(`-p default,fuse-elementwise`), and `--print-ir-after-all` / `--time-passes` report
on stderr. Upstream lets parse and verifier errors escape as Python tracebacks;
`ivy-opt` is a user-facing tool fed hand-written IR, so those become one clean message
on stderr and exit status 1, as do non-UTF-8 input and a malformed `-p` pipeline; an
unknown option or a bad option value is status 2, without argparse's usage text. Input
is read with the bounded parser of `ivy_ir.core.ir_parser` (`--max-dense-elements`,
`--max-nesting`) and verified as `ivy_ir.parse` verifies it. An unexpected exception is
a bug: one `ivy-opt: internal error:` line, exit status 70, and its traceback only when
`IVY_OPT_TRACEBACK` is set.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import traceback
from typing import IO, NoReturn

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.printer import Printer
from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException, ParseError
from xdsl.xdsl_opt_main import xDSLOptMain

from .core.ir_parser import read_module, verify_located
from .core.ir_text import ParseLimits, located
from .core.module import Module
from .dialect import Ivy
from .dialect.attrs import AttrError
from .dialect.infer import InferError
from .passes import IVY_PASSES, PRESETS


class PipelineError(ValueError):
    """A `-p` pipeline naming an unknown pass or option, or not a pipeline at all."""


class UsageError(ValueError):
    """A command line argparse rejects (unknown option, bad value)."""


USER_ERRORS = (ParseError, DiagnosticException, AttrError, InferError, OSError, PipelineError,
               UsageError)
"""Exceptions that mean "the input is wrong", not "ivy-opt is broken"."""


class IvyOptMain(xDSLOptMain):
    """xdsl-opt plus the `ivy` dialect and every pass of `ivy_ir.passes.IVY_PASSES`."""

    def register_all_dialects(self) -> None:
        super().register_all_dialects()
        self.ctx.register_dialect("ivy", lambda: Ivy)

    def register_all_passes(self) -> None:
        super().register_all_passes()
        for name, factory in IVY_PASSES.items():
            self.register_pass(name, factory)

    def register_all_frontends(self) -> None:
        super().register_all_frontends()
        self.available_frontends["mlir"] = self._read

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        arg_parser.add_argument("--print-ir-after-all", default=False, action="store_true",
                                help="print the IR after every pass to stderr")
        defaults = ParseLimits()
        arg_parser.add_argument("--max-dense-elements", type=int,
                                default=defaults.max_dense_elements,
                                help="elements all dense literals of one input may hold")
        arg_parser.add_argument("--max-nesting", type=int, default=defaults.max_nesting,
                                help="brackets the input may nest")

        def refuse(message: str) -> NoReturn:
            raise UsageError(message)

        arg_parser.error = refuse  # type: ignore[method-assign]

    def parse_chunk(self, chunk: IO[bytes], file_extension: str,
                    start_offset: int = 0) -> ModuleOp | None:
        self._line_offset = start_offset
        return super().parse_chunk(chunk, file_extension, start_offset)

    def _read(self, stream: IO[bytes]) -> ModuleOp:
        """Parse with the bounded parser and verify, pointing at the failing op's text:
        xDSL's checks, then `Module.verify`'s (values defined before use, a module of
        functions of ivy ops), which the ivy passes rely on. Upstream would verify
        later, with no position, and less."""
        args = self.args
        limits = ParseLimits(max_dense_elements=args.max_dense_elements,
                             max_nesting=args.max_nesting)
        module, spans = read_module(self.ctx, stream.read(), self.get_input_name(), limits,
                                    implicit_module=not args.no_implicit_module)
        if not args.disable_verify:  # as ivy_ir.parse does: the passes rely on both
            offset = getattr(self, "_line_offset", 0)
            verify_located(module, spans, offset)
            for program in _programs(module):
                verify_located(program, spans, offset, verify=Module(program).verify)
        return module

    def setup_pipeline(self) -> None:
        """xdsl-opt's pipeline, plus preset names (`-p default`), `--print-ir-after-all`
        and a `--time-passes` report on stderr (stdout stays the resulting IR, so both
        work in a pipe)."""
        args = self.args
        spec = expand_presets(args.passes)
        started = [time.perf_counter()]

        def between(done: ModulePass | None, module: ModuleOp, then: ModulePass | None) -> None:
            elapsed = time.perf_counter() - started[0]
            if done is not None and not args.disable_verify:  # the input was verified
                module.verify()
            if done is not None and args.time_passes:
                print(f"ivy-opt: {done.name} took {elapsed * 1e3:.3f} ms", file=sys.stderr)
            if done is not None and args.print_ir_after_all:
                print(f"// -----// IR after {done.name} //----- //", file=sys.stderr)
                Printer(stream=sys.stderr).print_op(module)
                print(file=sys.stderr)
            if done is not None and then is not None and args.print_between_passes:
                print(f"IR after {done.name}:")
                Printer(stream=sys.stdout).print_op(module)
                print("\n\n\n")
            started[0] = time.perf_counter()

        hint = f"(ivy passes: {', '.join(sorted(IVY_PASSES))}; presets: {', '.join(PRESETS)})"
        if args.passes.strip() and not spec:
            raise PipelineError(f"-p {args.passes!r} names no pass {hint}")
        try:
            self.pipeline = PassPipeline.parse_spec(self.available_passes, spec, between)
        except ValueError as exc:  # unknown pass or option: the user's -p is wrong
            raise PipelineError(f"{exc} {hint}") from None
        except ArgSpecParseError as exc:  # a BaseException upstream: not even a pipeline
            detail = " ".join(str(exc).split("\n")[-2:]).strip()
            raise PipelineError(f"-p {args.passes!r} is not a pass pipeline: {detail}") from None


def _programs(module: ModuleOp) -> list[ModuleOp]:
    """The modules that hold the programs: the input itself, or each of the modules it
    holds when it holds nothing else (several modules in one file)."""
    inner = list(module.ops)
    if inner and all(isinstance(op, ModuleOp) for op in inner):
        return [program for op in inner for program in _programs(op)]  # type: ignore[arg-type]
    return [module]


def expand_presets(spec: str) -> str:
    """Replace each item of a pipeline that names a preset by the preset's passes
    (commas inside `{options}` do not separate items)."""
    items, depth, start = [], 0, 0
    for i, ch in enumerate(spec + ","):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            items.append(spec[start:i].strip())
            start = i + 1
    if start <= len(spec):  # an unclosed `{`: keep the rest, so the parser reports it
        items.append(spec[start:].strip())
    return ",".join(p for p in (PRESETS.get(item, item) for item in items) if p)


def run(argv: list[str] | None = None) -> None:
    """ivy-opt itself: every exception escapes (the fuzz suite tells user errors, the
    `USER_ERRORS`, from bugs by their type)."""
    IvyOptMain(description="ivy modular optimizer", args=argv).run()


def main(argv: list[str] | None = None) -> int:
    """Run ivy-opt; report a user mistake as one `ivy-opt: error: ...` line (with the
    source line under it for text errors) and return 1, or 2 for a bad command line."""
    try:
        run(argv)
    except USER_ERRORS as exc:
        if isinstance(exc, ParseError):
            message = located(exc.span, exc.msg.strip())[0]  # type: ignore[arg-type]
        else:
            message = str(exc).strip()
        print(f"ivy-opt: error: {message}", file=sys.stderr)
        return 2 if isinstance(exc, UsageError) else 1
    except (Exception, RecursionError) as exc:
        if os.environ.get("IVY_OPT_TRACEBACK"):
            traceback.print_exc()
        first = (str(exc).strip().splitlines() or [""])[0]
        print(f"ivy-opt: internal error: {type(exc).__name__}: {first} (a bug in ivy-opt; "
              "IVY_OPT_TRACEBACK=1 shows the traceback)", file=sys.stderr)
        return 70
    return 0


__all__ = ["USER_ERRORS", "IvyOptMain", "PipelineError", "UsageError", "expand_presets", "main",
           "run"]
