"""The parser `ivy_ir.parse` and `ivy-opt` read IR text with, and the verifier call that
says where in the text a failing op was written.

`IvyParser` is xDSL's parser with `IvyLexer` underneath and checks at the places where
xDSL would otherwise allocate what the text merely declares, accept a value its type
cannot hold, or raise a bare `ValueError`/`OverflowError` without a position: dense
literals are charged against `ParseLimits.max_dense_elements` before they expand,
element types must be ivy dtypes, dimensions must fit in 64 bits, and every literal
must fit its type. Each check raises `ParseError` at the offending token.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    BFloat16Type,
    ComplexType,
    FileLineColLoc,
    Float16Type,
    Float32Type,
    FloatAttr,
    IntegerType,
    ModuleOp,
    ShapedType,
    TensorType,
)
from xdsl.ir import Attribute, Block, Operation, TypeAttribute
from xdsl.parser import Parser
from xdsl.parser.generic_parser import ParserState
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.lexer import Input, Position, Span
from xdsl.utils.mlir_lexer import MLIRTokenKind

from ..dialect.attrs import AttrError
from ..dialect.infer import InferError
from ..dialect.types import DTYPES
from .ir_text import IvyLexer, ParseLimits, check_text, decode, located

ELEMENT_TYPES = frozenset(DTYPES.values())
_SCALAR_KINDS = (IntegerType, AnyFloat, ComplexType)
_OVERFLOW_AT = {Float16Type: 65520.0, BFloat16Type: 2.0 ** 128 * (1 - 2.0 ** -9),
                Float32Type: 2.0 ** 128 * (1 - 2.0 ** -25)}
"""The smallest magnitude that rounds to infinity in each narrow float type (its largest
finite value plus half a unit in the last place); every finite f64 fits f64."""


def _fits(value: float, element: Attribute) -> bool:
    limit = _OVERFLOW_AT.get(type(element))
    return limit is None or not math.isfinite(value) or abs(value) < limit


class IvyParser(Parser):
    """xDSL's parser, bounded and strict as the module docstring says; `op_spans` maps
    each parsed op to the span of its name, for errors found after parsing."""

    def __init__(self, ctx: Context, text: str, name: str, limits: ParseLimits):
        super().__init__(ctx, "", name)  # lexing starts at once: not with xDSL's lexer
        self._parser_state = ParserState(IvyLexer(Input(text, name)))
        self.limits = limits
        self.op_spans: dict[Operation, Span] = {}
        self._name_spans: list[Span] = []
        self._dense_used = 0

    def _span_to_here(self, start: Position) -> Span:
        """From `start` to the end of the last token consumed (trailing space dropped)."""
        content = self.lexer.input.content
        end = self.pos
        while end > start and content[end - 1].isspace():
            end -= 1
        return Span(start, end, self.lexer.input)

    # --- where each op was written -------------------------------------------------

    def _parse_op_result_list(self):  # type: ignore[no-untyped-def]
        results = super()._parse_op_result_list()
        self._name_spans.append(self._current_token.span)  # the op name follows
        return results

    def parse_operation(self) -> Operation:
        depth, start = len(self._name_spans), self._current_token.span

        def name() -> Span:
            return self._name_spans[depth] if len(self._name_spans) > depth else start

        try:
            op = super().parse_operation()
        except (VerifyException, AttrError, InferError) as exc:
            # the op's class refusing the pieces its parser read: a parse error here
            self.raise_error(str(exc).strip(), name())
        self.op_spans[op] = name()
        del self._name_spans[depth:]
        return op

    def _parse_block(self) -> Block:
        token = self._current_token  # MLIR allows `^0`; xDSL's Block refuses the name
        name = token.text[1:]
        if token.kind == MLIRTokenKind.CARET_IDENT and not (
                Block.is_default_block_name(name) or Block.is_valid_name(name)):
            self.raise_error(f"block name {token.text} must not start with a digit",
                             token.span)
        return super()._parse_block()

    # --- types ------------------------------------------------------------------------

    def parse_optional_type(self) -> TypeAttribute | None:
        start = self.pos
        parsed = super().parse_optional_type()
        if parsed is None:
            return None
        if isinstance(parsed, _SCALAR_KINDS) and parsed not in ELEMENT_TYPES:
            self.raise_error(f"{parsed} is not an ivy element type (ivy has "
                             f"{', '.join(str(t) for t in DTYPES.values())})",
                             self._span_to_here(start))
        if isinstance(parsed, TensorType) and parsed.element_type not in ELEMENT_TYPES:
            self.raise_error(f"tensor element type {parsed.element_type} is not an ivy dtype",
                             self._span_to_here(start))
        if isinstance(parsed, ShapedType):
            for dim in parsed.get_shape():
                if dim != DYNAMIC_INDEX and not 0 <= dim < 1 << 63:
                    self.raise_error(f"dimension {dim} is out of range (0 to 2**63 - 1)",
                                     self._span_to_here(start))
        return parsed

    # --- literals ---------------------------------------------------------------------

    def _charge_dense(self, shaped: Attribute, span: Span) -> None:
        """Count a dense literal's elements against the parse's budget before xDSL
        expands a splat or a hex blob to all of them."""
        assert isinstance(shaped, ShapedType)
        count = max(math.prod(shaped.get_shape()), 0)  # a dynamic dim is xDSL's error
        self._dense_used += count
        cap = self.limits.max_dense_elements
        if self._dense_used > cap:
            self.raise_error(f"dense literal of {count} elements: the dense literals of one "
                             f"parse may hold {cap} elements in all (ParseLimits."
                             "max_dense_elements; ivy-opt --max-dense-elements)", span)

    def _parse_dense_literal_type(self):  # type: ignore[no-untyped-def]
        start = self.pos
        shaped = super()._parse_dense_literal_type()
        self._charge_dense(shaped, self._span_to_here(start))
        return shaped

    def parse_dense_int_or_fp_elements_attr(self, type):  # type: ignore[no-untyped-def]
        if type is not None:
            self._charge_dense(type, self._current_token.span)
        start = self.pos
        try:
            return super().parse_dense_int_or_fp_elements_attr(type)
        except (ValueError, OverflowError) as exc:  # xDSL packing the values
            self.raise_error(str(exc), self._span_to_here(start))
        except AssertionError:  # xDSL asserts the tokens of a complex `(re, im)` element
            self.raise_error("malformed dense literal: unexpected token (a complex element "
                             "is written `(real, imag)`)", self._current_token.span)

    def _parse_tensor_literal_element(self):  # type: ignore[no-untyped-def]
        element = super()._parse_tensor_literal_element()
        return _CheckedElement(element.is_negative, element.value, element.span)

    def parse_optional_builtin_int_or_float_attr(self):  # type: ignore[no-untyped-def]
        start = self.pos
        try:
            attr = super().parse_optional_builtin_int_or_float_attr()
        except (ValueError, OverflowError, VerifyException) as exc:  # xDSL storing it
            self.raise_error(f"value out of range for its type: {exc}",
                             self._span_to_here(start))
        if isinstance(attr, FloatAttr) and not _fits(attr.value.data, attr.type):
            self.raise_error(f"{attr.value.data} is out of range for {attr.type}",
                             self._span_to_here(start))
        return attr


@dataclass
class _CheckedElement(Parser._TensorLiteralElement):
    """A dense literal element that refuses, at its own position, a value its element
    type cannot hold (xDSL would raise a bare error later, when packing)."""

    def to_type(self, parser, type):  # type: ignore[no-untyped-def,override]
        if isinstance(type, ComplexType) and not isinstance(self.value, tuple):
            parser.raise_error(f"an element of {type} is written (real, imaginary)", self.span)
        value = super().to_type(parser, type)
        if isinstance(type, IntegerType):
            try:
                type.verify_value(value)
            except VerifyException as exc:
                parser.raise_error(str(exc), self.span)
        parts = value if isinstance(value, tuple) else (value,)
        element = type.element_type if isinstance(type, ComplexType) else type
        if isinstance(element, AnyFloat):
            text = self.span.text.lstrip("-")
            if text[:2] in ("0x", "0X"):  # the float's bits, written as an integer
                if int(text, 16) >= 1 << element.bitwidth:
                    parser.raise_error(f"{self.span.text} has more bits than {element}",
                                       self.span)
            elif not all(_fits(float(p), element) for p in parts):
                parser.raise_error(f"{self.span.text} is out of range for {element}",
                                   self.span)
        return value


def read_module(ctx: Context, text: str | bytes, name: str, limits: ParseLimits,
                implicit_module: bool = True) -> tuple[ModuleOp, dict[Operation, Span]]:
    """Parse (not verify) IR text; also the span of each op, for `verify_located`."""
    if isinstance(text, bytes):
        text = decode(text, name)
    check_text(text, name, limits)
    parser = IvyParser(ctx, text, name, limits)
    return parser.parse_module(implicit_module), parser.op_spans


class LocatedVerifyError(VerifyException):
    """A verifier failure with where the failing op was written in the text. It stays a
    `VerifyException`, so `ivy-opt --verify-diagnostics` reports it as before."""

    def __init__(self, text: str, file: str, line: int, col: int, token: str):
        super().__init__(text)
        self.text, self.file, self.line, self.col, self.token = text, file, line, col, token


def verify_located(module: ModuleOp, spans: dict[Operation, Span], line_offset: int = 0,
                   verify: Callable[[], None] | None = None) -> None:
    """`verify()` (default: `module.verify()`), with a failure reported at the name of
    the failing op in the text."""
    try:
        (verify or module.verify)()
    except VerifyException as exc:
        op, cause = _culprit(module, exc)
        span = spans.get(op)
        while span is None and op.parent_op() is not None:
            op = op.parent_op()  # type: ignore[assignment]
            span = spans.get(op)
        if span is None:  # the module the parser wrapped around the ops: the whole text
            if not spans:
                raise
            span = Span(0, 0, next(iter(spans.values())).input)
        msg = str(exc if cause is None else cause).strip()
        if op.name not in msg:
            msg = f"{op.name}: {msg}"
        text, file, line, col, token = located(Span(span.start, span.end, span.input,
                                                    line_offset), msg)
        located_exc = LocatedVerifyError(text, file, line, col, token)
        for note in getattr(exc, "__notes__", ()):
            located_exc.add_note(note)
        raise located_exc from None


def _culprit(module: ModuleOp, exc: VerifyException) -> tuple[Operation, Exception | None]:
    """The op a verifier failure is about. The op's own checks are tried innermost
    first, then with its regions (a failure in how a block ends); failing both, a
    message about the whole program names the op it is about, as `ivy.pow at file:3:1:`
    or `function @main`, and the first op it fits is taken. An exception that knows
    its op (`dim_flow.DimError`) says so itself."""
    if isinstance(getattr(exc, "op", None), Operation):
        return exc.op, None  # type: ignore[attr-defined]
    for nested in (False, True):
        for op in module.walk(region_first=True):
            try:
                op.verify(verify_nested_ops=nested)
            except VerifyException as cause:
                return op, cause
    msg = str(exc)
    for op in module.walk():
        if isinstance(op, func.FuncOp):
            if msg.startswith(f"function @{op.sym_name.data} "):
                return op, None
        elif msg.startswith(op.name) and (not isinstance(op.location, FileLineColLoc) or
                                          f"{op.location.filename.data}:"
                                          f"{op.location.line.data}" in msg):
            return op, None
    return module, None


__all__ = ["ELEMENT_TYPES", "IvyParser", "LocatedVerifyError", "read_module", "verify_located"]
