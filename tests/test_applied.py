"""`ivy.applied` (mech, vision, robot) against independent references: SciPy's
rotations and natural cubic splines, NumPy loops for the box distances and the voxel
grid, plain NumPy for rigid bodies; on every backend in float32, with two leading batch
dimensions, and differentiated (torch autograd, jax.grad) against central differences
taken on the NumPy backend in float64."""

from __future__ import annotations

import contextlib
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import tensorflow as tf
import torch
from scipy.interpolate import CubicSpline
from scipy.spatial.transform import Rotation

import ivy
from ivy.applied import mech as ivy_mech
from ivy.applied import robot as ivy_robot
from ivy.applied import vision as ivy_vision

TO_NATIVE = {"numpy": np.asarray, "torch": torch.as_tensor, "jax": jnp.asarray,
             "tensorflow": tf.convert_to_tensor}
NATIVE_TYPE = {"numpy": np.ndarray, "torch": torch.Tensor, "jax": type(jnp.ones(1)),
               "tensorflow": type(tf.constant(1.0))}
BATCH = (2, 3)


@pytest.fixture(autouse=True)
def no_backend_left_set():
    yield
    while ivy.backend._stack:
        ivy.unset_backend()


def random_rotations(seed: int) -> Rotation:
    """Random rotations plus the hard cases: angles 0, ~1e-9, ~1e-4 and at / near pi."""
    rng = np.random.default_rng(seed)
    axes = rng.normal(size=(6, 3))
    axes /= np.linalg.norm(axes, axis=-1, keepdims=True)
    angles = np.array([0.0, 1e-9, 1e-4, np.pi - 1e-6, np.pi, np.pi - 1e-3])[:, None]
    hard = Rotation.from_rotvec(axes * angles)
    return Rotation.concatenate([Rotation.random(18, random_state=seed), hard])


def same_rot_vec(got, want) -> None:
    """Rotation vectors at angle pi are defined up to sign; elsewhere exactly."""
    got, want = np.asarray(got), np.asarray(want)
    at_pi = np.isclose(np.linalg.norm(want, axis=-1), np.pi, atol=1e-5)[..., None]
    want = np.where(at_pi & (np.sum(got * want, axis=-1, keepdims=True) < 0), -want, want)
    np.testing.assert_allclose(got, want, atol=1e-9)


def same_quaternion(got, want) -> None:
    got, want = np.asarray(got), np.asarray(want)
    want = np.where(np.sum(got * want, axis=-1, keepdims=True) < 0, -want, want)
    np.testing.assert_allclose(got, want, atol=1e-9)
    assert np.all(got[..., 3] >= 0)


def test_rotation_conversions_match_scipy_with_batch_dims():
    rot = random_rotations(0)
    mats = rot.as_matrix().reshape(*BATCH, 4, 3, 3)
    vecs = rot.as_rotvec().reshape(*BATCH, 4, 3)
    quats = rot.as_quat(canonical=True).reshape(*BATCH, 4, 4)
    np.testing.assert_allclose(ivy_mech.rot_vec_to_rot_mat(vecs), mats, atol=1e-12)
    np.testing.assert_allclose(ivy_mech.quaternion_to_rot_mat(quats), mats, atol=1e-12)
    np.testing.assert_allclose(ivy_mech.quaternion_to_rot_mat(3.0 * quats), mats, atol=1e-12)
    same_rot_vec(ivy_mech.rot_mat_to_rot_vec(mats), vecs)
    same_rot_vec(ivy_mech.quaternion_to_rot_vec(quats), vecs)
    same_rot_vec(ivy_mech.quaternion_to_rot_vec(-quats), vecs)
    same_quaternion(ivy_mech.rot_mat_to_quaternion(mats), quats)
    same_quaternion(ivy_mech.rot_vec_to_quaternion(vecs), quats)


