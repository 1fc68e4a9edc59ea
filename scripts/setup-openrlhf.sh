#!/usr/bin/env bash
# Create an OpenRLHF venv with the real openrlhf trainer and planshape. Idempotent; safe on a fresh machine.
#   bash scripts/setup-openrlhf.sh          # OpenRLHF 0.11.2 (the newest supported) in .venv-openrlhf
#   bash scripts/setup-openrlhf.sh 0.10.2   # the oldest supported (the first with the dotted CLI), .venv-openrlhf-0.10
# `pip install openrlhf` cannot work without a GPU toolchain (flash-attn builds from source, vllm pulls CUDA), so
# openrlhf is installed with --no-deps and only the light dependencies its CPU-importable modules need are added
# (ray, transformers at that release's pins; peft, ...). The GPU-only modules (vllm, flash_attn, deepspeed) are
# replaced by the test suite's stand-ins in tests/adapters/openrlhf/stubs/. torch goes first, pinned to the CPU build.
# PLANSHAPE_VENV=DIR installs into DIR instead (scripts/check-releases.sh: a fresh temporary venv per release).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
VERSION=${1:-0.11.2}
case "$VERSION" in  # openrlhf's own pins of each release (its wheel's Requires-Dist)
  0.11.*) VENV=.venv-openrlhf; PINS=("transformers==5.15.0" "ray==2.55.0") ;;
  0.10.[34]) VENV=.venv-openrlhf-0.10; PINS=("transformers==5.7.0" "ray==2.55.0") ;;
  0.10.2) VENV=.venv-openrlhf-0.10; PINS=("transformers==5.5.4" "ray==2.48.0") ;;
  *) echo "setup-openrlhf.sh: OpenRLHF $VERSION is outside planshape's range (0.10.2 to 0.11.x; older releases use" \
          "flat flags)" >&2; exit 2 ;;
esac
VENV=${PLANSHAPE_VENV:-$VENV}
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
pip=("$VENV/bin/python" -m pip install -q)
stamp="$VENV/.planshape-openrlhf-deps"
deps_id="torch==2.13.0 openrlhf==$VERSION ${PINS[*]} v1"
if [ "$(cat "$stamp" 2>/dev/null)" != "$deps_id" ]; then
  "$VENV/bin/python" -m pip install -q --upgrade pip
  "${pip[@]}" "torch==2.13.0"
  "${pip[@]}" --no-deps "openrlhf==$VERSION"
  # openrlhf's own pins (transformers, ray); the rest are what its utils/trainer/cli modules import at top level.
  "${pip[@]}" "torch==2.13.0" "${PINS[@]}" peft accelerate datasets torchdata pillow \
    pylatexenc sympy aiohttp jsonlines einops optree
  echo "$deps_id" > "$stamp"
fi
[ -z "${PLANSHAPE_DEPS_ONLY:-}" ] || exit 0  # scripts/test.sh installs the trainers side by side first, planshape after
"${pip[@]}" -e ".[test]"
