#!/usr/bin/env bash
# Create a TRL venv with planshape (the trl adapter's test environment). Idempotent.
#   bash scripts/setup-trl.sh           # TRL 1.16.0 (the newest supported) in .venv-trl
#   bash scripts/setup-trl.sh 1.9.0     # the oldest release PlanPOTrainer supports, in .venv-trl-1.9
#   bash scripts/setup-trl.sh 0.20.0    # the oldest release PlanshapeReward supports, in .venv-trl-0.20
# torch is installed first and pinned to the CPU build: an unpinned torch would pull multi-GB CUDA wheels.
# trl==1.16.0 resolves transformers 5.24 / accelerate 1.15 / datasets 5.2 (its own pins, unconstrained here). The 0.2x
# releases predate transformers 5, so each gets the transformers 4 its wheel asks for (Requires-Dist): 0.20-0.22
# transformers>=4.53.2 / >=4.55.0, 0.23-0.26 >=4.56.1, 0.27-0.29 >=4.56.2.
# PLANSHAPE_VENV=DIR installs into DIR instead (scripts/check-releases.sh: a fresh temporary venv per release).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
VERSION=${1:-1.16.0}
minor=$(echo "$VERSION" | cut -d. -f1,2)
case "$VERSION" in
  1.16.*) VENV=.venv-trl; EXTRA=(); EXTRAS=test,solver ;;  # solver: the SFT test trains on synthesized witnesses
  1.*) VENV=.venv-trl-$minor; EXTRA=(requests jmespath) ;;  # TRL < 1.16 imports requests, its tools need jmespath
  0.2[0-2].*) VENV=.venv-trl-$minor; EXTRA=("transformers>=4.55,<4.56") ;;
  0.2[3-9].*) VENV=.venv-trl-$minor; EXTRA=("transformers>=4.56.2,<5") ;;
  *) echo "setup-trl.sh: TRL $VERSION is outside planshape's range (0.20.0 to 1.16.x)" >&2; exit 2 ;;
esac
VENV=${PLANSHAPE_VENV:-$VENV}
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
if ! "$VENV/bin/python" -c "import importlib.metadata as m; assert m.version('trl') == '$VERSION'" >/dev/null 2>&1; then
  "$VENV/bin/python" -m pip install -q --upgrade pip
  "$VENV/bin/python" -m pip install -q "torch==2.13.0"
  "$VENV/bin/python" -m pip install -q "torch==2.13.0" "trl==$VERSION" ${EXTRA[@]+"${EXTRA[@]}"}
fi
[ -z "${PLANSHAPE_DEPS_ONLY:-}" ] || exit 0  # scripts/test.sh installs the trainers side by side first, planshape after
"$VENV/bin/python" -m pip install -q -e ".[${EXTRAS:-test}]"
