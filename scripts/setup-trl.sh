#!/usr/bin/env bash
# Create .venv-trl with the trl trainer and planshape (placeholder until the trl adapter lands).
set -euo pipefail
cd "$(dirname "$0")/.."
echo "the trl adapter suite is not set up yet" >&2
exit 1
