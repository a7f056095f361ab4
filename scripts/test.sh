#!/usr/bin/env bash
# The one test command (README and CI both run this): lint, layer contracts, unit tests,
# FileCheck tests.
# Usage: bash scripts/test.sh [VENV_DIR]   (default: .venv)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN="${1:-.venv}/bin"

"$BIN/ruff" check .
"$BIN/lint-imports" --no-cache
"$BIN/pytest"
"$BIN/lit" -v tests/lit
