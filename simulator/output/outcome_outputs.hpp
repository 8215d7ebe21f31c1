#pragma once
// The sinks for any run's outcome (simulator/run/run.hpp): a single job's files (run_outputs.hpp)
// or a fleet's (fleet_outputs.hpp), without the caller choosing.

#include "simulator/run/run.hpp"
#include "simulator/scenario/scenario.hpp"

#include <nlohmann/json.hpp>

#include <iosfwd>
#include <string>

namespace fleetsim::sim {

/// summary.json's content (a fleet's has "kind": "fleet").
[[nodiscard]] nlohmann::ordered_json summary_json(const scenario::Scenario& s, const Outcome& o);

/// The outcome's timeline.csv, and its per-event file: events.csv for a job, jobs.csv for a fleet.
void write_timeline_csv(std::ostream& out, const Outcome& o);
void write_events_csv(std::ostream& out, const Outcome& o);

/// Writes the outcome's files into `dir` (only summary.json without `traces`). Returns "" or an
/// error message.
[[nodiscard]] std::string write_outputs(const std::string& dir, const scenario::Scenario& s, const Outcome& o,
                                        bool traces = true);

/// The short table printed on the terminal after a run.
void print_table(std::ostream& out, const scenario::Scenario& s, const Outcome& o);

/// The files write_outputs() leaves with traces, as the terminal lists them.
[[nodiscard]] std::string output_files(const Outcome& o);

}  // namespace fleetsim::sim
