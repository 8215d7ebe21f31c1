#pragma once
// The energy section of the fleet report: timeline.csv's power columns (each row's mean MW by
// component, constant over the row; energy_mwh and carbon_kg cumulative from 0) as a stacked power
// chart and a cumulative carbon chart, summary.json's "energy" as figures and bars, and its
// "carbon_aware" as a table of the deferrable jobs. Fleet outputs older than the energy model have
// neither the columns nor the key: no section then.

#include "energy_parts.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fleetsim::report {

/// The power columns of a fleet's timeline.csv, one entry per row (rows follow each other).
struct FleetPowerSeries {
  std::vector<double> t;                                            // t_begin_s
  std::vector<std::pair<std::string, std::vector<double>>> layers;  // <component>_mw, by_component_mwh's order
  std::vector<double> it_mw, facility_mw;
  std::vector<double> carbon_kg;  // cumulative to each row's end; empty without the column
  double t_end = 0;               // the last row's t_end_s
  double last_energy_mwh = 0;
};

/// summary.json's "energy.carbon" (the operational figures only with an intensity profile).
struct FleetCarbon {
  std::string profile;  // empty without one
  std::optional<double> operational_t, mean_intensity_g_per_kwh;
  double embodied_t = 0, total_t = 0;
};

/// summary.json's "carbon_aware": the jobs that may start late when the grid is dirty.
struct CarbonAware {
  bool enabled = false;
  double deferrable = 0, deferred = 0, deferred_at_end = 0, started = 0;
  double deferral_mean_s = 0, queue_after_eligible_mean_s = 0, submit_to_start_mean_s = 0;
  double energy_mwh = 0, carbon_t = 0, mean_intensity_g_per_kwh = 0;
};

struct FleetEnergy {
  FleetPowerSeries series;
  double facility_mwh = 0, it_mwh = 0, mean_mw = 0, peak_mw = 0, peak_t_s = 0, row_s = 0, jobs_mwh = 0;
  std::optional<double> energy_per_token_j;
  EnergyParts by_component_mwh;  // file order
  std::optional<FleetCarbon> carbon;
  std::optional<CarbonAware> carbon_aware;
};

/// The fleet's energy from `dir`'s timeline.csv and `summary` (read from `summary_name`), or nullopt
/// when the directory predates the energy outputs. Throws InputError (file:line: error: ...) when
/// one is there without the other, or on a malformed value.
[[nodiscard]] std::optional<FleetEnergy> load_fleet_energy(const std::string& dir,
                                                           const nlohmann::ordered_json& summary,
                                                           const std::string& summary_name);

/// The headline figures, the stacked power chart, the cumulative carbon (with an intensity
/// profile), the energy by component and the carbon-aware table. Starts with its own <h2>.
[[nodiscard]] std::string fleet_energy_section(const FleetEnergy& e);

}  // namespace fleetsim::report
