"""JAX kernels of the ops whose result sizes depend on the data (`argwhere`, `unique`,
`non_max_suppression`), as `ivy_ir/core/reference_data.py` computes them.

Such an op runs op by op (`JaxRuntime.wrap`, `lowerings/staged.py`): the final
selection has a size only the values decide. The greedy pass of non-maximum
suppression keeps static shapes (a mask over the score ranks), runs under
`lax.while_loop` and is jitted on its own; only picking the kept rows out of it is
data-dependent.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax import lax

from ivy_ir.core.boxes import box_corners, nms_take

__all__ = ["argwhere", "nms_slots", "non_max_suppression", "nonzero_count", "nonzero_rows",
           "unique"]

# The data-dependent kernels below call jitted steps defined once with the program
# (a `jax.jit` wrapper built per call costs ~0.4 ms: a third of an argwhere of 32K
# elements); JAX compiles each once per shapes and static arguments.


@jax.jit
def nonzero_count(x):
    return jnp.count_nonzero(x)


@jax.jit(static_argnames="size")
def nonzero_rows(x, size):
    return jnp.argwhere(x, size=size)


def argwhere(x):
    # two compiled steps and one read of the count between them, where eager
    # `jnp.argwhere` runs its dozen ops one by one (4 ms for 32K elements, against
    # ~0.1 ms); inside a caller's `jax.jit` the count is not known, and `jnp.argwhere`
    # says so
    if isinstance(x, jax.core.Tracer):
        return jnp.argwhere(x)
    return nonzero_rows(x, size=int(nonzero_count(x)))


def unique(x, axis, sorted):
    n = x.size if axis is None else x.shape[axis]
    if x.size == 0:  # every slice is empty, so all are equal (jnp.unique miscounts them)
        k = min(n, 1)
        values = x.reshape(-1)[:0] if axis is None else lax.slice_in_dim(x, 0, k, axis=axis)
        return (values, jnp.zeros(k, jnp.int64), jnp.zeros(n, jnp.int64),
                jnp.full(k, n, jnp.int64))
    values, first, inverse, counts = jnp.unique(
        x, return_index=True, return_inverse=True, return_counts=True, axis=axis)
    inverse = inverse.reshape(-1)
    if not sorted:  # in the order of first occurrence
        order = jnp.argsort(first, stable=True)
        values = jnp.take(values, order, axis=0 if axis is None else axis)
        first, counts, inverse = first[order], counts[order], jnp.argsort(order)[inverse]
    return (values, first.astype(jnp.int64), inverse.astype(jnp.int64),
            counts.astype(jnp.int64))


@jax.jit(static_argnums=(2, 3, 4, 5))
def nms_slots(boxes, scores, slots, iou_threshold, score_threshold, center):
    # the static-shape part (compiled once per program, shapes and settings): the rows
    # of the boxes taken, in batch, class and taking order, padded, and their count
    n_batch, n_class, _ = scores.shape
    order = jnp.argsort(-scores, axis=-1, stable=True)  # ties: the lower index first
    ranked = jnp.take_along_axis(scores, order, -1)
    ok = jnp.ones(ranked.shape, bool) if score_threshold is None else ranked > score_threshold
    corners = [jnp.broadcast_to(v[:, None], scores.shape)
               for v in box_corners(jnp, boxes, center)]
    ranks = jnp.max(jnp.sum(ok, -1))  # past it, no pair has candidates
    slot = jnp.arange(slots)

    def running(state):
        rank, _, _, count = state
        return (rank < ranks) & jnp.any(count < slots)

    def step(state):
        rank, taken, index, count = state
        box = lax.dynamic_slice_in_dim(order, rank, 1, axis=2)
        cand = [jnp.take_along_axis(v, box, -1) for v in corners]
        return rank + 1, *nms_take(jnp, cand, box, taken, index, count, slot,
                                   ok[:, :, rank], iou_threshold)

    start = (0, [jnp.zeros((n_batch, n_class, slots), boxes.dtype) for _ in range(4)],
             jnp.zeros((n_batch, n_class, slots), order.dtype),
             jnp.zeros((n_batch, n_class), jnp.int32))
    _, _, index, count = lax.while_loop(running, step, start)
    # the rows (batch, class, box) padded to every slot, and how many are real
    b, c, k = jnp.nonzero(slot < count[..., None], size=index.size)
    return jnp.stack([b, c, index[b, c, k]], axis=1).astype(jnp.int64), jnp.sum(count)


def non_max_suppression(boxes, scores, max_out, iou_threshold, score_threshold, center):
    n_batch, n_class, n = scores.shape
    slots = min(max_out, n)
    if slots == 0 or n_batch * n_class == 0:
        return jnp.zeros((0, 3), dtype=jnp.int64)
    # the program runs op by op (a data-dependent size), so all but the final cut is
    # jitted here
    rows, found = nms_slots(boxes, scores, slots, iou_threshold, score_threshold, center)
    return rows[:int(found)]
