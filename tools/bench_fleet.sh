#!/usr/bin/env bash
# The fleet benchmark: wall time and peak RSS of scenarios/fleet_kalos_30d.yaml -- 30 days of
# 24,576 GPUs, ~100,000 generated jobs plus a 16k-GPU hero job, failures on, EASY backfill --
# as a user runs it, one process per run (seeds 1..N), through build/fleetsim_bench.
# The issue's target: at most 10 s and 1 GB on a 2-core machine (docs/benchmarks.md).
#
#   bash tools/bench_fleet.sh [RUNS]      (default 5)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs="${1:-5}"
bench="$root/build/fleetsim_bench"
[ -x "$bench" ] || { echo "bench_fleet: build first (bash tools/setup.sh)" >&2; exit 2; }
exec "$bench" --runs "$runs" --target-wall 10 --target-rss 1024 "$root/scenarios/fleet_kalos_30d.yaml"
