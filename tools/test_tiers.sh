# Sourced by tools/test.sh (after tools/setup.sh): the stages of the test tiers, their timing and the
# budget check (docs/testing.md).

# ---- stages and budgets ------------------------------------------------------------------------------
STAGE_NAMES=()
STAGE_SECONDS=()
STAGE_STATUS=()

# stage NAME COMMAND [ARGS...]: runs the command with errexit in a subshell, records its wall time.
# A failing stage ends the run (after the report); later stages need the earlier ones.
stage() {
  local name="$1" t0=$SECONDS rc=0
  shift
  echo "== stage $name" >&2
  set +e
  (set -e; "$@")
  rc=$?
  set -e
  STAGE_NAMES+=("$name")
  STAGE_SECONDS+=($((SECONDS - t0)))
  if [ $rc -ne 0 ]; then
    STAGE_STATUS+=("FAILED (exit $rc)")
    stages_report || true
    exit $rc
  fi
  STAGE_STATUS+=("ok")
  echo "== stage $name: $((SECONDS - t0)) s" >&2
}

# The machine's speed against the reference's: the best of three -O2 compilations of a file that
# never changes, over the reference machine's best (docs/testing.md). Prints the factor (>= 1: the
# budgets never tighten on a faster machine).
FLEETSIM_PROBE_REFERENCE_S=2.80
fleetsim_speed_factor() {
  local best="" t tmp TIMEFORMAT=%R
  tmp="$(mktemp -d -t fleetsim-probe-XXXXXX)"
  for _ in 1 2 3; do
    t=$( { time g++ -std=c++20 -O2 -c "$FLEETSIM_ROOT/tools/ci/speed_probe.cpp" -o "$tmp/probe.o" \
           >/dev/null 2>&1; } 2>&1) || continue
    if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then best="$t"; fi
  done
  rm -rf "$tmp"
  [ -n "$best" ] || { echo 1; return; }
  echo "(speed probe: $best s here, $FLEETSIM_PROBE_REFERENCE_S s on the reference machine)" >&2
  awk -v p="$best" -v r="$FLEETSIM_PROBE_REFERENCE_S" 'BEGIN { f = p / r; printf "%.2f", f < 1 ? 1 : f }'
}

# Prints every stage's time, budget and verdict; returns 1 if one is over its scaled budget.
stages_report() {
  local scale="${FLEETSIM_BUDGET_SCALE:-}" enforce=1 over=0 total=0 i b
  if [ "$scale" = off ]; then
    enforce=0
    scale=1
  elif [ -z "$scale" ]; then
    scale=$(fleetsim_speed_factor)
  fi
  printf '\n%-16s %8s %8s  %s\n' stage seconds budget verdict >&2
  for i in "${!STAGE_NAMES[@]}"; do
    b=$(awk -v b="${BUDGET[${STAGE_NAMES[$i]}]:-0}" -v s="$scale" 'BEGIN { printf "%d", b * s }')
    total=$((total + STAGE_SECONDS[i]))
    local verdict="${STAGE_STATUS[$i]}"
    if [ "$verdict" = ok ] && [ "${STAGE_SECONDS[$i]}" -gt "$b" ]; then
      verdict="OVER BUDGET"
      over=1
    fi
    printf '%-16s %8d %8d  %s\n' "${STAGE_NAMES[$i]}" "${STAGE_SECONDS[$i]}" "$b" "$verdict" >&2
  done
  local tb
  tb=$(awk -v b="$FLEETSIM_TOTAL_BUDGET" -v s="$scale" 'BEGIN { printf "%d", b * s }')
  local tv="ok"
  if [ "${#STAGE_NAMES[@]}" -eq 7 ] && [ "$total" -gt "$tb" ]; then
    tv="OVER BUDGET"
    over=1
  fi
  printf '%-16s %8d %8d  %s\n' total "$total" "$tb" "$tv" >&2
  echo "(budgets: reference seconds x $scale for this machine's speed; docs/testing.md)" >&2
  if [ $over -eq 1 ] && [ $enforce -eq 1 ]; then
    echo "test: a stage went over its budget: make it cheaper, or raise its budget in tools/test.sh on purpose" >&2
    return 1
  fi
  return 0
}

# ctest starts the longest tests first when it knows how long each took: a fresh build directory
# gets the times of a reference run (tests/ctest_costs/TREE.txt, ctest's own CTestCostData format),
# which ctest then keeps up to date with its own runs. Only the order depends on it.
fleetsim_seed_test_costs() {  # BUILD_DIR TREE
  local data="$1/Testing/Temporary/CTestCostData.txt"
  if [ ! -f "$data" ] && [ -f "$FLEETSIM_ROOT/tests/ctest_costs/$2.txt" ]; then
    mkdir -p "$(dirname "$data")"
    cp "$FLEETSIM_ROOT/tests/ctest_costs/$2.txt" "$data"
  fi
}

# ---- the Release build and its tests ---------------------------------------------------------------------
# Everything, tests included; a compiler warning fails the stage (setup.sh: fleetsim_compile).
fleetsim_build_checked() {
  fleetsim_build
  fleetsim_no_warnings "$FLEETSIM_BUILD"
}

