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
# With --report, `fleetsim report` of that fleet's output (seed 1, ~100,000 rows of jobs.csv, every
# row checked, the charts downsampled), the fleet run once beforehand: at most 5 s and 500 MB.
#
#   bash tools/bench_fleet.sh [--shared | --report] [RUNS]      (default 5)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
shared=0
report=0
if [ "${1:-}" = "--shared" ]; then shared=1; shift; fi
if [ "${1:-}" = "--report" ]; then report=1; shift; fi
runs="${1:-5}"
bench="$root/build/fleetsim_bench"
[ -x "$bench" ] || { echo "bench_fleet: build first (bash tools/setup.sh)" >&2; exit 2; }
if [ "$report" = 1 ]; then
  out="$(mktemp -d)"
  trap 'rm -rf "$out"' EXIT
  "$root/build/fleetsim" run "$root/scenarios/fleet_kalos_30d.yaml" --seed 1 --quiet --out "$out/fleet"
  echo "bench_fleet: report of $(($(wc -l < "$out/fleet/jobs.csv") - 1)) jobs"
  "$bench" --exec --runs "$runs" --target-wall 5 --target-rss 500 -- report "$out/fleet"
  exit
fi
if [ "$shared" = 1 ]; then
  exec "$bench" --runs "$runs" --target-wall 10 --target-rss 2048 "$root/scenarios/fleet_kalos_30d.yaml" -- \
    --set network.fleet_fabric=shared --set workload.defaults.checkpoint_size_per_gpu=1GB
fi
exec "$bench" --runs "$runs" --target-wall 10 --target-rss 1024 "$root/scenarios/fleet_kalos_30d.yaml"
