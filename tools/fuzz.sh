#!/usr/bin/env bash
# Fuzzes what reads a user's files with libFuzzer: scenario files (with their includes, job traces
# and carbon profiles), --set overrides, sweep files, job-trace CSVs and carbon-intensity CSVs.
#   bash tools/fuzz.sh TARGET|all SECONDS   TARGET for SECONDS; all: each target SECONDS, one after the other
#   bash tools/fuzz.sh smoke [SECONDS]      every target, SECONDS in all (default 60), split evenly: CI
#   bash tools/fuzz.sh build                build the targets only
# Targets: fuzz_scenario, fuzz_overrides, fuzz_sweep_file, fuzz_job_trace, fuzz_carbon
# (tests/fuzz/, docs/hardening.md). Builds with clang++-14 into build-fuzz/ (FLEETSIM_FUZZ=ON, build
# type Sanitize), only the targets and the libraries they link. The committed seeds in
# tests/fuzz/corpus/TARGET/ are only read; new inputs and crash reproducers go to
# $FLEETSIM_FUZZ_OUT/TARGET/{corpus,artifacts}/ (default: a fresh temp directory, removed when
# nothing was found), never the tree.
# A target that finds a crash, leak, timeout, broken contract or sanitizer report exits non-zero;
# so does this, after running the others.
set -euo pipefail
TARGETS=(fuzz_scenario fuzz_overrides fuzz_sweep_file fuzz_job_trace fuzz_carbon)
usage() {
  echo "usage: bash tools/fuzz.sh TARGET|all SECONDS | smoke [SECONDS] | build   (TARGET: ${TARGETS[*]})" >&2
  exit 2
}
seconds_each=""
mode="${1:-}"
case "$mode" in
  build)
    [ $# -eq 1 ] || usage
    selected=("${TARGETS[@]}")
    ;;
  smoke)
    [ $# -le 2 ] || usage
    total="${2:-60}"
    [[ "$total" =~ ^[0-9]+$ ]] || usage
    selected=("${TARGETS[@]}")
    seconds_each=$(( total / ${#TARGETS[@]} ))
    [ "$seconds_each" -ge 1 ] || seconds_each=1
    ;;
  *)
    [ $# -eq 2 ] && [[ "$2" =~ ^[0-9]+$ ]] || usage
    if [ "$1" = all ]; then
      selected=("${TARGETS[@]}")
    elif [[ " ${TARGETS[*]} " == *" $1 "* ]]; then
      selected=("$1")
    else
      echo "fuzz: unknown target '$1' (known: ${TARGETS[*]})" >&2
      exit 2
    fi
    seconds_each="$2"
    ;;
esac
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
fleetsim_install_deps "${FLEETSIM_FUZZ_PACKAGES[@]}"
build="${FLEETSIM_FUZZ_BUILD:-$FLEETSIM_ROOT/build-fuzz}"
jobs="${FLEETSIM_FUZZ_BUILD_JOBS:-$(nproc)}"

if [ ! -f "$build/CMakeCache.txt" ] || ! grep -q '^CMAKE_BUILD_TYPE:[A-Z]*=Sanitize$' "$build/CMakeCache.txt"; then
  cmake -S "$FLEETSIM_ROOT" -B "$build" -DCMAKE_BUILD_TYPE=Sanitize \
        -DCMAKE_CXX_COMPILER="${FLEETSIM_FUZZ_CXX:-clang++-14}" -DFLEETSIM_FUZZ=ON >/dev/null
fi
FLEETSIM_NICE=10 FLEETSIM_BUILD_JOBS="$jobs" fleetsim_compile "$build" --target "${selected[@]}"
fleetsim_no_warnings "$build"
[ -n "$seconds_each" ] || exit 0

out="${FLEETSIM_FUZZ_OUT:-}"
if [ -z "$out" ]; then  # a temp directory, removed after a run that found nothing
  out="$(mktemp -d -t fleetsim-fuzz-XXXXXX)"
  temp_out="$out"
fi
# shellcheck source=tools/sanitizer_env.sh
source "$FLEETSIM_ROOT/tools/sanitizer_env.sh"
status=0
failed=()
for t in "${selected[@]}"; do
  mkdir -p "$out/$t/corpus" "$out/$t/artifacts"
  echo "fuzz: $t for ${seconds_each}s; new inputs in $out/$t/corpus, reproducers in $out/$t/artifacts" >&2
  # -max_len: the shipped scenarios are 1-8 KB; 16 KB leaves room to grow them without spending the
  # time on megabyte inputs. -timeout: one input takes well under 10 ms; 5 s is a hang.
  # libFuzzer prints a line per new input: in smoke mode (CI) that goes to a log, and only the
  # final figures are shown, or the log's end when the target found something.
  log=/dev/stderr
  [ "$mode" = smoke ] && log="$out/$t/fuzz.log"
  if ! nice -n 10 "$build/fuzz/$t" -max_len=16384 -timeout=5 -rss_limit_mb=2048 -max_total_time="$seconds_each" \
         -print_final_stats=1 -dict="$FLEETSIM_ROOT/tests/fuzz/fleetsim.dict" \
         -artifact_prefix="$out/$t/artifacts/" "$out/$t/corpus" "$FLEETSIM_ROOT/tests/fuzz/corpus/$t" 2>>"$log"; then
    status=1
    failed+=("$t")
    [ "$mode" = smoke ] && tail -n 80 "$log" >&2
  elif [ "$mode" = smoke ]; then
    grep -E '^(#[0-9]+[[:space:]]+(INITED|DONE)|stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb))' "$log" >&2 || true
  fi
done
if [ $status -eq 0 ] && [ -n "${temp_out:-}" ]; then
  rm -rf "$temp_out"
fi
if [ $status -ne 0 ]; then
  echo "fuzz: FAILED: ${failed[*]}; reproducers in $out/<target>/artifacts/ (docs/hardening.md says how to replay one)" >&2
fi
exit $status
