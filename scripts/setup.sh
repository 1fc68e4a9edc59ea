#!/usr/bin/env bash
# Create .venv and install planshape with what its tests need. Idempotent; safe on a fresh machine.
# torch is installed first and pinned to the CPU build: an unpinned torch would pull multi-GB CUDA wheels.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q "torch==2.13.0"
[ -z "${PLANSHAPE_DEPS_ONLY:-}" ] || exit 0  # scripts/test.sh installs the trainers side by side first, planshape after
.venv/bin/python -m pip install -q -e ".[test,serve,solver]"
