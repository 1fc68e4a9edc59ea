#!/usr/bin/env bash
# Before claiming a trainer release (widening a range, or a minor line CI does not run): install it with the
# project's own setup script into a fresh temporary venv, run the adapter's contract subset there, remove the venv.
#   bash scripts/check-releases.sh verl 0.8.0
#   bash scripts/check-releases.sh trl 0.23.1 0.29.1 1.4.0      # one after the other, one venv at a time
# One line per release: `PASS trl 0.29.1: 97 passed, 41 skipped in 63.2s (install 151 s)`, or FAIL with the
# setup's or pytest's last lines; the exit status is 1 if any failed. A release that passes goes into its
# adapter's `checked` (adapters/<name>/support.py; `python scripts/support_tables.py` prints it in the docs).
# The contract subset is `bash scripts/test.sh --contract <name>` (registration, the gold plans through the
# trainer's reward path, PlanPO through its advantage path = tests/paper_reference.py, the metrics in its log,
# the conformance suite); a test of a feature the release lacks skips, saying why. Pytest arguments go after `--`.
# About 1.7 GB of disk per venv while it runs (TMPDIR chooses where); nothing stays.
set -euo pipefail
cd "$(dirname "$0")/.."
adapter=${1:-}
case "$adapter" in
  verl|trl|openrlhf) shift ;;
  *) echo "usage: bash scripts/check-releases.sh verl|trl|openrlhf RELEASE... [-- PYTEST_ARGS]" >&2; exit 2 ;;
esac
releases=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do releases+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
[ ${#releases[@]} -gt 0 ] || { echo "check-releases.sh: name at least one $adapter release" >&2; exit 2; }
read -r -a files <<< "$(bash scripts/test.sh --contract "$adapter")"
paths=("${files[@]/#/tests/adapters/$adapter/}")

work=""
cleanup() { [ -z "$work" ] || rm -rf "$work"; }
trap cleanup EXIT
failed=0
for release in "${releases[@]}"; do
  work=$(mktemp -d "${TMPDIR:-/tmp}/planshape-$adapter-$release.XXXXXX")
  start=$SECONDS
  if ! PLANSHAPE_VENV="$work/venv" bash "scripts/setup-$adapter.sh" "$release" > "$work/setup.log" 2>&1; then
    echo "FAIL $adapter $release: the setup script failed ($((SECONDS - start)) s):"
    tail -15 "$work/setup.log" | sed 's/^/    /'
    failed=1; rm -rf "$work"; work=""; continue
  fi
  installed=$("$work/venv/bin/python" -c "import importlib.metadata as m; print(m.version('$adapter'))")
  if [ "$installed" != "$release" ]; then
    echo "FAIL $adapter $release: the setup script installed $adapter $installed"
    failed=1; rm -rf "$work"; work=""; continue
  fi
  install_s=$((SECONDS - start))
  if "$work/venv/bin/python" -m pytest -q -p no:cacheprovider "${paths[@]}" "$@" > "$work/pytest.log" 2>&1; then
    echo "PASS $adapter $release: $(tail -1 "$work/pytest.log" | tr -d '=' | sed 's/^ *//') (install $install_s s)"
  else
    echo "FAIL $adapter $release (install $install_s s):"
    grep -E "^(FAILED|ERROR)" "$work/pytest.log" | head -20 | sed 's/^/    /' || true
    tail -3 "$work/pytest.log" | sed 's/^/    /'
    failed=1
  fi
  rm -rf "$work"; work=""
done
exit $failed
