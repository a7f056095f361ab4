"""The xDSL context with the dialects ivy IR uses, and `parse` with clean errors."""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.dialects.func import Func
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError, VerifyException

from ..dialect import Ivy
from .errors import IRError
from .module import Module


def make_context() -> Context:
    ctx = Context()
    for d in (Builtin, Func, Ivy):
        ctx.load_dialect(d)
    return ctx


def parse(text: str, name: str = "<ir>") -> Module:
    """Parse and verify IR text; never runs code from it."""
    try:
        op = Parser(make_context(), text, name).parse_module()
    except ParseError as exc:
        raise IRError(str(exc).strip()) from None
    if not isinstance(op, ModuleOp):
        raise IRError(f"{name}: expected a builtin.module")
    module = Module(op)
    try:
        module.verify()
    except VerifyException as exc:
        raise IRError(f"{name}: {exc}") from None
    return module