def test_small_angles_keep_full_relative_precision():
    """Around the series' switch (squared angle 1e-6) and far below it."""
    axis = np.array([0.48, -0.6, 0.64])
    vecs = axis * np.array([1e-9, 1e-6, 1e-4, 9.99e-4, 1.001e-3, 3e-3])[:, None]
    rot = Rotation.from_rotvec(vecs)
    quats = rot.as_quat(canonical=True)
    np.testing.assert_allclose(ivy_mech.rot_vec_to_quaternion(vecs), quats, rtol=1e-13)
    np.testing.assert_allclose(ivy_mech.quaternion_to_rot_vec(quats), vecs, rtol=1e-13)
    np.testing.assert_allclose(ivy_mech.rot_mat_to_rot_vec(rot.as_matrix())[2:], vecs[2:],
                               rtol=1e-10)


@pytest.mark.parametrize("convention", ["ZYX", "XYZ", "YXZ", "zyx", "xyz", "zxy"])
def test_euler_angles_match_scipy(convention):
    rot = Rotation.random(24, random_state=1)
    angles = rot.as_euler(convention).reshape(*BATCH, 4, 3)
    mats = rot.as_matrix().reshape(*BATCH, 4, 3, 3)
    np.testing.assert_allclose(ivy_mech.euler_to_rot_mat(angles, convention), mats, atol=1e-12)
    np.testing.assert_allclose(ivy_mech.rot_mat_to_euler(mats, convention), angles, atol=1e-12)


def test_euler_gimbal_lock_rebuilds_the_matrix_and_bad_conventions_raise():
    angles = np.array([[0.3, np.pi / 2, -0.4], [1.2, -np.pi / 2, 0.7], [-2.0, np.pi / 2, 0.0]])
    mats = Rotation.from_euler("ZYX", angles).as_matrix()
    back = ivy_mech.rot_mat_to_euler(mats, "ZYX")
    np.testing.assert_allclose(back[:, 1], angles[:, 1], atol=1e-7)
    np.testing.assert_allclose(back[:, 2], 0.0)
    np.testing.assert_allclose(Rotation.from_euler("ZYX", back).as_matrix(), mats, atol=1e-12)
    for bad in ("ZYZ", "Zyx", "xy", "abc"):
        with pytest.raises(ValueError, match="Euler convention"):
            ivy_mech.euler_to_rot_mat(angles, bad)


def test_poses_and_homogeneous_transforms():
    rot, trans = Rotation.random(6, random_state=2), np.random.default_rng(2).normal(size=(6, 3))
    poses = np.concatenate([trans, rot.as_rotvec()], axis=-1).reshape(*BATCH, 6)
    want = np.concatenate([rot.as_matrix(), trans[..., None]], axis=-1).reshape(*BATCH, 3, 4)
    np.testing.assert_allclose(ivy_mech.rot_vec_pose_to_mat_pose(poses), want, atol=1e-12)
    np.testing.assert_allclose(ivy_mech.mat_pose_to_rot_vec_pose(want), poses, atol=1e-12)
    bottom = np.broadcast_to([0, 0, 0, 1.0], (*BATCH, 1, 4))
    np.testing.assert_array_equal(ivy_mech.make_transformation_homogeneous(want),
                                  np.concatenate([want, bottom], axis=-2))


def box_sdf_loop(ext_mats, dims, queries):
    """One point and one box at a time: the clamped closest point outside, the nearest
    face inside."""
    out = np.zeros(queries.shape[:-1] + (dims.shape[-2],))
    for index in np.ndindex(*queries.shape[:-2]):
        for m, q in enumerate(queries[index]):
            for n, (mat, dim) in enumerate(zip(ext_mats[index], dims[index])):
                p, half = mat[:, :3] @ q + mat[:, 3], dim / 2
                if np.all(np.abs(p) <= half):
                    out[index + (m, n)] = -np.min(half - np.abs(p))
                else:
                    out[index + (m, n)] = np.linalg.norm(p - np.clip(p, -half, half))
    return out


