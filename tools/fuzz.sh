#!/usr/bin/env bash
# Fuzzes the scenario loader, the --set overrides and the sweep file reader with libFuzzer.
#   bash tools/fuzz.sh TARGET|all SECONDS
# TARGET is fuzz_scenario, fuzz_overrides or fuzz_sweep_file; all runs them one after the other,
# SECONDS each. Builds with clang++-14 into build-fuzz/ (FLEETSIM_FUZZ=ON). The committed seeds in
# tests/fuzz/corpus/TARGET/ are only read; new inputs and crash reproducers go to
# $FLEETSIM_FUZZ_OUT/TARGET/{corpus,artifacts}/ (default: a fresh temp directory), never the tree.
# A target that finds a crash, leak, timeout or sanitizer report exits non-zero; so does this.
# See docs/hardening.md.
set -euo pipefail
TARGETS=(fuzz_scenario fuzz_overrides fuzz_sweep_file)
if [ $# -ne 2 ] || ! [[ "$2" =~ ^[0-9]+$ ]]; then
  echo "usage: bash tools/fuzz.sh TARGET|all SECONDS   (TARGET: ${TARGETS[*]})" >&2
  exit 2
fi
if [ "$1" = all ]; then
  selected=("${TARGETS[@]}")
elif [[ " ${TARGETS[*]} " == *" $1 "* ]]; then
  selected=("$1")
else
  echo "fuzz: unknown target '$1' (known: ${TARGETS[*]})" >&2
  exit 2
fi
seconds="$2"
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
fleetsim_install_deps "${FLEETSIM_FUZZ_PACKAGES[@]}"
build="${FLEETSIM_FUZZ_BUILD:-$FLEETSIM_ROOT/build-fuzz}"
out="${FLEETSIM_FUZZ_OUT:-$(mktemp -d -t fleetsim-fuzz-XXXXXX)}"
jobs="${FLEETSIM_FUZZ_BUILD_JOBS:-$(nproc)}"

if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$FLEETSIM_ROOT" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DCMAKE_CXX_COMPILER="${FLEETSIM_FUZZ_CXX:-clang++-14}" -DFLEETSIM_FUZZ=ON >/dev/null
fi
nice -n 10 cmake --build "$build" -j "$jobs" --target "${selected[@]}" -- --no-print-directory >/dev/null

# shellcheck source=tools/sanitizer_env.sh
source "$FLEETSIM_ROOT/tools/sanitizer_env.sh"
status=0
for t in "${selected[@]}"; do
  mkdir -p "$out/$t/corpus" "$out/$t/artifacts"
  echo "fuzz: $t for ${seconds}s; new inputs in $out/$t/corpus, reproducers in $out/$t/artifacts" >&2
  # -max_len: the shipped scenarios are 1-8 KB; 16 KB leaves room to grow them without spending the
  # time on megabyte inputs. -timeout: one input takes well under a millisecond; 5 s is a hang.
  nice -n 10 "$build/fuzz/$t" -max_len=16384 -timeout=5 -rss_limit_mb=2048 -max_total_time="$seconds" \
       -print_final_stats=1 -dict="$FLEETSIM_ROOT/tests/fuzz/fleetsim.dict" \
       -artifact_prefix="$out/$t/artifacts/" "$out/$t/corpus" "$FLEETSIM_ROOT/tests/fuzz/corpus/$t" || status=1
done
exit $status
