"""Rotations and poses: the pieces of the 2021 paper's ivy_mech that its drone uses.

Conventions: rotation vectors are axis * angle; quaternions are (x, y, z, w), as in
SciPy; a pose matrix [..., 3, 4] holds the rotation beside the translation and maps
body coordinates into world ones. Every function takes any leading batch dimensions
and calls `ivy` alone, so it runs (and differentiates) on whichever framework holds
its input, keeping that input's float dtype.

The closed forms of these conversions divide by the rotation angle, whose square root
has an infinite derivative at zero; `ivy.where` would then multiply that infinity by a
zero cotangent and give NaN gradients. So each one swaps in its Taylor series below a
small squared angle, and feeds the unused branch a harmless value, never the zero.
"""

from __future__ import annotations

from typing import Any

import ivy

Array = Any

_SMALL_SQ = 1e-6
"""Squared angle (or squared vector part) below which the series replace the closed
forms: their first omitted terms are then ~1e-15, beneath float64 rounding."""

_AXIS_INDEX = {"x": 0, "y": 1, "z": 2}


def _sum_last(x: Array) -> Array:
    return ivy.sum(x, axis=-1, keepdims=True)


def _with_w_positive(q: Array) -> Array:
    """q or -q, whichever has w >= 0: the same rotation, taken with angle in [0, pi]."""
    return ivy.where(q[..., 3:4] < 0, -q, q)


def rot_vec_to_quaternion(rot_vec: Array) -> Array:
    """[..., 3] axis-angle vectors -> [..., 4] unit quaternions (x, y, z, w)."""
    sq = _sum_last(rot_vec * rot_vec)
    small = sq < _SMALL_SQ
    theta = ivy.sqrt(ivy.where(small, 1.0, sq))
    # sin(t/2)/t and cos(t/2), with their series around t = 0
    k = ivy.where(small, 0.5 - sq / 48.0 + sq * sq / 3840.0, ivy.sin(theta / 2) / theta)
    w = ivy.where(small, 1.0 - sq / 8.0 + sq * sq / 384.0, ivy.cos(theta / 2))
    return ivy.concat([rot_vec * k, w], axis=-1)


def quaternion_to_rot_mat(quaternion: Array) -> Array:
    """[..., 4] quaternions (x, y, z, w) -> [..., 3, 3] rotation matrices. A quaternion
    that is not of unit norm is treated as its normalised self (as SciPy does)."""
    x, y, z, w = (quaternion[..., i] for i in range(4))
    s = 2.0 / ivy.sum(quaternion * quaternion, axis=-1)
    rows = [[1.0 - s * (y * y + z * z), s * (x * y - z * w), s * (x * z + y * w)],
            [s * (x * y + z * w), 1.0 - s * (x * x + z * z), s * (y * z - x * w)],
            [s * (x * z - y * w), s * (y * z + x * w), 1.0 - s * (x * x + y * y)]]
    return ivy.stack([ivy.stack(row, axis=-1) for row in rows], axis=-2)


def rot_vec_to_rot_mat(rot_vec: Array) -> Array:
    """[..., 3] axis-angle vectors -> [..., 3, 3] rotation matrices. Going through the
    quaternion keeps Rodrigues' formula free of the 1 - cos(t) cancellation."""
    return quaternion_to_rot_mat(rot_vec_to_quaternion(rot_vec))


