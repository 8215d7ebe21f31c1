#pragma once
// The derived figures of a fleet's summary, computed here from the jobs' records and specs so that
// the sink (simulator/output/fleet_outputs.cpp) only rounds and writes them: the jobs by state at
// the window's end, their first waits (by size class), the bounded slowdown of the finished ones,
// the racks a multi-node job spans, and the distributions summary.json reports.

#include "job_record.hpp"
#include "job_spec.hpp"

#include <cstddef>
#include <vector>

namespace fleetsim::models::fleet {

/// Bounded slowdown's floor (Feitelson): very short jobs would otherwise dominate the mean.
inline constexpr double kSlowdownFloor = 10;

/// Job-size classes for the queueing delay by size (summary.json's wait_s_by_gpus).
struct SizeClass {
  const char* name;
  long lo, hi;
};
inline constexpr SizeClass kSizeClasses[] = {
    {"1", 1, 1}, {"2-8", 2, 8}, {"9-64", 9, 64}, {"65-512", 65, 512}, {"513+", 513, 1L << 62}};

/// A sample's figures: count, mean, median, p90, p99 and maximum (the rest 0 when it is empty).
struct Distribution {
  std::size_t count = 0;
  double mean = 0;
  double p50 = 0;
  double p90 = 0;
  double p99 = 0;
  double max = 0;
};
[[nodiscard]] Distribution describe(const std::vector<double>& sample);

/// First wait (start - submit) of every job of [lo, hi] GPUs that started.
[[nodiscard]] std::vector<double> first_waits(const std::vector<JobRecord>& jobs, const Workload& specs, long lo,
                                              long hi);

struct JobCounts {
  long started = 0;
  long finished = 0;
  long running = 0;  // holding GPUs: training, recovering, preempting, checkpointing or restoring
  long waiting = 0;
  long pending = 0;                     // not submitted yet
  std::vector<double> bounded_slowdown;  // of each finished job: max(1, (end - submit) / max(work, floor))
  double racks_spanned_mean = 0;         // over the jobs wider than a node that started (0: none)
};

/// The jobs at the window's end on a cluster of `gpus` GPUs in `nodes` nodes.
[[nodiscard]] JobCounts count_jobs(const std::vector<JobRecord>& jobs, const Workload& specs, long gpus, long nodes);

}  // namespace fleetsim::models::fleet
