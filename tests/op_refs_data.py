"""References for the ops whose result sizes depend on the data: written as plain
loops over the elements (and, for non-maximum suppression, as ONNX's reference states
the algorithm: each candidate checked against the boxes taken so far), so they share
nothing with the kernels' vectorised passes."""

from __future__ import annotations

import builtins

import numpy as np
from op_refs_common import ANY, arr, boolean, case, integer, pick, shape


def _argwhere_ref(x):
    rows = [index for index in np.ndindex(x.shape) if x[index]]
    return np.array(rows, np.int64).reshape(len(rows), x.ndim)


case("argwhere", lambda d: ([arr(d, pick(d, ANY), shape(d), -2, 2, integral=True)], {}),
     _argwhere_ref)


def _unique_draw(d):
    x = arr(d, pick(d, ANY), shape(d, min_dims=1), -2, 2, integral=True)
    axis = integer(d, 0, x.ndim - 1) if boolean(d) else None
    return [x], {"axis": axis, "sorted": boolean(d)}


def _unique_ref(x, axis, sorted):
    items = list(x.reshape(-1)) if axis is None else list(np.moveaxis(x, axis, 0))
    keys = [tuple(np.ravel(item).tolist()) for item in items]
    first: dict[tuple, int] = {}
    for i, key in enumerate(keys):
        first.setdefault(key, i)
    # the attribute named `sorted` shadows the builtin here
    sorted_keys = builtins.sorted(first) if sorted else list(first)
    position = {key: i for i, key in enumerate(sorted_keys)}
    picked = [items[first[key]] for key in sorted_keys]
    if axis is None:
        values = np.array(picked, x.dtype).reshape(-1)
    else:
        values = np.moveaxis(np.array(picked, x.dtype).reshape(
            (len(picked),) + x.shape[:axis] + x.shape[axis + 1:]), 0, axis)
    counts = [keys.count(key) for key in sorted_keys]
    return (values, np.array([first[k] for k in sorted_keys], np.int64),
            np.array([position[k] for k in keys], np.int64), np.array(counts, np.int64))


case("unique", _unique_draw, _unique_ref)


def _nms_draw(d):
    n_batch, n_class, n = integer(d, 1, 2), integer(d, 1, 2), integer(d, 0, 6)
    boxes = arr(d, "float32", (n_batch, n, 4), 0, 4, integral=True).astype(np.float32)
    scores = (arr(d, "float32", (n_batch, n_class, n), 0, 4, integral=True) / 4) \
        .astype(np.float32)
    return [boxes, scores], {
        "max_output_boxes_per_class": integer(d, 0, 4),
        "iou_threshold": pick(d, [0.0, 0.25, 0.5]),
        "score_threshold": pick(d, [None, 0.25]),
        "center_point_box": boolean(d)}


def _overlap(a, b, center, threshold):
    if center:
        corners = [(p[0] - p[2] / 2, p[0] + p[2] / 2, p[1] - p[3] / 2, p[1] + p[3] / 2)
                   for p in (a, b)]
    else:
        corners = [(min(p[1], p[3]), max(p[1], p[3]), min(p[0], p[2]), max(p[0], p[2]))
                   for p in (a, b)]
    (ax0, ax1, ay0, ay1), (bx0, bx1, by0, by1) = corners
    ix0, ix1, iy0, iy1 = max(ax0, bx0), min(ax1, bx1), max(ay0, by0), min(ay1, by1)
    if ix1 <= ix0 or iy1 <= iy0:
        return False
    inter = (ix1 - ix0) * (iy1 - iy0)
    area_a, area_b = (ax1 - ax0) * (ay1 - ay0), (bx1 - bx0) * (by1 - by0)
    union = area_a + area_b - inter
    if inter <= 0 or area_a <= 0 or area_b <= 0 or union <= 0:
        return False
    return inter / union > threshold


def _nms_ref(boxes, scores, max_output_boxes_per_class, iou_threshold, score_threshold,
             center_point_box):
    rows = []
    for b in range(scores.shape[0]):
        for c in range(scores.shape[1]):
            candidates = [i for i in range(scores.shape[2])
                          if score_threshold is None or scores[b, c, i] > score_threshold]
            candidates.sort(key=lambda i: (-scores[b, c, i], i))
            taken: list[int] = []
            for i in candidates:
                if len(taken) == max_output_boxes_per_class:
                    break
                if not any(_overlap(boxes[b, i], boxes[b, j], center_point_box, iou_threshold)
                           for j in taken):
                    taken.append(i)
            rows += [[b, c, i] for i in taken]
    return np.array(rows, np.int64).reshape(len(rows), 3)


case("non_max_suppression", _nms_draw, _nms_ref)
