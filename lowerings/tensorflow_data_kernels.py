"""TensorFlow kernels of the ops whose result sizes depend on the data (`unique`,
`non_max_suppression`), computed as `ivy_ir/core/reference_data.py` does.

TF's `UniqueWithCountsV2` keeps the order of first occurrence; the sorted order is a
lexicographic sort of the distinct slices, one stable argsort per column from the last.
`tf.image.non_max_suppression` works on one class of one image and breaks no ties by
index, so the greedy pass runs here under `tf.while_loop`, which keeps the graph of a
`tf.function` one step long whatever the number of boxes. The emitter copies them into
generated code: they use only `tf`, `np` and each other.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf

from ivy_ir.core.boxes import box_corners, nms_overlap

__all__ = ["non_max_suppression", "unique"]


def unique(x, axis, sorted):
    dim = 0 if axis is None else axis
    flat = tf.reshape(x, [-1]) if axis is None else x
    values, inverse, counts = tf.raw_ops.UniqueWithCountsV2(x=flat, axis=[dim],
                                                           out_idx=tf.int64)
    k = tf.shape(counts, out_type=tf.int64)[0]
    positions = tf.range(tf.shape(flat, out_type=tf.int64)[dim])
    first = tf.math.unsorted_segment_min(positions, inverse, k)
    if sorted:  # ascending: the last column decides least
        columns = int(np.prod([n for i, n in enumerate(flat.shape) if i != dim]))  # static
        keys = tf.reshape(tf.experimental.numpy.moveaxis(values, dim, 0), [k, columns])
        if keys.dtype == tf.bool:
            keys = tf.cast(keys, tf.int8)
        order = tf.range(k)
        for column in reversed(range(columns)):
            order = tf.gather(order, tf.argsort(tf.gather(keys[:, column], order), stable=True))
        values = tf.gather(values, order, axis=dim)
        first, counts = tf.gather(first, order), tf.gather(counts, order)
        inverse = tf.gather(tf.math.invert_permutation(order), inverse)
    return values, first, inverse, tf.cast(counts, tf.int64)


def non_max_suppression(boxes, scores, max_out, iou_threshold, score_threshold, center):
    n_batch, n_class, n = scores.shape
    slots = min(max_out, n)
    if slots == 0 or n_batch * n_class == 0:
        return tf.zeros([0, 3], tf.int64)
    order = tf.argsort(-scores, axis=-1, stable=True)  # ties: the lower index first
    ranked = tf.gather(scores, order, batch_dims=2)
    ok = tf.ones_like(ranked, tf.bool) if score_threshold is None else ranked > score_threshold
    corners = [tf.broadcast_to(v[:, None], tf.shape(scores))
               for v in box_corners(tf, boxes, center)]
    ranks = tf.reduce_max(tf.reduce_sum(tf.cast(ok, tf.int32), -1))  # past it: none left
    slot = tf.range(slots)

    def running(rank, taken, index, count):
        return (rank < ranks) & tf.reduce_any(count < slots)

    def step(rank, taken, index, count):
        box = order[:, :, rank][..., None]
        cand = [tf.gather(v, box, batch_dims=2) for v in corners]
        hit = nms_overlap(tf, cand, taken, iou_threshold) & (slot < count[..., None])
        take = ok[:, :, rank] & ~tf.reduce_any(hit, -1) & (count < slots)
        put = (slot == count[..., None]) & take[..., None]
        taken = [tf.where(put, c, t) for c, t in zip(cand, taken)]
        return rank + 1, taken, tf.where(put, box, index), count + tf.cast(take, tf.int32)

    shape = [n_batch, n_class, slots]
    start = (tf.constant(0), [tf.zeros(shape, boxes.dtype) for _ in range(4)],
             tf.zeros(shape, order.dtype), tf.zeros(shape[:2], tf.int32))
    _, _, index, count = tf.while_loop(running, step, start)
    hits = tf.where(slot < count[..., None])  # (batch, class, slot)
    boxes_taken = tf.cast(tf.gather_nd(index, hits), tf.int64)
    return tf.concat([hits[:, :2], boxes_taken[:, None]], axis=1)