def rot_mat_to_quaternion(rot_mat: Array) -> Array:
    """[..., 3, 3] rotation matrices -> [..., 4] unit quaternions (x, y, z, w), w >= 0.

    Shepperd's method: each of the four components has a formula dividing by itself,
    accurate where that component is the largest; all four candidates are computed
    and the one whose pivot is largest is kept (a one-hot blend, so that batches need
    no indexing). Pivots are floored at 0.5 before the square root: the kept one is
    at least 1, and the discarded ones stay finite, so their zero weights cannot turn
    into NaN gradients.
    """
    r = [[rot_mat[..., i, j] for j in range(3)] for i in range(3)]
    diag = r[0][0], r[1][1], r[2][2]
    pivots = ivy.stack([1.0 + diag[0] + diag[1] + diag[2], 1.0 + diag[0] - diag[1] - diag[2],
                        1.0 - diag[0] + diag[1] - diag[2], 1.0 - diag[0] - diag[1] + diag[2]],
                       axis=-1)  # 4 w^2, 4 x^2, 4 y^2, 4 z^2
    t = [pivots[..., i] for i in range(4)]
    wx, wy, wz = r[2][1] - r[1][2], r[0][2] - r[2][0], r[1][0] - r[0][1]
    xy, xz, yz = r[0][1] + r[1][0], r[0][2] + r[2][0], r[1][2] + r[2][1]
    candidates = ivy.stack([ivy.stack(c, axis=-1) for c in (
        [wx, wy, wz, t[0]], [t[1], xy, xz, wx], [xy, t[2], yz, wy], [xz, yz, t[3], wz])],
        axis=-2)
    scale = 0.5 / ivy.sqrt(ivy.maximum(pivots, 0.5))
    pick = ivy.one_hot(ivy.argmax(pivots, axis=-1), 4, dtype=rot_mat.dtype)
    q = ivy.sum(ivy.expand_dims(pick * scale, axis=-1) * candidates, axis=-2)
    return _with_w_positive(q)


def quaternion_to_rot_vec(quaternion: Array) -> Array:
    """[..., 4] quaternions (x, y, z, w) -> [..., 3] axis-angle vectors, angle in
    [0, pi] (the quaternion is normalised and taken with w >= 0 first)."""
    q = _with_w_positive(quaternion) / ivy.sqrt(_sum_last(quaternion * quaternion))
    v, w = q[..., 0:3], q[..., 3:4]
    sq = _sum_last(v * v)
    small = sq < _SMALL_SQ
    n = ivy.sqrt(ivy.where(small, 1.0, sq))
    w_small = ivy.where(small, w, 1.0)  # ~1 where used; never 0 where not
    # angle / |v| = 2 atan2(|v|, w) / |v|, whose series is 2/w (1 - |v|^2 / (3 w^2))
    factor = ivy.where(small, 2.0 / w_small * (1.0 - sq / (3.0 * w_small * w_small)),
                       2.0 * ivy.atan2(n, w) / n)
    return v * factor


def rot_mat_to_rot_vec(rot_mat: Array) -> Array:
    """[..., 3, 3] rotation matrices -> [..., 3] axis-angle vectors, angle in [0, pi];
    through the quaternion, which stays accurate near a half turn, unlike the
    arccos of the trace."""
    return quaternion_to_rot_vec(rot_mat_to_quaternion(rot_mat))


def _parse_convention(convention: str) -> tuple[tuple[int, int, int], bool]:
    """SciPy's spelling: three distinct axes, upper case intrinsic (rotations about the
    moving axes), lower case extrinsic (about the fixed ones). Returns the axes as
    intrinsic order and whether the string was extrinsic (angles then reversed)."""
    if (len(convention) != 3 or not (convention.isupper() or convention.islower())
            or set(convention.lower()) != set("xyz")):
        raise ValueError(f"Euler convention {convention!r} is not supported: give three "
                         "distinct axes, all upper case (intrinsic, e.g. 'ZYX') or all "
                         "lower case (extrinsic, e.g. 'xyz')")
    axes = tuple(_AXIS_INDEX[a] for a in convention.lower())
    if convention.islower():
        return (axes[2], axes[1], axes[0]), True
    return (axes[0], axes[1], axes[2]), False


def _elemental(axis: int, angle: Array) -> Array:
    """[...] angles -> [..., 3, 3] rotations about coordinate axis `axis`."""
    c, s = ivy.cos(angle), ivy.sin(angle)
    one, zero = ivy.ones_like(angle), ivy.zeros_like(angle)
    j, k = (axis + 1) % 3, (axis + 2) % 3
    entries = {(axis, axis): one, (j, j): c, (k, k): c, (k, j): s, (j, k): -s}
    return ivy.stack([ivy.stack([entries.get((row, col), zero) for col in range(3)], axis=-1)
                      for row in range(3)], axis=-2)


