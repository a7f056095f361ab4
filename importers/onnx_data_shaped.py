"""ONNX operators whose output sizes depend on the data -> ivy ops with `?` sizes.

`NonZero` is `argwhere` transposed; `Unique` and `NonMaxSuppression` map onto the
registry ops of the same semantics. NonMaxSuppression's count and thresholds are
inputs in ONNX but attributes in the registry: they must be known at import (an
initializer, a constant, or an example the ONNX backend fixes per call).
"""

from __future__ import annotations

from typing import Any

from .common import Rule
from .onnx_ctx import Ctx


def _non_zero(c: Ctx, x: Any) -> Any:
    return c.emit("permute_dims", c.emit("argwhere", x), axes=[1, 0])


def _unique(c: Ctx, x: Any, axis: int | None = None, sorted: int = 1) -> list[Any]:
    if axis is not None and axis < 0:
        axis += c.rank(x)
    return c.emit_all("unique", x, axis=axis, sorted=bool(sorted))


def _non_max_suppression(c: Ctx, boxes: Any, scores: Any, max_output_boxes_per_class: Any = None,
                         iou_threshold: Any = None, score_threshold: Any = None,
                         center_point_box: int = 0) -> Any:
    def scalar(value: Any, what: str) -> float | None:
        known = None if value is None else c.static(value, what).reshape(-1)
        return None if known is None or known.size == 0 else known[0].item()

    most = scalar(max_output_boxes_per_class, "max_output_boxes_per_class")
    iou = scalar(iou_threshold, "iou_threshold")
    return c.emit("non_max_suppression", boxes, scores,
                  max_output_boxes_per_class=0 if most is None else int(most),
                  iou_threshold=0.0 if iou is None else float(iou),
                  score_threshold=scalar(score_threshold, "score_threshold"),
                  center_point_box=bool(center_point_box))


TABLE: dict[str, Rule] = {"NonZero": _non_zero, "Unique": _unique,
                          "NonMaxSuppression": _non_max_suppression}
