#!/usr/bin/env bash
# The main job: set up, then score plans with the official TravelPlanner metrics.
# With no arguments it runs on the bundled sample world; any arguments go to `planshape evaluate`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/planshape evaluate "$@"