def euler_to_rot_mat(euler_angles: Array, convention: str = "ZYX") -> Array:
    """[..., 3] Euler angles (radians) -> [..., 3, 3] rotation matrices.

    `convention` is SciPy's `Rotation.from_euler` sequence string, angles in its
    order. The default 'ZYX' is intrinsic z-y'-x'' (yaw, pitch, roll):
    R = Rz(a0) @ Ry(a1) @ Rx(a2); lower case 'zyx' would be extrinsic, as in SciPy.
    Only Tait-Bryan sequences (three distinct axes) are supported.
    """
    axes, extrinsic = _parse_convention(convention)
    angles = [euler_angles[..., i] for i in range(3)]
    if extrinsic:
        angles.reverse()
    mats = [_elemental(axis, angle) for axis, angle in zip(axes, angles)]
    return ivy.matmul(ivy.matmul(mats[0], mats[1]), mats[2])


def rot_mat_to_euler(rot_mat: Array, convention: str = "ZYX") -> Array:
    """[..., 3, 3] rotation matrices -> [..., 3] Euler angles, the inverse of
    `euler_to_rot_mat` with the same `convention`, matching SciPy's `as_euler`: the
    first and last angles in (-pi, pi], the middle one in [-pi/2, pi/2].

    At gimbal lock (middle angle +-pi/2) only a combination of the other two is
    determined; the last intrinsic angle is then set to 0, and the result still
    rebuilds the same matrix. Gradients there are not defined.
    """
    (i, j, k), extrinsic = _parse_convention(convention)
    e = 1.0 if (j - i) % 3 == 1 else -1.0  # +1 for cyclic orders (xyz, yzx, zxy)
    r = [[rot_mat[..., row, col] for col in range(3)] for row in range(3)]
    # row i of R is (cos b cos c, -e cos b sin c, e sin b) on axes (i, j, k)
    cos_b = ivy.hypot(r[i][i], r[i][j])
    middle = ivy.atan2(e * r[i][k], cos_b)
    locked = cos_b <= 10.0 * ivy.finfo(rot_mat.dtype).eps
    keep = ivy.logical_not(locked)
    # column k of R is (e sin b, -e sin a cos b, cos a cos b) on axes (i, j, k)
    first_free = ivy.atan2(ivy.where(keep, -e * r[j][k], 0.0), ivy.where(keep, r[k][k], 1.0))
    last_free = ivy.atan2(ivy.where(keep, -e * r[i][j], 0.0), ivy.where(keep, r[i][i], 1.0))
    # with the last angle 0, column j of R is (0, cos a, e sin a) on axes (i, j, k)
    first_locked = ivy.atan2(ivy.where(locked, e * r[k][j], 0.0),
                             ivy.where(locked, r[j][j], 1.0))
    first = ivy.where(locked, first_locked, first_free)
    last = ivy.where(locked, ivy.zeros_like(last_free), last_free)
    angles = [last, middle, first] if extrinsic else [first, middle, last]
    return ivy.stack(angles, axis=-1)


def rot_vec_pose_to_mat_pose(pose: Array) -> Array:
    """[..., 6] poses (x, y, z, rx, ry, rz) -> [..., 3, 4] matrices [R | t]."""
    rot = rot_vec_to_rot_mat(pose[..., 3:6])
    return ivy.concat([rot, ivy.expand_dims(pose[..., 0:3], axis=-1)], axis=-1)


def mat_pose_to_rot_vec_pose(mat_pose: Array) -> Array:
    """[..., 3, 4] matrices [R | t] -> [..., 6] poses (x, y, z, rx, ry, rz)."""
    return ivy.concat([mat_pose[..., 3], rot_mat_to_rot_vec(mat_pose[..., 0:3])], axis=-1)


def make_transformation_homogeneous(matrices: Array) -> Array:
    """[..., 3, 4] affine transforms -> [..., 4, 4], with the row (0, 0, 0, 1) below, so
    that they compose by matmul and invert with `ivy.linalg.inv`."""
    bottom = ivy.concat([ivy.zeros_like(matrices[..., 0:1, 0:3]),
                         ivy.ones_like(matrices[..., 0:1, 3:4])], axis=-1)
    return ivy.concat([matrices, bottom], axis=-2)
