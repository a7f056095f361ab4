"""What the facade costs in real code: `ivy.applied`'s drone functions and one Adam
training step, against the same code written natively (the 2021 paper's Table 3
method applied to whole functions instead of single calls).

The natives (`applied_natives_xp.py` for NumPy and `jax.numpy`, `applied_natives_torch.py`,
`applied_natives_tf.py`, and the native training steps in `applied_training.py`) are
the ivy code transcribed op for op, so the difference is the facade alone; before
timing, each is checked to give the ivy version's numbers. Inputs are float32 batches
of ~1e4 items. Eager, per backend and function: the native version, the native version
again (an A/A pair: the spread the machine itself puts on a 0% overhead), ivy with the
backend set globally and ivy with it inferred from the arrays run interleaved, round
after round (the order rotating), each round timing a batch of ~`--batch-ms` of calls;
reported are the medians' ratio minus one, as in `facade_overhead.py`, and the
half-interquartile range of the per-round paired ratios. torch and TensorFlow run on
`--threads` intra-op threads (1 by default: on a busy 2-core machine their thread
pools contend, which makes torch ~20x slower and every number noisy). `--profile`
adds a cProfile split of the ivy calls into facade frames and the rest (torch and
TensorFlow, whose native calls cProfile sees). Goal: mean eager overhead <= 2%. Run
from the repository root:

    .venv/bin/python benchmarks/applied_overhead.py [--rounds 60] [--backends jax,torch]
    .venv/bin/python benchmarks/facade_overhead.py --suite applied [same options]

Writes benchmarks/results/applied_overhead.json and docs/applied_overhead.png (the
tables and the figure come from `applied_report.py`).
"""

from __future__ import annotations

import argparse
import cProfile
import datetime
import json
import os
import platform
import pstats
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from applied_natives_xp import make as make_xp
from applied_report import TRAIN, plot, summary
from applied_training import NATIVE_STEPS, IvyStep, batch, initial_weights

import ivy
from ivy.applied import mech, robot, vision

Call = Callable[[], Any]
ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = str(ROOT / "benchmarks")
FACADE_DIRS = tuple(str(ROOT / d) for d in ("ivy", "lowerings", "ivy_ir"))
VOXELS = (8, 8, 8)
PROFILED = ("torch", "tensorflow")
"""Where cProfile sees the native calls: NumPy's ufuncs and array functions and JAX's
jitted `jnp` functions are not Python calls to it, so their time would land in the
facade frame that calls them."""
MATH_FRAMES = frozenset({"_adam_direction", "_adam_step"})
"""The optimizer's frames that hold Adam's arithmetic, which the native step does too."""


def _framework(backend: str, threads: int) -> tuple[Callable[[np.ndarray], Any],
                                                    Callable[[Any], Any] | None, Any]:
    """(numpy -> native array, what waits for a result or None, native functions)."""
    if backend == "numpy":
        return np.asarray, None, make_xp("numpy")
    if backend == "jax":
        import jax
        import jax.numpy as jnp
        return jnp.asarray, jax.block_until_ready, make_xp("jax")
    if backend == "torch":
        import applied_natives_torch
        import torch
        torch.set_num_threads(threads)
        return torch.as_tensor, None, applied_natives_torch
    import tensorflow as tf
    try:
        tf.config.threading.set_intra_op_parallelism_threads(threads)
        tf.config.threading.set_inter_op_parallelism_threads(threads)
    except RuntimeError:
        print("(TensorFlow was initialised already: its thread pools are as they were)")
    import applied_natives_tf
    return tf.convert_to_tensor, None, applied_natives_tf


