"""ONNX models through ivy_ir against onnxruntime: the nine `light` models stored in the
`onnx` package (AlexNet ... ZFNet-512) and a BERT-style encoder exported from torch with
`torch.onnx.export`, each run by onnxruntime's CPU provider and by ivy_ir's JAX and torch
targets, in one process per model with the columns interleaved round by round (medians
after warm-up, every framework on `--threads` intra-op threads). Also per model: ivy_ir's
import + passes + lowering time (`ivy_ir.compile` until it returns, after a warm-up
compile of a one-node model) and its time to the first result, and the max |error| of
each target against onnxruntime.

    .venv/bin/python benchmarks/onnx_vs_ort.py [--models light_resnet50,bert] [--rounds 10]

Writes benchmarks/results/onnx_vs_ort.json and docs/onnx_vs_ort.png and prints the
markdown table that docs/benchmarks.md shows; `--report` redraws both from the JSON.
"""

# ruff: noqa: E402 (the thread settings come before NumPy and the frameworks load)
from __future__ import annotations

import argparse
import datetime
import io
import json
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # not the site-packages `benchmarks`

import transpile_zoo as zoo

ROOT = Path(__file__).resolve().parents[1]
JSON = ROOT / "benchmarks" / "results" / "onnx_vs_ort.json"
PNG = ROOT / "docs" / "onnx_vs_ort.png"
LIGHT = ("bvlc_alexnet", "densenet121", "inception_v1", "inception_v2", "resnet50",
         "shufflenet", "squeezenet", "vgg19", "zfnet512")
MODELS = (*(f"light_{m}" for m in LIGHT), "bert")
COLUMNS = ("onnxruntime", "ivy->jax", "ivy->torch")
BERT = {"layers": 4, "hidden": 256, "heads": 4, "batch": 8, "seq": 128}


def _light_path(name: str) -> Path:
    import onnx

    return Path(onnx.__file__).parent / "backend" / "test" / "data" / "light" / f"{name}.onnx"


def _model(name: str) -> tuple[Any, list[Any]]:
    """The model proto and one input per graph input (the harness's dummy data for the
    light models: a ramp over the input's elements)."""
    import numpy as np
    import onnx

    if name == "bert":
        return _bert()
    model = onnx.load(_light_path(name))
    initialized = {t.name for t in model.graph.initializer}
    inputs = []
    for value in model.graph.input:
        if value.name in initialized:
            continue
        dims = [d.dim_value or 1 for d in value.type.tensor_type.shape.dim]
        n = int(np.prod(dims))
        inputs.append((np.arange(n).reshape(dims) / n).astype(np.float32))
    return model, inputs


def _bert() -> tuple[Any, list[Any]]:
    """A BERT-style encoder (transformers' `BertModel`, small config, random weights)
    exported by torch's TorchScript-based ONNX exporter."""
    import numpy as np
    import onnx
    import torch
    zoo.register_torchvision_schemas()  # transformers imports torchvision when present
    import transformers

    torch.manual_seed(0)
    config = transformers.BertConfig(
        vocab_size=1000, hidden_size=BERT["hidden"], num_hidden_layers=BERT["layers"],
        num_attention_heads=BERT["heads"], intermediate_size=4 * BERT["hidden"],
        max_position_embeddings=BERT["seq"])
    model = transformers.BertModel(config).eval()
    ids = torch.randint(0, 1000, (BERT["batch"], BERT["seq"]))
    buffer = io.BytesIO()
    with torch.no_grad():
        torch.onnx.export(model, (ids,), buffer, input_names=["input_ids"],
                          output_names=["last_hidden_state"], dynamo=False, opset_version=17)
    return onnx.load_from_string(buffer.getvalue()), [ids.numpy().astype(np.int64)]


def _worker(name: str, threads: int, rounds: int, batch_s: float, out: Path) -> None:
    zoo.fix_threads(threads)
    import numpy as np
    import onnxruntime as ort

    zoo.set_torch_threads(threads)
    import jax
    import torch

    import ivy_ir
    from lowerings.runtime import host_array

    torch.set_grad_enabled(False)
    _warm_up(ivy_ir)
    model, inputs = _model(name)
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(model.SerializeToString(), options,
                                   providers=["CPUExecutionProvider"])
    feeds = {i.name: x for i, x in zip(session.get_inputs(), inputs)}
    ref = session.run(None, feeds)[0]
    runners = {"onnxruntime": lambda: session.run(None, feeds)}
    info: dict[str, Any] = {"onnxruntime": {}}
    for column, target in (("ivy->jax", "jax"), ("ivy->torch", "torch")):
        start = time.perf_counter()
        try:
            c = ivy_ir.compile(model, target=target, args=tuple(inputs))
            built = time.perf_counter() - start
            xs = [c.runtime.to_native(x) for x in inputs]
            sync = jax.block_until_ready if target == "jax" else (lambda y: y)
            y = sync(c(*xs))
        except Exception as exc:  # a failing column is reported, the others go on
            info[column] = {"error": f"{type(exc).__name__}: {exc}"[:300]}
            print(f"  {name:<24} {column:<12} FAILED: {info[column]['error']}", flush=True)
            continue
        first = time.perf_counter() - start
        y = y[0] if isinstance(y, (tuple, list)) else y
        err = float(np.max(np.abs(host_array(y).astype(np.float64) - ref)))
        runners[column] = (lambda f=c, a=xs, s=sync: s(f(*a)))
        info[column] = {"import_s": built, "first_s": first, "err": err}
        print(f"  {name:<24} {column:<12} import+passes+lowering {built:6.2f} s, first result "
              f"{first:6.2f} s, max |err| {err:.1e}", flush=True)
    samples = zoo.interleaved_rounds(name, runners, list(runners), rounds, batch_s)
    for column, s in samples.items():
        info[column]["ms"] = statistics.median(s) * 1e3
        print(f"  {name:<24} {column:<12} {info[column]['ms']:9.2f} ms", flush=True)
    out.write_text(json.dumps({"model": name, "columns": info}))


