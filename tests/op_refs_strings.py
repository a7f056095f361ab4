"""References of the text ops: object arrays of short words over a small alphabet (so
equal strings, stopword hits and repeated delimiters are frequent), with the expected
results written with Python's string methods element by element."""

from __future__ import annotations

import re

import numpy as np
from hypothesis import strategies as st
from op_refs_common import bshapes, case, integer, pick, shape

WORD = st.text(alphabet="aAb. é", max_size=5)
"""Words with case pairs, a delimiter, a space and a non-ASCII letter."""


def words(d, shp: tuple[int, ...]) -> np.ndarray:
    flat = d.draw(st.lists(WORD, min_size=int(np.prod(shp)), max_size=int(np.prod(shp))))
    out = np.empty(len(flat), dtype=object)
    out[:] = flat
    return out.reshape(shp)


def _elementwise(fn, dtype) -> callable:
    def ref(x, y):
        xb, yb = np.broadcast_arrays(x, y)
        out = np.array([fn(a, b) for a, b in zip(xb.flat, yb.flat)], dtype=dtype)
        return out.reshape(xb.shape)
    return ref


def _pair(d):
    sx, sy = bshapes(d)
    return [words(d, sx), words(d, sy)], {}


def _normalize(d):
    x = words(d, pick(d, [(integer(d, 0, 4),), (1, integer(d, 0, 4))]))
    stops = d.draw(st.lists(WORD, max_size=3, unique=True))
    return [x], {"case": pick(d, ["none", "lower", "upper"]),
                 "case_sensitive": pick(d, [True, False]), "stopwords": stops}


def _normalize_ref(x, case, case_sensitive, stopwords):
    fold = (lambda w: w) if case_sensitive else str.lower
    kept = [w for w in x.flat if fold(w) not in {fold(s) for s in stopwords}]
    kept = [{"none": w, "lower": w.lower(), "upper": w.upper()}[case] for w in kept] or [""]
    out = np.empty(len(kept), dtype=object)
    out[:] = kept
    return out.reshape(*x.shape[:-1], len(kept))


def _split(d):
    return [words(d, shape(d, max_dims=2))], {
        "delimiter": pick(d, [None, ".", "a", " "]),
        "maxsplit": pick(d, [None, 0, 1, 2])}


def _split_ref(x, delimiter, maxsplit):
    parts = [s.split(delimiter, -1 if maxsplit is None else maxsplit) for s in x.flat]
    width = max((len(p) for p in parts), default=0)
    padded = np.empty((len(parts), width), dtype=object)
    for i, p in enumerate(parts):
        padded[i] = p + [""] * (width - len(p))
    lengths = np.array([len(p) for p in parts], dtype=np.int64)
    return [padded.reshape(*x.shape, width), lengths.reshape(x.shape)]


def _regex(d):
    return [words(d, shape(d))], {"pattern": pick(d, ["a*", "[ab]+", r"\w*\.?", "A|é", ""])}


def _lookup(d):
    return [words(d, shape(d))], {"keys": d.draw(st.lists(WORD, max_size=3, unique=True))}


def _lookup_ref(x, keys):
    found = [keys.index(s) if s in keys else len(keys) for s in x.flat]
    return np.array(found, dtype=np.int64).reshape(x.shape)


case("string_equal", _pair, _elementwise(lambda a, b: a == b, bool))
case("string_concat", _pair, _elementwise(lambda a, b: a + b, object))
case("string_normalize", _normalize, _normalize_ref)
case("string_split", _split, _split_ref)
# the op is ONNX's RE2, whose classes are ASCII: for these patterns `re.ASCII` is RE2
case("regex_full_match", _regex, lambda x, pattern: np.array(
    [re.fullmatch(pattern, s, re.ASCII) is not None for s in x.flat],
    dtype=bool).reshape(x.shape))
case("string_lookup", _lookup, _lookup_ref)
