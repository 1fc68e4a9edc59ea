#!/usr/bin/env bash
# Create .venv-verifiers with verifiers 0.4 and planshape (the verifiers environment's test environment). Idempotent.
# Its own venv: verifiers pins mcp==2.0.0, the core's serve extra needs mcp>=2.3 (and OpenEnv mcp<2), so planshape
# goes in without that extra. The environment package (adapters/verifiers/environment) is what `vf-eval
# planshape-travelplanner` imports. uv runs verifiers' chat harness (a PEP 723 script); its dependencies are
# resolved once here, so a test run downloads nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
VENV=.venv-verifiers
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --upgrade pip
"$VENV/bin/python" -m pip install -q "verifiers==0.4.0" "uv>=0.9"
"$VENV/bin/python" -m pip install -q -e ".[test]" -e adapters/verifiers/environment
"$VENV/bin/python" -m planshape.adapters.verifiers.warm
