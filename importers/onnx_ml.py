"""Operators of ONNX's `ai.onnx.ml` domain that are array arithmetic -> ivy ops.

The domain's model operators (tree ensembles, SVMs, string encoders) need types or
data-dependent control the registry does not have and stay reported; the two plain
array operators map exactly, and LabelEncoder with string keys through the text ops
(`onnx_strings.label_encoder`).
"""

from __future__ import annotations

import math
from typing import Any

from .common import Rule
from .onnx_ctx import Ctx
from .onnx_strings import label_encoder

DOMAIN = "ai.onnx.ml"
"""The ONNX operator domain this family's table serves."""


def _binarizer(c: Ctx, x: Any, threshold: float = 0.0) -> Any:
    """1 where x > threshold, else 0, in x's dtype."""
    dtype = c.spec(x).dtype
    return c.cast(c.emit("greater", x, c.const(threshold, dtype)), dtype)


def _array_feature_extractor(c: Ctx, x: Any, indices: Any) -> Any:
    """The features at `indices` (flattened) along the last axis; a vector input gives
    a one-row matrix, as onnxruntime (and ONNX's reference) do."""
    count = math.prod(c.spec(indices).shape)  # type: ignore[arg-type]
    flat = c.emit("reshape", c.cast(indices, "int64"), shape=[count])
    out = c.emit("take", x, flat, axis=c.rank(x) - 1)
    return c.emit("reshape", out, shape=[1, count]) if c.rank(x) == 1 else out


TABLE: dict[str, Rule] = {
    "Binarizer": _binarizer, "ArrayFeatureExtractor": _array_feature_extractor,
    "LabelEncoder": label_encoder,
}
"""op_type (domain `ai.onnx.ml`) -> rule."""
