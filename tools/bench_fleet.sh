#!/usr/bin/env bash
# The fleet benchmark: wall time and peak RSS of scenarios/fleet_kalos_30d.yaml -- 30 days of
# 24,576 GPUs, ~100,000 jobs generated from the Kalos preset beside an 8,192-GPU hero job, the Llama 3
# failure causes with 32 spare nodes and a repair pipeline, EASY backfill, topology-aware placement,
# power and energy accounted -- as a user runs it, one process per run (seeds 1..N), through
# build/fleetsim_bench. Issue 12's target: at most 10 s and 1 GB on a 2-core machine
# (docs/benchmarks.md, which also gives the saturated variant with a 16,384-GPU hero).
#
#   bash tools/bench_fleet.sh [RUNS]      (default 5)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs="${1:-5}"
bench="$root/build/fleetsim_bench"
[ -x "$bench" ] || { echo "bench_fleet: build first (bash tools/setup.sh)" >&2; exit 2; }
exec "$bench" --runs "$runs" --target-wall 10 --target-rss 1024 "$root/scenarios/fleet_kalos_30d.yaml"