def _inputs() -> dict[str, np.ndarray]:
    """float32 batches of ~1e4 items: poses, rotations, 4 boxes and query points, a
    6-d spline of 4 anchors, 2,000 poses of a 5-point body, a point cloud."""
    rng = np.random.default_rng(0)
    np_fns = make_xp("numpy")
    poses = np.concatenate([rng.uniform(-5, 5, (10_000, 3)),
                            rng.normal(size=(10_000, 3))], axis=-1).astype(np.float32)
    box_poses = np.concatenate([rng.uniform(-3, 3, (4, 3)), rng.normal(size=(4, 3))], axis=-1)
    box_mats = np_fns.rot_vec_pose_to_mat_pose(box_poses)
    rot_t = np.swapaxes(box_mats[:, :, :3], -1, -2)  # world -> box: the inverse pose
    inv_box = np.concatenate([rot_t, -rot_t @ box_mats[:, :, 3:]], axis=-1)
    return {
        "poses": poses, "rot_vecs": poses[:, 3:].copy(),
        "rot_mats": np_fns.rot_vec_to_rot_mat(poses[:, 3:]),
        "box_mats": inv_box.astype(np.float32),
        "box_dims": rng.uniform(0.5, 2.0, (4, 3)).astype(np.float32),
        "queries": rng.uniform(-5, 5, (10_000, 3)).astype(np.float32),
        "anchor_points": np.array([[0.0], [1.0], [2.5], [4.0]], np.float32),
        "anchor_vals": rng.normal(size=(4, 6)).astype(np.float32),
        "samples": np.linspace(-0.5, 4.5, 10_000, dtype=np.float32)[:, None],
        "body": rng.uniform(-0.3, 0.3, (5, 3)).astype(np.float32),
        "body_mats": np_fns.rot_vec_pose_to_mat_pose(poses[:2_000]),
        "cloud": rng.uniform(-2, 2, (10_000, 3)).astype(np.float32),
    }


def _cases(a: dict[str, Any], nat: Any) -> list[tuple[str, Call, Call]]:
    """(name, ivy call, native call): the same arrays bound into both."""
    body = robot.RigidMobile(a["body"])
    rv, rm, po, bm, bd, q = (a[k] for k in ("rot_vecs", "rot_mats", "poses", "box_mats",
                                            "box_dims", "queries"))
    ap, av, sp, mats, cloud, rel = (a[k] for k in ("anchor_points", "anchor_vals", "samples",
                                                   "body_mats", "cloud", "body"))
    return [
        ("rot_vec_to_quaternion", lambda: mech.rot_vec_to_quaternion(rv),
         lambda: nat.rot_vec_to_quaternion(rv)),
        ("rot_mat_to_quaternion", lambda: mech.rot_mat_to_quaternion(rm),
         lambda: nat.rot_mat_to_quaternion(rm)),
        ("rot_vec_pose_to_mat_pose", lambda: mech.rot_vec_pose_to_mat_pose(po),
         lambda: nat.rot_vec_pose_to_mat_pose(po)),
        ("cuboid_signed_distances", lambda: vision.cuboid_signed_distances(bm, bd, q),
         lambda: nat.cuboid_signed_distances(bm, bd, q)),
        ("coords_to_voxel_grid", lambda: vision.coords_to_voxel_grid(cloud, VOXELS),
         lambda: nat.coords_to_voxel_grid(cloud, VOXELS)),
        ("sample_spline_path", lambda: robot.sample_spline_path(ap, av, sp),
         lambda: nat.sample_spline_path(ap, av, sp)),
        ("RigidMobile.sample_body", lambda: body.sample_body(mats),
         lambda: nat.sample_body(rel, mats)),
    ]


def _host(x: Any) -> np.ndarray:
    """A result as NumPy, to compare (torch's autograd leaves need detaching first)."""
    return np.asarray(x.detach() if hasattr(x, "detach") else x)


def _same(name: str, want: Any, got: Any, what: str) -> None:
    """Fail loudly unless `got` gives `want`'s numbers: a faster native that computes
    something else would make the comparison meaningless."""
    wants = want if isinstance(want, tuple) else (want,)
    gots = got if isinstance(got, tuple) else (got,)
    for w, g in zip(wants, gots, strict=True):
        np.testing.assert_allclose(_host(g), _host(w), rtol=1e-5, atol=1e-5,
                                   err_msg=f"{name}: {what} differs from the native version")


def _with_backend(backend: str | None, call: Call) -> Any:
    """`call()` with `backend` set globally (None: inferred), unset again afterwards, so
    that each timed batch of a mode runs in that mode and no other."""
    if backend is None:
        return call()
    ivy.set_backend(backend)
    try:
        return call()
    finally:
        ivy.unset_backend()


def _timed(call: Call, n: int, sync: Callable[[Any], Any] | None) -> float:
    """Seconds per call over `n` calls (each waited for, where the framework is async)."""
    start = time.perf_counter()
    if sync is None:
        for _ in range(n):
            call()
    else:
        for _ in range(n):
            sync(call())
    return (time.perf_counter() - start) / n


