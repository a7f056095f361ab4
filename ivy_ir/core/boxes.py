"""Box geometry shared by every target's non-maximum suppression kernel: functions over
an array namespace argument (`np`, `jnp`, `torch` or `tf`, each spelling `minimum`,
`maximum`, `where` and `ones_like` alike), copied into generated code like the other
kernels, so the IoU rule and the greedy pass's step exist once.
"""

from __future__ import annotations

__all__ = ["box_corners", "nms_overlap", "nms_take"]


def box_corners(ns, boxes, center):
    # (x0, x1, y0, y1) of each box, lower corner first: ONNX's two box formats
    a, b, c, d = boxes[..., 0], boxes[..., 1], boxes[..., 2], boxes[..., 3]
    if center:  # [x_center, y_center, width, height]
        return a - c / 2, a + c / 2, b - d / 2, b + d / 2
    # [y1, x1, y2, x2], any diagonal
    return ns.minimum(b, d), ns.maximum(b, d), ns.minimum(a, c), ns.maximum(a, c)


def nms_overlap(ns, cand, taken, threshold):
    # whether candidate boxes overlap boxes taken before them by an IoU above the
    # threshold (corner tuples that broadcast), as ONNX's reference decides it: boxes of
    # no area overlap nothing, and the IoU is computed only where the union is positive
    ix0, ix1 = ns.maximum(cand[0], taken[0]), ns.minimum(cand[1], taken[1])
    iy0, iy1 = ns.maximum(cand[2], taken[2]), ns.minimum(cand[3], taken[3])
    inter = (ix1 - ix0) * (iy1 - iy0)
    area_c = (cand[1] - cand[0]) * (cand[3] - cand[2])
    area_t = (taken[1] - taken[0]) * (taken[3] - taken[2])
    union = area_c + area_t - inter
    iou = inter / ns.where(union > 0, union, ns.ones_like(union))
    return ((ix1 > ix0) & (iy1 > iy0) & (inter > 0) & (area_c > 0) & (area_t > 0)
            & (union > 0) & (iou > threshold))


def nms_take(ns, cand, box, taken, index, count, slot, ok, threshold):
    # one step of the greedy pass for every (batch, class) pair at once: a pair takes its
    # candidate (corners `cand`, position `box`) where it is one (`ok`), overlaps no box
    # the pair took before and a slot is free; taken corners, positions and counts
    # updated (NumPy, JAX, torch: TF spells `any` and the count's update otherwise)
    hit = nms_overlap(ns, cand, taken, threshold) & (slot < count[..., None])
    take = ok & ~hit.any(-1) & (count < slot.shape[-1])
    put = (slot == count[..., None]) & take[..., None]
    return ([ns.where(put, c, t) for c, t in zip(cand, taken)], ns.where(put, box, index),
            count + take)
