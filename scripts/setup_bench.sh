#!/usr/bin/env bash
# Install the `bench` extra (benchmarks/transpile_speed.py: the timm model zoo and
# torchax) into an existing virtual environment made by scripts/setup.sh, pinned by
# constraints.txt, without touching its torch, jax or tensorflow.
# Usage: bash scripts/setup_bench.sh [VENV_DIR]   (default: .venv)
# --no-deps: torchvision's and timm's metadata name torch, whose PyPI wheel is the
# multi-GB CUDA one, and torchax's extras name jax; all three run on the pinned CPU
# torch 2.13.0 and jax 0.10.2 already in the venv. Their other requirements (numpy,
# pillow, pyyaml, huggingface_hub, safetensors) come with the dev extra (matplotlib,
# transformers); they are installed here too, pinned, in case they are missing.
# torchvision's kernels are CUDA-built, so the benchmark declares the two schemas
# (torchvision::nms/qnms) its Python code looks up at import (benchmarks/transpile_zoo.py)
# and imports torchax through a shim for torch 2.13 (benchmarks/torchax_shim.py).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${1:-.venv}"
PY="$VENV/bin/python"

"$PY" -m pip install -c constraints.txt pillow pyyaml huggingface_hub safetensors
"$PY" -m pip install --no-deps -c constraints.txt timm torchvision torchax
"$PY" - <<'PYEOF'
from importlib.metadata import version

want = {"torch": "2.13.0", "jax": "0.10.2", "jaxlib": "0.10.2"}
got = {pkg: version(pkg).split("+")[0] for pkg in want}
assert got == want, f"the bench install changed the frameworks: {got} (want {want})"
print("bench extra:", ", ".join(f"{p} {version(p)}" for p in ("timm", "torchvision",
                                                              "torchax")))
PYEOF
