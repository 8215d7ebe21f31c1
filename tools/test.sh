#!/usr/bin/env bash
# The whole test suite, in tiers (docs/testing.md). With no argument it runs every tier, as CI does
# (.ci/run), and prints each stage's time against its budget:
#   bash tools/test.sh                          every tier below, in this order
#   bash tools/test.sh main [CTEST ARGS]        Release build (build/) and all its tests
#   bash tools/test.sh sanitized [CTEST ARGS]   ASan + UBSan build (build-asan/) and its quick tests
#   bash tools/test.sh fuzz [SECONDS]           every libFuzzer target (build-fuzz/), SECONDS in all
#   bash tools/test.sh -L quick                 the same as `main -L quick` (arguments go to ctest)
# Each tier installs the Debian packages it needs. A stage over its budget fails the run, after every
# stage has run. Budgets are seconds on the reference machine (docs/testing.md), scaled by this
# machine's speed: the best of three compilations of tools/ci/speed_probe.cpp against the reference's.
# FLEETSIM_BUDGET_SCALE=F sets the scale instead; FLEETSIM_BUDGET_SCALE=off reports without failing.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
source "$FLEETSIM_ROOT/tools/test_tiers.sh"

tier="all"
case "${1:-}" in
  all|main|sanitized|fuzz) tier="$1"; shift ;;
  "") ;;
  -*) tier="main" ;;
  *) echo "usage: bash tools/test.sh [all|main|sanitized|fuzz] [CTEST ARGS | SECONDS]" >&2; exit 2 ;;
esac
[ "$tier" = all ] && [ $# -gt 0 ] && { echo "test: 'all' takes no arguments" >&2; exit 2; }

# Reference budgets in seconds (docs/testing.md says where each was measured). A stage that grows
# past its budget is a regression of CI time: make it cheaper, or raise the budget on purpose in the
# same commit and say why.
declare -A BUDGET=(
  [setup]=180
  [build]=360
  [test]=470
  [sanitized-build]=280
  [sanitized-test]=300
  [fuzz-build]=120
  [fuzz-smoke]=90
)
FLEETSIM_TOTAL_BUDGET=1800  # .ci/run from a fresh clone on the reference machine, setup included

case "$tier" in
  all)
    stage setup fleetsim_install_deps "${FLEETSIM_TEST_PACKAGES[@]}" "${FLEETSIM_CHECK_PACKAGES[@]}"
    stage build fleetsim_build_checked
    stage test fleetsim_main_tests
    stage sanitized-build fleetsim_sanitized_build
    stage sanitized-test fleetsim_sanitized_tests
    stage fuzz-build fleetsim_fuzz_build
    stage fuzz-smoke fleetsim_fuzz_smoke 60
    ;;
  main)
    stage setup fleetsim_install_deps "${FLEETSIM_TEST_PACKAGES[@]}"
    stage build fleetsim_build_checked
    stage test fleetsim_main_tests "$@"
    ;;
  sanitized)
    stage setup fleetsim_install_deps "${FLEETSIM_TEST_PACKAGES[@]}" "${FLEETSIM_CHECK_PACKAGES[@]}"
    stage sanitized-build fleetsim_sanitized_build
    stage sanitized-test fleetsim_sanitized_tests "$@"
    ;;
  fuzz)
    stage setup fleetsim_install_deps "${FLEETSIM_TEST_PACKAGES[@]}" "${FLEETSIM_CHECK_PACKAGES[@]}"
    stage fuzz-build fleetsim_fuzz_build
    stage fuzz-smoke fleetsim_fuzz_smoke "${1:-60}"
    ;;
esac
stages_report
