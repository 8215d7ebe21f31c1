#!/usr/bin/env bash
# Installs dependencies, builds, and runs the whole test suite (unit, scenario, simulation and CLI
# tests; every simulation in its own process). Extra arguments go to ctest, e.g. -L quick.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
fleetsim_install_deps
fleetsim_build
cd "$FLEETSIM_BUILD"
ctest --output-on-failure -j "$(nproc)" "$@"
