"""Ops whose result sizes depend on the data, compiled from ONNX, against the native
calls in the same run: a detector's post-processing graph (`NonMaxSuppression` over
every class, then gathers of the kept boxes) against onnxruntime, and `Unique` and
`NonZero` against each framework's own function (`np.unique`/`np.argwhere`,
`jnp.unique`/`jnp.argwhere`, `torch.unique`/`torch.argwhere`, TF's
`UniqueWithCountsV2`/`tf.where`), and on JAX a convolutional backbone with a NonZero
score threshold compiled in stages against the same program run op by op, each on one
thread.

Run as a script (`.venv/bin/python benchmarks/data_shaped.py [--runs 30]`; site-packages
holds an unrelated `benchmarks` package, so this file is never imported). Columns are
interleaved round by round; medians. Writes `docs/data_shaped.png` and prints the
markdown tables of docs/benchmarks.md.
"""

# ruff: noqa: E402 (the thread settings come before NumPy and the frameworks load)
from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false "
                                   "intra_op_parallelism_threads=1")

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import ivy_ir
from lowerings.runtime import host_array

PNG = Path(__file__).resolve().parents[1] / "docs" / "data_shaped.png"
TARGETS = ("numpy", "jax", "torch", "tensorflow")
NMS_SIZES = ((1, 20, 200), (1, 20, 1000))  # (batch, classes, boxes)
UNIQUE_SIZE = 100_000


def _model(nodes: list[Any], inputs: list[Any], outputs: list[Any],
           inits: list[Any] = ()) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 10  # what the installed onnxruntime reads
    return model


def _nms_model(batch: int, classes: int, boxes: int) -> onnx.ModelProto:
    inits = [numpy_helper.from_array(np.array([50], np.int64), "max_out"),
             numpy_helper.from_array(np.array([0.5], np.float32), "iou"),
             numpy_helper.from_array(np.array([0.05], np.float32), "score_min"),
             numpy_helper.from_array(np.array([0, 2], np.int64), "b_and_box"),
             numpy_helper.from_array(np.array([1], np.int64), "axis1")]
    nodes = [helper.make_node("NonMaxSuppression", ["boxes", "scores", "max_out", "iou",
                                                    "score_min"], ["sel"]),
             helper.make_node("Gather", ["sel", "b_and_box"], ["pairs"], axis=1),
             helper.make_node("GatherND", ["boxes", "pairs"], ["kept"]),
             helper.make_node("GatherND", ["scores", "sel"], ["kept_scores"])]
    info = helper.make_tensor_value_info
    return _model(nodes, [info("boxes", TensorProto.FLOAT, [batch, boxes, 4]),
                          info("scores", TensorProto.FLOAT, [batch, classes, boxes])],
                  [info("kept", TensorProto.FLOAT, None),
                   info("kept_scores", TensorProto.FLOAT, None)], inits)


def _unary_model(op: str, outputs: int, **attrs: Any) -> onnx.ModelProto:
    info = helper.make_tensor_value_info
    names = [f"y{i}" for i in range(outputs)]
    return _model([helper.make_node(op, ["x"], names, **attrs)],
                  [info("x", TensorProto.FLOAT, [UNIQUE_SIZE])],
                  [info(n, TensorProto.UNDEFINED, None) for n in names])


def _median_interleaved(columns: dict[str, Callable[[], Any]], runs: int) -> dict[str, float]:
    for fn in columns.values():  # warm-up: compile, caches
        for _ in range(3):
            fn()
    times: dict[str, list[float]] = {k: [] for k in columns}
    for _ in range(runs):
        for name, fn in columns.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return {k: statistics.median(v) for k, v in times.items()}


def _compiled(model: onnx.ModelProto, args: tuple[np.ndarray, ...]) -> dict[str, Callable]:
    """Per target: the compiled call on that framework's arrays, waiting for its result,
    checked once against the NumPy target."""
    out: dict[str, Callable] = {}
    want = None
    for target in TARGETS:
        c = ivy_ir.compile(model, target=target, args=args)
        native = [c.runtime.to_native(a) for a in args]
        got = [host_array(v) for v in c(*native)]
        if want is None:
            want = got
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
        out[f"ivy->{target}"] = lambda c=c, native=native: [host_array(v) for v in c(*native)]
    return out