def _compare(calls: dict[str, tuple[Call, str | None]], sync: Callable[[Any], Any] | None,
             rounds: int, batch_s: float) -> dict[str, Any]:
    """Interleaved timing of the variants; overhead = median / native median - 1."""
    for call, backend in calls.values():
        _with_backend(backend, lambda c=call: _timed(c, 3, sync))  # warm-up
    first = min(_timed(calls["native"][0], 3, sync) for _ in range(3))
    n = max(3, round(batch_s / first))
    times: dict[str, list[float]] = {k: [] for k in calls}
    keys = list(calls)
    for r in range(rounds):
        for key in keys[r % len(keys):] + keys[:r % len(keys)]:
            call, backend = calls[key]
            times[key].append(_with_backend(backend, lambda c=call: _timed(c, n, sync)))
    med = {k: statistics.median(v) for k, v in times.items()}
    row: dict[str, Any] = {"native_us": med["native"] * 1e6, "calls_per_round": n}
    for key in keys[1:]:
        paired = [t / base for t, base in zip(times[key], times["native"])]
        q1, _, q3 = statistics.quantiles(paired, n=4)
        row[key] = med[key] / med["native"] - 1
        row[f"{key} spread"] = (q3 - q1) / 2
    return row


def _profiled(call: Call, backend: str | None, count: int) -> dict[tuple[str, str], Any]:
    """{(file, function): (calls, own seconds)} of `count` calls under cProfile."""
    profile = cProfile.Profile()
    _with_backend(backend, lambda: profile.runcall(lambda: [call() for _ in range(count)]))
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    return {(k[0], k[2]): (s[1], s[2]) for k, s in stats.items()}


def _where_it_goes(calls: dict[str, tuple[Call, str | None]], mode: str,
                   count: int) -> dict[str, Any]:
    """cProfile on the native and the ivy version, `count` calls each: the share of the
    ivy version's time in facade frames (ivy, lowerings, ivy_ir, generated backend code;
    `ivy/applied` and MATH_FRAMES excluded), their number per call, and the four
    functions whose own time grows most from native to ivy, per call (`_is_arithmetic`
    frames aside): facade frames, and the framework's own (the extra ops, or a
    `tf.function` call, the facade makes it do). Profiling inflates Python frames, so
    this names where the overhead goes; it does not measure it."""
    native = _profiled(calls["native"][0], None, count)
    mine = _profiled(*calls[mode], count)
    total = sum(t for _, t in mine.values())
    facade = [v for k, v in mine.items() if _is_facade(*k)]
    extra = {k: (mine.get(k, (0, 0.0))[1] - native.get(k, (0, 0.0))[1]) / count
             for k in mine.keys() | native.keys() if not _is_arithmetic(*k)}
    top = sorted(extra.items(), key=lambda kv: -kv[1])[:4]
    return {"share": sum(t for _, t in facade) / total,
            "frames_per_call": sum(n for n, _ in facade) / count,
            "extra_us": {_frame_label(*k): round(t * 1e6, 1) for k, t in top}}


def _is_arithmetic(filename: str, function: str) -> bool:
    """The frames of the code both sides run, each side under its own file name (the
    applied functions, the natives, the training steps, and the bodies `ivy_ir` compiles
    for one-op calls): their own time is mostly array arithmetic by operator, the same
    on both sides, so they are left out of the diff."""
    return ("/ivy/applied/" in filename or filename.startswith((BENCHMARKS, "<ivy_ir "))
            or function in MATH_FRAMES)


def _frame_label(filename: str, function: str) -> str:
    return function if filename == "~" else f"{Path(filename).name}:{function}"


def _is_facade(filename: str, function: str) -> bool:
    """A frame that exists because the call went through `ivy`: generated backend code,
    the agnostic functions, spellings, kernels, gradients, containers, optimizers."""
    if filename.startswith("<ivy "):
        return True
    return (filename.startswith(FACADE_DIRS) and "/ivy/applied/" not in filename
            and function not in MATH_FRAMES)