fleetsim_main_tests() {
  fleetsim_seed_test_costs "$FLEETSIM_BUILD" release
  cd "$FLEETSIM_BUILD"
  ctest --output-on-failure -j "$(nproc)" "$@"
}

# ---- the sanitized tree: clang, ASan + UBSan, quick tests (docs/hardening.md) --------------------------
FLEETSIM_ASAN_BUILD="${FLEETSIM_ASAN_BUILD:-$FLEETSIM_ROOT/build-asan}"

fleetsim_sanitized_build() {
  # clang 14 compiles the sanitized tree in a third of GCC's time; a tree configured before with
  # another compiler is configured again from scratch.
  if [ -f "$FLEETSIM_ASAN_BUILD/CMakeCache.txt" ] &&
     ! grep -q '^CMAKE_CXX_COMPILER:[A-Z]*=.*clang++-14$' "$FLEETSIM_ASAN_BUILD/CMakeCache.txt"; then
    rm -rf "$FLEETSIM_ASAN_BUILD"
  fi
  if [ ! -f "$FLEETSIM_ASAN_BUILD/Makefile" ]; then
    cmake -S "$FLEETSIM_ROOT" -B "$FLEETSIM_ASAN_BUILD" -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=Sanitize \
          -DFLEETSIM_SANITIZE=address,undefined >/dev/null
  fi
  # Only what the quick tests run: the simulation tests (label extensive) and the benchmarks would
  # double the build for nothing that `ctest -L quick` executes.
  fleetsim_compile "$FLEETSIM_ASAN_BUILD" --target fleetsim models_tests scenario_tests cli_tests extension_tests
  fleetsim_no_warnings "$FLEETSIM_ASAN_BUILD"
}

fleetsim_sanitized_tests() {
  # shellcheck source=tools/sanitizer_env.sh
  source "$FLEETSIM_ROOT/tools/sanitizer_env.sh"
  cd "$FLEETSIM_ASAN_BUILD"
  # Some quick tests run differently here (docs/hardening.md, "Sanitized build"):
  # - skipped: the tests that simulate the Llama 3 step, one actor per GPU (StepCli on Llama 3, and
  #   CliRun, whose Llama 3 scenario has run.step_model: simulated): 16,384 threads on the thread
  #   contexts a sanitized build uses, and ASan's per-thread mappings exceed vm.max_map_count (65530);
  # - the MPI ranks run without leak checking: Open MPI leaks at exit from plugins it has already
  #   dlclose()d, so no suppression can name them. ASan and UBSan still check the ranks.
  # - skipped: the queueing-theory tests (FleetQueueing), 2.4 million jobs each, ~5 min each under
  #   ASan; the fleet engine's code paths run here in the other fleet tests and golden scenarios.
  # - skipped: the cluster-size planners' sweep (CliSweepPlanners.ClusterSizeSweep...), whose point is
  #   statistics over 105 replicas of 54-day runs: 106 s here; the sweep's code (replicas, points,
  #   intervals, results.csv) runs here in the other CliSweep tests.
  local skipped='^StepCli\.SimulatesLlama3IterationIntoStepJsonAndChromeTrace$|^CliRun\.|^FleetQueueing\.'
  skipped="$skipped|^CliSweepPlanners\.ClusterSizeSweep"
  # - skipped: the hardware files' refit (ValidationCases.EveryFittedValueIsTheFitOfItsCalibrationCases),
  #   a golden-section search of simulated steps whose point is the fitted values, not new code paths.
  skipped="$skipped|^ValidationCases\.EveryFittedValueIsTheFitOfItsCalibrationCases$"
  # The golden outputs of the Llama 3 scenarios and their variants replay a simulated 16,384-GPU step:
  # the normal build's step cache (the main tier fills it first, as .ci/run does) is the same for
  # this build, which then only replays. Without it they are skipped too.
  if compgen -G "$FLEETSIM_BUILD/step-cache/step-*.json" > /dev/null; then
    mkdir -p "$FLEETSIM_ASAN_BUILD/step-cache"
    cp -n "$FLEETSIM_BUILD"/step-cache/step-*.json "$FLEETSIM_ASAN_BUILD/step-cache/"
  else
    echo "test: no step cache in $FLEETSIM_BUILD: the sanitized Llama 3 golden tests are skipped" >&2
    skipped="$skipped|^golden\.(llama3_|recovery_|stragglers_|every_scope|mixed_generations)"
  fi
  local mpi='^CliSweepMpi\.'
  fleetsim_seed_test_costs "$FLEETSIM_ASAN_BUILD" sanitized
  ctest --output-on-failure -j "$(nproc)" -L quick -E "$skipped|$mpi" "$@"
  ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0" ctest --output-on-failure -j "$(nproc)" -L quick -R "$mpi" "$@"
}

# ---- fuzzing: build every target, then a short run of each from the committed corpus ---------------
# The dictionary's key lines must match the parameter table (tools/fuzz_dict.sh --check).
fleetsim_fuzz_build() {
  bash "$FLEETSIM_ROOT/tools/fuzz_dict.sh" --check
  bash "$FLEETSIM_ROOT/tools/fuzz.sh" build
}
fleetsim_fuzz_smoke() { bash "$FLEETSIM_ROOT/tools/fuzz.sh" smoke "$1"; }
