"""Pure-NumPy kernels of the ops whose result sizes depend on the data (`unique`,
`non_max_suppression`); copied into generated code like `reference_kernels.py`.

Non-maximum suppression is one greedy pass over the score ranks, carried for every
(batch, class) pair at once, as ONNX's reference states it: each pair's candidate of
that rank is checked against the boxes the pair has taken (at most `max_out`, kept in
slots), so memory and work grow with boxes times `max_out`, never boxes squared. The
pass stops once every pair has its `max_out` boxes or no pair has candidates left (those
above the score threshold are a prefix of the ranks); the same pass runs under
`lax.while_loop` and `tf.while_loop` on the other targets.
"""

from __future__ import annotations

import numpy as np

from .boxes import box_corners, nms_take

__all__ = ["non_max_suppression", "unique"]


def unique(x, axis, sorted):
    values, first, inverse, counts = np.unique(
        x, return_index=True, return_inverse=True, return_counts=True, axis=axis)
    inverse = inverse.reshape(-1)
    if not sorted:  # in the order of first occurrence
        order = np.argsort(first, kind="stable")
        values = np.take(values, order, axis=0 if axis is None else axis)
        first, counts, inverse = first[order], counts[order], np.argsort(order)[inverse]
    return values, first.astype(np.int64), inverse.astype(np.int64), counts.astype(np.int64)


def non_max_suppression(boxes, scores, max_out, iou_threshold, score_threshold, center):
    n_batch, n_class, n = scores.shape
    slots = min(max_out, n)
    if slots == 0 or n_batch * n_class == 0:
        return np.zeros((0, 3), dtype=np.int64)
    order = np.argsort(-scores, axis=-1, kind="stable")  # ties: the lower index first
    ranked = np.take_along_axis(scores, order, -1)
    ok = np.ones(ranked.shape, bool) if score_threshold is None else ranked > score_threshold
    corners = [np.broadcast_to(v[:, None], scores.shape) for v in box_corners(np, boxes, center)]
    taken = [np.zeros((n_batch, n_class, slots), boxes.dtype) for _ in range(4)]
    index = np.zeros((n_batch, n_class, slots), np.int64)  # per pair, in taking order
    count = np.zeros((n_batch, n_class), np.int64)
    slot = np.arange(slots)
    for rank in range(int(ok.sum(-1).max())):  # past it, no pair has candidates
        if (count >= slots).all():
            break
        box = order[:, :, rank:rank + 1]
        cand = [np.take_along_axis(v, box, -1) for v in corners]
        with np.errstate(invalid="ignore"):  # infinite corners: NaN compares False
            taken, index, count = nms_take(np, cand, box, taken, index, count, slot,
                                           ok[:, :, rank], iou_threshold)
    b, c, k = np.nonzero(slot < count[..., None])
    return np.stack([b, c, index[b, c, k]], axis=1).astype(np.int64)
