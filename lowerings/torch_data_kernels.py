"""Torch kernels of the ops whose result sizes depend on the data (`unique`,
`non_max_suppression`), computed as `ivy_ir/core/reference_data.py` does.

torch has `torch.unique` but no first-occurrence index, which a `scatter_reduce` of the
positions gives; torchvision's `nms` is neither a torch dependency nor batched per class,
so the greedy pass runs here over the score ranks for every (batch, class) pair at once.
"""

from __future__ import annotations

import torch

from ivy_ir.core.boxes import box_corners, nms_take

__all__ = ["non_max_suppression", "unique"]


def unique(x, axis, sorted):
    dim = 0 if axis is None else axis
    flat = x.reshape(-1) if axis is None else x
    n = flat.shape[dim]
    if flat.numel() == 0:  # torch.unique refuses empty slices; they are all equal
        k, long = min(n, 1), dict(dtype=torch.int64, device=x.device)
        return (flat.narrow(dim, 0, k), torch.zeros(k, **long), torch.zeros(n, **long),
                torch.full((k,), n, **long))
    values, inverse, counts = torch.unique(  # with a dim, a much slower kernel: only if asked
        flat, sorted=True, return_inverse=True, return_counts=True, dim=axis)
    first = torch.full(counts.shape, n, dtype=torch.int64, device=x.device).scatter_reduce(
        0, inverse, torch.arange(n, device=x.device), "amin")
    if not sorted:  # in the order of first occurrence
        order = torch.argsort(first, stable=True)
        values = values.index_select(dim, order)
        first, counts, inverse = first[order], counts[order], torch.argsort(order)[inverse]
    return values, first, inverse.to(torch.int64), counts.to(torch.int64)


def non_max_suppression(boxes, scores, max_out, iou_threshold, score_threshold, center):
    n_batch, n_class, n = scores.shape
    slots = min(max_out, n)
    long = dict(dtype=torch.int64, device=scores.device)
    if slots == 0 or n_batch * n_class == 0:
        return torch.zeros((0, 3), **long)
    order = torch.argsort(-scores, dim=-1, stable=True)  # ties: the lower index first
    ranked = torch.gather(scores, -1, order)
    ok = torch.ones_like(ranked, dtype=torch.bool) if score_threshold is None \
        else ranked > score_threshold
    corners = [v[:, None].expand(scores.shape) for v in box_corners(torch, boxes, center)]
    taken = [boxes.new_zeros((n_batch, n_class, slots)) for _ in range(4)]
    index = torch.zeros((n_batch, n_class, slots), **long)  # per pair, in taking order
    count = torch.zeros((n_batch, n_class), **long)
    slot = torch.arange(slots, device=scores.device)
    for rank in range(int(ok.sum(-1).max())):  # past it, no pair has candidates
        if bool((count >= slots).all()):
            break
        box = order[:, :, rank:rank + 1]
        cand = [torch.gather(v, -1, box) for v in corners]
        taken, index, count = nms_take(torch, cand, box, taken, index, count, slot,
                                       ok[:, :, rank], iou_threshold)
    b, c, k = torch.nonzero(slot < count[..., None], as_tuple=True)
    return torch.stack([b, c, index[b, c, k]], dim=1)
