#!/usr/bin/env bash
# Mutation testing of the rules that decide a reward (issue 30): the hard checks, the commonsense checks, the gate
# and the advantage estimators, each mutated by cosmic-ray and tested by the tests that are there for it.
#   bash scripts/mutation.sh                  # the default targets below (hours on a 2-core machine: run it with nice)
#   bash scripts/mutation.sh hard gate        # some targets
#   MUTATION_DIR=/tmp/m bash scripts/mutation.sh   # where the scratch copy and the sessions go
# cosmic-ray writes each mutant into the file on disk, so it runs on a scratch copy of this working tree, never on
# the tree itself; the copy is imported through PYTHONPATH (a `planshape` folder of links to its top-level folders),
# ahead of the editable install. Sessions resume: run it again and it goes on with the mutants not yet tested.
# Each target's report goes to $MUTATION_DIR/<target>.txt, and one line per target to $MUTATION_DIR/summary.txt.
# docs/testing.md says what survived the last run and why. Not part of CI: it does not fit CI's time.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)
WORK=${MUTATION_DIR:-/tmp/planshape-mutation}
TOOL=.venv-mutation
[ -x .venv/bin/python ] || bash scripts/setup.sh
[ -x "$TOOL/bin/cosmic-ray" ] || { python3 -m venv "$TOOL" && "$TOOL/bin/python" -m pip install -q "cosmic-ray==8.7.0"; }

declare -A MODULES TESTS
# target -> the files cosmic-ray mutates and the tests that are there for their rules (fastest first: -x stops a
# killed mutant at its first failing test). A default run takes hard, gate and advantages (about 950 mutants).
MODULES[hard]="validators/travelplanner/checks/hard.py"
TESTS[hard]="tests/travelplanner/test_budget_independent.py tests/travelplanner/test_local_constraints_independent.py tests/travelplanner/test_quirks.py"
MODULES[gate]="validators/travelplanner/plan/conversion.py"
TESTS[gate]="tests/travelplanner/test_gate_day_order.py tests/travelplanner/test_conversion.py tests/travelplanner/test_plan_format.py"
MODULES[advantages]="shaping/advantages/estimators.py"
TESTS[advantages]="tests/shaping/test_advantages.py tests/shaping/test_estimator_inputs.py"
# Larger targets, named to run them (about 330, 850 and 1,330 mutants):
MODULES[formats]="validators/travelplanner/plan/formats.py"
TESTS[formats]="tests/travelplanner/test_plan_format.py tests/travelplanner/test_gate_limits.py tests/travelplanner/test_gate_day_order.py tests/travelplanner/test_gold.py"
MODULES[turns]="shaping/advantages/turns.py"
TESTS[turns]="tests/shaping/test_turns.py tests/shaping/test_advantages.py"
MODULES[commonsense]="validators/travelplanner/checks/commonsense.py"
TESTS[commonsense]="tests/travelplanner/test_quirks.py tests/travelplanner/test_gold.py tests/travelplanner/test_official_replay.py tests/travelplanner/test_properties.py tests/travelplanner/test_claims_properties.py"
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(hard gate advantages)

# The scratch copy: the working tree as it is (venvs and caches left out), the shared data beside it as the tests
# expect (../shared), and the import links.
mkdir -p "$WORK"
rm -rf "$WORK/planshape" && mkdir -p "$WORK/planshape"
tar -C "$REPO" --exclude './.venv*' --exclude './.git' --exclude '__pycache__' --exclude '.hypothesis' \
  --exclude '.pytest_cache' --exclude '.ruff_cache' -cf - . | tar -C "$WORK/planshape" -xf -
ln -sfn "$(cd "$REPO/.." && pwd)/shared" "$WORK/shared"
mkdir -p "$WORK/import/planshape"
for part in shaping validators adapters; do ln -sfn "$WORK/planshape/$part" "$WORK/import/planshape/$part"; done
CR="$REPO/$TOOL/bin"
cd "$WORK/planshape"
: > "$WORK/summary.txt"
for target in "${targets[@]}"; do
  [ -n "${MODULES[$target]:-}" ] || { echo "unknown target '$target'; choose: ${!MODULES[*]}" >&2; exit 2; }
  config="$WORK/$target.toml"
  modules=$(printf '"%s", ' ${MODULES[$target]})
  # -x: a mutant is killed at its first failing test; 200 fuzz examples instead of 1,000 keep each run short; the
  # in-memory store only (the SQLite store serves the same rows; its own tests are not about these rules).
  cat > "$config" <<EOF
[cosmic-ray]
module-path = [${modules%, }]
timeout = 600.0
excluded-modules = []
test-command = "env PYTHONPATH=$WORK/import PLANSHAPE_FUZZ_EXAMPLES=200 $REPO/.venv/bin/python -m pytest -x -q -p no:cacheprovider -k 'not sqlite' ${TESTS[$target]}"

[cosmic-ray.distributor]
name = "local"
EOF
  session="$WORK/$target.sqlite"
  if [ ! -f "$session" ]; then
    "$CR/cosmic-ray" init "$config" "$session"
    "$CR/cr-filter-pragma" "$session"  # lines marked `# pragma: no mutate` (none yet)
    "$CR/cosmic-ray" baseline "$config"  # the unmutated code passes the tests, or nothing below means anything
  fi
  "$CR/cosmic-ray" exec "$config" "$session"
  "$CR/cr-report" --show-pending "$session" > "$WORK/$target.txt"
  echo "$target: $(tail -n 3 "$WORK/$target.txt" | tr '\n' ' ')" | tee -a "$WORK/summary.txt"
done
