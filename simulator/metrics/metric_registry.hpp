#pragma once
// Output metrics, declared once: name, unit, description, how a run computes it, and how it is read
// back from a run's summary.json. `fleetsim compare` (compare.csv), `fleetsim sweep` (results.csv,
// replicas.csv), both HTML reports and summary.json itself all take their metrics from here.
//
// The built-in metrics are fields summary.json always had (ettr, time_breakdown_s.checkpoint, ...):
// they are read from there. A metric registered from outside (register_metric) is computed from the
// run by its `compute` and written into summary.json's "metrics" object, so that everything that
// reads summary.json (a sweep's --merge, the reports) finds it without the simulator.
//
// No SimGrid here: this library sits between models/ and the simulator, and tools/report/ links it.

#include "models/accounting/goodput.hpp"
#include "models/fleet/fleet_ledger.hpp"
#include "models/fleet/fleet_state.hpp"
#include "models/fleet/job_spec.hpp"
#include "models/resilience/recovery_policy.hpp"
#include "models/step/step_model.hpp"

#include <deque>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fleetsim::metrics {

/// What a metric may read of a finished run (all of it models/ types).
struct RunFacts {
  const models::GoodputReport& report;
  const models::TraceLog& log;
  const models::StepBreakdown& step;
  const models::PolicyCounters& counters;
  std::uint64_t seed = 0;
};

/// What a metric may read of a finished fleet run (models/fleet/ types).
struct FleetFacts {
  const models::fleet::GpuTime& total;                 // the cluster's GPU-seconds by use
  const std::vector<models::fleet::JobRecord>& jobs;   // each job's record (jobs.csv)
  const models::fleet::Workload& specs;                // each job as submitted, in the same order
  const models::fleet::FleetTimeline& timeline;        // the fleet's levels over time (timeline.csv)
  long gpus = 0;                                       // the cluster's GPUs
  double horizon = 0;                                  // the window (s)
  std::uint64_t seed = 0;
};

struct Metric {
  std::string name;         // column name in compare.csv and results.csv
  std::string unit;         // "h", "tokens", "" for ratios and counts
  std::string description;  // one line, for docs and reports
  /// The metric's value in a run's summary.json; NaN when the run has none (e.g. a token target missed).
  std::function<double(const nlohmann::json& summary)> read;
  /// Registered metrics only: the value from a single job's run, written to summary.json "metrics"
  /// (nullopt: null) ...
  std::function<std::optional<double>(const RunFacts&)> compute;
  /// ... and from a fleet's (a metric may have either or both; a run of the other kind writes null).
  std::function<std::optional<double>(const FleetFacts&)> compute_fleet = nullptr;
  /// A built-in metric that is one field of summary.json: its dotted path there and the factor that
  /// turns that field into the metric's unit (readers that must name what is missing, as the
  /// reports do, read this path: metric_field()). A registered metric without its own `read` is
  /// read at "metrics.<name>"; empty for a metric computed from several fields.
  std::string path;
  double scale = 1;
  [[nodiscard]] bool registered() const { return compute || compute_fleet; }
};

/// The dotted summary.json path of a built-in field metric (Metric::path), and its scale; throws
/// std::logic_error for a metric that is not one field (a programming error in the reader).
struct MetricField {
  std::string path;
  double scale = 1;
};
[[nodiscard]] MetricField metric_field(std::string_view name);

/// Every metric: the built-ins, then the registered ones, in registration order.
[[nodiscard]] const std::deque<Metric>& all_metrics();
[[nodiscard]] const Metric* find_metric(std::string_view name);
/// The names of all metrics, comma-separated (for error messages).
[[nodiscard]] std::string metric_names();
/// Adds a metric computed from the run (e.g. from a test or a plugin, at static initialisation).
/// `read` may be left empty: it then reads summary.json's "metrics" object. False if the name is taken.
bool register_metric(Metric m);

/// The default columns of a command: its own list of built-in names, then every registered metric.
[[nodiscard]] std::vector<const Metric*> default_metrics(const std::vector<std::string>& builtin_names);
/// compare.csv's and results.csv's default built-in columns.
[[nodiscard]] const std::vector<std::string>& compare_defaults();
[[nodiscard]] const std::vector<std::string>& sweep_defaults();
/// The same for a fleet scenario (workload.*: docs/models/fleet.md).
[[nodiscard]] const std::vector<std::string>& fleet_compare_defaults();
[[nodiscard]] const std::vector<std::string>& fleet_sweep_defaults();

/// The registered metrics' values, as summary.json's "metrics" object (empty when none is registered).
[[nodiscard]] nlohmann::ordered_json registered_values(const RunFacts& run);
[[nodiscard]] nlohmann::ordered_json registered_values(const FleetFacts& fleet);

}  // namespace fleetsim::metrics
