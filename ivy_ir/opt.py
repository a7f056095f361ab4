"""`ivy-opt`: xdsl-opt with the ivy dialect and the ivy passes registered.

Subclassing `xDSLOptMain` keeps every xdsl-opt flag (`-p`, `--print-op-generic`,
`--split-input-file`, `--verify-diagnostics`, ...) and the built-in passes
(canonicalize, cse, dce). Upstream lets parse and verifier errors escape as Python
tracebacks; `ivy-opt` is a user-facing tool fed hand-written IR, so those become one
clean message on stderr and exit status 1.
"""

from __future__ import annotations

import sys

from xdsl.ir import Dialect
from xdsl.utils.exceptions import DiagnosticException, ParseError
from xdsl.xdsl_opt_main import xDSLOptMain

from .passes import IVY_PASSES


def _ivy_dialect() -> Dialect:
    # imported lazily: `ivy-opt --help` should not pay for building ~150 op classes
    from .dialect import Ivy

    return Ivy


class IvyOptMain(xDSLOptMain):
    """xdsl-opt plus the `ivy` dialect and every pass of `ivy_ir.passes.IVY_PASSES`."""

    def register_all_dialects(self) -> None:
        super().register_all_dialects()
        self.ctx.register_dialect("ivy", _ivy_dialect)

    def register_all_passes(self) -> None:
        super().register_all_passes()
        for name, factory in IVY_PASSES.items():
            self.register_pass(name, factory)


def _user_errors() -> tuple[type[Exception], ...]:
    """Exceptions that mean "the input is wrong", not "ivy-opt is broken"."""
    from .dialect.attrs import AttrError
    from .dialect.infer import InferError

    return (ParseError, DiagnosticException, AttrError, InferError, OSError)


def main(argv: list[str] | None = None) -> int:
    """Run ivy-opt; report user mistakes as `ivy-opt: error: ...` and return 1."""
    try:
        IvyOptMain(description="ivy modular optimizer", args=argv).run()
    except _user_errors() as exc:
        print(f"ivy-opt: error: {str(exc).strip()}", file=sys.stderr)
        return 1
    return 0


__all__ = ["IvyOptMain", "main"]
