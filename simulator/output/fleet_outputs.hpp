#pragma once
// A fleet run's files (docs/models/fleet.md):
//   summary.json  - fleet figures: utilisation, goodput GPU-hours, queueing delay overall and by job
//                   size, slowdown, fragmentation, lost GPU-hours by cause, counts
//   jobs.csv      - one row per job: submit, start, end, wait, GPUs, racks spanned, interruptions,
//                   preemptions, GPU-hours lost by cause, ETTR
//   timeline.csv  - the fleet over time: GPUs allocated, training, idle, spare, down, waiting demand

#include "simulator/run/fleet_simulation.hpp"
#include "simulator/scenario/scenario.hpp"

#include <nlohmann/json.hpp>

#include <iosfwd>
#include <string>

namespace fleetsim::sim {

[[nodiscard]] nlohmann::ordered_json fleet_summary_json(const scenario::Scenario& s, const FleetResult& r);
void write_jobs_csv(std::ostream& out, const FleetResult& r);
void write_fleet_timeline_csv(std::ostream& out, const FleetResult& r);
/// Where a replayed job's own outputs go, relative to the fleet's directory: "jobs/<id>".
[[nodiscard]] std::string replayed_dir(const std::string& job_id);

/// Writes the fleet's files into `dir` (only summary.json without `traces`), and each replayed
/// job's (a replay's files) into its replayed_dir(). Returns "" or an error message.
[[nodiscard]] std::string write_fleet_outputs(const std::string& dir, const scenario::Scenario& s, const FleetResult& r,
                                              bool traces = true);
void print_fleet_table(std::ostream& out, const scenario::Scenario& s, const FleetResult& r);

}  // namespace fleetsim::sim
