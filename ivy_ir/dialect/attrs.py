"""Attribute kinds of the spec: conversion between Python values, xDSL attributes and
the `{name = value}` text of the custom op format.

Python values are what users and inference rules see: int, float, bool, str, tuples of
numbers, dtype names and NumPy arrays (for `dense`). The xDSL side uses builtin attrs.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.dialects.builtin import (
    ArrayAttr,
    BytesAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    f64,
    i64,
)
from xdsl.ir import Attribute
from xdsl.parser import Parser
from xdsl.printer import Printer

from .spec import AttrArg
from .symbolic import SymbolicError, SymDim, size_entry
from .types import COMPLEX, DTYPES, FLOATS, TensorSpec, dtype_name, numpy_dtype


class AttrError(TypeError):
    """An attribute value does not fit its declared kind."""


def _as_int(v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise AttrError(f"expected an int, got {v!r}")
    return int(v)


def _as_float(v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise AttrError(f"expected a number, got {v!r}")
    return float(v)


def _as_seq(v: Any, item: Callable[[Any], Any]) -> tuple[Any, ...]:
    if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool):
        v = (v,)
    if not isinstance(v, (list, tuple, np.ndarray)):
        raise AttrError(f"expected a sequence, got {v!r}")
    return tuple(item(x) for x in v)


def _as_bool(v: Any) -> bool:
    if not isinstance(v, (bool, np.bool_)):
        raise AttrError(f"expected a bool, got {v!r}")
    return bool(v)


def _as_str(v: Any) -> str:
    if not isinstance(v, str):
        raise AttrError(f"expected a string, got {v!r}")
    return v


def _as_size(v: Any) -> int | SymDim:
    if isinstance(v, (SymDim, str)):
        try:
            return size_entry(v)
        except SymbolicError as exc:
            raise AttrError(str(exc)) from None
    return _as_int(v)


def _as_bound(v: Any) -> float | SymDim:
    """A number, or a size expression (`arange(seq)`'s end)."""
    return _as_size(v) if isinstance(v, (SymDim, str)) else _as_float(v)


def _as_dense(v: Any) -> np.ndarray:
    arr = np.asarray(v)
    dtype_name(arr.dtype)
    return arr


NORMALIZE: dict[str, Callable[[Any], Any]] = {
    "int": _as_int,
    "float": _as_float,
    "bool": _as_bool,
    "str": _as_str,
    "strs": lambda v: _as_seq(v, _as_str),
    "ints": lambda v: _as_seq(v, _as_int),
    "shape": lambda v: _as_seq(v, _as_size),
    "floats": lambda v: _as_seq(v, _as_float),
    "bound": _as_bound,
    "dtype": dtype_name,
    "dense": _as_dense,
}


STORED_AS = {"axis": "int", "axes": "ints"}
"""Axis kinds are ints that name dimensions: stored, printed and parsed as ints."""
NORMALIZE.update({k: NORMALIZE[v] for k, v in STORED_AS.items()})


def normalize(arg: AttrArg, value: Any) -> Any:
    """Coerce a user-given value to the canonical Python value of its kind."""
    if value is None:
        return None
    try:
        out = NORMALIZE[arg.kind](value)
    except (AttrError, TypeError) as exc:
        raise AttrError(f"attribute '{arg.name}': {exc}") from None
    if arg.choices and out not in arg.choices:
        raise AttrError(f"attribute '{arg.name}' must be one of {', '.join(arg.choices)}; "
                        f"got {out!r}")
    return out


def dense_attr(arr: np.ndarray) -> DenseIntOrFPElementsAttr:
    spec = TensorSpec.of(arr)
    raw = (arr.astype(np.uint8) * 255) if arr.dtype == np.bool_ else arr
    return DenseIntOrFPElementsAttr(spec.to_xdsl(), BytesAttr(np.ascontiguousarray(raw).tobytes()))


def dense_value(attr: DenseIntOrFPElementsAttr) -> np.ndarray:
    spec = TensorSpec.from_xdsl(attr.type)
    dt = np.dtype(np.uint8) if spec.dtype == "bool" else numpy_dtype(spec.dtype)
    flat = np.frombuffer(attr.data.data, dtype=dt)
    if spec.dtype == "bool":
        flat = flat != 0
    shape = tuple(spec.shape)
    if flat.size == 1 and math.prod(shape) != 1:
        return np.broadcast_to(flat.reshape(()), shape).copy()
    return flat.reshape(shape).copy()


def _shape_attr(v: tuple[int | SymDim, ...]) -> Attribute:
    """A static shape is an i64 array, as `ints`; one with dynamic sizes an array whose
    dynamic entries are their expressions' text."""
    if all(isinstance(d, int) for d in v):
        return DenseArrayBase.from_list(i64, v)
    return ArrayAttr([StringAttr(d.expr) if isinstance(d, SymDim) else IntegerAttr(d, i64)
                      for d in v])


def _shape_value(a: Attribute) -> tuple[int | SymDim, ...]:
    if isinstance(a, DenseArrayBase):
        return tuple(a.get_values())
    return tuple(SymDim(d.data) if isinstance(d, StringAttr) else d.value.data for d in a)


TO_ATTR: dict[str, Callable[[Any], Attribute]] = {
    "int": lambda v: IntegerAttr(v, i64),
    "float": lambda v: FloatAttr(v, f64),
    "bool": IntegerAttr.from_bool,
    "str": StringAttr,
    "strs": lambda v: ArrayAttr([StringAttr(x) for x in v]),
    "ints": lambda v: DenseArrayBase.from_list(i64, v),
    "shape": _shape_attr,
    "floats": lambda v: DenseArrayBase.from_list(f64, v),
    "bound": lambda v: StringAttr(v.expr) if isinstance(v, SymDim) else FloatAttr(v, f64),
    "dtype": lambda v: DTYPES[v],
    "dense": dense_attr,
}

FROM_ATTR: dict[str, Callable[[Any], Any]] = {
    "int": lambda a: a.value.data,
    "float": lambda a: a.value.data,
    "bool": lambda a: bool(a.value.data),
    "str": lambda a: a.data,
    "strs": lambda a: tuple(x.data for x in a),
    "ints": lambda a: tuple(a.get_values()),
    "shape": _shape_value,
    "floats": lambda a: tuple(a.get_values()),
    "bound": lambda a: SymDim(a.data) if isinstance(a, StringAttr) else a.value.data,
    "dtype": dtype_name,
    "dense": dense_value,
}

ATTR_CLASS: dict[str, type[Attribute] | tuple[type[Attribute], ...] | None] = {
    "int": IntegerAttr, "float": FloatAttr, "bool": IntegerAttr, "str": StringAttr,
    "strs": ArrayAttr,
    "ints": DenseArrayBase, "shape": (DenseArrayBase, ArrayAttr), "floats": DenseArrayBase,
    "bound": (FloatAttr, StringAttr), "dtype": None,
    "dense": DenseIntOrFPElementsAttr,
}
for _table in (TO_ATTR, FROM_ATTR, ATTR_CLASS):
    _table.update({k: _table[v] for k, v in STORED_AS.items()})


def format_float(v: float) -> str:
    """A float literal the xDSL lexer reads back exactly (it needs a '.' before 'e')."""
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    text = repr(float(v))
    if "e" in text and "." not in text:
        mant, exp = text.split("e")
        text = f"{mant}.0e{exp}"
    return text


def print_value(printer: Printer, kind: str, attr: Attribute) -> None:
    kind = STORED_AS.get(kind, kind)
    value = FROM_ATTR[kind](attr)
    if kind in ("ints", "floats", "shape"):
        fmt = format_float if kind == "floats" else \
            lambda v: f'"{v.expr}"' if isinstance(v, SymDim) else str(v)
        printer.print_string("[" + ", ".join(fmt(v) for v in value) + "]")
    elif kind in ("float", "bound"):
        printer.print_string(f'"{value.expr}"' if isinstance(value, SymDim) else
                             format_float(value))
    elif kind == "bool":
        printer.print_string("true" if value else "false")
    elif kind == "int":
        printer.print_string(str(value))
    elif kind == "str":
        printer.print_string_literal(value)
    elif kind == "strs":
        printer.print_string("[")
        printer.print_list(value, printer.print_string_literal)
        printer.print_string("]")
    elif kind == "dense" and _needs_hex(attr):
        printer.print_string(f'dense<"0x{attr.data.data.hex().upper()}"> : ')
        printer.print_attribute(attr.type)
    else:  # dtype and dense print as builtin attributes
        printer.print_attribute(attr)


def _needs_hex(attr: DenseIntOrFPElementsAttr) -> bool:
    """Complex elements with an inf or NaN part print as MLIR's hex data string: xDSL
    prints such a part as a hex bit pattern inside `(re,im)`, which its parser refuses."""
    if TensorSpec.from_xdsl(attr.type).dtype not in COMPLEX:
        return False
    return not np.isfinite(dense_value(attr)).all()


def _parse_float(parser: Parser) -> float:
    negative = parser.parse_optional_punctuation("-") is not None
    word = parser.parse_optional_keyword_in(("inf", "nan"))
    if word:
        value = float(word)
    else:
        value = parser.parse_optional_integer(allow_boolean=False, allow_negative=False)
        if value is None:
            value = parser.parse_float(allow_negative=False)
    return -float(value) if negative else float(value)


def _parse_size(parser: Parser, number: Callable[[], int | float]) -> int | float | SymDim:
    """A size expression in quotes, else `number()`'s literal."""
    pos = parser.pos
    text = parser.parse_optional_str_literal()
    if text is None:
        return number()
    try:
        return SymDim(text)
    except SymbolicError as exc:
        parser.raise_error(str(exc), pos, parser.pos)


def _parse_text(parser: Parser) -> str:
    r"""A string literal; xDSL prints a non-ASCII one with byte escapes (`"\C3\A9"`),
    which its lexer reads back as a bytes literal: decoded as the UTF-8 it is."""
    pos = parser.pos
    raw = parser.parse_optional_bytes_literal()
    if raw is None:
        return parser.parse_str_literal()
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        parser.raise_error("string literal is not UTF-8", pos, parser.pos)


def parse_value(parser: Parser, kind: str) -> Attribute:
    kind = STORED_AS.get(kind, kind)
    delim = Parser.Delimiter.SQUARE
    if kind == "int":
        return TO_ATTR[kind](parser.parse_integer(allow_boolean=False))
    if kind == "float":
        return TO_ATTR[kind](_parse_float(parser))
    if kind == "bool":
        return TO_ATTR[kind](parser.parse_boolean())
    if kind == "str":
        return TO_ATTR[kind](_parse_text(parser))
    if kind == "strs":
        return TO_ATTR[kind](parser.parse_comma_separated_list(delim, lambda: _parse_text(parser)))
    if kind == "ints":
        return TO_ATTR[kind](parser.parse_comma_separated_list(
            delim, lambda: parser.parse_integer(allow_boolean=False)))
    if kind == "shape":
        return TO_ATTR[kind](parser.parse_comma_separated_list(delim, lambda: _parse_size(
            parser, lambda: parser.parse_integer(allow_boolean=False))))
    if kind == "bound":
        return TO_ATTR[kind](_parse_size(parser, lambda: _parse_float(parser)))
    if kind == "floats":
        return TO_ATTR[kind](parser.parse_comma_separated_list(delim, lambda: _parse_float(parser)))
    if kind == "dtype":
        pos = parser.pos
        t = parser.parse_type()
        if t not in DTYPES.values():
            parser.raise_error(f"unsupported dtype {t}", pos, parser.pos)
        return t
    pos = parser.pos
    attr = parser.parse_attribute()
    if not isinstance(attr, DenseIntOrFPElementsAttr):
        parser.raise_error("expected a dense<...> : tensor<...> literal", pos, parser.pos)
    return _with_hex_floats(attr, parser.lexer.input.content[pos:parser.pos])


_HEX_OR_NUMBER = re.compile(r"-?0x[0-9a-fA-F]+|[-+]?(?:inf|nan|[0-9.]+(?:[eE][-+]?[0-9]+)?)")


def _with_hex_floats(attr: DenseIntOrFPElementsAttr, text: str) -> DenseIntOrFPElementsAttr:
    """Float elements written as hex bit patterns (how inf and NaN print, e.g.
    `0xff800000` for -inf) hold those bits; xDSL's parser reads them as integers."""
    spec = TensorSpec.from_xdsl(attr.type)
    body = text[text.index("<") + 1:text.rindex(">", 0, text.rindex(":"))]
    if spec.dtype not in FLOATS or "0x" not in body or body.lstrip().startswith('"'):
        return attr
    dt = numpy_dtype(spec.dtype)
    bits = np.dtype(f"uint{dt.itemsize * 8}")
    values = [np.array(int(tok, 16), bits).view(dt) if "0x" in tok else np.array(float(tok), dt)
              for tok in _HEX_OR_NUMBER.findall(body)]
    flat = np.stack(values).astype(dt)
    shape = tuple(spec.shape)
    arr = np.broadcast_to(flat.reshape(()), shape) if flat.size == 1 else flat.reshape(shape)
    return dense_attr(np.array(arr))
