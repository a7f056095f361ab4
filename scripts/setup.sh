#!/usr/bin/env bash
# Create a virtual environment with ivy_ir and every framework, pinned by constraints.txt.
# Usage: bash scripts/setup.sh [VENV_DIR]   (default: .venv)
# torch goes in first and alone: with the exact CPU pin already satisfied, resolving the
# other packages never pulls the multi-GB CUDA torch wheels.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${1:-.venv}"
PYTHON="${PYTHON:-python3.11}"

"$PYTHON" -m venv "$VENV"
"$VENV/bin/pip" install "torch==2.13.0"
"$VENV/bin/pip" install -c constraints.txt -e ".[all,dev]"
