#!/usr/bin/env bash
# Create .venv-openenv with OpenEnv 0.10 (`openenv`, the distribution TRL's and verifiers' OpenEnv code imports;
# `openenv-core` 0.3 is the older one) and planshape. Idempotent. Its own venv: OpenEnv's fastmcp 3 needs mcp<2,
# the core's serve extra mcp>=2.3, so planshape goes in without that extra.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
VENV=.venv-openenv
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --upgrade pip
"$VENV/bin/python" -m pip install -q "openenv==0.10.0"
[ -z "${PLANSHAPE_DEPS_ONLY:-}" ] || exit 0  # scripts/test.sh installs the trainers side by side first, planshape after
"$VENV/bin/python" -m pip install -q -e ".[test]"
