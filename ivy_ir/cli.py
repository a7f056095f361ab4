"""`ivy-ir`: the project's command line (demo, ops, lower, import)."""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from . import api, demo_drone, demo_showcase, import_cli
from .core.errors import IRError, TraceError
from .demo import block, example_input, init_params
from .passes import run_pipeline


def _demo(args: argparse.Namespace) -> int:
    if args.program == "showcase":
        shown = demo_showcase.run(args.out or "ivy_ir_demo.png", quick=args.quick,
                                  threads=args.threads)
        return 0 if shown.ok else 1
    if args.program == "drone":
        return demo_drone.run(args.framework, args.compiled, args.out or "drone_path.png")
    params, x = init_params(), example_input()
    t0 = time.perf_counter()
    module = api.trace(block, (x,), params=params)
    t_trace = time.perf_counter() - t0
    print("== traced IR (a pre-norm transformer block written with the ivy facade) ==")
    print(module.to_text(locations=args.locations))
    timings: dict[str, float] = {}
    optimized = run_pipeline(module, "default", timings=timings)
    t0 = time.perf_counter()
    compiled = api.lower(optimized, target="numpy")
    t_lower = time.perf_counter() - t0
    print("== generated NumPy source ==")
    print(compiled.source)
    y = compiled(x)
    ref = block(params, x)
    err = float(np.max(np.abs(y - ref)))
    ok = y.shape == ref.shape and y.dtype == ref.dtype and err < 1e-4
    n_params = sum(v.size for v in module.params.values())
    print("== report ==")
    print(f"ops traced: {module.op_count()}, after default pipeline: {optimized.op_count()}")
    print(f"parameters: {len(module.params)} tensors, {n_params} values")
    print(f"trace: {t_trace * 1e3:.1f} ms; passes: "
          + ", ".join(f"{k} {v * 1e3:.1f} ms" for k, v in timings.items())
          + f"; lower: {t_lower * 1e3:.1f} ms")
    print(f"compiled vs eager: output {y.shape} {y.dtype}, max |diff| = {err:.2e} -> "
          + ("OK" if ok else "MISMATCH"))
    return 0 if ok else 1


def _ops(args: argparse.Namespace) -> int:
    print("\n".join(api.list_ops()))
    return 0


def _lower(args: argparse.Namespace) -> int:
    try:
        with open(args.file) as f:
            module = api.parse(f.read())
    except IRError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(api.lower(module, target=args.target).source)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ivy-ir", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="transpile a torch CNN and transformer to every "
                          "target, check and time them (showcase, the default); trace, "
                          "optimize, lower and check a facade block (block); or run the "
                          "2021 paper's drone planner (drone)")
    demo.add_argument("program", nargs="?", default="showcase",
                      choices=["showcase", "block", "drone"])
    demo.add_argument("--quick", action="store_true",
                      help="showcase: two timing rounds, no torch.compile")
    demo.add_argument("--threads", type=int, default=1, help="showcase: intra-op threads "
                      "of every framework (0: each framework's default)")
    demo.add_argument("--locations", action="store_true", help="block: print source locations")
    demo.add_argument("--framework", default="torch", choices=["torch", "jax", "tensorflow"],
                      help="drone: the framework the planner runs on")
    demo.add_argument("--compiled", action="store_true",
                      help="drone: compile the cost function to JAX with ivy_ir first")
    demo.add_argument("--out", default=None, help="the picture's path (showcase: "
                      "ivy_ir_demo.png, drone: drone_path.png)")
    demo.set_defaults(run=_demo)
    sub.add_parser("ops", help="list the ops of the ivy dialect").set_defaults(run=_ops)
    low = sub.add_parser("lower", help="print the target source for an IR file")
    low.add_argument("file")
    low.add_argument("--target", default="numpy")
    low.set_defaults(run=_lower)
    import_cli.add_parser(sub)
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except (import_cli.CliError, TraceError, IRError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
