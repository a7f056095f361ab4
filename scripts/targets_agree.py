"""Run N hostile generated programs (seeds 0..N-1) on every target and count, per target
and per culprit op, the programs whose results disagree with the NumPy reference, and
those of them that docs/semantics.md does not document (as tests/test_targets_agree.py
decides).

    .venv/bin/python scripts/targets_agree.py --programs 10000 [--start 0] [--show 3]
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from agreement import DOCUMENTED, TARGETS, culprit, disagreements, holds_extremes  # noqa: E402
from program_gen import build_program  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--programs", type=int, default=1000)
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--show", type=int, default=2, help="examples printed per culprit")
    parser.add_argument("--targets", default=",".join(TARGETS))
    args = parser.parse_args()
    targets = tuple(args.targets.split(","))
    counts: collections.Counter[tuple[str, str]] = collections.Counter()
    shown: collections.Counter[tuple[str, str]] = collections.Counter()
    start = time.perf_counter()
    for seed in range(args.start, args.start + args.programs):
        program = build_program(seed, hostile=True)
        if (seed - args.start) % 500 == 499:
            print(f"... {seed - args.start + 1} programs, {sum(counts.values())} "
                  f"disagreements so far", flush=True)
        for target, why in disagreements(program, targets).items():
            op = culprit(program, target)
            documented = op in DOCUMENTED and holds_extremes(program)
            key = (target, op if documented else f"{op} (undocumented)")
            counts[key] += 1
            if shown[key] < args.show:
                shown[key] += 1
                print(f"--- seed {seed} {target} ({key[1]}): {why}", flush=True)
    undocumented = sum(n for (_, op), n in counts.items() if op.endswith("(undocumented)"))
    print(f"\n{args.programs} programs in {time.perf_counter() - start:.0f} s; "
          f"{sum(counts.values())} disagreements, {undocumented} not documented in "
          f"docs/semantics.md")
    for (target, op), n in sorted(counts.items(), key=lambda kv: -kv[1]):
        print(f"  {target:10} {op:24} {n}")


if __name__ == "__main__":
    main()
