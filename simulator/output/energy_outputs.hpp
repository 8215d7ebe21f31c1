#pragma once
// The replay's energy in its files (docs/models/energy.md): the `energy` section of summary.json,
// the power columns of timeline.csv, and the lines of the run table.

#include "models/energy/energy_account.hpp"
#include "simulator/scenario/scenario.hpp"
#include "simulator/trace/csv_buffer.hpp"

#include <nlohmann/json.hpp>

#include <iosfwd>

namespace fleetsim::sim {

struct RunResult;

/// Energy by component and by phase, energy per token, mean and peak power, the swings and their
/// causes, the fastest ramp and the swing inside a step.
[[nodiscard]] nlohmann::ordered_json energy_json(const scenario::Scenario& s, const RunResult& r);

/// timeline.csv's power columns: the header's, and one row's (IT and facility MW, facility MWh so far).
inline constexpr const char* kPowerColumns = "it_mw,facility_mw,energy_mwh,carbon_kg";
void power_cells(CsvBuffer& csv, const models::energy::EnergyReport& e, size_t row);

/// Two lines for the terminal: energy, power, the largest swing.
void print_energy_lines(std::ostream& out, const RunResult& r);

}  // namespace fleetsim::sim
