"""Result-type rules of the ops whose result sizes depend on their operands' values
(`argwhere`, `unique`, `non_max_suppression`): those sizes are `?`, and dim flow gives
each a fresh anonymous size, since no input's dims can name it."""

from __future__ import annotations

import math
from typing import Any

from .infer import Rule, check, registrar
from .types import TensorSpec

DATA_RULES: dict[str, Rule] = {}
rule = registrar(DATA_RULES)


@rule("argwhere")
def _argwhere(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    return [TensorSpec((None, ins[0].rank), "int64")]


@rule("unique")
def _unique(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    x, axis = ins[0], a.get("axis")
    if axis is None:
        values = x.with_(shape=(None,))
        along = None if None in x.shape else math.prod(x.shape)
    else:
        values = x.with_(shape=x.shape[:axis] + (None,) + x.shape[axis + 1:])
        along = x.shape[axis]
    index = TensorSpec((None,), "int64")
    return [values, index, TensorSpec((along,), "int64"), index]


@rule("non_max_suppression")
def _non_max_suppression(ins: list[Any], a: dict[str, Any]) -> list[TensorSpec]:
    boxes, scores = ins
    check(boxes.rank == 3 and boxes.shape[2] in (4, None),
          f"boxes must be (batch, boxes, 4), got shape {boxes.shape}")
    check(scores.rank == 3, f"scores must be (batch, classes, boxes), got shape {scores.shape}")
    for got, want, what in ((scores.shape[0], boxes.shape[0], "batch"),
                            (scores.shape[2], boxes.shape[1], "box count")):
        check(got is None or want is None or got == want,
              f"scores' {what} {got} differs from boxes' {want}")
    check(a["max_output_boxes_per_class"] >= 0,
          f"max_output_boxes_per_class must be >= 0, got {a['max_output_boxes_per_class']}")
    return [TensorSpec((None, 3), "int64")]
