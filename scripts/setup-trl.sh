#!/usr/bin/env bash
# Create .venv-trl with TRL 1.16 and planshape (the trl adapter's test environment). Idempotent.
# torch is installed first and pinned to the CPU build: an unpinned torch would pull multi-GB CUDA wheels.
# trl==1.16.0 resolves transformers 5.24 / accelerate 1.15 / datasets 5.2 (see ../shared/notes/trl.md §4).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
VENV=.venv-trl
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --upgrade pip
"$VENV/bin/python" -m pip install -q "torch==2.13.0"
"$VENV/bin/python" -m pip install -q "trl==1.16.0"
"$VENV/bin/python" -m pip install -q -e ".[test]"
