"""The xDSL context with the dialects ivy IR uses, and `parse` with clean errors."""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import Builtin
from xdsl.dialects.func import Func
from xdsl.utils.exceptions import ParseError

from ..dialect import Ivy
from .errors import IRError
from .ir_parser import LocatedVerifyError, read_module, verify_located
from .ir_text import ParseLimits, current_limits, ir_error
from .module import Module


def make_context() -> Context:
    ctx = Context()
    for d in (Builtin, Func, Ivy):
        ctx.load_dialect(d)
    return ctx


def parse(text: str | bytes, name: str = "<ir>", limits: ParseLimits | None = None) -> Module:
    """Parse and verify IR text (bytes must be UTF-8); never runs code from it.

    Any failure is an `IRError` that points at the offending token or op as
    `name:line:col`. `limits` (default: `ir_text.current_limits()`) bounds what the text
    may make the parser allocate and how deeply it may nest.
    """
    try:
        op, spans = read_module(make_context(), text, name, limits or current_limits())
        module = Module(op)
        verify_located(op, spans)  # xDSL's checks, then what every ivy target needs
        verify_located(op, spans, verify=module.verify)
    except ParseError as exc:
        raise ir_error(exc) from None
    except LocatedVerifyError as exc:
        raise IRError(exc.text, file=exc.file, line=exc.line, col=exc.col,
                      token=exc.token) from None
    except RecursionError:
        raise IRError(f"{name}: the IR nests too deeply for Python's stack; lower "
                      "ParseLimits.max_nesting") from None
    return module
