#!/usr/bin/env bash
# The fleet benchmark: wall time and peak RSS of scenarios/fleet_kalos_30d.yaml -- 30 days of
# 24,576 GPUs, ~100,000 jobs generated from the Kalos preset beside an 8,192-GPU hero job, the Llama 3
# failure causes with 32 spare nodes and a repair pipeline, EASY backfill, topology-aware placement,
# power and energy accounted -- as a user runs it, one process per run (seeds 1..N), through
# build/fleetsim_bench. Issue 12's target: at most 10 s and 1 GB on a 2-core machine
# (docs/benchmarks.md, which also gives the saturated variant with a 16,384-GPU hero).
#
# With --shared, the same fleet with its fabric and storage shared (issue 31: network.fleet_fabric:
# shared, every job's checkpoints through the storage at 1 GB per GPU): at most 10 s and 2 GB.
#
#   bash tools/bench_fleet.sh [--shared] [RUNS]      (default 5)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
shared=0
if [ "${1:-}" = "--shared" ]; then shared=1; shift; fi
runs="${1:-5}"
bench="$root/build/fleetsim_bench"
[ -x "$bench" ] || { echo "bench_fleet: build first (bash tools/setup.sh)" >&2; exit 2; }
if [ "$shared" = 1 ]; then
  exec "$bench" --runs "$runs" --target-wall 10 --target-rss 2048 "$root/scenarios/fleet_kalos_30d.yaml" -- \
    --set network.fleet_fabric=shared --set workload.defaults.checkpoint_size_per_gpu=1GB
fi
exec "$bench" --runs "$runs" --target-wall 10 --target-rss 1024 "$root/scenarios/fleet_kalos_30d.yaml"
