"""Gradient-based motion planning of a drone among obstacles: the 2021 Ivy paper's
appendix A.3 program, written once against `ivy` and run on any framework.

The drone flies from a start pose to a goal pose along a cubic spline through four
anchors: the two end poses and two learnable ones in between. The cost of a path is
how deep the drone's body points come within `clearance` of four box obstacles (their
signed distance field) plus the path's length; gradient descent on the two anchors
runs until every sampled body point is clear. The code below is the appendix's, with
only the imports and the scene's numbers (illegible in the paper) supplied, and a cap
on the iterations so that a run always ends.

    python examples/drone_motion_planning.py --framework torch   # or jax, tensorflow
    python examples/drone_motion_planning.py --compiled          # ivy_ir.compile to JAX
"""

from __future__ import annotations

import argparse
from typing import Any

import ivy
import ivy_ir
from ivy.applied import mech as ivy_mech
from ivy.applied import robot as ivy_robot
from ivy.applied import vision as ivy_vision

NUM_ANCHORS = 2
NUM_SAMPLE_POINTS = 100
LEARNING_RATE = 0.002
CLEARANCE = 0.1
MAX_ITERATIONS = 500
LENGTH_WEIGHT = 0.01


def compute_length(query_vals: Any) -> Any:
    """The length of the path through the sampled positions."""
    steps = query_vals[1:, 0:3] - query_vals[:-1, 0:3]
    return ivy.sum(ivy.sqrt(ivy.sum(steps * steps, axis=-1) + 1e-12))


def compute_cost_and_sdfs(learnable_anchor_vals: Any, anchor_points: Any,
                          start_anchor_val: Any, end_anchor_val: Any, query_points: Any,
                          sim: Any, sdf: Any) -> tuple[Any, Any, Any, Any]:
    """(total cost, sampled poses, body points in the world, their signed distances)."""
    anchor_vals = ivy.concatenate((ivy.expand_dims(start_anchor_val, 0), learnable_anchor_vals,
                                   ivy.expand_dims(end_anchor_val, 0)), 0)
    poses = ivy_robot.sample_spline_path(anchor_points, anchor_vals, query_points)
    inv_ext_mat_query_vals = ivy_mech.rot_vec_pose_to_mat_pose(poses)
    body_positions = ivy.transpose(sim.sample_body(inv_ext_mat_query_vals), (1, 0, 2))
    sdf_vals = sdf(ivy.reshape(body_positions, (-1, 3)))
    sdf_vals = ivy.reshape(sdf_vals, (sim.num_body_points, -1, 1))
    sdf_cost = ivy.reduce_sum(ivy.maximum(2 * CLEARANCE - sdf_vals, 0.0) ** 2)
    total_cost = sdf_cost + LENGTH_WEIGHT * compute_length(poses)
    return total_cost, poses, body_positions, sdf_vals


def plan(framework: str = "torch", compiled: bool = False, verbose: bool = True,
         max_iterations: int = MAX_ITERATIONS) -> dict[str, Any]:
    """Run the planner with `framework` set; with `compiled`, the cost function goes
    through `ivy_ir.compile` to JAX first. Returns the costs and paths it went through."""
    ivy.set_framework(framework)
    try:
        return _plan(compiled, verbose, max_iterations)
    finally:
        ivy.unset_framework()


