"""`ivy.applied`'s drone functions written natively in TensorFlow: the baseline of
`applied_overhead.py`, so that what it measures is the facade alone.

Each function is the ivy implementation transcribed op for op (the same formulas, the
same `where`s and series, the same safe-norm and floor tricks, the same helper
functions), with every `ivy.<fn>` replaced by the `tf` call a TensorFlow user writes
(`tf.one_hot`, `tf.tensor_scatter_nd_add`, `tf.clip_by_value`, Python numbers passed
straight to `tf.where` and `tf.maximum`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import tensorflow as tf

Tensor = tf.Tensor

SMALL_SQ = 1e-6
"""The squared angle below which `ivy.applied.mech` switches to its series."""


# ---- mech ----

def _sum_last(x: Tensor) -> Tensor:
    return tf.reduce_sum(x, axis=-1, keepdims=True)


def _with_w_positive(q: Tensor) -> Tensor:
    return tf.where(q[..., 3:4] < 0, -q, q)


def rot_vec_to_quaternion(rot_vec: Tensor) -> Tensor:
    sq = _sum_last(rot_vec * rot_vec)
    small = sq < SMALL_SQ
    theta = tf.sqrt(tf.where(small, 1.0, sq))
    k = tf.where(small, 0.5 - sq / 48.0 + sq * sq / 3840.0, tf.sin(theta / 2) / theta)
    w = tf.where(small, 1.0 - sq / 8.0 + sq * sq / 384.0, tf.cos(theta / 2))
    return tf.concat([rot_vec * k, w], axis=-1)


def quaternion_to_rot_mat(quaternion: Tensor) -> Tensor:
    x, y, z, w = (quaternion[..., i] for i in range(4))
    s = 2.0 / tf.reduce_sum(quaternion * quaternion, axis=-1)
    rows = [[1.0 - s * (y * y + z * z), s * (x * y - z * w), s * (x * z + y * w)],
            [s * (x * y + z * w), 1.0 - s * (x * x + z * z), s * (y * z - x * w)],
            [s * (x * z - y * w), s * (y * z + x * w), 1.0 - s * (x * x + y * y)]]
    return tf.stack([tf.stack(row, axis=-1) for row in rows], axis=-2)


def rot_vec_to_rot_mat(rot_vec: Tensor) -> Tensor:
    return quaternion_to_rot_mat(rot_vec_to_quaternion(rot_vec))


def rot_mat_to_quaternion(rot_mat: Tensor) -> Tensor:
    r = [[rot_mat[..., i, j] for j in range(3)] for i in range(3)]
    diag = r[0][0], r[1][1], r[2][2]
    pivots = tf.stack([1.0 + diag[0] + diag[1] + diag[2], 1.0 + diag[0] - diag[1] - diag[2],
                       1.0 - diag[0] + diag[1] - diag[2], 1.0 - diag[0] - diag[1] + diag[2]],
                      axis=-1)
    t = [pivots[..., i] for i in range(4)]
    wx, wy, wz = r[2][1] - r[1][2], r[0][2] - r[2][0], r[1][0] - r[0][1]
    xy, xz, yz = r[0][1] + r[1][0], r[0][2] + r[2][0], r[1][2] + r[2][1]
    candidates = tf.stack([tf.stack(c, axis=-1) for c in (
        [wx, wy, wz, t[0]], [t[1], xy, xz, wx], [xy, t[2], yz, wy], [xz, yz, t[3], wz])],
        axis=-2)
    scale = 0.5 / tf.sqrt(tf.maximum(pivots, 0.5))
    pick = tf.one_hot(tf.argmax(pivots, axis=-1), 4, dtype=rot_mat.dtype)
    q = tf.reduce_sum(tf.expand_dims(pick * scale, -1) * candidates, axis=-2)
    return _with_w_positive(q)


def rot_vec_pose_to_mat_pose(pose: Tensor) -> Tensor:
    rot = rot_vec_to_rot_mat(pose[..., 3:6])
    return tf.concat([rot, tf.expand_dims(pose[..., 0:3], -1)], axis=-1)


# ---- vision ----

def _safe_norm(v: Tensor) -> Tensor:
    sq = tf.reduce_sum(v * v, axis=-1)
    positive = sq > 0
    return tf.where(positive, tf.sqrt(tf.where(positive, sq, 1.0)), 0.0)


def cuboid_signed_distances(cuboid_ext_mats: Tensor, cuboid_dims: Tensor,
                            query_positions: Tensor) -> Tensor:
    rot = tf.expand_dims(cuboid_ext_mats[..., 0:3], -4)
    trans = tf.expand_dims(cuboid_ext_mats[..., 3], -3)
    points = tf.expand_dims(tf.expand_dims(query_positions, -2), -1)
    local = tf.linalg.matmul(rot, points)[..., 0] + trans
    excess = tf.abs(local) - tf.expand_dims(cuboid_dims, -3) / 2.0
    outside = _safe_norm(tf.maximum(excess, 0.0))
    inside = tf.minimum(tf.reduce_max(excess, axis=-1), 0.0)
    return outside + inside


def _batch_index(like: Tensor) -> Tensor:
    ones = tf.ones_like(like)
    return tf.cast(tf.cumsum(ones, axis=0) - ones, tf.int32)


def coords_to_voxel_grid(coords: Tensor, voxel_shape: Sequence[int],
                         coord_bounds: Tensor | None = None,
                         features: Tensor | None = None) -> tuple[Tensor, Tensor, Tensor]:
    shape = tuple(int(s) for s in voxel_shape)
    if len(shape) != 3 or min(shape) < 1:
        raise ValueError(f"voxel_shape must be 3 positive voxel counts, got {voxel_shape!r}")
    batch, num_points = tuple(coords.shape[:-2]), int(coords.shape[-2])
    if coord_bounds is None:
        coord_bounds = tf.concat([tf.reduce_min(coords, axis=-2),
                                  tf.reduce_max(coords, axis=-2)], axis=-1)
    bounds = tf.broadcast_to(coord_bounds, batch + (6,))
    lo, hi = tf.expand_dims(bounds[..., 0:3], -2), tf.expand_dims(bounds[..., 3:6], -2)
    counts = [float(s) for s in shape]
    extent = hi - lo
    voxel_size = tf.concat([extent[..., a:a + 1] / counts[a] for a in range(3)], axis=-1)
    inside = tf.reduce_all(tf.logical_and(coords >= lo, coords <= hi), axis=-1)
    cell = tf.floor((coords - lo) / tf.where(voxel_size > 0, voxel_size, 1.0))
    axis_index = [tf.cast(tf.clip_by_value(cell[..., a], 0.0, counts[a] - 1.0), tf.int32)
                  for a in range(3)]
    in_grid = (axis_index[0] * shape[1] + axis_index[1]) * shape[2] + axis_index[2]

    channels = [coords] if features is None else [coords, features]
    channels.append(tf.ones_like(coords[..., 0:1]))
    values = tf.concat(channels, axis=-1) * tf.cast(tf.expand_dims(inside, -1), coords.dtype)
    num_channels = int(values.shape[-1])
    values = tf.reshape(values, (-1, num_points, num_channels))
    num_batch, num_voxels = int(values.shape[0]), math.prod(shape)
    flat = _batch_index(values[..., 0]) * num_voxels + tf.reshape(in_grid, (-1, num_points))

    totals = tf.broadcast_to(tf.zeros_like(values[0:1, 0]),
                             (num_batch * num_voxels, num_channels))
    totals = tf.tensor_scatter_nd_add(totals, tf.reshape(flat, (-1, 1)),
                                      tf.reshape(values, (-1, num_channels)))
    totals = tf.reshape(totals, batch + shape + (num_channels,))
    hits = totals[..., -1:]
    means = totals[..., :-1] / tf.maximum(hits, 1.0)
    return tf.concat([means, hits], axis=-1), voxel_size[..., 0, :], bounds


# ---- robot ----

def _identity_like(x: Tensor) -> Tensor:
    ones = tf.ones_like(x)
    index = tf.cast(tf.cumsum(ones, axis=-1) - ones, tf.int32)
    return tf.one_hot(index, int(x.shape[-1]), dtype=x.dtype)


def _tridiagonal(lower: Tensor, diag: Tensor, upper: Tensor) -> Tensor:
    eye = _identity_like(diag)
    shift = tf.concat([tf.zeros_like(eye[..., 0:1]), eye[..., :-1]], axis=-1)
    return (eye * tf.expand_dims(diag, -1) + shift * tf.expand_dims(upper, -1)
            + tf.linalg.matrix_transpose(shift) * tf.expand_dims(lower, -1))


def sample_spline_path(anchor_points: Tensor, anchor_vals: Tensor,
                       sample_points: Tensor) -> Tensor:
    num_anchors = int(anchor_points.shape[-2])
    if num_anchors < 2:
        raise ValueError(f"a spline needs at least 2 anchors, got {num_anchors}")
    points = anchor_points + tf.zeros_like(anchor_vals[..., 0:1])
    vals = anchor_vals + tf.zeros_like(points)
    x = points[..., 0]
    h = x[..., 1:] - x[..., :-1]
    slopes = (vals[..., 1:, :] - vals[..., :-1, :]) / tf.expand_dims(h, -1)

    zero, one = tf.zeros_like(x[..., 0:1]), tf.ones_like(x[..., 0:1])
    system = _tridiagonal(tf.concat([zero, h[..., :-1], zero], axis=-1),
                          tf.concat([one, 2.0 * (h[..., :-1] + h[..., 1:]), one], axis=-1),
                          tf.concat([zero, h[..., 1:], zero], axis=-1))
    edge = tf.zeros_like(vals[..., 0:1, :])
    rhs = tf.concat([edge, 6.0 * (slopes[..., 1:, :] - slopes[..., :-1, :]), edge], axis=-2)
    second = tf.linalg.solve(system, rhs)

    above = tf.cast(sample_points >= tf.expand_dims(x[..., 1:-1], -2), tf.int32)
    piece = tf.one_hot(tf.reduce_sum(above, axis=-1), num_anchors - 1, dtype=x.dtype)
    knots = tf.concat([points, vals, second], axis=-1)
    left = tf.linalg.matmul(piece, knots[..., :-1, :])
    right = tf.linalg.matmul(piece, knots[..., 1:, :])
    dims = int(vals.shape[-1])
    x0, y0, m0 = left[..., 0:1], left[..., 1:1 + dims], left[..., 1 + dims:]
    x1, y1, m1 = right[..., 0:1], right[..., 1:1 + dims], right[..., 1 + dims:]
    width = x1 - x0
    to_right, from_left = x1 - sample_points, sample_points - x0
    return ((m0 * to_right ** 3 + m1 * from_left ** 3) / (6.0 * width)
            + (y0 / width - m0 * width / 6.0) * to_right
            + (y1 / width - m1 * width / 6.0) * from_left)


def sample_body(rel_body_points: Tensor, inv_ext_mats: Tensor) -> Tensor:
    """`RigidMobile(rel_body_points).sample_body(inv_ext_mats)`."""
    rot_t = tf.linalg.matrix_transpose(inv_ext_mats[..., 0:3])
    moved = tf.linalg.matmul(rel_body_points, rot_t)
    return moved + tf.expand_dims(inv_ext_mats[..., 3], -2)