def _warm_up(ivy_ir: Any) -> None:
    """Compile a one-node model on both targets first, so that the times below are the
    model's own, not the process's one-off loading of the importer and lowerings."""
    import numpy as np
    from onnx import TensorProto, helper

    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "warm_up",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    for target in ("jax", "torch"):
        ivy_ir.compile(helper.make_model(graph), target=target,
                       args=(np.ones(2, np.float32),))


def report(result: dict[str, Any]) -> str:
    """The markdown table of docs/benchmarks.md, and draw the PNG."""
    lines = ["| model | onnxruntime ms | ivy->jax ms | ivy->torch ms | ort / jax | "
             "ort / torch | import s (jax) | max err jax | max err torch |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for row in result["models"]:
        cols = row["columns"]
        ort_ms = cols["onnxruntime"]["ms"]
        imp = cols.get("ivy->jax", {}).get("import_s")
        lines.append(f"| {row['model']} | {ort_ms:.2f} | {_cell(cols, 'ivy->jax', 'ms', '.2f')} | "
                     f"{_cell(cols, 'ivy->torch', 'ms', '.2f')} | "
                     f"{_speedup(cols, 'ivy->jax')} | {_speedup(cols, 'ivy->torch')} | "
                     f"{'-' if imp is None else f'{imp:.2f}'} | "
                     f"{_cell(cols, 'ivy->jax', 'err', '.1e')} | "
                     f"{_cell(cols, 'ivy->torch', 'err', '.1e')} |")
    _plot(result)
    return "\n".join(lines)


def _cell(cols: dict[str, Any], column: str, key: str, spec: str) -> str:
    value = cols.get(column, {}).get(key)
    return "failed" if value is None else format(value, spec)


def _speedup(cols: dict[str, Any], column: str) -> str:
    ms = cols.get(column, {}).get("ms")
    return "-" if ms is None else f"{cols['onnxruntime']['ms'] / ms:.2f}x"


def _plot(result: dict[str, Any]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [r["model"].removeprefix("light_") for r in result["models"]]
    fig, ax = plt.subplots(figsize=(10, 4))
    width = 0.38
    for i, column in enumerate(("ivy->jax", "ivy->torch")):
        speedups = [r["columns"]["onnxruntime"]["ms"] / r["columns"][column]["ms"]
                    if "ms" in r["columns"].get(column, {}) else 0.0 for r in result["models"]]
        ax.bar([k + (i - 0.5) * width for k in range(len(names))], speedups, width,
               label=column)
    ax.axhline(1.0, color="black", lw=0.8)
    ax.set_xticks(range(len(names)), names, rotation=30, ha="right")
    ax.set_ylabel("speed-up over onnxruntime (x)")
    ax.set_title(f"ONNX models on CPU, {result['threads']} thread(s): ivy_ir targets vs "
                 "onnxruntime (higher is faster)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(PNG, dpi=110)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--batch-ms", type=float, default=200.0)
    ap.add_argument("--report", action="store_true", help="redraw from the JSON")
    ap.add_argument("--worker")
    ap.add_argument("--worker-out", type=Path)
    args = ap.parse_args()
    if args.worker:
        _worker(args.worker, args.threads, args.rounds, args.batch_ms / 1e3, args.worker_out)
        return
    if not args.report:
        rows = []
        for name in args.models.split(","):
            print(f"{name}:", flush=True)
            with tempfile.TemporaryDirectory() as tmp:
                out = Path(tmp) / "row.json"
                subprocess.run([sys.executable, __file__, "--worker", name,
                                "--worker-out", str(out), "--threads", str(args.threads),
                                "--rounds", str(args.rounds), "--batch-ms",
                                str(args.batch_ms)], check=False)
                if out.exists():
                    rows.append(json.loads(out.read_text()))
                else:
                    print(f"  {name}: the worker died", flush=True)
        JSON.parent.mkdir(parents=True, exist_ok=True)
        JSON.write_text(json.dumps({"date": datetime.date.today().isoformat(),
                                    "threads": args.threads, "rounds": args.rounds,
                                    "machine": platform.processor() or platform.machine(),
                                    "models": rows}, indent=1))
    print(report(json.loads(JSON.read_text())))


if __name__ == "__main__":
    main()