def _plan(compiled: bool, verbose: bool, max_iterations: int) -> dict[str, Any]:
    # drone
    drone_start_pose = ivy.array([-1.5, 1.1, 0.6, 0.0, 0.0, 0.0], dtype='float32')
    drone_goal_pose = ivy.array([1.5, -1.1, 0.6, 0.0, 0.0, 0.3], dtype='float32')
    rel_body_points = ivy.array([[0.0, 0.0, 0.0], [-0.1, -0.1, 0.0], [-0.1, 0.1, 0.0],
                                 [0.1, -0.1, 0.0], [0.1, 0.1, 0.0]], dtype='float32')
    ivy_drone = ivy_robot.RigidMobile(rel_body_points)

    # obstacles: two cupboards, a table and a box, as (position, rotation vector) poses
    cuboid_poses = ivy.array([[-1.0, 0.4, 0.455, 0.0, 0.0, 0.3],
                              [0.95, -0.55, 0.455, 0.0, 0.0, -0.2],
                              [0.0, 0.0, 0.375, 0.0, 0.0, 0.6],
                              [1.0, 0.45, 0.28, 0.0, 0.0, 0.0]], dtype='float32')
    cuboid_ext_mats = ivy.inv(ivy_mech.make_transformation_homogeneous(
        ivy_mech.rot_vec_pose_to_mat_pose(cuboid_poses)))[..., 0:3, :]
    cuboid_dims = ivy.array([[0.40, 0.45, 0.91],
                             [0.40, 0.45, 0.91],
                             [1.60, 1.10, 0.75],
                             [0.40, 0.40, 0.56]], dtype='float32')

    # sdf
    def sdf(query_positions: Any) -> Any:
        cuboid_sdfs = ivy_vision.cuboid_signed_distances(cuboid_ext_mats, cuboid_dims,
                                                        query_positions)
        return ivy.reduce_min(cuboid_sdfs, -1, keepdims=True)

    # 1D spline points
    anchor_points = ivy.cast(ivy.expand_dims(ivy.linspace(0, 1, 2 + NUM_ANCHORS), -1),
                             'float32')
    query_points = ivy.cast(ivy.expand_dims(ivy.linspace(0, 1, NUM_SAMPLE_POINTS), -1),
                            'float32')

    # learnable parameters
    learnable_anchor_vals = ivy.variable(ivy.cast(ivy.transpose(ivy.linspace(
        drone_start_pose, drone_goal_pose, 2 + NUM_ANCHORS)[..., 1:-1], (1, 0)), 'float32'))
    v = ivy.Container({'anchors': learnable_anchor_vals})

    def cost(anchors: Any) -> tuple[Any, Any, Any, Any]:
        return compute_cost_and_sdfs(anchors, anchor_points, drone_start_pose,
                                     drone_goal_pose, query_points, ivy_drone, sdf)
    if compiled:
        cost = ivy_ir.compile(cost, target="jax", args=(learnable_anchor_vals,))

    # optimize
    it = 0
    colliding = True
    clearance = CLEARANCE
    history: dict[str, Any] = {"cost": [], "min_sdf": [], "poses": []}

    while colliding and it < max_iterations:
        total_cost, grads, poses, body_positions, sdf_vals = ivy.execute_with_gradients(
            lambda xs: cost(xs.anchors), v)
        min_sdf = ivy.reduce_min(sdf_vals)
        history["cost"].append(ivy.to_numpy(total_cost).item())
        history["min_sdf"].append(ivy.to_numpy(min_sdf).item())
        history["poses"].append(ivy.to_numpy(poses))
        if verbose:
            print('iteration {}, cost = {}, min_sdf - clearance = {}'.format(  # noqa: UP032
                it, ivy.to_numpy(total_cost).item(), ivy.to_numpy(min_sdf - clearance).item()))
        colliding = min_sdf < clearance
        v = ivy.gradient_descent_update(v, grads, LEARNING_RATE)
        it += 1

    if verbose:
        print('collision-free path found!' if not colliding else
              f'still colliding after {it} iterations')
    history.update(collision_free=not bool(colliding), iterations=it,
                   obstacles=(ivy.to_numpy(cuboid_poses), ivy.to_numpy(cuboid_dims)))
    return history


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--framework", default="torch", choices=["torch", "jax", "tensorflow"])
    parser.add_argument("--compiled", action="store_true",
                        help="compile the cost function to JAX with ivy_ir first")
    args = parser.parse_args(argv)
    plan("jax" if args.compiled else args.framework, compiled=args.compiled)


if __name__ == "__main__":
    main()
