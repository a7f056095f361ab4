"""Result-type rules of the text ops (operands of the `text` class, dtype `string`).

They live apart from `infer.py` because two of them have data-dependent widths: the
words a `string_normalize` keeps and the parts a `string_split` finds are known only
when the program runs, so those results carry a `?` dim (with a fresh anonymous size,
as every op without a dim-flow rule gets).
"""

from __future__ import annotations

from typing import Any

from .infer import Rule, check, registrar
from .re2_patterns import RE2Error, python_pattern
from .types import TensorSpec

STRING_RULES: dict[str, Rule] = {}
rule = registrar(STRING_RULES)


@rule("string_normalize")
def _string_normalize(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    """ONNX's StringNormalizer shapes: [C] or [1, C] in, the same rank out. Removing
    stopwords leaves an unknown count; with none the width stays (an empty input gives
    the one empty string every empty result is)."""
    (x,) = ins
    check(x.rank == 1 or (x.rank == 2 and x.shape[0] in (1, None)),
          f"takes shape [C] or [1, C], got {x.shape}")
    width = x.shape[-1]
    if a["stopwords"] or width is None:
        width = None
    else:
        width = max(width, 1)
    return [x.with_(shape=(*x.shape[:-1], width))]


@rule("string_split")
def _string_split(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    """The parts along a new last axis, padded with empty strings to the longest split
    (a count known at run time), and each element's count of parts in int64."""
    (x,) = ins
    check(a["maxsplit"] is None or a["maxsplit"] >= 0,
          f"maxsplit must be >= 0, got {a['maxsplit']}")
    return [x.with_(shape=(*x.shape, None)), x.with_(dtype="int64")]


@rule("regex_match")
def _regex_match(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    """Whether each whole string matches `pattern`, in RE2 syntax (ONNX's): checked here,
    so a pattern one target's engine would refuse fails on every target."""
    try:
        python_pattern(a["pattern"])
    except RE2Error as exc:
        check(False, str(exc))
    return [ins[0].with_(dtype="bool")]


@rule("string_lookup")
def _string_lookup(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    """The int64 position of each string in `keys` (len(keys) where absent)."""
    check(len(set(a["keys"])) == len(a["keys"]), "keys must be distinct")
    return [ins[0].with_(dtype="int64")]


__all__ = ["STRING_RULES"]
