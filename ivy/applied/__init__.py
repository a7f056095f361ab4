"""The 2021 Ivy paper's applied libraries, as far as its drone example uses them,
written once against the `ivy` functional API: `mech` (rotations and poses), `vision`
(box signed distances, voxel grids) and `robot` (spline paths, rigid bodies). Each
runs on the framework of its inputs, or the backend set with `ivy.set_backend`:

    from ivy.applied import mech as ivy_mech, vision as ivy_vision, robot as ivy_robot
"""

from . import mech, robot, vision

__all__ = ["mech", "robot", "vision"]
