"""ONNX's text operators (STRING tensors) -> the registry's text ops.

StringNormalizer, StringConcat, StringSplit and RegexFullMatch map one to one;
`Equal` on strings (`with_text`, used by `onnx_math`) is `string_equal`; the
`ai.onnx.ml` LabelEncoder with string keys (`label_encoder`, used by `onnx_ml`) finds
each string's position among the keys (`string_lookup`) and takes the value there
from the values with the default appended. A string *value* table has no registry
form (the IR holds no text constants) and is reported, as are numeric keys.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .common import Rule, Unmapped
from .onnx_ctx import Ctx

CASES = {"NONE": "none", "LOWER": "lower", "UPPER": "upper"}
"""StringNormalizer's case_change_action -> the registry's `case`."""
LOCALES = ("", "C", "en_US", "en_US.UTF-8", "en_US.utf8")
"""Locales whose case folding is Python's and TF's default (`str.lower`/`upper`); the
others (Turkish dotless i...) are reported rather than folded wrongly."""


def _is_text(c: Ctx, *values: Any) -> bool:
    return any(v is not None and c.spec(v).dtype == "string" for v in values)


def with_text(rule: Rule, text_op: str) -> Rule:
    """`rule`, or the text op `text_op` when an operand is a string tensor."""
    def dispatch(c: Ctx, x: Any, y: Any, **attrs: Any) -> Any:
        return c.emit(text_op, x, y) if _is_text(c, x, y) else rule(c, x, y, **attrs)
    return dispatch


def _string_normalizer(c: Ctx, x: Any, case_change_action: str = "NONE",
                       is_case_sensitive: int = 0, locale: str = "",
                       stopwords: list[str] | None = None) -> Any:
    if case_change_action not in CASES:
        raise Unmapped(f"case_change_action '{case_change_action}'")
    if locale not in LOCALES:
        raise Unmapped(f"locale '{locale}' (only the default, en_US, case folding is "
                       "imported)")
    return c.emit("string_normalize", x, case=CASES[case_change_action],
                  case_sensitive=bool(is_case_sensitive), stopwords=list(stopwords or []))


def _string_split(c: Ctx, x: Any, delimiter: str = "", maxsplit: int | None = None
                  ) -> list[Any]:
    """An empty delimiter, as an absent one, splits at whitespace runs."""
    return c.emit_all("string_split", x, delimiter=delimiter or None, maxsplit=maxsplit)


def _text_table(value: Any) -> list[str] | None:
    """A STRING tensor attribute's entries as `str` (ONNX's reader gives bytes)."""
    if value is None:
        return None
    return [v.decode("utf-8") if isinstance(v, bytes) else str(v)
            for v in np.ravel(np.asarray(value, dtype=object))]


def label_encoder(c: Ctx, x: Any, **attrs: Any) -> Any:
    """`ai.onnx.ml.LabelEncoder` with string keys and numeric values: the value at each
    string's position among the keys, the default where it is none of them."""
    keys = attrs.get("keys_strings")
    tensor_keys = attrs.get("keys_tensor")
    if tensor_keys is not None and np.asarray(tensor_keys).dtype == object:
        keys = _text_table(tensor_keys)
    if keys is None or not _is_text(c, x):
        raise Unmapped("keys that are not strings (only string keys are imported)")
    if "values_strings" in attrs or (attrs.get("values_tensor") is not None
                                     and np.asarray(attrs["values_tensor"]).dtype == object):
        raise Unmapped("string values (the IR holds no text constants)")
    if attrs.get("values_tensor") is not None:
        values = np.ravel(np.asarray(attrs["values_tensor"]))
    elif "values_int64s" in attrs:
        values = np.asarray(attrs["values_int64s"], np.int64)
    elif "values_floats" in attrs:
        values = np.asarray(attrs["values_floats"], np.float32)
    else:
        raise Unmapped("no values attribute")
    if attrs.get("default_tensor") is not None:
        default = np.ravel(np.asarray(attrs["default_tensor"]))[:1]
    elif values.dtype == np.int64:
        default = np.asarray([attrs.get("default_int64", -1)])
    else:
        default = np.asarray([attrs.get("default_float", -0.0)])
    if len(values) != len(keys):
        raise Unmapped(f"{len(keys)} keys but {len(values)} values")
    table = np.concatenate([values, default.astype(values.dtype)])
    return c.emit("take", table, c.emit("string_lookup", x, keys=keys), axis=0)


TABLE: dict[str, Rule] = {
    "StringNormalizer": _string_normalizer,
    "StringConcat": lambda c, x, y: c.emit("string_concat", x, y),
    "StringSplit": _string_split,
    "RegexFullMatch": lambda c, x, pattern: c.emit("regex_full_match", x, pattern=pattern),
}
"""op_type -> rule for the text family (default domain)."""
