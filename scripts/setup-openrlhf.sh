#!/usr/bin/env bash
# Create .venv-openrlhf with the real openrlhf==0.11.2 trainer and planshape. Idempotent; safe on a fresh machine.
# `pip install openrlhf` cannot work without a GPU toolchain (flash-attn builds from source, vllm pulls CUDA), so
# openrlhf is installed with --no-deps and only the light dependencies its CPU-importable modules need are added
# (ray, peft, transformers at openrlhf's pins). The GPU-only modules (vllm, flash_attn, deepspeed) are replaced by
# the test suite's stand-ins in tests/adapters/openrlhf/stubs/. torch goes first, pinned to the CPU build.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
VENV=.venv-openrlhf
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
pip=("$VENV/bin/python" -m pip install -q)
stamp="$VENV/.planshape-openrlhf-deps"
deps_id="torch==2.13.0 openrlhf==0.11.2 transformers==5.15.0 ray==2.55.0 v1"
if [ "$(cat "$stamp" 2>/dev/null)" != "$deps_id" ]; then
  "$VENV/bin/python" -m pip install -q --upgrade pip
  "${pip[@]}" "torch==2.13.0"
  "${pip[@]}" --no-deps "openrlhf==0.11.2"
  # openrlhf's own pins (transformers, ray); the rest are what its utils/trainer/cli modules import at top level.
  "${pip[@]}" "torch==2.13.0" "transformers==5.15.0" "ray==2.55.0" peft accelerate datasets torchdata pillow \
    pylatexenc sympy aiohttp jsonlines einops optree
  echo "$deps_id" > "$stamp"
fi
"${pip[@]}" -e ".[test]"
