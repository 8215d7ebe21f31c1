#pragma once
// The sweep behind `fleetsim sweep`: the sweep file (sweep_file.cpp), and the plan it becomes, with
// the figures and statistics written from the replicas' summaries (sweep_results.cpp). The plan is
// saved as DIR/sweep.json, so `sweep --merge DIR` and `report DIR` need only the directory.
//
// Sweep file (YAML):
//   base: ../llama3_405b_16k.yaml   # the scenario, relative to the sweep file (or absolute)
//   replicas: 20                    # seeds per point: seed, seed + 1, ... at every point (common
//                                   # random numbers: differences between points are not noise)
//   seed: 1                         # first seed (default: the scenario's run.seed)
//   set: {run.duration: 30d}        # overrides applied at every point
//   vary:                           # the grid of all combinations, first key slowest
//     spares.nodes: [0, 8, 16]      # or a range: {from: 0, to: 16, step: 8} / {from: 1, to: 16, times: 2}
//     recovery.policy: [restart, elastic]
//   zip:                            # axes whose keys vary together (axes in file order)
//     - {cluster.gpus: [1024, 2048], parallelism.dp: [8, 16]}
//   metrics: [ettr, time_to_target_h]  # what to aggregate (default: all), in this order
//   keep: all                       # or summary: only each replica's summary.json

#include "replica_runner.hpp"

#include "simulator/metrics/metric_registry.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fleetsim::cli {

struct SweepFile {
  std::string base;  // resolved path
  int replicas = 1;
  std::optional<std::uint64_t> seed;
  std::vector<std::string> sets;
  std::vector<Axis> axes;
  std::vector<std::string> metrics;  // names; empty = the defaults
  bool traces = true;                // keep: all (default) | summary
};

/// Parses the sweep file; prints every problem (file:line:col) and returns nullopt when there is one.
std::optional<SweepFile> read_sweep(const std::string& path);

// The metrics (simulator/metrics/metric_registry.hpp): declared once, read from each replica's summary.json.
using metrics::find_metric;
using metrics::Metric;
/// The metric's value in a run's summary.json; NaN when the run has none (a token target missed).
inline double metric_value(const nlohmann::json& summary, const Metric& m) { return m.read(summary); }

// Everything the results need, whether the replicas ran here, on MPI ranks or in shards: the grid,
// the seeds and where each replica's files are. Written to DIR/sweep.json when the sweep claims DIR,
// so that `sweep --merge DIR` (and `report DIR`) can rebuild it without the sweep file.
struct Plan {
  std::string sweep_file;
  std::string base;
  std::vector<std::string> sets;
  std::vector<Axis> axes;
  std::vector<Point> points;
  int replicas = 1;
  std::uint64_t first_seed = 1;
  std::string out;
  std::vector<const Metric*> metrics;

  [[nodiscard]] size_t tasks() const { return points.size() * static_cast<size_t>(replicas); }
  [[nodiscard]] size_t point_of(size_t task) const { return task / static_cast<size_t>(replicas); }
  [[nodiscard]] std::uint64_t seed_of(size_t task) const
  {
    return first_seed + static_cast<std::uint64_t>(task % static_cast<size_t>(replicas));
  }
  [[nodiscard]] std::string dir_of(size_t task) const
  {
    const std::string& label = points[point_of(task)].label;
    return out + "/runs/" + (label.empty() ? "base" : label) + "/seed-" + std::to_string(seed_of(task));
  }
};

/// DIR/sweep.json's content, and the plan read back from DIR (nullopt with `error` set).
nlohmann::ordered_json plan_json(const Plan& p);
std::optional<Plan> plan_from_json(const std::string& dir, std::string& error);

/// Every task index of the plan, in order.
std::vector<size_t> all_tasks(const Plan& p);

/// Figures of the given tasks (one vector of metric values per task), or nullopt with the first
/// missing replica and the count of the others in `error`.
std::optional<std::vector<std::vector<double>>> collect(const Plan& p, const std::vector<size_t>& tasks,
                                                        std::string& error);

/// results.csv and replicas.csv from every task's figures (in task order), and the console table
/// unless quiet. Returns an exit code.
int write_results(const Plan& p, const std::vector<std::vector<double>>& figures, bool quiet);

}  // namespace fleetsim::cli