def bench_nms(runs: int) -> list[dict[str, Any]]:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    rows = []
    rng = np.random.default_rng(0)
    for batch, classes, boxes in NMS_SIZES:
        corner = rng.uniform(0, 600, (batch, boxes, 2)).astype(np.float32)
        size = rng.uniform(10, 120, (batch, boxes, 2)).astype(np.float32)
        data = (np.concatenate([corner, corner + size], -1),
                rng.uniform(0, 1, (batch, classes, boxes)).astype(np.float32) ** 4)
        model = _nms_model(batch, classes, boxes)
        session = ort.InferenceSession(model.SerializeToString(), options)
        feeds = {"boxes": data[0], "scores": data[1]}
        columns = {"onnxruntime": lambda s=session, f=feeds: s.run(None, f),
                   **_compiled(model, data)}
        want = session.run(None, feeds)
        for g, w in zip(columns["ivy->numpy"](), want):
            np.testing.assert_array_equal(g, w)
        rows.append({"case": f"NMS {batch}x{classes}x{boxes}",
                     **_median_interleaved(columns, runs)})
    return rows


def _natives(op: str) -> dict[str, Callable[[np.ndarray], Any]]:
    """The frameworks' own calls (taking the framework's array) for `op`."""
    import jax
    import jax.numpy as jnp
    import tensorflow as tf
    import torch

    if op == "Unique":
        return {
            "numpy": lambda x: np.unique(x, return_index=True, return_inverse=True,
                                         return_counts=True),
            "jax": lambda x: jax.block_until_ready(jnp.unique(
                x, return_index=True, return_inverse=True, return_counts=True)),
            "torch": lambda x: torch.unique(x, return_inverse=True, return_counts=True),
            "tensorflow": lambda x: tf.raw_ops.UniqueWithCountsV2(x=x, axis=[0]),
        }
    return {"numpy": np.argwhere, "jax": lambda x: jax.block_until_ready(jnp.argwhere(x)),
            "torch": torch.argwhere, "tensorflow": tf.where}


def bench_selections(runs: int) -> list[dict[str, Any]]:
    rows = []
    rng = np.random.default_rng(1)
    x = np.round(rng.standard_normal(UNIQUE_SIZE) * 100).astype(np.float32)
    for op, outputs, attrs in (("Unique", 4, {}), ("NonZero", 1, {})):
        model = _unary_model(op, outputs, **attrs)
        c_args = (x if op == "Unique" else (x > 50).astype(np.float32),)
        row: dict[str, Any] = {"case": f"{op} of {UNIQUE_SIZE}"}
        for target, native in _natives(op).items():
            c = ivy_ir.compile(model, target=target, args=c_args)
            arg = c.runtime.to_native(c_args[0])
            ready = _ready(target)
            times = _median_interleaved({"native": lambda a=arg, f=native: f(a),
                                         "ivy": lambda a=arg, c=c, r=ready: r(c(a))}, runs)
            row[target] = times["ivy"] / times["native"]
        rows.append(row)
    return rows


def _backbone_model(keep_nonzero: bool) -> onnx.ModelProto:
    """Three 3x3 convolutions on 1 x 8 x 64 x 64, a sigmoid map, then (with
    `keep_nonzero`) the values above 0.9 gathered through NonZero and summed, as a
    detector's score threshold; without it, the map's sum (the all-static floor)."""
    rng = np.random.default_rng(2)
    inits = [numpy_helper.from_array((rng.standard_normal(s) * 0.2).astype(np.float32), n)
             for n, s in (("w1", (16, 8, 3, 3)), ("w2", (16, 16, 3, 3)),
                          ("w3", (8, 16, 3, 3)))]
    inits.append(numpy_helper.from_array(np.array(0.9, np.float32), "cut"))
    conv = {"pads": [1, 1, 1, 1]}
    nodes = [helper.make_node("Conv", ["x", "w1"], ["c1"], **conv),
             helper.make_node("Relu", ["c1"], ["r1"]),
             helper.make_node("Conv", ["r1", "w2"], ["c2"], **conv),
             helper.make_node("Relu", ["c2"], ["r2"]),
             helper.make_node("Conv", ["r2", "w3"], ["c3"], **conv),
             helper.make_node("Sigmoid", ["c3"], ["p"])]
    if keep_nonzero:
        nodes += [helper.make_node("Greater", ["p", "cut"], ["hot"]),
                  helper.make_node("NonZero", ["hot"], ["nz"]),
                  helper.make_node("Transpose", ["nz"], ["idx"], perm=[1, 0]),
                  helper.make_node("GatherND", ["p", "idx"], ["kept"]),
                  helper.make_node("ReduceSum", ["kept"], ["y"], keepdims=0)]
    else:
        nodes.append(helper.make_node("ReduceSum", ["p"], ["y"], keepdims=0))
    info = helper.make_tensor_value_info
    return _model(nodes, [info("x", TensorProto.FLOAT, [1, 8, 64, 64])],
                  [info("y", TensorProto.FLOAT, None)], inits)


