#!/usr/bin/env bash
# The one test command (README and CI both run this): lint, layer contracts, unit tests,
# FileCheck tests.
# Usage: bash scripts/test.sh [VENV_DIR]   (default: .venv)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN="${1:-.venv}/bin"

"$BIN/ruff" check .
"$BIN/lint-imports" --no-cache
# two workers, each test file on one of them (its module fixtures built once): on
# 2 cores the suite takes ~15 instead of ~23 minutes; more workers would each hold
# every framework in memory
"$BIN/pytest" -n 2 --dist loadfile
"$BIN/lit" -v tests/lit
