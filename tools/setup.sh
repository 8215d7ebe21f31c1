#!/usr/bin/env bash
# Installs what fleetsim needs (Debian 12 packages only) and builds it into build/.
# Sourced by tools/fleetsim.sh and tools/test.sh; safe to run again: it only installs what is
# missing and only rebuilds what changed.
set -euo pipefail

FLEETSIM_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
FLEETSIM_BUILD="${FLEETSIM_BUILD:-$FLEETSIM_ROOT/build}"
# What the CLI, `import fleetsim` and the labs need (tools/fleetsim.sh installs only these) ...
FLEETSIM_PACKAGES=(g++ cmake make pkg-config libsimgrid-dev libboost-dev libyaml-cpp-dev
                   nlohmann-json3-dev libspdlog-dev libcli11-dev
                   libboost-mpi-dev libopenmpi-dev openmpi-bin  # distributed sweeps (mpirun)
                   pybind11-dev python3-dev python3-pandas  # `import fleetsim` (docs/python.md)
                   python3-matplotlib python3-yaml jupyter-notebook jupyter-nbconvert python3-nbformat python3-ipykernel)  # the labs
# ... and what only the tests need beside them (tools/test.sh): GoogleTest, and the report's render
# test (headless screenshots, PNG decoding).
FLEETSIM_TEST_PACKAGES=(libgtest-dev libpng-dev chromium)
# The sanitized tree and the fuzz targets (tools/test.sh sanitized|fuzz, tools/fuzz.sh): clang 14 and
# its sanitizer and libFuzzer runtimes.
FLEETSIM_CHECK_PACKAGES=(clang-14 libclang-rt-14-dev)
FLEETSIM_FUZZ_PACKAGES=("${FLEETSIM_CHECK_PACKAGES[@]}")

# Installs FLEETSIM_PACKAGES and the packages given as arguments, whichever are missing.
fleetsim_install_deps() {
  local missing=()
  for p in "${FLEETSIM_PACKAGES[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "setup: installing ${missing[*]}" >&2
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# Configures build/ (Release) when it has not been, or when the tests are wanted and the tree was
# configured without them (GoogleTest installed since: tests/ is configured only where it is found).
fleetsim_configure() {  # [tests]
  # a configure that failed leaves a cache but no Makefile: configure again then
  if [ ! -f "$FLEETSIM_BUILD/CMakeCache.txt" ] || [ ! -f "$FLEETSIM_BUILD/Makefile" ] ||
     { [ "${1:-}" = tests ] && [ ! -f "$FLEETSIM_BUILD/tests/Makefile" ]; }; then
    cmake -S "$FLEETSIM_ROOT" -B "$FLEETSIM_BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
  fi
}

# Builds what a user runs: the CLI and `import fleetsim` (the `runnable` target), not the tests.
fleetsim_build_cli() {
  [ -x "$FLEETSIM_BUILD/fleetsim" ] || echo "setup: building fleetsim into $FLEETSIM_BUILD (a few minutes the first time)" >&2
  fleetsim_configure
  fleetsim_compile "$FLEETSIM_BUILD" --target runnable
  fleetsim_install_python
}

# Builds everything, the tests included (tools/test.sh).
fleetsim_build() {
  [ -x "$FLEETSIM_BUILD/fleetsim" ] || echo "setup: building fleetsim into $FLEETSIM_BUILD (a few minutes the first time)" >&2
  fleetsim_configure tests
  fleetsim_compile "$FLEETSIM_BUILD"
  fleetsim_install_python
}

# cmake --build DIR [ARGS...], quietly. The compiler's warnings go to DIR/warnings.log (empty when
# there were none): tools/test.sh fails a build that leaves one (docs/testing.md).
fleetsim_compile() {  # DIR [cmake --build ARGS...]
  local dir="$1" log rc=0
  shift
  log="$(mktemp -t fleetsim-build-XXXXXX)"
  nice -n "${FLEETSIM_NICE:-0}" cmake --build "$dir" -j "${FLEETSIM_BUILD_JOBS:-$(nproc)}" "$@" -- --no-print-directory \
    >"$log" 2>&1 || rc=$?
  grep -E -A3 '(^|: )warning: ' "$log" > "$dir/warnings.log" || true
  [ $rc -eq 0 ] || cat "$log" >&2
  rm -f "$log"
  return $rc
}

# Fails, printing them, when the last build of DIR left compiler warnings.
fleetsim_no_warnings() {  # DIR
  if [ -s "$1/warnings.log" ]; then
    echo "build: the compiler warned ($(grep -cE '(^|: )warning: ' "$1/warnings.log") warnings); warnings fail CI:" >&2
    cat "$1/warnings.log" >&2
    return 1
  fi
}

# Makes `import fleetsim` work in Debian's python3: a fleetsim.pth in its site directory names
# $FLEETSIM_BUILD/python, the package the build writes (docs/python.md). The checkout set up last is
# the one imported.
fleetsim_install_python() {
  local python=/usr/bin/python3 site sudo=""
  compgen -G "$FLEETSIM_BUILD/python/fleetsim/_native*.so" > /dev/null || return 0
  [ -x "$python" ] || return 0
  site="$("$python" -c 'import site; print(site.getsitepackages()[0])')"
  [ "$(cat "$site/fleetsim.pth" 2>/dev/null)" = "$FLEETSIM_BUILD/python" ] && return 0
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo mkdir -p "$site"
  echo "$FLEETSIM_BUILD/python" | $sudo tee "$site/fleetsim.pth" > /dev/null
  # another Python first on PATH (a pyenv, a virtualenv) would not see the module: say so once
  local first
  first="$(command -v python3 || true)"
  if [ -n "$first" ] && [ "$(readlink -f "$first")" != "$(readlink -f "$python")" ] &&
     [ "$("$first" -c 'import sys; print(sys.executable)' 2>/dev/null)" != "$python" ]; then
    echo "setup: 'import fleetsim' works in $python; the python3 first on your PATH ($first) is another" \
         "Python, so run the labs and scripts with $python (docs/students.md)" >&2
  fi
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  fleetsim_install_deps
  fleetsim_build_cli
  echo "setup: built $FLEETSIM_BUILD/fleetsim"
fi