def bench_staged(runs: int) -> dict[str, float]:
    """JAX: the backbone + NonZero program in stages (`lowerings/staged.py`), against the
    same program run op by op (what every such program did before; the runtime's
    switch turned off for that column) and the backbone alone under one `jax.jit`."""
    import jax

    import lowerings.jax as lowered

    x = np.random.default_rng(3).standard_normal((1, 8, 64, 64)).astype(np.float32)
    staged = ivy_ir.compile(_backbone_model(True), target="jax", args=(x,))
    lowered.RUNTIME.stages_data_shaped = False
    try:
        whole = ivy_ir.compile(_backbone_model(True), target="jax", args=(x,))
    finally:
        lowered.RUNTIME.stages_data_shaped = True
    floor = ivy_ir.compile(_backbone_model(False), target="jax", args=(x,))
    np.testing.assert_allclose(host_array(staged(x)), host_array(whole(x)), rtol=1e-5)
    arg = jax.numpy.asarray(x)
    return _median_interleaved({
        "jit, no NonZero (floor)": lambda: jax.block_until_ready(floor(arg)),
        "staged": lambda: jax.block_until_ready(staged(arg)),
        "op by op": lambda: jax.block_until_ready(whole(arg))}, runs)


def _ready(target: str) -> Callable[[Any], Any]:
    """Waits for a compiled call's results (JAX dispatches asynchronously), as the
    native JAX calls do; the other frameworks return finished arrays."""
    if target != "jax":
        return lambda value: value
    import jax

    return jax.block_until_ready


def _plot(nms: list[dict[str, Any]], sel: list[dict[str, Any]]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    names = [k for k in nms[0] if k != "case"]
    width = 0.8 / len(names)
    for i, name in enumerate(names):
        left.bar([j + i * width for j in range(len(nms))], [r[name] * 1e3 for r in nms],
                 width, label=name)
    left.set_xticks([j + 0.4 - width / 2 for j in range(len(nms))], [r["case"] for r in nms])
    left.set_ylabel("ms per call (median)")
    left.set_title("detection post-processing: NMS + gathers")
    left.legend(fontsize=8)
    width = 0.8 / len(TARGETS)
    for i, target in enumerate(TARGETS):
        right.bar([j + i * width for j in range(len(sel))], [r[target] for r in sel], width,
                  label=target)
    right.axhline(1.0, color="k", lw=0.8)
    right.set_xticks([j + 0.4 - width / 2 for j in range(len(sel))], [r["case"] for r in sel])
    right.set_ylabel("compiled / the framework's own call")
    right.set_title("Unique and NonZero from ONNX, per target")
    right.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(PNG, dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    nms = bench_nms(args.runs)
    names = [k for k in nms[0] if k != "case"]
    print("| case | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for r in nms:
        print(f"| {r['case']} | " + " | ".join(f"{r[n] * 1e3:.2f} ms" for n in names) + " |")
    sel = bench_selections(args.runs)
    print("\n| case | " + " | ".join(TARGETS) + " |")
    print("|---|" + "---|" * len(TARGETS))
    for r in sel:
        print(f"| {r['case']} | " + " | ".join(f"{r[t]:.2f}x" for t in TARGETS) + " |")
    staged = bench_staged(args.runs)
    print("\n| JAX, 3 convolutions + NonZero | " + " | ".join(staged) + " |")
    print("|---|" + "---|" * len(staged))
    print("| ms per call | " + " | ".join(f"{t * 1e3:.2f}" for t in staged.values()) + " |")
    _plot(nms, sel)
    print(f"wrote {PNG}")


if __name__ == "__main__":
    main()
