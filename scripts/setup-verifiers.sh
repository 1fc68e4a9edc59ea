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
[ -z "${PLANSHAPE_DEPS_ONLY:-}" ] || exit 0  # scripts/test.sh installs the trainers side by side first, planshape after
"$VENV/bin/python" -m pip install -q -e ".[test]" -e adapters/verifiers/environment
# verifiers' harnesses are PEP 723 scripts that its runtime syncs with uv (found on PATH: the venv's own, so nothing
# is installed elsewhere); syncing the chat harness once here fills uv's cache, so a test run resolves from it.
PATH="$PWD/$VENV/bin:$PATH" "$VENV/bin/python" - <<'PY'
import subprocess, tempfile
from verifiers.v1.harnesses.utils.launch import CHAT_PROGRAM_SOURCE

with tempfile.NamedTemporaryFile("w", suffix=".py") as script:
    script.write(CHAT_PROGRAM_SOURCE)
    script.flush()
    subprocess.run(["uv", "sync", "--script", script.name, "-q", "--no-config"], check=True)
PY