def measure(backend: str, rounds: int, batch_s: float, threads: int,
            profile: bool) -> list[dict[str, Any]]:
    """One backend's rows: every case checked against its native, then timed."""
    convert, sync, nat = _framework(backend, threads)
    arrays = {k: convert(v) for k, v in _inputs().items()}
    work: list[tuple[str, dict[str, tuple[Call, str | None]]]] = []
    for name, ivy_call, native_call in _cases(arrays, nat):
        want = native_call()
        _same(name, want, _with_backend(backend, ivy_call), "ivy (backend set)")
        _same(name, want, ivy_call(), "ivy (backend inferred)")
        work.append((name, {"native": (native_call, None), "native again": (native_call, None),
                            "global": (ivy_call, backend), "inferred": (ivy_call, None)}))
    if backend in NATIVE_STEPS:
        work += _training_work(backend, convert)
    rows = []
    for name, calls in work:
        row = {"backend": backend, "function": name}
        row.update(_compare(calls, sync, rounds, batch_s))
        if profile and backend in PROFILED:
            count = max(3, row["calls_per_round"])
            row["profile"] = {mode: _where_it_goes(calls, mode, count)
                              for mode in ("global", "inferred")}
        rows.append(row)
        print(f"{backend:10s} {name:26s} native {row['native_us']:9.1f} us   "
              f"A/A {row['native again']:+6.2%}   global {row['global']:+6.2%} "
              f"(+-{row['global spread']:.1%})   inferred {row['inferred']:+6.2%} "
              f"(+-{row['inferred spread']:.1%})", flush=True)
    return rows


def _training_work(backend: str, convert: Callable[[np.ndarray], Any]
                   ) -> list[tuple[str, dict[str, tuple[Call, str | None]]]]:
    """The training step and its gradients half: one native step object per native
    variant and one IvyStep per mode (each keeps its own weights and moments), checked
    to agree after a first step."""
    weights, (x, y) = initial_weights(), batch()
    x, y = convert(x), convert(y)
    native = {k: NATIVE_STEPS[backend](weights, x, y) for k in ("native", "native again")}
    ivy_steps = {mode: IvyStep({k: convert(w.copy()) for k, w in weights.items()}, x, y)
                 for mode in ("global", "inferred")}
    calls = {k: (step, None) for k, step in native.items()}
    calls["global"] = (ivy_steps["global"], backend)
    calls["inferred"] = (ivy_steps["inferred"], None)
    for call, chosen in calls.values():
        _with_backend(chosen, call)
    want = native["native"].weights()
    for mode, step in ivy_steps.items():
        got = step.weights()
        for k in want:
            np.testing.assert_allclose(got[k], want[k], rtol=1e-6, atol=1e-7,
                                       err_msg=f"training step, ivy {mode}, weight {k}")
    halves = {k: (step.gradients, chosen) for k, (step, chosen) in calls.items()}
    return [(TRAIN, calls), (f"{TRAIN}: gradients only", halves)]


def main(argv: list[str] | None = None) -> None:
    """Measure, write the JSON and the PNG, print the tables (`argv`: this script's
    options, also what `facade_overhead.py --suite applied` passes on)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--backends", default="numpy,jax,torch,tensorflow")
    parser.add_argument("--batch-ms", type=float, default=20.0,
                        help="time of the calls each variant makes per round")
    parser.add_argument("--threads", type=int, default=1,
                        help="intra-op threads of torch and TensorFlow")
    parser.add_argument("--profile", action="store_true",
                        help="also split the ivy calls' time with cProfile")
    opts = parser.parse_args(argv)
    backends = opts.backends.split(",")
    started = time.perf_counter()
    rows = [r for b in backends
            for r in measure(b, opts.rounds, opts.batch_ms / 1e3, opts.threads, opts.profile)]
    out = ROOT / "benchmarks" / "results"
    out.mkdir(exist_ok=True)
    meta = {"date": datetime.date.today().isoformat(), "machine": platform.platform(),
            "cpus": os.cpu_count(), "python": platform.python_version(),
            "command": " ".join(sys.argv),
            "rounds": opts.rounds, "batch_ms": opts.batch_ms, "threads": opts.threads,
            "seconds": time.perf_counter() - started}
    (out / "applied_overhead.json").write_text(json.dumps({"meta": meta, "rows": rows},
                                                          indent=1))
    plot(rows, backends, ROOT / "docs" / "applied_overhead.png")
    print()
    print(summary(rows, backends))
    if opts.profile:
        print("\ncProfile of the ivy calls: facade frames' share of the time, their number "
              "per call, and the own times that grow most from native to ivy (per call, "
              "inflated by profiling):")
        for r in rows:
            for mode, p in r.get("profile", {}).items():
                grown = ", ".join(f"{k} {v:+.0f} us" for k, v in p["extra_us"].items())
                print(f"- {r['backend']} {r['function']} ({mode}): {p['share']:.1%}, "
                      f"{p['frames_per_call']:.0f} frames; {grown}")
    print(f"\n({meta['seconds']:.0f} s)")


if __name__ == "__main__":
    main()
