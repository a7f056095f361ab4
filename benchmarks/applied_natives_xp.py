"""`ivy.applied`'s drone functions written natively for NumPy and `jax.numpy`: the
baseline of `applied_overhead.py`, so that what it measures is the facade alone.

Each function is the ivy implementation transcribed op for op (the same formulas, the
same `where`s and series, the same safe-norm and floor tricks, even the same helper
functions, so that both sides run as many Python frames of their own), with every
`ivy.<fn>` replaced by the namespace's own call. The two namespaces agree on all of
it but the one-hot and the accumulating scatter, which the constructor takes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

Array = Any

SMALL_SQ = 1e-6
"""The squared angle below which `ivy.applied.mech` switches to its series."""


def numpy_one_hot(indices: Array, depth: int, dtype: Any) -> Array:
    """NumPy has no one-hot: the comparison with a range, as one writes it by hand."""
    import numpy as np
    return (indices[..., None] == np.arange(depth)).astype(dtype)


def numpy_scatter_add(x: Array, index: Array, updates: Array) -> Array:
    """Rows `index` of a copy of `x` plus `updates`, duplicates accumulated."""
    import numpy as np
    out = x.copy()
    np.add.at(out, index, updates)
    return out


def jax_one_hot(indices: Array, depth: int, dtype: Any) -> Array:
    import jax
    return jax.nn.one_hot(indices, depth, dtype=dtype)


def jax_scatter_add(x: Array, index: Array, updates: Array) -> Array:
    return x.at[index].add(updates)


class XpApplied:
    """The applied functions on one array namespace (`numpy` or `jax.numpy`)."""

    def __init__(self, xp: ModuleType, one_hot: Callable[[Array, int, Any], Array],
                 scatter_add: Callable[[Array, Array, Array], Array]) -> None:
        self._xp = xp
        self._one_hot = one_hot
        self._scatter_add = scatter_add

    # ---- mech ----
    def _sum_last(self, x: Array) -> Array:
        return self._xp.sum(x, axis=-1, keepdims=True)

    def _with_w_positive(self, q: Array) -> Array:
        return self._xp.where(q[..., 3:4] < 0, -q, q)

    def rot_vec_to_quaternion(self, rot_vec: Array) -> Array:
        xp = self._xp
        sq = self._sum_last(rot_vec * rot_vec)
        small = sq < SMALL_SQ
        theta = xp.sqrt(xp.where(small, 1.0, sq))
        k = xp.where(small, 0.5 - sq / 48.0 + sq * sq / 3840.0, xp.sin(theta / 2) / theta)
        w = xp.where(small, 1.0 - sq / 8.0 + sq * sq / 384.0, xp.cos(theta / 2))
        return xp.concatenate([rot_vec * k, w], axis=-1)

    def quaternion_to_rot_mat(self, quaternion: Array) -> Array:
        xp = self._xp
        x, y, z, w = (quaternion[..., i] for i in range(4))
        s = 2.0 / xp.sum(quaternion * quaternion, axis=-1)
        rows = [[1.0 - s * (y * y + z * z), s * (x * y - z * w), s * (x * z + y * w)],
                [s * (x * y + z * w), 1.0 - s * (x * x + z * z), s * (y * z - x * w)],
                [s * (x * z - y * w), s * (y * z + x * w), 1.0 - s * (x * x + y * y)]]
        return xp.stack([xp.stack(row, axis=-1) for row in rows], axis=-2)

    def rot_vec_to_rot_mat(self, rot_vec: Array) -> Array:
        return self.quaternion_to_rot_mat(self.rot_vec_to_quaternion(rot_vec))

    def rot_mat_to_quaternion(self, rot_mat: Array) -> Array:
        xp = self._xp
        r = [[rot_mat[..., i, j] for j in range(3)] for i in range(3)]
        diag = r[0][0], r[1][1], r[2][2]
        pivots = xp.stack([1.0 + diag[0] + diag[1] + diag[2],
                           1.0 + diag[0] - diag[1] - diag[2],
                           1.0 - diag[0] + diag[1] - diag[2],
                           1.0 - diag[0] - diag[1] + diag[2]], axis=-1)
        t = [pivots[..., i] for i in range(4)]
        wx, wy, wz = r[2][1] - r[1][2], r[0][2] - r[2][0], r[1][0] - r[0][1]
        xy, xz, yz = r[0][1] + r[1][0], r[0][2] + r[2][0], r[1][2] + r[2][1]
        candidates = xp.stack([xp.stack(c, axis=-1) for c in (
            [wx, wy, wz, t[0]], [t[1], xy, xz, wx], [xy, t[2], yz, wy], [xz, yz, t[3], wz])],
            axis=-2)
        scale = 0.5 / xp.sqrt(xp.maximum(pivots, 0.5))
        pick = self._one_hot(xp.argmax(pivots, axis=-1), 4, rot_mat.dtype)
        q = xp.sum(xp.expand_dims(pick * scale, axis=-1) * candidates, axis=-2)
        return self._with_w_positive(q)

    def rot_vec_pose_to_mat_pose(self, pose: Array) -> Array:
        xp = self._xp
        rot = self.rot_vec_to_rot_mat(pose[..., 3:6])
        return xp.concatenate([rot, xp.expand_dims(pose[..., 0:3], axis=-1)], axis=-1)

    # ---- vision ----
    def _safe_norm(self, v: Array) -> Array:
        xp = self._xp
        sq = xp.sum(v * v, axis=-1)
        positive = sq > 0
        return xp.where(positive, xp.sqrt(xp.where(positive, sq, 1.0)), 0.0)

    def cuboid_signed_distances(self, cuboid_ext_mats: Array, cuboid_dims: Array,
                                query_positions: Array) -> Array:
        xp = self._xp
        rot = xp.expand_dims(cuboid_ext_mats[..., 0:3], axis=-4)
        trans = xp.expand_dims(cuboid_ext_mats[..., 3], axis=-3)
        points = xp.expand_dims(xp.expand_dims(query_positions, axis=-2), axis=-1)
        local = xp.matmul(rot, points)[..., 0] + trans
        excess = xp.abs(local) - xp.expand_dims(cuboid_dims, axis=-3) / 2.0
        outside = self._safe_norm(xp.maximum(excess, 0.0))
        inside = xp.minimum(xp.max(excess, axis=-1), 0.0)
        return outside + inside

    def _batch_index(self, like: Array) -> Array:
        xp = self._xp
        ones = xp.ones_like(like)
        return (xp.cumsum(ones, axis=0) - ones).astype(xp.int32)

    def coords_to_voxel_grid(self, coords: Array, voxel_shape: Sequence[int],
                             coord_bounds: Array | None = None,
                             features: Array | None = None) -> tuple[Array, Array, Array]:
        xp = self._xp
        shape = tuple(int(s) for s in voxel_shape)
        if len(shape) != 3 or min(shape) < 1:
            raise ValueError(f"voxel_shape must be 3 positive voxel counts, got {voxel_shape!r}")
        batch, num_points = tuple(coords.shape[:-2]), int(coords.shape[-2])
        if coord_bounds is None:
            coord_bounds = xp.concatenate([xp.min(coords, axis=-2), xp.max(coords, axis=-2)],
                                          axis=-1)
        bounds = xp.broadcast_to(coord_bounds, batch + (6,))
        lo = xp.expand_dims(bounds[..., 0:3], axis=-2)
        hi = xp.expand_dims(bounds[..., 3:6], axis=-2)
        counts = [float(s) for s in shape]
        extent = hi - lo
        voxel_size = xp.concatenate([extent[..., a:a + 1] / counts[a] for a in range(3)],
                                    axis=-1)
        inside = xp.all(xp.logical_and(coords >= lo, coords <= hi), axis=-1)
        cell = xp.floor((coords - lo) / xp.where(voxel_size > 0, voxel_size, 1.0))
        axis_index = [xp.clip(cell[..., a], 0.0, counts[a] - 1.0).astype(xp.int32)
                      for a in range(3)]
        in_grid = (axis_index[0] * shape[1] + axis_index[1]) * shape[2] + axis_index[2]

        channels = [coords] if features is None else [coords, features]
        channels.append(xp.ones_like(coords[..., 0:1]))
        values = xp.concatenate(channels, axis=-1) * xp.expand_dims(inside, axis=-1).astype(
            coords.dtype)
        num_channels = int(values.shape[-1])
        values = xp.reshape(values, (-1, num_points, num_channels))
        num_batch, num_voxels = int(values.shape[0]), math.prod(shape)
        flat = (self._batch_index(values[..., 0]) * num_voxels
                + xp.reshape(in_grid, (-1, num_points)))

        totals = xp.broadcast_to(xp.zeros_like(values[0:1, 0]),
                                 (num_batch * num_voxels, num_channels))
        totals = self._scatter_add(totals, xp.reshape(flat, (-1,)),
                                   xp.reshape(values, (-1, num_channels)))
        totals = xp.reshape(totals, batch + shape + (num_channels,))
        hits = totals[..., -1:]
        means = totals[..., :-1] / xp.maximum(hits, 1.0)
        return xp.concatenate([means, hits], axis=-1), voxel_size[..., 0, :], bounds

    # ---- robot ----
    def _identity_like(self, x: Array) -> Array:
        xp = self._xp
        ones = xp.ones_like(x)
        index = (xp.cumsum(ones, axis=-1) - ones).astype(xp.int32)
        return self._one_hot(index, int(x.shape[-1]), x.dtype)

    def _tridiagonal(self, lower: Array, diag: Array, upper: Array) -> Array:
        xp = self._xp
        eye = self._identity_like(diag)
        shift = xp.concatenate([xp.zeros_like(eye[..., 0:1]), eye[..., :-1]], axis=-1)
        return (eye * xp.expand_dims(diag, axis=-1) + shift * xp.expand_dims(upper, axis=-1)
                + xp.matrix_transpose(shift) * xp.expand_dims(lower, axis=-1))

    def sample_spline_path(self, anchor_points: Array, anchor_vals: Array,
                           sample_points: Array) -> Array:
        xp = self._xp
        num_anchors = int(anchor_points.shape[-2])
        if num_anchors < 2:
            raise ValueError(f"a spline needs at least 2 anchors, got {num_anchors}")
        points = anchor_points + xp.zeros_like(anchor_vals[..., 0:1])
        vals = anchor_vals + xp.zeros_like(points)
        x = points[..., 0]
        h = x[..., 1:] - x[..., :-1]
        slopes = (vals[..., 1:, :] - vals[..., :-1, :]) / xp.expand_dims(h, axis=-1)

        zero, one = xp.zeros_like(x[..., 0:1]), xp.ones_like(x[..., 0:1])
        system = self._tridiagonal(
            xp.concatenate([zero, h[..., :-1], zero], axis=-1),
            xp.concatenate([one, 2.0 * (h[..., :-1] + h[..., 1:]), one], axis=-1),
            xp.concatenate([zero, h[..., 1:], zero], axis=-1))
        edge = xp.zeros_like(vals[..., 0:1, :])
        rhs = xp.concatenate([edge, 6.0 * (slopes[..., 1:, :] - slopes[..., :-1, :]), edge],
                             axis=-2)
        second = xp.linalg.solve(system, rhs)

        above = (sample_points >= xp.expand_dims(x[..., 1:-1], axis=-2)).astype(xp.int32)
        piece = self._one_hot(xp.sum(above, axis=-1), num_anchors - 1, x.dtype)
        knots = xp.concatenate([points, vals, second], axis=-1)
        left = xp.matmul(piece, knots[..., :-1, :])
        right = xp.matmul(piece, knots[..., 1:, :])
        dims = int(vals.shape[-1])
        x0, y0, m0 = left[..., 0:1], left[..., 1:1 + dims], left[..., 1 + dims:]
        x1, y1, m1 = right[..., 0:1], right[..., 1:1 + dims], right[..., 1 + dims:]
        width = x1 - x0
        to_right, from_left = x1 - sample_points, sample_points - x0
        return ((m0 * to_right ** 3 + m1 * from_left ** 3) / (6.0 * width)
                + (y0 / width - m0 * width / 6.0) * to_right
                + (y1 / width - m1 * width / 6.0) * from_left)

    def sample_body(self, rel_body_points: Array, inv_ext_mats: Array) -> Array:
        """`RigidMobile(rel_body_points).sample_body(inv_ext_mats)`."""
        xp = self._xp
        rot_t = xp.matrix_transpose(inv_ext_mats[..., 0:3])
        moved = xp.matmul(rel_body_points, rot_t)
        return moved + xp.expand_dims(inv_ext_mats[..., 3], axis=-2)


def make(backend: str) -> XpApplied:
    """The native functions of 'numpy' or 'jax'."""
    if backend == "numpy":
        import numpy as np
        return XpApplied(np, numpy_one_hot, numpy_scatter_add)
    import jax.numpy as jnp
    return XpApplied(jnp, jax_one_hot, jax_scatter_add)
