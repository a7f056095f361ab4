"""ONNX `TfIdfVectorizer` -> ivy ops: n-gram counts against a fixed pool, weighted.

The operator counts, in each row of tokens, the n-grams of its pool (n from
`min_gram_length` to `max_gram_length`) at every skip distance up to
`max_skip_count` (unigrams once), and writes each count to the pool n-gram's output
column (`ngram_indexes`), then weighs them (`TF`: the counts; `IDF`: the weight where
the count is positive; `TFIDF`: count x weight). Everything but the tokens is an
attribute, so the windows are known at import: for each n, the token positions of every
window are a constant index array, and the count of each pool n-gram is the number of
windows equal to it (`take`, `equal`, `all`, `sum`); a constant 0/1 matrix sends the
counts to their columns. Integer tokens only (`pool_int64s`); string pools are reported.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .common import Rule, Unmapped
from .onnx_ctx import Ctx

ELEMENT_LIMIT = 50_000_000
"""The largest window x pool comparison built (rows x windows x pool n-grams x n)."""


def _pool(pool: list[int], counts: list[int], lo: int, hi: int) -> dict[int, list[tuple]]:
    """Pool n-grams by size, each as (tokens, n-gram id); ids run over every size, those
    outside [lo, hi] included, from 0."""
    grams: dict[int, list[tuple]] = {}
    next_id = 0
    for i, start in enumerate(counts):
        n = i + 1
        end = counts[i + 1] if i + 1 < len(counts) else len(pool)
        items = pool[start:end]
        for k in range(len(items) // n):
            if lo <= n <= hi:
                grams.setdefault(n, []).append((tuple(items[k * n:(k + 1) * n]), next_id))
            next_id += 1
    return grams


def _windows(n: int, length: int, skips: int) -> np.ndarray:
    """Token positions of every window of n tokens at each skip distance (one for n = 1)."""
    rows = [[s + j * d for j in range(n)]
            for d in range(1, (skips if n > 1 else 0) + 2)
            for s in range(length - (n - 1) * d)]
    return np.asarray(rows, np.int64).reshape(-1, n)


def _tfidf(c: Ctx, x: Any, *, mode: str, min_gram_length: int, max_gram_length: int,
           max_skip_count: int, ngram_counts: list[int], ngram_indexes: list[int],
           pool_int64s: list[int] | None = None, pool_strings: list[str] | None = None,
           weights: list[float] | None = None) -> Any:
    if pool_int64s is None:
        raise Unmapped("a pool of strings (pool_strings)")
    shape = c.spec(x).shape
    if len(shape) > 2 or None in shape:
        raise Unmapped(f"input of shape {shape} (a static [C] or [B, C] is needed)")
    rows = c.emit("reshape", x, shape=[1 if len(shape) < 2 else shape[0], -1])
    b, length = c.spec(rows).shape
    width = max(ngram_indexes) + 1
    grams = _pool(pool_int64s, ngram_counts, min_gram_length, max_gram_length)
    counts = None
    for n, pool in sorted(grams.items()):
        at = _windows(n, length, max_skip_count)
        if not len(at):
            continue
        if b * len(at) * len(pool) * n > ELEMENT_LIMIT:
            raise Unmapped(f"{b * len(at) * len(pool) * n} window x pool comparisons "
                           f"(more than {ELEMENT_LIMIT})")
        tokens = c.emit("reshape", c.emit("take", rows, at.reshape(-1), axis=1),
                        shape=[b, len(at), 1, n])
        wanted = np.asarray([g for g, _ in pool], np.int64).reshape(1, 1, len(pool), n)
        same = c.emit("all", c.emit("equal", c.cast(tokens, "int64"), wanted), axis=[3])
        found = c.emit("sum", c.cast(same, "float32"), axis=[1])  # (B, pool)
        columns = np.zeros((len(pool), width), np.float32)
        columns[np.arange(len(pool)), [ngram_indexes[i] for _, i in pool]] = 1
        placed = c.emit("matmul", found, columns)
        counts = placed if counts is None else c.emit("add", counts, placed)
    if counts is None:
        counts = np.zeros((b, width), np.float32)
    w = np.asarray(weights if weights else [1.0] * width, np.float32)
    if mode == "IDF":
        counts = c.emit("where", c.emit("greater", counts, c.const(0, "float32")), w,
                        c.const(0, "float32"))
    elif mode == "TFIDF":
        counts = c.emit("multiply", counts, w)
    elif mode != "TF":
        raise Unmapped(f"mode {mode!r}")
    return counts if len(shape) == 2 else c.emit("reshape", counts, shape=[width])


TABLE: dict[str, Rule] = {"TfIdfVectorizer": _tfidf}
"""op_type -> rule."""