def box_inputs(seed: int):
    """World-to-box matrices built from box poses the SciPy way, box sizes, and query
    points half of which lie inside some box."""
    rng = np.random.default_rng(seed)
    rot = Rotation.random(int(np.prod(BATCH)) * 3, random_state=seed)
    centres = rng.uniform(-2, 2, size=(*BATCH, 3, 3))
    r_t = np.swapaxes(rot.as_matrix().reshape(*BATCH, 3, 3, 3), -1, -2)
    ext = np.concatenate([r_t, -r_t @ centres[..., None]], axis=-1)
    dims = rng.uniform(0.5, 2.0, size=(*BATCH, 3, 3))
    near = centres[..., rng.integers(0, 3, size=4), :] + rng.uniform(-0.2, 0.2, (*BATCH, 4, 3))
    queries = np.concatenate([near, rng.uniform(-4, 4, size=(*BATCH, 4, 3))], axis=-2)
    poses = np.concatenate([centres, rot.as_rotvec().reshape(*BATCH, 3, 3)], axis=-1)
    return ext, dims, queries, poses


def test_cuboid_signed_distances_match_a_loop():
    ext, dims, queries, poses = box_inputs(3)
    want = box_sdf_loop(ext, dims, queries)
    assert (want < 0).any() and (want > 0).any()
    np.testing.assert_allclose(ivy_vision.cuboid_signed_distances(ext, dims, queries), want,
                               atol=1e-12)
    paper_ext = np.linalg.inv(ivy_mech.make_transformation_homogeneous(
        ivy_mech.rot_vec_pose_to_mat_pose(poses)))[..., 0:3, :]
    np.testing.assert_allclose(paper_ext, ext, atol=1e-12)


def voxel_loop(coords, shape, bounds, features):
    batch = coords.shape[:-2]
    grid = np.zeros(batch + tuple(shape) + (3 + features.shape[-1] + 1,))
    for index in np.ndindex(*batch):
        lo, hi = bounds[index][:3], bounds[index][3:]
        size = (hi - lo) / np.array(shape)
        for p, f in zip(coords[index], features[index]):
            if np.all(p >= lo) and np.all(p <= hi):
                cell = tuple(np.minimum(np.floor((p - lo) / size), np.array(shape) - 1)
                             .astype(int))
                grid[index + cell] += np.concatenate([p, f, [1.0]])
    filled = np.maximum(grid[..., -1:], 1)
    return np.concatenate([grid[..., :-1] / filled, grid[..., -1:]], axis=-1)


def voxel_inputs(seed: int, shape=(3, 4, 2)):
    """Points kept off the voxel boundaries (so float32 bins them as float64 does),
    some stacked in one voxel, two outside the bounds."""
    rng = np.random.default_rng(seed)
    lo = rng.uniform(-1, 0, size=(*BATCH, 1, 3))
    size = rng.uniform(0.2, 0.5, size=(*BATCH, 1, 3))
    cells = rng.integers(0, shape, size=(*BATCH, 9, 3))
    cells[..., 5:7, :] = cells[..., 4:5, :]
    inside = lo + (cells + rng.uniform(0.1, 0.9, size=cells.shape)) * size
    outside = lo + np.array([[-0.5, 0.5, 0.5], [0.5, 0.5, 99.0]]) * size
    coords = np.concatenate([inside, outside], axis=-2)
    bounds = np.concatenate([lo, lo + size * np.array(shape)], axis=-1)[..., 0, :]
    return coords, bounds, rng.normal(size=(*BATCH, 11, 2))


def test_voxel_grid_matches_a_loop():
    coords, bounds, features = voxel_inputs(4)
    grid, size, got_bounds = ivy_vision.coords_to_voxel_grid(coords, [3, 4, 2], bounds,
                                                             features)
    np.testing.assert_allclose(grid, voxel_loop(coords, (3, 4, 2), bounds, features),
                               atol=1e-12)
    np.testing.assert_allclose(size, (bounds[..., 3:] - bounds[..., :3]) / [3, 4, 2])
    np.testing.assert_allclose(got_bounds, bounds)
    assert grid[..., -1].sum() == 9 * np.prod(BATCH)  # the two outside points dropped


