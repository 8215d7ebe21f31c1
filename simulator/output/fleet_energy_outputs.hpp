#pragma once
// A fleet run's energy and carbon outputs (docs/models/energy.md):
//   summary.json  "energy": MWh (facility, IT, by component), mean and peak MW, the jobs' share,
//                 J per trained token, operational and embodied tCO2e; "carbon_aware": the deferrable
//                 jobs, the delay they paid and their carbon
//   timeline.csv  per row: the mean draw by component (MW), and the cumulative MWh and kg CO2e
//   jobs.csv      per job: eligible_s, energy_mwh, carbon_kg

#include "simulator/run/fleet_simulation.hpp"
#include "simulator/scenario/scenario.hpp"

#include <nlohmann/json.hpp>

#include <iosfwd>
#include <string>

namespace fleetsim::sim {

[[nodiscard]] nlohmann::ordered_json fleet_energy_json(const scenario::Scenario& s, const FleetResult& r);
[[nodiscard]] nlohmann::ordered_json carbon_aware_json(const scenario::Scenario& s, const FleetResult& r);

/// The timeline's energy columns: the header's part (",gpu_compute_mw,...") and one row's part.
[[nodiscard]] std::string energy_timeline_header();
/// `cumulative_j` and `cumulative_kg` carry the running sums from row to row.
void append_energy_row(std::string& line, const FleetResult& r, size_t row, double& cumulative_j,
                       double& cumulative_kg);

/// The terminal lines of the energy and carbon-aware summaries.
void print_fleet_energy(std::ostream& out, const nlohmann::ordered_json& summary);

}  // namespace fleetsim::sim
