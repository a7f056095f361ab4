"""Reading IR text that may come from a stranger: limits, a linear-time lexer, a scan
for nesting depth, and error messages that point at the offending token.

The limits exist because the text alone decides how much work the parser does: a
150-byte `dense<1.0> : tensor<100000000xf32>` would expand to 400 MB, ten thousand
nested brackets would exhaust Python's stack, and xDSL's string-literal rule (a
repeated group around a repeated character class) backtracks exponentially on an
unterminated string. Every check here runs in time linear in the text and raises
xDSL's `ParseError`, so `ivy-opt`'s own diagnostics flags keep working on them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace

from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Input, Position, Span
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRToken, MLIRTokenKind, StringLiteral

from .errors import IRError


@dataclass(frozen=True)
class ParseLimits:
    """Bounds on what one parse may cost; each error message names the field to raise."""

    max_dense_elements: int = 1 << 20
    """Elements that all `dense<...>` literals of one parse may hold together (a splat
    counts every element it stands for: that is what gets allocated)."""
    max_nesting: int = 64
    """Brackets (`( [ { <`) open at once; deeper text would exhaust Python's stack in
    the recursive-descent parser, the verifier or the printer."""


_LIMITS: ContextVar[ParseLimits | None] = ContextVar("ivy_ir_parse_limits", default=None)


def current_limits() -> ParseLimits:
    return _LIMITS.get() or ParseLimits()


@contextmanager
def parse_limits(**changes: int) -> Iterator[ParseLimits]:
    """Raise or lower the parse limits inside a `with` block (for this thread or task
    only): `with parse_limits(max_dense_elements=10**8): ivy_ir.parse(text)`."""
    limits = replace(current_limits(), **changes)
    token = _LIMITS.set(limits)
    try:
        yield limits
    finally:
        _LIMITS.reset(token)


def decode(data: bytes, name: str) -> str:
    """Strict UTF-8, with the position of the first bad byte as a parse error."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        good = data[:exc.start].decode("utf-8")
        span = Span(len(good), len(good) + 1, Input(good + "\ufffd", name))
        raise ParseError(span, f"invalid UTF-8 (byte 0x{data[exc.start]:02x}): IR text "
                               "must be UTF-8") from None


_SURROGATE = re.compile(r"[\ud800-\udfff]")


def check_text(text: str, name: str, limits: ParseLimits) -> None:
    """Reject what no IR may hold before the parser sees it: lone surrogates (they
    cannot be encoded, so a string holding one could never be printed) and nesting
    deeper than `limits.max_nesting`."""
    if (bad := _SURROGATE.search(text)) is not None:
        raise ParseError(Span(bad.start(), bad.end(), Input(text, name)),
                         f"lone surrogate U+{ord(bad.group()):04X} is not valid text")
    depth = 0
    for m in _BRACKETS.finditer(text):
        ch = m.group()[0]
        if ch in "([{<":
            depth += 1
            if depth > limits.max_nesting:
                raise ParseError(Span(m.start(), m.end(), Input(text, name)),
                                 f"brackets nested deeper than {limits.max_nesting} "
                                 "(ParseLimits.max_nesting; ivy-opt --max-nesting)")
        elif ch in ")]}>":
            depth = max(depth - 1, 0)


_BRACKETS = re.compile(r'"(?:[^"\\\n]++|\\.)*+"?|//[^\n]*+|->|[()\[\]{}<>]')
"""Strings and comments are matched whole so that their brackets do not count, and
`->` so that its `>` closes nothing; possessive quantifiers keep every match linear."""


class IvyLexer(MLIRLexer):
    """xDSL's MLIR lexer with the backtracking rules replaced by possessive ones, and
    number literals bounded to the 64 bits that every ivy type fits in."""

    _whitespace_regex = re.compile(r"(?:\s++|//[^\n]*+)*+", re.ASCII)
    _string_body = re.compile(r'"(?:[^"\\\n\v\f]++|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*+')

    def _lex_string_literal(self, start_pos: Position) -> MLIRToken:
        body = self._string_body.match(self.input.content, start_pos)
        assert body is not None  # the body pattern matches the opening quote alone
        end = body.end()
        stop = self.input.at(end)
        if stop != '"':
            self.pos = end
            if stop is None:
                why = "unterminated string literal (the input ends inside it)"
            elif stop == "\\":
                why = (f"invalid escape {self.input.content[end:end + 2]!r} in a string "
                       'literal (allowed: \\n \\t \\\\ \\" and two hex digits)')
            else:
                why = "unterminated string literal (a string must end on its own line)"
            raise ParseError(Span(start_pos, end + (stop is not None), self.input), why)
        self.pos = end + 1
        literal = StringLiteral(start_pos, self.pos, self.input)
        kind = MLIRTokenKind.STRING_LIT
        if "\\" in literal.text and not literal.bytes_contents.isascii():
            kind = MLIRTokenKind.BYTES_LIT
        return MLIRToken(kind, literal)

    def _lex_number(self, start_pos: Position) -> MLIRToken:
        token = super()._lex_number(start_pos)
        text = token.span.text
        if token.kind == MLIRTokenKind.INTEGER_LIT:
            base = 16 if text[:2] in ("0x", "0X") else 10
            digits = (text[2:] if base == 16 else text).lstrip("0")
            longest = 16 if base == 16 else 20  # digits of 2**64 - 1: int() stays cheap
            if len(digits) > longest or int(digits or "0", base) >= 1 << 64:
                raise ParseError(token.span, f"integer literal {shorten(text)} does not fit "
                                             "in 64 bits")
        elif float(text) == float("inf"):
            raise ParseError(token.span, f"float literal {shorten(text)} is out of range "
                                         "for f64")
        return token


def shorten(text: str, width: int = 40) -> str:
    """A token as it may appear in a message: escaped, and at most `width` characters."""
    shown = "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text[:width])
    return shown + ("..." if len(text) > width else "")


def located(span: Span, msg: str) -> tuple[str, str, int, int, str]:
    """`file:line:col: msg` with the offending token and the source line under a caret;
    also the file, line, column and token on their own for `IRError`'s fields. An
    empty span (an error between tokens) names the next token."""
    source = span.input.content
    assert isinstance(source, str)
    loc = span.get_location()
    token = source[span.start:span.end]
    if not token:
        following = source[span.start:span.start + 80].split()
        token = following[0][:40] if following else ""
    where = f"at '{shorten(token)}'" if token else "at the end of the input"
    line_start = span.input.get_start_of_line(span.start)
    line_end = span.input.get_end_of_line(span.start)
    left = max(line_start, span.start - 60)
    excerpt = shorten(source[left:min(line_end, span.start + 60)], 120)
    width = max(1, min(len(token), line_end - span.start, 40))
    caret = " " * len(shorten(source[left:span.start], 120)) + "^" * width
    text = f"{loc}: {msg} ({where})\n  {excerpt}\n  {caret}"
    return text, loc.file, loc.line, loc.col, token


def ir_error(exc: ParseError) -> IRError:
    """The `IRError` a user sees for a parse error: one line with `file:line:col`, the
    message and the offending token, then the source line."""
    text, file, line, col, token = located(exc.span, exc.msg.strip())  # type: ignore[arg-type]
    return IRError(text, file=file, line=line, col=col, token=token)


__all__ = ["IvyLexer", "ParseLimits", "check_text", "current_limits", "decode", "ir_error",
           "located", "parse_limits", "shorten"]
