#!/usr/bin/env bash
# Create .venv-nemo-gym with NeMo Gym 0.7.0 (the `nemo_gym` suite: a real rollout collection against planshape serve).
# Idempotent. NeMo Gym 0.7 needs Python >= 3.13.14, which this machine's Debian (12) does not ship: the interpreter
# is, in order, $PYTHON313; a python3.13 on PATH that new; one built before into $PLANSHAPE_CACHE_DIR (default
# ~/.cache/planshape); else it is built there from Debian's own source package of python3.13 (the unchanged upstream
# tarball, fetched with apt from testing or unstable through a private apt configuration: nothing of the system's
# apt setup changes; about 5 minutes on 2 cores, once). planshape itself runs in the core .venv (NeMo Gym starts
# `planshape serve` from there), so this venv holds NeMo Gym and uv only.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.venv-nemo-gym
NEMO_GYM=nemo-gym==0.7.0
CACHE=${PLANSHAPE_CACHE_DIR:-$HOME/.cache/planshape}
LEAST=3.13.14

new_enough() {  # interpreter -> exit 0 when it is a CPython >= $LEAST
  [ -n "$1" ] && [ -x "$1" ] && "$1" -c "import sys; sys.exit(not (3, 13, 14) <= sys.version_info[:3] < (3, 14))" 2>/dev/null
}

find_python() {
  local candidate
  for candidate in "${PYTHON313:-}" "$(command -v python3.13 || true)" "$CACHE"/python-3.13.*/bin/python3.13; do
    if new_enough "$candidate"; then echo "$candidate"; return 0; fi
  done
  return 1
}

build_python() {  # Debian's python3.13 source package (testing, else unstable), built into $CACHE
  local work apt_dir suite version
  work=$(mktemp -d); apt_dir="$work/apt"
  mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/parts"
  touch "$apt_dir/status"
  for suite in forky sid; do
    echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $suite main" \
      > "$apt_dir/sources.list"
    local apt=(-o "Dir::Etc::sourcelist=$apt_dir/sources.list" -o "Dir::Etc::sourceparts=$apt_dir/parts"
               -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::State::status=$apt_dir/status"
               -o "Dir::Cache=$apt_dir/cache" -o "Dir::Etc::preferencesparts=$apt_dir/parts")
    apt-get "${apt[@]}" -qq update
    (cd "$work" && apt-get "${apt[@]}" -qq source --download-only python3.13 >/dev/null 2>&1) || continue
    version=$(ls "$work"/python3.13_*.orig.tar.xz 2>/dev/null | sed -E 's/.*python3.13_([0-9.]+)\.orig.*/\1/' | head -1)
    if [ -n "$version" ] && [ "$(printf '%s\n%s\n' "$LEAST" "$version" | sort -V | head -1)" = "$LEAST" ]; then break; fi
    rm -f "$work"/python3.13_*; version=""
  done
  [ -n "$version" ] || { echo "no Debian source of python3.13 >= $LEAST in testing or unstable" >&2; exit 1; }
  echo "=== building Python $version from Debian's source package (once, into $CACHE/python-$version) ===" >&2
  tar -xf "$work/python3.13_$version.orig.tar.xz" -C "$work"
  (cd "$work/Python-$version" \
    && ./configure -q --prefix="$CACHE/python-$version" --disable-test-modules --without-doc-strings >/dev/null \
    && make -s -j"$(nproc)" >/dev/null 2>&1 \
    && make -s install >/dev/null 2>&1)
  rm -rf "$work"
  echo "$CACHE/python-$version/bin/python3.13"
}

if [ ! -x "$VENV/bin/ng_run" ]; then
  PY=$(find_python || build_python)
  new_enough "$PY" || { echo "$PY is not a Python >= $LEAST" >&2; exit 1; }
  rm -rf "$VENV"
  "$PY" -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --upgrade pip uv
  "$VENV/bin/uv" pip install -q --python "$VENV/bin/python" "$NEMO_GYM"
fi
[ -z "${PLANSHAPE_DEPS_ONLY:-}" ] || exit 0  # scripts/test.sh installs the suites' dependencies side by side first
bash scripts/setup.sh  # the core venv: planshape serve, and the test itself
