"""`ivy-opt`: xdsl-opt with the ivy dialect and the ivy passes registered.

Subclassing `xDSLOptMain` keeps every xdsl-opt flag (`-p`, `--print-op-generic`,
`--split-input-file`, `--verify-diagnostics`, ...) and the built-in passes
(canonicalize, cse, dce); `-p` also takes the preset names of `ivy_ir.passes.PRESETS`
(`-p default,fuse-elementwise`), and `--print-ir-after-all` / `--time-passes` report
on stderr. Upstream lets parse and verifier errors escape as Python tracebacks;
`ivy-opt` is a user-facing tool fed hand-written IR, so those become one clean message
on stderr and exit status 1.
"""

from __future__ import annotations

import argparse
import sys
import time

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.printer import Printer
from xdsl.utils.exceptions import DiagnosticException, ParseError
from xdsl.xdsl_opt_main import xDSLOptMain

from .dialect import Ivy
from .dialect.attrs import AttrError
from .dialect.infer import InferError
from .passes import IVY_PASSES, PRESETS

USER_ERRORS = (ParseError, DiagnosticException, AttrError, InferError, OSError)
"""Exceptions that mean "the input is wrong", not "ivy-opt is broken"."""


class PipelineError(ValueError):
    """A `-p` pipeline naming an unknown pass or option."""


class IvyOptMain(xDSLOptMain):
    """xdsl-opt plus the `ivy` dialect and every pass of `ivy_ir.passes.IVY_PASSES`."""

    def register_all_dialects(self) -> None:
        super().register_all_dialects()
        self.ctx.register_dialect("ivy", lambda: Ivy)

    def register_all_passes(self) -> None:
        super().register_all_passes()
        for name, factory in IVY_PASSES.items():
            self.register_pass(name, factory)

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        arg_parser.add_argument("--print-ir-after-all", default=False, action="store_true",
                                help="print the IR after every pass to stderr")

    def setup_pipeline(self) -> None:
        """xdsl-opt's pipeline, plus preset names (`-p default`), `--print-ir-after-all`
        and a `--time-passes` report on stderr (stdout stays the resulting IR, so both
        work in a pipe)."""
        args = self.args
        spec = expand_presets(args.passes)
        started = [time.perf_counter()]

        def between(done: ModulePass | None, module: ModuleOp, then: ModulePass | None) -> None:
            elapsed = time.perf_counter() - started[0]
            if not args.disable_verify:
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

        try:
            self.pipeline = PassPipeline.parse_spec(self.available_passes, spec, between)
        except ValueError as exc:  # unknown pass or option: the user's -p is wrong
            raise PipelineError(f"{exc} (ivy passes: {', '.join(sorted(IVY_PASSES))}; "
                                f"presets: {', '.join(PRESETS)})") from None


def expand_presets(spec: str) -> str:
    """Replace each item of a pipeline that names a preset by the preset's passes
    (commas inside `{options}` do not separate items)."""
    items, depth, start = [], 0, 0
    for i, ch in enumerate(spec + ","):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            items.append(spec[start:i].strip())
            start = i + 1
    return ",".join(p for p in (PRESETS.get(item, item) for item in items) if p)


def main(argv: list[str] | None = None) -> int:
    """Run ivy-opt; report user mistakes as `ivy-opt: error: ...` and return 1."""
    try:
        IvyOptMain(description="ivy modular optimizer", args=argv).run()
    except (*USER_ERRORS, PipelineError) as exc:
        print(f"ivy-opt: error: {str(exc).strip()}", file=sys.stderr)
        return 1
    return 0


__all__ = ["IvyOptMain", "PipelineError", "expand_presets", "main"]
