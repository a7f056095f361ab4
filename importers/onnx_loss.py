"""ONNX's training losses (`NegativeLogLikelihoodLoss`, `SoftmaxCrossEntropyLoss`) ->
ivy ops.

Both pick, per sample (and per extra spatial position), the input at the target class
along axis 1, weigh it by the class weight, and reduce: `none`, `sum`, or `mean` as
ONNX defines it, the weighted sum over the sum of the weights that were picked.
Targets equal to `ignore_index` weigh 0 (and index class 0, so the gather stays in
range). SoftmaxCrossEntropyLoss is the same loss of `log_softmax(scores, axis=1)`,
which is its optional second output.
"""

from __future__ import annotations

from typing import Any

from .common import Rule, Unmapped
from .onnx_ctx import Ctx

REDUCTIONS = ("none", "sum", "mean")


def nll(c: Ctx, x: Any, target: Any, weight: Any = None, ignore_index: int | None = None,
        reduction: str = "mean") -> Any:
    """The negative log-likelihood of log-probabilities `x` (N, C, d...) at `target`
    (N, d...)."""
    if reduction not in REDUCTIONS:
        raise Unmapped(f"reduction '{reduction}'")
    dtype = c.spec(x).dtype
    target = c.cast(target, "int64")
    keep = None
    if ignore_index is not None:
        keep = c.emit("not_equal", target, c.const(ignore_index, "int64"))
        target = c.emit("where", keep, target, c.const(0, "int64"))
    picked = c.emit("take_along_axis", x, c.emit("expand_dims", target, axis=[1]), axis=1)
    loss = c.emit("negative", c.emit("squeeze", picked, axis=[1]))
    weights = None if weight is None else c.emit("take", weight, target, axis=0)
    if keep is not None:
        mask = c.cast(keep, dtype)
        weights = mask if weights is None else c.emit("multiply", weights, mask)
    if weights is not None:
        loss = c.emit("multiply", loss, weights)
    if reduction == "none":
        return loss
    total = c.emit("sum", loss)
    if reduction == "sum":
        return total
    if weights is None:
        return c.emit("mean", loss)
    return c.emit("divide", total, c.emit("sum", weights))


def _softmax_cross_entropy(c: Ctx, scores: Any, labels: Any, weights: Any = None,
                           ignore_index: int | None = None, reduction: str = "mean"
                           ) -> list[Any]:
    log_prob = c.emit("log_softmax", scores, axis=1)
    return [nll(c, log_prob, labels, weights, ignore_index, reduction), log_prob]


TABLE: dict[str, Rule] = {
    "NegativeLogLikelihoodLoss": nll, "SoftmaxCrossEntropyLoss": _softmax_cross_entropy,
}
"""ONNX op_type -> rule for the losses."""
