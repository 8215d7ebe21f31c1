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
# With --replayed N, what a replayed job costs: tests/data/fleet/many_short_replayed_jobs.yaml with
# N one-node jobs of ~1.75 h on the single-job replay's runtime, one every 2 minutes (each writes
# its own outputs under jobs/), at N/4 and N jobs. Prints the medians of each (their targets: 20 us
# and 10 KB a job, whole process), then the simulator's wall time and the peak RSS per job between
# the two sizes; issue 43's target for every job of fleet_kalos_30d on that runtime is about 20 us
# and 10 KB a job (docs/benchmarks.md, "Issue 43").
#
#   bash tools/bench_fleet.sh [--shared | --report | --replayed N] [RUNS]      (default 5)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
shared=0
report=0
replayed=0
if [ "${1:-}" = "--shared" ]; then shared=1; shift; fi
if [ "${1:-}" = "--report" ]; then report=1; shift; fi
if [ "${1:-}" = "--replayed" ]; then replayed="${2:?--replayed N}"; shift 2; fi
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
if [ "$replayed" -gt 0 ]; then
  # Two sizes, N/4 and N: the difference is the jobs', without the process's own fixed cost.
  log="$(mktemp)"
  trap 'rm -f "$log"' EXIT
  for n in $((replayed / 4)) "$replayed"; do
    days=$((n * 120 / 86400 + 2))  # every job submitted and done
    echo "== $n replayed jobs"
    "$bench" --runs "$runs" --target-wall "$(awk -v n="$n" 'BEGIN { print n * 20e-6 }')" \
      --target-rss "$(awk -v n="$n" 'BEGIN { print n * 10 / 1024 }')" \
      "$root/tests/data/fleet/many_short_replayed_jobs.yaml" -- \
      --set "workload.jobs.s8.count=$n" --set "run.duration=${days}d" | tee -a "$log"
  done
  awk -v n="$replayed" '
    /^median process wall/ { for (i = 1; i <= NF; ++i) if ($i == "simulator") sim[++k] = $(i + 2) }
    /^peak RSS/ { rss[++r] = $3 }
    END { m = n - int(n / 4)
          printf "per job (from %d to %d jobs): simulator %.1f us, peak RSS %.1f KB; target 20 us, 10 KB\n",
                 int(n / 4), n, (sim[2] - sim[1]) / m * 1e6, (rss[2] - rss[1]) * 1024 / m }' "$log"
  exit
fi
if [ "$shared" = 1 ]; then
  exec "$bench" --runs "$runs" --target-wall 10 --target-rss 2048 "$root/scenarios/fleet_kalos_30d.yaml" -- \
    --set network.fleet_fabric=shared --set workload.defaults.checkpoint_size_per_gpu=1GB
fi
exec "$bench" --runs "$runs" --target-wall 10 --target-rss 1024 "$root/scenarios/fleet_kalos_30d.yaml"
