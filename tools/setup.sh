#!/usr/bin/env bash
# Installs what fleetsim needs (Debian 12 packages only) and builds it into build/.
# Sourced by tools/fleetsim.sh and tools/test.sh; safe to run again: it only installs what is
# missing and only rebuilds what changed.
set -euo pipefail

FLEETSIM_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
FLEETSIM_BUILD="${FLEETSIM_BUILD:-$FLEETSIM_ROOT/build}"
FLEETSIM_PACKAGES=(g++ cmake make pkg-config libsimgrid-dev libboost-dev libyaml-cpp-dev
                   nlohmann-json3-dev libgtest-dev libspdlog-dev libcli11-dev
                   libboost-mpi-dev libopenmpi-dev openmpi-bin  # distributed sweeps (mpirun)
                   libpng-dev chromium)  # the report's render test: headless screenshots, PNG decoding
# Only tools/fuzz.sh needs these (clang 14 and its libFuzzer runtime); CI does not fuzz.
FLEETSIM_FUZZ_PACKAGES=(clang-14 libclang-rt-14-dev)

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

fleetsim_build() {
  [ -x "$FLEETSIM_BUILD/fleetsim" ] || echo "setup: building fleetsim into $FLEETSIM_BUILD (a few minutes the first time)" >&2
  # a configure that failed leaves a cache but no Makefile: configure again then
  if [ ! -f "$FLEETSIM_BUILD/CMakeCache.txt" ] || [ ! -f "$FLEETSIM_BUILD/Makefile" ]; then
    cmake -S "$FLEETSIM_ROOT" -B "$FLEETSIM_BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
  fi
  cmake --build "$FLEETSIM_BUILD" -j "$(nproc)" -- --no-print-directory >/dev/null
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  fleetsim_install_deps
  fleetsim_build
  echo "setup: built $FLEETSIM_BUILD/fleetsim"
fi
