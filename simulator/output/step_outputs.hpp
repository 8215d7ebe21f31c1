#pragma once
// Outputs of `fleetsim step`:
//   step.json       - the fleet-law decomposition of one iteration, MFU and the binding C3 term
//   step_trace.json - the simulated iteration as Chrome trace events (Perfetto, chrome://tracing):
//                     one track per pipeline stage in each of four groups -- compute passes, NVLink
//                     tensor-parallel all-reduces, NIC pipeline sends, NIC data-parallel traffic.

#include "simulator/run/step_simulation.hpp"
#include "simulator/scenario/scenario.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace fleetsim::sim {

/// step.json. `simulated` is null for the analytic model.
[[nodiscard]] nlohmann::ordered_json step_file_json(const scenario::Scenario& s, const models::StepBreakdown& b,
                                                    const SimulatedStep* simulated);
[[nodiscard]] nlohmann::ordered_json step_trace_json(const scenario::Scenario& s, const SimulatedStep& step);

/// Writes step.json (and step_trace.json when simulated) into `dir`. Returns "" or an error.
[[nodiscard]] std::string write_step_outputs(const std::string& dir, const scenario::Scenario& s,
                                             const models::StepBreakdown& b, const SimulatedStep* simulated);

}  // namespace fleetsim::sim
