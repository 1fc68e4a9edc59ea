#!/usr/bin/env bash
# Set up, lint, and run the test suites (the command .ci/run calls).
#   bash scripts/test.sh                 # every suite: core, then each trainer adapter on its newest and oldest release
#   bash scripts/test.sh core            # one suite; several may be named
#   bash scripts/test.sh verl@0.7        # an adapter suite on another supported release (its own venv)
#   bash scripts/test.sh --list          # the suites, with the release and venv of each
#   bash scripts/test.sh --contract trl  # an adapter's contract subset (scripts/check-releases.sh runs it on a release)
# Extra pytest arguments go after `--`:  bash scripts/test.sh core -- -k gold
# Suites: core | verl (0.9.1) | verl@0.7 (0.7.1) | trl (1.16.0) | trl@1.9 (1.9.0) | trl@0.20 (0.20.0) |
#         openrlhf (0.11.2) | openrlhf@0.10 (0.10.2). The releases are each adapter's support table's `tested`
# (adapters/<name>/support.py). Each trainer pins its own transformers, so each adapter's tests run in
# .venv-<name>[-<minor>], made by scripts/setup-<name>.sh <release>; the core suite runs in .venv and needs no trainer.
# On the oldest releases CI runs each adapter's contract subset (registration, the 45 gold plans through the trainer's
# reward path, PlanPO through its advantage path = tests/paper_reference.py, the metrics in its log, the conformance
# suite); `<venv>/bin/python -m pytest tests/adapters/<name>` runs the whole suite there, where a test of a feature
# that release lacks skips, saying why.
# Every named suite runs even when an earlier one fails; each prints its time, and the exit status is 1 if any failed.
# Several suites run SETUP_JOBS (3) at a time: their dependencies install side by side, then each runs alone.
# PLANSHAPE_DROP_VENVS=1 (set by .ci/run) removes each trainer's venv after its suite, to bound the disk used.
# Also: verifiers | openenv (the environment standards pin mcp against each other and the core's serve extra, so a
# venv each) | ray (planshape serve --ray on a local Ray instance, .venv-ray from scripts/setup-ray.sh) | nemo-gym
# (a real NeMo Gym 0.7 rollout collection against planshape serve; NeMo Gym needs Python >= 3.13.14, which
# scripts/setup-nemo-gym.sh builds once into ~/.cache/planshape when the machine has none).
set -euo pipefail
cd "$(dirname "$0")/.."
ALL=(core verl verl@0.7 trl trl@1.9 trl@0.20 openrlhf openrlhf@0.10 verifiers openenv ray nemo-gym)

contract_of() {  # adapter -> its contract subset (test files): what CI runs on the oldest release, and what
  # scripts/check-releases.sh runs on any release of the range (a test of a feature the release lacks skips)
  case "$1" in
    verl) echo "test_contract.py test_reward.py test_register.py test_conformance.py" ;;
    trl) echo "test_contract.py test_reward.py test_trainer.py test_version.py test_conformance.py" ;;
    openrlhf) echo "test_openrlhf_contract.py test_openrlhf_any_task.py test_openrlhf_cli_and_version.py" \
      "test_openrlhf_conformance.py test_openrlhf_examples.py" ;;
    *) return 1 ;;
  esac
}

release_of() {  # suite -> "adapter release venv [test files: the contract subset; none: the whole suite]"
  case "$1" in
    verl) echo "verl 0.9.1 .venv-verl" ;;
    verl@0.7) echo "verl 0.7.1 .venv-verl-0.7 $(contract_of verl)" ;;
    trl) echo "trl 1.16.0 .venv-trl" ;;
    trl@1.9) echo "trl 1.9.0 .venv-trl-1.9 $(contract_of trl)" ;;
    trl@0.20) echo "trl 0.20.0 .venv-trl-0.20 $(contract_of trl)" ;;
    openrlhf) echo "openrlhf 0.11.2 .venv-openrlhf" ;;
    openrlhf@0.10) echo "openrlhf 0.10.2 .venv-openrlhf-0.10 $(contract_of openrlhf)" ;;
    *) return 1 ;;
  esac
}

suites=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do suites+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
if [ "${suites[0]:-}" = "--contract" ]; then  # --contract ADAPTER: its contract subset's test files
  contract_of "${suites[1]:-}" || { echo "--contract verl|trl|openrlhf" >&2; exit 2; }
  exit 0
fi
if [ "${suites[0]:-}" = "--list" ]; then
  echo "core - .venv"
  for suite in "${ALL[@]:1}"; do release_of "$suite" >/dev/null && echo "$suite $(release_of "$suite" | cut -d' ' -f1-3)"; done
  echo "verifiers, openenv, ray, nemo-gym - .venv-<name>"
  exit 0
