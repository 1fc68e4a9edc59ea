#!/usr/bin/env bash
# Set up, lint, and run the test suites (the command .ci/run calls).
#   bash scripts/test.sh                 # every suite: core, then each trainer adapter in its own venv
#   bash scripts/test.sh core            # one suite (core | verl | trl | openrlhf | verifiers | openenv | ray)
# Extra pytest arguments go after `--`:  bash scripts/test.sh core -- -k gold
# Each trainer pins its own transformers, so each adapter's tests run in .venv-<name>, made by
# scripts/setup-<name>.sh; the core suite runs in .venv and needs no trainer. The environment standards (verifiers,
# OpenEnv) pin mcp against each other and against the core's serve extra, so they too get a venv each. The ray
# suite (planshape serve --ray on a local Ray instance) runs in .venv-ray, made by scripts/setup-ray.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
suites=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do suites+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
[ ${#suites[@]} -gt 0 ] || suites=(core verl trl openrlhf verifiers openenv ray)
for suite in "${suites[@]}"; do
  echo "=== planshape test suite: $suite ==="
  case "$suite" in
    core)
      bash scripts/setup.sh
      .venv/bin/ruff check .
      bash scripts/typecheck.sh
      .venv/bin/python -m pytest -q tests --ignore=tests/adapters --ignore=tests/ray "$@"
      ;;
    verl|trl|openrlhf|verifiers|openenv)
      bash "scripts/setup-$suite.sh"
      ".venv-$suite/bin/python" -m pytest -q "tests/adapters/$suite" "$@"
      ;;
    ray)
      bash scripts/setup-ray.sh
      .venv-ray/bin/python -m pytest -q tests/ray "$@"
      ;;
    *) echo "unknown suite '$suite'; choose core, verl, trl, openrlhf, verifiers, openenv or ray" >&2; exit 2 ;;
  esac
done