def test_voxel_grid_default_bounds_keep_every_point():
    coords = np.random.default_rng(5).uniform(-3, 3, size=(*BATCH, 40, 3))
    grid, _, bounds = ivy_vision.coords_to_voxel_grid(coords, (4, 4, 4))
    want_bounds = np.concatenate([coords.min(-2), coords.max(-2)], axis=-1)
    np.testing.assert_allclose(bounds, want_bounds)
    np.testing.assert_allclose(grid, voxel_loop(coords, (4, 4, 4), want_bounds,
                                                np.zeros(coords.shape[:-1] + (0,))), atol=1e-12)
    assert np.all(grid[..., -1].sum(axis=(-1, -2, -3)) == 40)
    flat = ivy_vision.coords_to_voxel_grid(coords * [1, 1, 0], (4, 4, 4))[0]  # z extent 0
    assert flat[..., 0, -1].sum() == 40 * np.prod(BATCH) and not np.isnan(flat).any()
    with pytest.raises(ValueError, match="voxel_shape"):
        ivy_vision.coords_to_voxel_grid(coords, (4, 4))


def spline_inputs(seed: int, num_anchors: int = 5):
    rng = np.random.default_rng(seed)
    gaps = rng.uniform(0.3, 1.5, size=(*BATCH, num_anchors))
    anchors = np.cumsum(gaps, axis=-1)[..., None]
    vals = rng.normal(size=(*BATCH, num_anchors, 3))
    samples = np.linspace(anchors[..., :1, :] - 0.5, anchors[..., -1:, :] + 0.5, 17,
                          axis=-2)[..., 0, :]
    return anchors, vals, samples


def spline_reference(anchors, vals, samples):
    out = np.zeros(samples.shape[:-1] + vals.shape[-1:])
    for index in np.ndindex(*anchors.shape[:-2]):
        spline = CubicSpline(anchors[index][:, 0], vals[index], bc_type="natural")
        out[index] = spline(samples[index][:, 0])
    return out


@pytest.mark.parametrize("num_anchors", [2, 3, 6])
def test_spline_matches_scipy_natural_cubic(num_anchors):
    anchors, vals, samples = spline_inputs(6, num_anchors)
    np.testing.assert_allclose(ivy_robot.sample_spline_path(anchors, vals, samples),
                               spline_reference(anchors, vals, samples), atol=1e-10)
    shared = ivy_robot.sample_spline_path(anchors[0, 0], vals, samples[0, 0])  # broadcast
    want = spline_reference(np.broadcast_to(anchors[0, 0], anchors.shape), vals,
                            np.broadcast_to(samples[0, 0], samples.shape))
    np.testing.assert_allclose(shared, want, atol=1e-10)
    with pytest.raises(ValueError, match="at least 2 anchors"):
        ivy_robot.sample_spline_path(anchors[..., :1, :], vals[..., :1, :], samples)


def test_rigid_mobile_samples_the_body_in_the_world():
    rng = np.random.default_rng(7)
    body = ivy_robot.RigidMobile(rng.normal(size=(5, 3)))
    assert body.num_body_points == 5
    rot = Rotation.random(6, random_state=7).as_matrix().reshape(*BATCH, 3, 3)
    trans = rng.normal(size=(*BATCH, 3))
    mats = np.concatenate([rot, trans[..., None]], axis=-1)
    want = np.einsum("...ij,nj->...ni", rot, body.rel_body_points) + trans[..., None, :]
    np.testing.assert_allclose(body.sample_body(mats), want, atol=1e-12)
    with pytest.raises(ValueError, match=r"\[N, 3\]"):
        ivy_robot.RigidMobile(rng.normal(size=(5, 2)))


