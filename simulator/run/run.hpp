#pragma once
// The run layer's facade: one scenario and one seed in, one outcome out (docs/architecture.md). A
// scenario with a `workload` runs as a fleet (fleet_simulation.hpp), one without as the single-job
// replay (simulation.hpp); callers do not choose, and the sinks for an outcome are one call too
// (simulator/output/outcome_outputs.hpp). SimGrid allows one simulation per process: run() at most
// once per process (the CLI forks a child per replica).

#include "simulator/run/fleet_simulation.hpp"
#include "simulator/run/simulation.hpp"
#include "simulator/run/step_source.hpp"
#include "simulator/scenario/scenario.hpp"

#include <cstdint>
#include <optional>
#include <variant>

namespace fleetsim::sim {

/// What a run needs that must happen before its Engine exists, because it forks a child or reads a
/// cache: the replay's step time. A sweep prepares each point once, in the parent, before it forks
/// the replicas. (A fleet resolves the steps of the jobs declared by tokens as it builds its
/// workload, which depends on the seed.)
struct Prepared {
  std::optional<ResolvedStep> step;
};

/// Prepares `s`'s runs. Throws std::runtime_error if a step simulation fails.
[[nodiscard]] Prepared prepare(const scenario::Scenario& s);

/// What one run gives: a single job's replay or a fleet's.
class Outcome {
public:
  explicit Outcome(RunResult job) : v_(std::move(job)) {}
  explicit Outcome(FleetResult fleet) : v_(std::move(fleet)) {}
  [[nodiscard]] const RunResult* job() const { return std::get_if<RunResult>(&v_); }
  [[nodiscard]] const FleetResult* fleet() const { return std::get_if<FleetResult>(&v_); }

private:
  std::variant<RunResult, FleetResult> v_;
};

/// Runs `s` with `seed`. `progress` is called with the fraction of the window simulated so far (a
/// replay calls it every 1/100 of its steps; a fleet does not). Must be called at most once per
/// process; `prepared` must be prepare(s)'s.
[[nodiscard]] Outcome run(const scenario::Scenario& s, std::uint64_t seed, const Prepared& prepared,
                          const ProgressFn& progress = {});

/// prepare(s), then run(s, seed, ...).
[[nodiscard]] Outcome run(const scenario::Scenario& s, std::uint64_t seed);

/// One column of compare's terminal table: a metric (simulator/metrics/), its header, its printf
/// width and precision; a `group` starts a group of columns after a bar: " | hours: ...".
struct TableColumn {
  const char* metric;
  const char* header;
  int width;
  int precision;
  const char* group = nullptr;
};

/// How a scenario's runs are shown, whichever engine runs them: the built-in metrics compare.csv
/// and a sweep's results.csv default to (registered metrics follow them), and compare's table.
struct Presentation {
  const char* kind;  // in the table's title: "" for a single job, "a fleet, "
  const std::vector<std::string>& compare_metrics;
  const std::vector<std::string>& sweep_metrics;
  std::vector<TableColumn> table;
};

[[nodiscard]] const Presentation& presentation(const scenario::Scenario& s);

/// The jobs a fleet scenario submits with `seed` (declared, from traces, generated), in submit
/// order; nullopt for a scenario without a workload.
[[nodiscard]] std::optional<models::fleet::Workload> fleet_jobs(const scenario::Scenario& s, std::uint64_t seed);

}  // namespace fleetsim::sim
