#pragma once
// What the fleet report reads from a fleet run's directory (`fleetsim run --out DIR` on a scenario
// with a workload: summary.json with "kind": "fleet", jobs.csv, timeline.csv), checked and reduced
// to what the page draws: the timeline, the sorted first waits and the jobs that lost the most.

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fleetsim::report {

/// One row of timeline.csv: time averages over [t_begin, t_end), in GPUs.
struct FleetTimelineRow {
  double t_begin = 0;
  double t_end = 0;
  double allocated = 0;
  double training = 0;
  double idle = 0;
  double spare = 0;
  double down = 0;
  double demand_waiting = 0;
};

/// One row of jobs.csv, as the top-jobs table shows it.
struct FleetJobRow {
  std::string id;
  std::string state;
  double gpus = 0;
  double interruptions = 0;
  double allocated = 0;  // GPU-hours, and so are the losses
  double productive = 0;
  double lost_checkpoint = 0;
  double lost_startup = 0;
  double lost_preemption = 0;
  double lost_failures = 0;
  double lost_other = 0;  // a replayed job's other causes (maintenance, stalls, ...); 0 in older files
  std::optional<double> ettr;  // none for a job that never started
  double lost_contention = 0;  // to its share of a shared fabric; 0 in older files
  [[nodiscard]] double lost() const
  {
    return lost_checkpoint + lost_startup + lost_preemption + lost_failures + lost_other + lost_contention;
  }
};

/// A distribution of first waits as summary.json has it (`wait_s`, each `wait_s_by_gpus` class):
/// the statistics are there only when count > 0.
struct WaitStats {
  double count = 0;
  double mean = 0, p50 = 0, p90 = 0, p99 = 0, max = 0;  // seconds
  [[nodiscard]] bool empty() const { return !(count > 0); }
};

struct FleetData {
  nlohmann::ordered_json summary;
  std::string summary_name;                                     // DIR/summary.json, for messages
  double gpus = 0;                                              // cluster.gpus
  WaitStats wait;                                               // wait_s
  std::vector<std::pair<std::string, WaitStats>> wait_by_size;  // wait_s_by_gpus, in file order
  std::vector<FleetTimelineRow> timeline;
  double t_begin = 0;  // the timeline's first and last instants (s)
  double t_end = 0;
  std::vector<double> waits;     // first wait (s) of every job that started, ascending
  std::size_t jobs = 0;          // rows of jobs.csv
  std::vector<FleetJobRow> top;  // the jobs that lost the most GPU-hours, most first (ties: file order)
  std::vector<double> slowdowns;  // jobs.csv's slowdown of every job that trained, ascending (a shared fabric)
};

/// True when `summary` is a fleet run's summary.json ("kind": "fleet").
[[nodiscard]] bool is_fleet_summary(const nlohmann::ordered_json& summary);

/// Reads and checks `dir`'s summary.json, jobs.csv and timeline.csv, keeping the `top` jobs with
/// the most lost GPU-hours. Throws InputError (file:line: error: ...) on a missing or malformed file.
[[nodiscard]] FleetData load_fleet_data(const std::string& dir, std::size_t top = 20);

}  // namespace fleetsim::report
