"""`ivy.applied`'s drone functions written natively in torch: the baseline of
`applied_overhead.py`, so that what it measures is the facade alone.

Each function is the ivy implementation transcribed op for op (the same formulas, the
same `where`s and series, the same safe-norm and floor tricks, the same helper
functions), with every `ivy.<fn>` replaced by the call a torch user writes: a bound
with a Python number is `torch.clamp` (`torch.maximum` takes tensors only), the
one-hot is the comparison with a range (`F.one_hot` wants int64 and checks the range
with two reductions), and the accumulating scatter is `index_put(accumulate=True)`
(`index_add` takes the same int32 index ~8x slower on this CPU, which would flatter
the facade).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch

Tensor = torch.Tensor

SMALL_SQ = 1e-6
"""The squared angle below which `ivy.applied.mech` switches to its series."""


def _one_hot(indices: Tensor, depth: int, dtype: torch.dtype) -> Tensor:
    return (indices.unsqueeze(-1) == torch.arange(depth)).to(dtype)


# ---- mech ----

def _sum_last(x: Tensor) -> Tensor:
    return torch.sum(x, dim=-1, keepdim=True)


def _with_w_positive(q: Tensor) -> Tensor:
    return torch.where(q[..., 3:4] < 0, -q, q)


def rot_vec_to_quaternion(rot_vec: Tensor) -> Tensor:
    sq = _sum_last(rot_vec * rot_vec)
    small = sq < SMALL_SQ
    theta = torch.sqrt(torch.where(small, 1.0, sq))
    k = torch.where(small, 0.5 - sq / 48.0 + sq * sq / 3840.0, torch.sin(theta / 2) / theta)
    w = torch.where(small, 1.0 - sq / 8.0 + sq * sq / 384.0, torch.cos(theta / 2))
    return torch.cat([rot_vec * k, w], dim=-1)


def quaternion_to_rot_mat(quaternion: Tensor) -> Tensor:
    x, y, z, w = (quaternion[..., i] for i in range(4))
    s = 2.0 / torch.sum(quaternion * quaternion, dim=-1)
    rows = [[1.0 - s * (y * y + z * z), s * (x * y - z * w), s * (x * z + y * w)],
            [s * (x * y + z * w), 1.0 - s * (x * x + z * z), s * (y * z - x * w)],
            [s * (x * z - y * w), s * (y * z + x * w), 1.0 - s * (x * x + y * y)]]
    return torch.stack([torch.stack(row, dim=-1) for row in rows], dim=-2)


def rot_vec_to_rot_mat(rot_vec: Tensor) -> Tensor:
    return quaternion_to_rot_mat(rot_vec_to_quaternion(rot_vec))


def rot_mat_to_quaternion(rot_mat: Tensor) -> Tensor:
    r = [[rot_mat[..., i, j] for j in range(3)] for i in range(3)]
    diag = r[0][0], r[1][1], r[2][2]
    pivots = torch.stack([1.0 + diag[0] + diag[1] + diag[2], 1.0 + diag[0] - diag[1] - diag[2],
                          1.0 - diag[0] + diag[1] - diag[2], 1.0 - diag[0] - diag[1] + diag[2]],
                         dim=-1)
    t = [pivots[..., i] for i in range(4)]
    wx, wy, wz = r[2][1] - r[1][2], r[0][2] - r[2][0], r[1][0] - r[0][1]
    xy, xz, yz = r[0][1] + r[1][0], r[0][2] + r[2][0], r[1][2] + r[2][1]
    candidates = torch.stack([torch.stack(c, dim=-1) for c in (
        [wx, wy, wz, t[0]], [t[1], xy, xz, wx], [xy, t[2], yz, wy], [xz, yz, t[3], wz])],
        dim=-2)
    scale = 0.5 / torch.sqrt(torch.clamp(pivots, min=0.5))
    pick = _one_hot(torch.argmax(pivots, dim=-1), 4, rot_mat.dtype)
    q = torch.sum(torch.unsqueeze(pick * scale, -1) * candidates, dim=-2)
    return _with_w_positive(q)


def rot_vec_pose_to_mat_pose(pose: Tensor) -> Tensor:
    rot = rot_vec_to_rot_mat(pose[..., 3:6])
    return torch.cat([rot, torch.unsqueeze(pose[..., 0:3], -1)], dim=-1)


# ---- vision ----

def _safe_norm(v: Tensor) -> Tensor:
    sq = torch.sum(v * v, dim=-1)
    positive = sq > 0
    return torch.where(positive, torch.sqrt(torch.where(positive, sq, 1.0)), 0.0)


def cuboid_signed_distances(cuboid_ext_mats: Tensor, cuboid_dims: Tensor,
                            query_positions: Tensor) -> Tensor:
    rot = torch.unsqueeze(cuboid_ext_mats[..., 0:3], -4)
    trans = torch.unsqueeze(cuboid_ext_mats[..., 3], -3)
    points = torch.unsqueeze(torch.unsqueeze(query_positions, -2), -1)
    local = torch.matmul(rot, points)[..., 0] + trans
    excess = torch.abs(local) - torch.unsqueeze(cuboid_dims, -3) / 2.0
    outside = _safe_norm(torch.clamp(excess, min=0.0))
    inside = torch.clamp(torch.amax(excess, dim=-1), max=0.0)
    return outside + inside


def _batch_index(like: Tensor) -> Tensor:
    ones = torch.ones_like(like)
    return (torch.cumsum(ones, dim=0) - ones).to(torch.int32)


def coords_to_voxel_grid(coords: Tensor, voxel_shape: Sequence[int],
                         coord_bounds: Tensor | None = None,
                         features: Tensor | None = None) -> tuple[Tensor, Tensor, Tensor]:
    shape = tuple(int(s) for s in voxel_shape)
    if len(shape) != 3 or min(shape) < 1:
        raise ValueError(f"voxel_shape must be 3 positive voxel counts, got {voxel_shape!r}")
    batch, num_points = tuple(coords.shape[:-2]), int(coords.shape[-2])
    if coord_bounds is None:
        coord_bounds = torch.cat([torch.amin(coords, dim=-2), torch.amax(coords, dim=-2)],
                                 dim=-1)
    bounds = torch.broadcast_to(coord_bounds, batch + (6,))
    lo, hi = torch.unsqueeze(bounds[..., 0:3], -2), torch.unsqueeze(bounds[..., 3:6], -2)
    counts = [float(s) for s in shape]
    extent = hi - lo
    voxel_size = torch.cat([extent[..., a:a + 1] / counts[a] for a in range(3)], dim=-1)
    inside = torch.all(torch.logical_and(coords >= lo, coords <= hi), dim=-1)
    cell = torch.floor((coords - lo) / torch.where(voxel_size > 0, voxel_size, 1.0))
    axis_index = [torch.clamp(cell[..., a], 0.0, counts[a] - 1.0).to(torch.int32)
                  for a in range(3)]
    in_grid = (axis_index[0] * shape[1] + axis_index[1]) * shape[2] + axis_index[2]

    channels = [coords] if features is None else [coords, features]
    channels.append(torch.ones_like(coords[..., 0:1]))
    values = torch.cat(channels, dim=-1) * torch.unsqueeze(inside, -1).to(coords.dtype)
    num_channels = int(values.shape[-1])
    values = torch.reshape(values, (-1, num_points, num_channels))
    num_batch, num_voxels = int(values.shape[0]), math.prod(shape)
    flat = _batch_index(values[..., 0]) * num_voxels + torch.reshape(in_grid, (-1, num_points))

    totals = torch.broadcast_to(torch.zeros_like(values[0:1, 0]),
                                (num_batch * num_voxels, num_channels))
    totals = totals.index_put((torch.reshape(flat, (-1,)),),
                              torch.reshape(values, (-1, num_channels)), accumulate=True)
    totals = torch.reshape(totals, batch + shape + (num_channels,))
    hits = totals[..., -1:]
    means = totals[..., :-1] / torch.clamp(hits, min=1.0)
    return torch.cat([means, hits], dim=-1), voxel_size[..., 0, :], bounds


# ---- robot ----

def _identity_like(x: Tensor) -> Tensor:
    ones = torch.ones_like(x)
    index = (torch.cumsum(ones, dim=-1) - ones).to(torch.int32)
    return _one_hot(index, int(x.shape[-1]), x.dtype)


def _tridiagonal(lower: Tensor, diag: Tensor, upper: Tensor) -> Tensor:
    eye = _identity_like(diag)
    shift = torch.cat([torch.zeros_like(eye[..., 0:1]), eye[..., :-1]], dim=-1)
    return (eye * torch.unsqueeze(diag, -1) + shift * torch.unsqueeze(upper, -1)
            + shift.mT * torch.unsqueeze(lower, -1))


def sample_spline_path(anchor_points: Tensor, anchor_vals: Tensor,
                       sample_points: Tensor) -> Tensor:
    num_anchors = int(anchor_points.shape[-2])
    if num_anchors < 2:
        raise ValueError(f"a spline needs at least 2 anchors, got {num_anchors}")
    points = anchor_points + torch.zeros_like(anchor_vals[..., 0:1])
    vals = anchor_vals + torch.zeros_like(points)
    x = points[..., 0]
    h = x[..., 1:] - x[..., :-1]
    slopes = (vals[..., 1:, :] - vals[..., :-1, :]) / torch.unsqueeze(h, -1)

    zero, one = torch.zeros_like(x[..., 0:1]), torch.ones_like(x[..., 0:1])
    system = _tridiagonal(torch.cat([zero, h[..., :-1], zero], dim=-1),
                          torch.cat([one, 2.0 * (h[..., :-1] + h[..., 1:]), one], dim=-1),
                          torch.cat([zero, h[..., 1:], zero], dim=-1))
    edge = torch.zeros_like(vals[..., 0:1, :])
    rhs = torch.cat([edge, 6.0 * (slopes[..., 1:, :] - slopes[..., :-1, :]), edge], dim=-2)
    second = torch.linalg.solve(system, rhs)

    above = (sample_points >= torch.unsqueeze(x[..., 1:-1], -2)).to(torch.int32)
    piece = _one_hot(torch.sum(above, dim=-1), num_anchors - 1, x.dtype)
    knots = torch.cat([points, vals, second], dim=-1)
    left = torch.matmul(piece, knots[..., :-1, :])
    right = torch.matmul(piece, knots[..., 1:, :])
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
    rot_t = inv_ext_mats[..., 0:3].mT
    moved = torch.matmul(rel_body_points, rot_t)
    return moved + torch.unsqueeze(inv_ext_mats[..., 3], -2)