@pytest.fixture(scope="module")
def float32_cases():
    """(function of native arrays, float32 inputs, float64 reference) for each piece."""
    rot = random_rotations(8)
    mats, vecs = rot.as_matrix().reshape(*BATCH, 4, 3, 3), rot.as_rotvec().reshape(*BATCH, 4, 3)
    euler = Rotation.random(6, random_state=8).as_euler("ZYX").reshape(*BATCH, 3)
    body = np.random.default_rng(12).normal(size=(5, 3))
    poses = np.concatenate([mats[:, :, 0], vecs[:, :, 1, :, None]], axis=-1)
    cases = [
        (ivy_mech.rot_vec_to_rot_mat, [vecs], mats),
        (ivy_mech.rot_mat_to_rot_vec, [mats[..., :3, :, :]], vecs[..., :3, :]),
        (ivy_mech.euler_to_rot_mat, [euler], Rotation.from_euler("ZYX", euler.reshape(-1, 3))
         .as_matrix().reshape(*BATCH, 3, 3)),
        (ivy_mech.rot_mat_to_euler, [mats], rot.as_euler("ZYX").reshape(*BATCH, 4, 3)),
        (ivy_vision.cuboid_signed_distances, box_inputs(9)[:3], box_sdf_loop),
        (lambda c, b, f: ivy_vision.coords_to_voxel_grid(c, (3, 4, 2), b, f)[0],
         voxel_inputs(10), lambda c, b, f: voxel_loop(c, (3, 4, 2), b, f)),
        (ivy_robot.sample_spline_path, spline_inputs(11), spline_reference),
        (lambda b, m: ivy_robot.RigidMobile(b).sample_body(m), [body, poses],
         lambda b, m: np.einsum("...ij,nj->...ni", m[..., :3], b) + m[..., None, :, 3]),
    ]
    out = []
    for fn, inputs, want in cases:
        inputs = [np.asarray(a, np.float32) for a in inputs]
        if callable(want):  # a reference on the float32 inputs, taken in float64
            want = want(*(a.astype(np.float64) for a in inputs))
        out.append((fn, inputs, want))
    return out


@pytest.mark.parametrize("set_globally", [False, True], ids=["inferred", "set"])
@pytest.mark.parametrize("backend", list(TO_NATIVE))
def test_every_backend_in_float32(backend, set_globally, float32_cases):
    for fn, inputs, want in float32_cases:
        native = [TO_NATIVE[backend](a) for a in inputs]
        with getattr(ivy, backend).use if set_globally else contextlib.nullcontext():
            got = fn(*native)
        assert isinstance(got, NATIVE_TYPE[backend]) and ivy.to_numpy(got).dtype == np.float32
        np.testing.assert_allclose(ivy.to_numpy(got), want, rtol=1e-5, atol=3e-5)


