"""The standard's named result tuples (fields readable by name and by position), one
definition for every backend spelling that builds them and for tracing, which returns
them from the multi-result functions as the eager backends do."""

from __future__ import annotations

from collections import namedtuple

EighResult = namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
QRResult = namedtuple("QRResult", ["Q", "R"])
SlogdetResult = namedtuple("SlogdetResult", ["sign", "logabsdet"])
SVDResult = namedtuple("SVDResult", ["U", "S", "Vh"])
UniqueAllResult = namedtuple("UniqueAllResult",
                             ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = namedtuple("UniqueInverseResult", ["values", "inverse_indices"])

TRACED_RESULTS = {"linalg.eigh": EighResult, "linalg.qr": QRResult,
                  "linalg.slogdet": SlogdetResult, "linalg.svd": SVDResult}
"""Facade function -> the result tuple its traced form returns (the unique_* functions
are never traced)."""
