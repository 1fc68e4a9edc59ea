#!/usr/bin/env bash
# Type-check planshape as users' type checkers see it (the package ships py.typed): mypy over the installed names
# planshape.shaping, planshape.validators and planshape.adapters, settings in pyproject.toml [tool.mypy].
# The top-level folders install under `planshape` through a setuptools import hook, which mypy does not follow, so
# mypy reads them through a scratch folder `planshape/` of links to them. Run by scripts/test.sh core.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)
ROOT=$(mktemp -d)
trap 'rm -rf "$ROOT"' EXIT
mkdir "$ROOT/planshape"
for part in shaping validators adapters; do ln -s "$REPO/$part" "$ROOT/planshape/$part"; done
cd "$ROOT"
"$REPO/.venv/bin/mypy" --config-file "$REPO/pyproject.toml" --python-executable "$REPO/.venv/bin/python" \
  --cache-dir "$REPO/.mypy_cache" -p planshape.shaping -p planshape.validators -p planshape.adapters "$@"
