#!/usr/bin/env bash
# Create a VERL venv with planshape (editable, so the `verl.plugins` entry point is installed). Idempotent.
#   bash scripts/setup-verl.sh          # VERL 0.9.1 (the newest supported) in .venv-verl
#   bash scripts/setup-verl.sh 0.7.1    # VERL 0.7.1 (the oldest supported) in .venv-verl-0.7
# torch is installed first and pinned to the CPU build: verl does not pin torch, and an unpinned torch would pull
# multi-GB CUDA wheels. 0.9: the `verl-core` extra brings what the trainers import (TransferQueue, cachetools,
# fastapi, ...). 0.7 and 0.8 have no such extra and want numpy<2 (their wheels' Requires-Dist): their trainer's
# imports are named here instead, with the pyarrow and datasets that still take numpy 1, and transformers held to the
# releases of their time. The vllm/sglang/fsdp extras pin another torch (GPU machines only).
# PLANSHAPE_VENV=DIR installs into DIR instead (scripts/check-releases.sh: a fresh temporary venv per release).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
VERSION=${1:-0.9.1}
case "$VERSION" in
  0.9.*) VENV=.venv-verl; SPEC="verl[verl-core]==$VERSION"; EXTRA=() ;;
  0.[78].*) VENV=.venv-verl-$(echo "$VERSION" | cut -d. -f1,2); SPEC="verl==$VERSION"
         EXTRA=("transformers>=4.57,<5.3" "pyarrow>=19,<21" "datasets<4.2" cachetools fastapi uvicorn pillow aiohttp) ;;
  *) echo "setup-verl.sh: VERL $VERSION is outside planshape's range (0.7.1 to 0.9.x)" >&2; exit 2 ;;
esac
VENV=${PLANSHAPE_VENV:-$VENV}
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
if ! "$VENV/bin/python" -c "import importlib.metadata as m; assert m.version('verl') == '$VERSION'" >/dev/null 2>&1; then
  "$VENV/bin/python" -m pip install -q --upgrade pip
  "$VENV/bin/python" -m pip install -q "torch==2.13.0"
  "$VENV/bin/python" -m pip install -q "torch==2.13.0" "$SPEC" ${EXTRA[@]+"${EXTRA[@]}"}
fi
[ -z "${PLANSHAPE_DEPS_ONLY:-}" ] || exit 0  # scripts/test.sh installs the trainers side by side first, planshape after
"$VENV/bin/python" -m pip install -q -e ".[test]"