fi
[ ${#suites[@]} -gt 0 ] || suites=("${ALL[@]}")

setup_of() {  # suite -> the command that makes its venv
  case "$1" in
    core) echo "scripts/setup.sh" ;;
    verifiers|openenv|ray|nemo-gym) echo "scripts/setup-$1.sh" ;;
    *) local spec; spec=$(release_of "$1") || return 1; echo "scripts/setup-${spec%% *}.sh $(echo "$spec" | cut -d' ' -f2)" ;;
  esac
}

venv_of() {  # suite -> its venv
  case "$1" in
    core) echo .venv ;;
    verifiers|openenv|ray|nemo-gym) echo ".venv-$1" ;;
    *) release_of "$1" | cut -d' ' -f3 ;;
  esac
}
for suite in "${suites[@]}"; do
  setup_of "$suite" >/dev/null || { echo "unknown suite '$suite'; choose one of: ${ALL[*]}" >&2; exit 2; }
done

install_side_by_side() {  # several suites' dependencies (downloads, unpacking) at once; planshape itself goes in
  # after, by each suite's own setup, one venv at a time (an editable install writes into this checkout). A failure
  # here is reported again, with its output, by that suite's setup.
  [ $# -gt 1 ] || return 0
  local logs start suite command
  logs=$(mktemp -d); start=$SECONDS
  for suite in "$@"; do
    command=$(setup_of "$suite")
    # shellcheck disable=SC2086 # the command's words: a script and its release
    PLANSHAPE_DEPS_ONLY=1 bash $command > "$logs/$suite.log" 2>&1 &
  done
  wait || true
  rm -rf "$logs"
  echo "=== dependencies of $* installed side by side: $((SECONDS - start)) s ==="
}

failed=()
run_suite() {
  local suite=$1 start=$SECONDS adapter release venv files paths
  shift  # the rest: pytest's arguments
  echo "=== planshape test suite: $suite ==="
  if [ "$suite" = core ]; then
    { bash scripts/setup.sh && .venv/bin/ruff check . && bash scripts/typecheck.sh \
      && .venv/bin/python -m pytest -q tests --ignore=tests/adapters --ignore=tests/ray --ignore=tests/nemo_gym "$@"
    } || failed+=("$suite")
  elif [ "$suite" = verifiers ] || [ "$suite" = openenv ]; then
    { bash "scripts/setup-$suite.sh" && ".venv-$suite/bin/python" -m pytest -q "tests/adapters/$suite" "$@"; } \
      || failed+=("$suite")
  elif [ "$suite" = ray ]; then
    { bash scripts/setup-ray.sh && .venv-ray/bin/python -m pytest -q tests/ray "$@"; } || failed+=("$suite")
  elif [ "$suite" = nemo-gym ]; then  # NeMo Gym's commands from its venv, driven by the core venv's pytest
    { bash scripts/setup-nemo-gym.sh && .venv/bin/python -m pytest -q tests/nemo_gym "$@"; } || failed+=("$suite")
  else
    read -r adapter release venv files <<< "$(release_of "$suite")"
    paths=("tests/adapters/$adapter")
    [ -z "${files:-}" ] || read -r -a paths <<< "$(printf "tests/adapters/$adapter/%s " $files)"
    { bash "scripts/setup-$adapter.sh" "$release" && "$venv/bin/python" -m pytest -q "${paths[@]}" "$@"; } \
      || failed+=("$suite")
  fi
  echo "=== planshape test suite: $suite took $((SECONDS - start)) s ($(df -h --output=avail . | tail -1 | tr -d ' ') disk free) ==="
}

# Suites run in batches of SETUP_JOBS (default 3): a batch's dependencies install side by side, then its suites run
# one by one on an otherwise idle machine. With PLANSHAPE_DROP_VENVS=1 (.ci/run sets it: a CI machine's disk is not
# ours to fill) each trainer's venv is removed once its suite ran, so the disk holds one batch of them (about 1.7 GB
# each) instead of all ten (about 15 GB); the core .venv stays, as the verifiers suite runs its `planshape mcp`.
batch=${SETUP_JOBS:-3}
for ((first = 0; first < ${#suites[@]}; first += batch)); do
  group=("${suites[@]:first:batch}")
  install_side_by_side "${group[@]}"
  for suite in "${group[@]}"; do
    run_suite "$suite" "$@"
    if [ -n "${PLANSHAPE_DROP_VENVS:-}" ] && [ "$suite" != core ]; then rm -rf "$(venv_of "$suite")"; fi
  done
done
# Every suite runs even when one fails, so one run shows every failure; the exit status is any failure's.
if [ ${#failed[@]} -gt 0 ]; then
  echo "failed suites: ${failed[*]}" >&2
  exit 1
fi
