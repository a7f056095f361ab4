"""Paths and bodies: the pieces of the 2021 paper's ivy_robot that its drone uses.

The drone's planner optimises a few anchor points of a spline by gradient descent, so
the spline is a linear solve in the facade (`ivy.linalg.solve`), differentiable in the
anchors on every framework, and a rigid body is a fixed point set moved by a pose.
"""

from __future__ import annotations

from typing import Any

import ivy

Array = Any


def _identity_like(x: Array) -> Array:
    """[..., A] -> [..., A, A] identities, made from `x` itself so that they land on its
    framework and dtype (`ivy.eye` with no array argument would default to NumPy)."""
    ones = ivy.ones_like(x)
    index = ivy.astype(ivy.cumsum(ones, axis=-1) - ones, ivy.int32)
    return ivy.one_hot(index, int(x.shape[-1]), dtype=x.dtype)


def _tridiagonal(lower: Array, diag: Array, upper: Array) -> Array:
    """[..., A] each -> [..., A, A] with `diag` on the diagonal and row r holding
    lower[r] at column r - 1 and upper[r] at column r + 1 (lower[0] and upper[-1] are
    ignored)."""
    eye = _identity_like(diag)
    shift = ivy.concat([ivy.zeros_like(eye[..., 0:1]), eye[..., :-1]], axis=-1)  # [r, r+1]
    return (eye * ivy.expand_dims(diag, axis=-1) + shift * ivy.expand_dims(upper, axis=-1)
            + ivy.matrix_transpose(shift) * ivy.expand_dims(lower, axis=-1))


def sample_spline_path(anchor_points: Array, anchor_vals: Array,
                       sample_points: Array) -> Array:
    """The natural cubic spline through the anchors, evaluated at the sample points.

    anchor_points [..., A, 1] (strictly increasing, A >= 2), anchor_vals [..., A, D],
    sample_points [..., S, 1] -> [..., S, D]; leading dimensions broadcast. The second
    derivative is zero at both ends, and outside the anchors the end pieces extend, as
    with `scipy.interpolate.CubicSpline(..., bc_type='natural')`.
    """
    num_anchors = int(anchor_points.shape[-2])
    if num_anchors < 2:
        raise ValueError(f"a spline needs at least 2 anchors, got {num_anchors}")
    points = anchor_points + ivy.zeros_like(anchor_vals[..., 0:1])
    vals = anchor_vals + ivy.zeros_like(points)
    x = points[..., 0]  # [..., A]
    h = x[..., 1:] - x[..., :-1]
    slopes = (vals[..., 1:, :] - vals[..., :-1, :]) / ivy.expand_dims(h, axis=-1)

    # second derivatives m: m_0 = m_{A-1} = 0 and, for the rows between,
    # h_{i-1} m_{i-1} + 2 (h_{i-1} + h_i) m_i + h_i m_{i+1} = 6 (slope_i - slope_{i-1})
    zero, one = ivy.zeros_like(x[..., 0:1]), ivy.ones_like(x[..., 0:1])
    system = _tridiagonal(ivy.concat([zero, h[..., :-1], zero], axis=-1),
                          ivy.concat([one, 2.0 * (h[..., :-1] + h[..., 1:]), one], axis=-1),
                          ivy.concat([zero, h[..., 1:], zero], axis=-1))
    edge = ivy.zeros_like(vals[..., 0:1, :])
    rhs = ivy.concat([edge, 6.0 * (slopes[..., 1:, :] - slopes[..., :-1, :]), edge], axis=-2)
    second = ivy.linalg.solve(system, rhs)  # [..., A, D]

    # each sample's piece: the number of inner anchors at or before it
    above = ivy.astype(sample_points >= ivy.expand_dims(x[..., 1:-1], axis=-2), ivy.int32)
    piece = ivy.one_hot(ivy.sum(above, axis=-1), num_anchors - 1, dtype=x.dtype)
    knots = ivy.concat([points, vals, second], axis=-1)  # [..., A, 1 + 2D]
    left = ivy.matmul(piece, knots[..., :-1, :])
    right = ivy.matmul(piece, knots[..., 1:, :])
    dims = int(vals.shape[-1])
    x0, y0, m0 = left[..., 0:1], left[..., 1:1 + dims], left[..., 1 + dims:]
    x1, y1, m1 = right[..., 0:1], right[..., 1:1 + dims], right[..., 1 + dims:]
    width = x1 - x0
    to_right, from_left = x1 - sample_points, sample_points - x0
    return ((m0 * to_right ** 3 + m1 * from_left ** 3) / (6.0 * width)
            + (y0 / width - m0 * width / 6.0) * to_right
            + (y1 / width - m1 * width / 6.0) * from_left)


class RigidMobile:
    """A rigid body given by points in its own frame, placed in the world by poses."""

    def __init__(self, rel_body_points: Array) -> None:
        """rel_body_points [N, 3]: the body's points in its own frame, an array of the
        framework (and dtype) the poses will come in."""
        if len(rel_body_points.shape) != 2 or int(rel_body_points.shape[-1]) != 3:
            raise ValueError("rel_body_points must have shape [N, 3], got "
                             f"{tuple(rel_body_points.shape)}")
        self._rel_body_points = rel_body_points

    @property
    def rel_body_points(self) -> Array:
        return self._rel_body_points

    @property
    def num_body_points(self) -> int:
        return int(self._rel_body_points.shape[0])

    def sample_body(self, inv_ext_mats: Array) -> Array:
        """inv_ext_mats [..., 3, 4] body-to-world transforms [R | t] -> [..., N, 3], the
        body's points in the world for each pose."""
        rot_t = ivy.matrix_transpose(inv_ext_mats[..., 0:3])
        moved = ivy.matmul(self._rel_body_points, rot_t)  # [..., N, 3]
        return moved + ivy.expand_dims(inv_ext_mats[..., 3], axis=-2)
