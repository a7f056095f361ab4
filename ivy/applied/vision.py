"""Geometry of the scene: the pieces of the 2021 paper's ivy_vision that its drone uses.

The signed distances make the drone's collision cost, so they must differentiate
everywhere, inside the boxes included; the voxel grid bins point clouds, summing into
the grid with `ivy.scatter_add` (the facade's accumulating scatter, duplicates added).
Both take any leading batch dimensions and call `ivy` alone.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import ivy

Array = Any


def _safe_norm(v: Array) -> Array:
    """Euclidean norm over the last axis whose gradient at the zero vector is zero, not
    NaN (the square root's infinite slope at 0 is never differentiated there)."""
    sq = ivy.sum(v * v, axis=-1)
    positive = sq > 0
    return ivy.where(positive, ivy.sqrt(ivy.where(positive, sq, 1.0)), 0.0)


def cuboid_signed_distances(cuboid_ext_mats: Array, cuboid_dims: Array,
                            query_positions: Array) -> Array:
    """Exact signed distance from every query point to every box, negative inside.

    cuboid_ext_mats [..., n, 3, 4] map world coordinates into each box's own frame (the
    inverse of the box's pose), where the box is centred at the origin with full side
    lengths cuboid_dims [..., n, 3]; query_positions [..., m, 3] -> [..., m, n]. Outside
    a box the value is the Euclidean distance to it; inside, minus the distance to the
    nearest face. The leading dimensions of the three inputs broadcast together.
    """
    rot = ivy.expand_dims(cuboid_ext_mats[..., 0:3], axis=-4)  # [..., 1, n, 3, 3]
    trans = ivy.expand_dims(cuboid_ext_mats[..., 3], axis=-3)  # [..., 1, n, 3]
    points = ivy.expand_dims(ivy.expand_dims(query_positions, axis=-2), axis=-1)
    local = ivy.matmul(rot, points)[..., 0] + trans  # [..., m, n, 3]
    excess = ivy.abs(local) - ivy.expand_dims(cuboid_dims, axis=-3) / 2.0
    outside = _safe_norm(ivy.maximum(excess, 0.0))
    inside = ivy.minimum(ivy.max(excess, axis=-1), 0.0)
    return outside + inside


def _batch_index(like: Array) -> Array:
    """[B, N] -> [B, N] int32 holding each row's number, built from `like` alone so
    that it lands on like's framework (with no backend set, `ivy.arange` would not
    know which one)."""
    ones = ivy.ones_like(like)
    return ivy.astype(ivy.cumsum(ones, axis=0) - ones, ivy.int32)


def coords_to_voxel_grid(coords: Array, voxel_shape: Sequence[int],
                         coord_bounds: Array | None = None,
                         features: Array | None = None) -> tuple[Array, Array, Array]:
    """Bin point clouds into voxel grids.

    coords [..., N, 3]; voxel_shape (X, Y, Z) voxels per axis; coord_bounds [..., 6] =
    (x_min, y_min, z_min, x_max, y_max, z_max), default each cloud's own extent;
    features [..., N, F] or None. Returns (grid [..., X, Y, Z, 3 + F + 1], voxel_size
    [..., 3], bounds [..., 6]): each voxel holds the mean coordinates (and features) of
    its points then their count, zeros where empty. Voxels are half-open
    [lo, lo + size) except the last along each axis, which also takes the upper bound,
    so that the default bounds keep every point; points outside the bounds are dropped.
    """
    shape = tuple(int(s) for s in voxel_shape)
    if len(shape) != 3 or min(shape) < 1:
        raise ValueError(f"voxel_shape must be 3 positive voxel counts, got {voxel_shape!r}")
    batch, num_points = tuple(coords.shape[:-2]), int(coords.shape[-2])
    if coord_bounds is None:
        coord_bounds = ivy.concat([ivy.min(coords, axis=-2), ivy.max(coords, axis=-2)],
                                  axis=-1)
    bounds = ivy.broadcast_to(coord_bounds, batch + (6,))
    lo, hi = ivy.expand_dims(bounds[..., 0:3], axis=-2), ivy.expand_dims(bounds[..., 3:6],
                                                                         axis=-2)
    counts = [float(s) for s in shape]
    extent = hi - lo
    voxel_size = ivy.concat([extent[..., a:a + 1] / counts[a] for a in range(3)], axis=-1)
    inside = ivy.all(ivy.logical_and(coords >= lo, coords <= hi), axis=-1)
    # a flat extent (all points in one plane) puts every point in the axis' first voxel
    cell = ivy.floor((coords - lo) / ivy.where(voxel_size > 0, voxel_size, 1.0))
    axis_index = [ivy.astype(ivy.clip(cell[..., a], 0.0, counts[a] - 1.0), ivy.int32)
                  for a in range(3)]
    in_grid = (axis_index[0] * shape[1] + axis_index[1]) * shape[2] + axis_index[2]

    channels = [coords] if features is None else [coords, features]
    channels.append(ivy.ones_like(coords[..., 0:1]))
    values = ivy.concat(channels, axis=-1) * ivy.astype(
        ivy.expand_dims(inside, axis=-1), coords.dtype)
    num_channels = int(values.shape[-1])
    values = ivy.reshape(values, (-1, num_points, num_channels))
    num_batch, num_voxels = int(values.shape[0]), math.prod(shape)
    flat = _batch_index(values[..., 0]) * num_voxels + ivy.reshape(in_grid, (-1, num_points))

    totals = ivy.broadcast_to(ivy.zeros_like(values[0:1, 0]),
                              (num_batch * num_voxels, num_channels))
    totals = ivy.scatter_add(totals, ivy.reshape(flat, (-1, 1)),
                             ivy.reshape(values, (-1, num_channels)))
    totals = ivy.reshape(totals, batch + shape + (num_channels,))
    hits = totals[..., -1:]
    means = totals[..., :-1] / ivy.maximum(hits, 1.0)
    return ivy.concat([means, hits], axis=-1), voxel_size[..., 0, :], bounds
