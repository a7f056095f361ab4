"""The reference semantics of the text ops: NumPy object arrays of Python `str`.

ONNX's own NumPy helpers give string tensors as object arrays, so the NumPy target
takes and returns them so too (a fixed-width `str_` array is read as one). NumPy has
no vectorized kernels for object arrays, so each op is a loop over the flat elements;
`text` puts the results back into an object array of the right shape (`np.array` of a
list of `str` would pick a fixed-width dtype, and a 0-d result would be a scalar).

The functions in `__all__` are copied into the NumPy target's generated source, so they
use only `np`, `re` (both imported there) and builtins.
"""

from __future__ import annotations

import re

import numpy as np

from ivy_ir.dialect.re2_patterns import python_pattern

from .rules import Rule, literal


def text(values: list, shape: tuple[int, ...]) -> np.ndarray:
    """An object array of `shape` holding `values` (flat, row-major)."""
    out = np.empty(len(values), dtype=object)
    out[:] = list(values)
    return out.reshape(tuple(shape))


def string_concat(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    xb, yb = np.broadcast_arrays(np.asarray(x, dtype=object), np.asarray(y, dtype=object))
    return text([a + b for a, b in zip(xb.ravel().tolist(), yb.ravel().tolist())], xb.shape)


def string_equal(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    xb, yb = np.broadcast_arrays(np.asarray(x, dtype=object), np.asarray(y, dtype=object))
    same = [a == b for a, b in zip(xb.ravel().tolist(), yb.ravel().tolist())]
    return np.array(same, dtype=bool).reshape(xb.shape)


def regex_full_match(x: np.ndarray, pattern: str) -> np.ndarray:
    """`pattern` is already Python's spelling of the op's RE2 pattern: the rule below
    rewrites it when the program is emitted (`re2_patterns.python_pattern`)."""
    compiled = re.compile(pattern)
    x = np.asarray(x, dtype=object)
    found = [compiled.fullmatch(s) is not None for s in x.ravel().tolist()]
    return np.array(found, dtype=bool).reshape(x.shape)


def string_lookup(x: np.ndarray, keys: tuple[str, ...]) -> np.ndarray:
    position = {k: i for i, k in enumerate(keys)}
    x = np.asarray(x, dtype=object)
    found = [position.get(s, len(keys)) for s in x.ravel().tolist()]
    return np.array(found, dtype=np.int64).reshape(x.shape)


def string_normalize(x: np.ndarray, case: str, case_sensitive: bool,
                     stopwords: tuple[str, ...]) -> np.ndarray:
    """ONNX's StringNormalizer: whole elements equal to a stopword (case-folded both
    sides unless `case_sensitive`) are dropped, the rest change case; an empty result
    is one empty string. Case folding is `str.lower`/`upper` (the default locale's)."""
    x = np.asarray(x, dtype=object)
    words = x.ravel().tolist()
    if case_sensitive:
        stops = set(stopwords)
        kept = [w for w in words if w not in stops]
    else:
        stops = {w.lower() for w in stopwords}
        kept = [w for w in words if w.lower() not in stops]
    if case == "lower":
        kept = [w.lower() for w in kept]
    elif case == "upper":
        kept = [w.upper() for w in kept]
    kept = kept or [""]
    return text(kept, (*x.shape[:-1], len(kept)))


def string_split(x: np.ndarray, delimiter: str | None,
                 maxsplit: int | None) -> list[np.ndarray]:
    """Python's `str.split` per element (None: whitespace runs), parts padded with ""
    to the longest count along a new last axis; the counts in int64."""
    x = np.asarray(x, dtype=object)
    parts = [s.split(delimiter, -1 if maxsplit is None else maxsplit)
             for s in x.ravel().tolist()]
    width = max((len(p) for p in parts), default=0)
    padded = [w for p in parts for w in p + [""] * (width - len(p))]
    counts = np.array([len(p) for p in parts], dtype=np.int64).reshape(x.shape)
    return [text(padded, (*x.shape, width)), counts]


STRING_RULES: dict[str, Rule] = {
    "string_equal": "string_equal({x}, {y})",
    "string_concat": "string_concat({x}, {y})",
    "string_normalize": "string_normalize({x}, {case}, {case_sensitive}, {stopwords})",
    "string_split": "string_split({x}, {delimiter}, {maxsplit})",
    "regex_full_match": lambda c: f"regex_full_match({c.args['x']}, "
                                  f"{literal(python_pattern(c.attrs['pattern']))})",
    "string_lookup": "string_lookup({x}, {keys})",
}
"""The NumPy rules of the text ops (merged into `reference.NUMPY_RULES`)."""

__all__ = ["regex_full_match", "string_concat", "string_equal",
           "string_lookup", "string_normalize", "string_split", "text"]
