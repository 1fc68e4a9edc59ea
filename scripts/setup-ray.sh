#!/usr/bin/env bash
# Create .venv-ray with Ray Serve and planshape (the `planshape serve --ray` deployment's test environment).
# Idempotent. Ray brings its own pins (grpcio, fastapi, starlette, ...), so it has a venv of its own rather than
# the core one; nothing here needs torch.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
VENV=.venv-ray
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
if ! "$VENV/bin/python" -c "import importlib.metadata as m; assert m.version('ray') == '2.60.0'" >/dev/null 2>&1; then
  "$VENV/bin/python" -m pip install -q --upgrade pip
  "$VENV/bin/python" -m pip install -q "ray[serve]==2.60.0"  # the `ray` extra's pin, before planshape itself
fi
[ -z "${PLANSHAPE_DEPS_ONLY:-}" ] || exit 0  # scripts/test.sh installs the trainers side by side first, planshape after
"$VENV/bin/python" -m pip install -q -e ".[ray,test]"
