"""`ivy-ir demo drone`: the 2021 paper's drone motion planner, run and drawn.

The planner is the repository's `examples/drone_motion_planning.py` (the paper's
appendix A.3 program); this module runs it on the chosen framework, prints its
iterations, and draws the path before and after optimisation over the obstacles as
seen from above.
"""

from __future__ import annotations

import runpy
import time
from pathlib import Path
from typing import Any

import numpy as np

from .core.errors import TraceError

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "drone_motion_planning.py"


def run(framework: str, compiled: bool, out: str) -> int:
    if not EXAMPLE.exists():
        raise TraceError(f"the drone example is not here ({EXAMPLE}); run the demo from a "
                         "checkout of the repository (pip install -e .)")
    program = runpy.run_path(str(EXAMPLE))
    start = time.perf_counter()
    history = program["plan"]("jax" if compiled else framework, compiled=compiled)
    seconds = time.perf_counter() - start
    how = "compiled with ivy_ir to JAX" if compiled else f"eager on {framework}"
    print(f"{history['iterations']} iterations {how} in {seconds:.1f} s; "
          + ("collision-free" if history["collision_free"] else "still colliding"))
    if _draw(history, out, how):
        print(f"wrote {out}")
    return 0 if history["collision_free"] else 1


def _draw(history: dict[str, Any], out: str, how: str) -> bool:
    try:
        import matplotlib  # optional: only the picture needs it
    except ImportError:
        print("matplotlib is not installed: no picture (pip install matplotlib)")
        return False
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # after choosing the file backend above
    from matplotlib.patches import Polygon  # the same

    poses, dims = history["obstacles"]
    fig, (ax, side) = plt.subplots(1, 2, figsize=(10.5, 4.8),
                                   gridspec_kw={"width_ratios": [1.25, 1]})
    for pose, dim in zip(poses, dims):
        ax.add_patch(Polygon(_footprint(pose, dim), closed=True, color="0.6", alpha=0.7))
        ax.annotate(f"{dim[2]:.2f} m", pose[:2], ha="center", va="center", fontsize=8)
    first, last = history["poses"][0], history["poses"][-1]
    labels = ("initial path (colliding)", f"after {history['iterations']} iterations")
    for path, style, color, label in zip((first, last), ("--", "-"), ("tab:red", "tab:blue"),
                                         labels):
        ax.plot(path[:, 0], path[:, 1], style, color=color, label=label)
        side.plot(np.linspace(0, 1, len(path)), path[:, 2], style, color=color, label=label)
    ax.plot(*first[0, :2], "o", color="k")
    ax.plot(*first[-1, :2], "*", color="k", markersize=12)
    ax.set_aspect("equal")
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    ax.set_title(f"Top view, obstacle heights marked ({how})", fontsize=10)
    ax.legend(loc="lower left", fontsize=8)
    side.set_xlabel("fraction of the path")
    side.set_ylabel("altitude z (m)")
    side.set_title("Altitude along the path", fontsize=10)
    side.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return True


def _footprint(pose: np.ndarray, dims: np.ndarray) -> np.ndarray:
    """The box's outline on the floor: its corners rotated about z by the pose's yaw
    (the obstacles stand upright, so their rotation vectors are about z)."""
    half = dims[:2] / 2
    corners = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * half
    yaw = pose[5]
    rot = np.array([[np.cos(yaw), -np.sin(yaw)], [np.sin(yaw), np.cos(yaw)]])
    return corners @ rot.T + pose[:2]
