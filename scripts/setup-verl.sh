#!/usr/bin/env bash
# Create .venv-verl with the verl trainer and planshape (placeholder until the verl adapter lands).
set -euo pipefail
cd "$(dirname "$0")/.."
echo "the verl adapter suite is not set up yet" >&2
exit 1
