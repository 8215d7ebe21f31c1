#pragma once
// Sinks: the files a run leaves behind, all derived from the typed trace and its accounting.
//   summary.json  - headline figures, interruptions by cause, the time breakdown
//   timeline.csv  - the goodput trace: one row per phase segment
//   events.csv    - every interruption and every non-training phase
// Files are written to temporary names and renamed into place, so a crash never leaves a
// half-written file under its final name.

#include "simulator/run/simulation.hpp"
#include "simulator/scenario/scenario.hpp"
#include "simulator/trace/atomic_file.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <iosfwd>
#include <string>

namespace fleetsim::sim {

[[nodiscard]] nlohmann::ordered_json summary_json(const scenario::Scenario& s, const RunResult& r);
/// The keys the scenario gives that the run did not read, each with why (Scenario::unused_keys):
/// summary.json's "unused_keys" for every kind of run.
[[nodiscard]] nlohmann::ordered_json unused_keys_json(const scenario::Scenario& s);
/// What accelerator.memory_check checked (models/step/memory_model.hpp): the layout's HBM per GPU on its
/// largest stage, by term, against the capacity. summary.json's "memory" when the check is on.
[[nodiscard]] nlohmann::ordered_json memory_json(const scenario::Scenario& s);
void write_timeline_csv(std::ostream& out, const RunResult& r);
void write_events_csv(std::ostream& out, const RunResult& r);
/// The storage's load over time: one row per change (storage_system.hpp), constant until the next.
void write_storage_csv(std::ostream& out, const std::vector<StorageSample>& samples);

/// Writes the three files into `dir` (created if needed). Returns "" or an error message.
[[nodiscard]] std::string write_outputs(const std::string& dir, const scenario::Scenario& s, const RunResult& r,
                                        bool traces = true);

/// The short table printed on the terminal after a run.
void print_run_table(std::ostream& out, const scenario::Scenario& s, const RunResult& r);

}  // namespace fleetsim::sim