def central_differences(fn, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """d fn(x) / d x, [*out, *in], on the NumPy backend in float64."""
    steps = [np.eye(x.size)[i].reshape(x.shape) * eps for i in range(x.size)]
    cols = [(np.asarray(fn(x + h)) - np.asarray(fn(x - h))) / (2 * eps) for h in steps]
    return np.stack(cols, axis=-1).reshape(np.shape(fn(x)) + x.shape)


def torch_jacobian(fn, x: np.ndarray) -> np.ndarray:
    with ivy.torch.use:
        jac = torch.autograd.functional.jacobian(fn, torch.tensor(x, requires_grad=True))
    assert torch.isfinite(jac).all()
    return jac.numpy()


def like(x, constant: np.ndarray):
    """`constant` on the framework of `x` (a NumPy, torch or JAX array)."""
    if isinstance(x, np.ndarray):
        return constant
    return torch.tensor(constant) if isinstance(x, torch.Tensor) else jnp.asarray(constant)


def test_torch_gradients_match_central_differences():
    ext, dims, queries, poses = box_inputs(13)
    poses[0, 0, 1, 3:] = 0.0  # a box with a zero rotation vector
    anchors, vals, samples = spline_inputs(13)

    def sdf_of_poses(p):
        inv = ivy.linalg.inv(ivy_mech.make_transformation_homogeneous(
            ivy_mech.rot_vec_pose_to_mat_pose(p)))[..., 0:3, :]
        return ivy_vision.cuboid_signed_distances(inv, like(p, dims), like(p, queries))

    checks = [
        (ivy_mech.rot_vec_pose_to_mat_pose, np.random.default_rng(13).normal(size=(*BATCH, 6))),
        (ivy_mech.rot_vec_pose_to_mat_pose, np.array([0.3, -0.2, 0.1, 0.0, 0.0, 0.0])),
        (sdf_of_poses, poses[:1, :1]),
        (lambda q: ivy_vision.cuboid_signed_distances(like(q, ext), like(q, dims), q), queries),
        (lambda d: ivy_vision.cuboid_signed_distances(like(d, ext), d, like(d, queries)), dims),
        (lambda v: ivy_robot.sample_spline_path(like(v, anchors), v, like(v, samples)),
         vals[:1, :1]),
        (lambda a: ivy_robot.sample_spline_path(a, like(a, vals), like(a, samples)),
         anchors[:1, :1]),
    ]
    for fn, x in checks:
        got = torch_jacobian(fn, x)
        np.testing.assert_allclose(got, central_differences(fn, x), rtol=1e-6, atol=1e-7)


def test_box_distance_gradients_are_finite_at_the_centre_and_on_faces():
    ext = np.concatenate([np.eye(3), np.zeros((3, 1))], axis=-1)[None]
    dims = np.array([[2.0, 3.0, 4.0]])
    queries = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.5, 0.0], [0.5, 0.5, 2.5]])
    np.testing.assert_allclose(ivy_vision.cuboid_signed_distances(ext, dims, queries),
                               [[-1.0], [0.0], [0.0], [0.5]])
    got = torch_jacobian(lambda q: ivy_vision.cuboid_signed_distances(
        torch.tensor(ext), torch.tensor(dims), q), queries)  # finite, though on kinks
    np.testing.assert_allclose(got[3, 0, 3], [0.0, 0.0, 1.0])  # outside, above a face


def test_gradients_at_the_zero_rotation_are_finite_and_right():
    def mat_round_trip(v):
        return ivy_mech.rot_mat_to_rot_vec(ivy_mech.rot_vec_to_rot_mat(v))

    def quaternion_round_trip(v):
        return ivy_mech.quaternion_to_rot_vec(ivy_mech.rot_vec_to_quaternion(v))

    for fn in (ivy_mech.rot_vec_to_rot_mat, ivy_mech.rot_vec_to_quaternion):
        got = torch_jacobian(fn, np.zeros(3))
        np.testing.assert_allclose(got, central_differences(fn, np.zeros(3)), atol=1e-8)
    for fn in (mat_round_trip, quaternion_round_trip):  # the identity map
        np.testing.assert_allclose(torch_jacobian(fn, np.zeros(3)), np.eye(3), atol=1e-12)


def test_jax_grad_of_the_spline_and_the_pose():
    anchors, vals, samples = spline_inputs(14)
    weights = np.random.default_rng(14).normal(size=samples.shape[:-1] + (3,))

    def spline_loss(v):
        return ivy.sum(ivy_robot.sample_spline_path(like(v, anchors), v, like(v, samples))
                       * like(v, weights))

    def pose_loss(p):
        return ivy.sum(ivy_mech.rot_vec_pose_to_mat_pose(p))

    for loss, x in ((spline_loss, vals), (pose_loss, np.zeros(6))):
        with jax.enable_x64(True):
            got = np.asarray(jax.grad(loss)(jnp.asarray(x)))
        assert got.dtype == np.float64
        np.testing.assert_allclose(got, central_differences(loss, x), rtol=1e-6, atol=1e-8)


def test_importing_the_applied_libraries_loads_no_framework():
    code = ("import sys; import numpy as np; from ivy.applied import mech, vision, robot; "
            "mech.rot_vec_to_rot_mat(np.ones(3)); vision.coords_to_voxel_grid(np.ones((4, 3)), "
            "(2, 2, 2)); robot.sample_spline_path(np.arange(3.)[:, None], np.ones((3, 2)), "
            "np.ones((4, 1))); "
            "print(sorted(m for m in ('torch', 'jax', 'tensorflow') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"
