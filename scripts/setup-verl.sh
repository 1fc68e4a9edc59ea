#!/usr/bin/env bash
# Create .venv-verl with VERL 0.9.1 and planshape (editable, so the `verl.plugins` entry point is installed).
# Idempotent. torch is installed first and pinned to the CPU build: verl does not pin torch, and an unpinned
# torch would pull multi-GB CUDA wheels. The `verl-core` extra brings what the trainers import (TransferQueue,
# cachetools, fastapi, ...); the vllm/sglang/fsdp extras pin another torch and are for GPU machines only.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
VENV=.venv-verl
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
if ! "$VENV/bin/python" -c "import importlib.metadata as m; assert m.version('verl') == '0.9.1'" >/dev/null 2>&1; then
  "$VENV/bin/python" -m pip install -q --upgrade pip
  "$VENV/bin/python" -m pip install -q "torch==2.13.0"
  "$VENV/bin/python" -m pip install -q "verl[verl-core]==0.9.1"
fi
"$VENV/bin/python" -m pip install -q -e ".[test]"
