#!/usr/bin/env bash
# Create .venv-openrlhf with the openrlhf trainer and planshape (placeholder until the openrlhf adapter lands).
set -euo pipefail
cd "$(dirname "$0")/.."
echo "the openrlhf adapter suite is not set up yet" >&2
exit 1
