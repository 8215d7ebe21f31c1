#pragma once
// The energy section of the run report: timeline.csv's it_mw, facility_mw and energy_mwh columns
// (each row's mean power, constant over the row, and the facility energy up to its end) as power
// over time, and summary.json's "energy" (by component and phase, peak, swings, ramps) as figures,
// bars and tables. Output directories older than the energy model have neither: no section then.

#include "report_inputs.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fleetsim::report {

/// The power columns of timeline.csv, one entry per row, in file order (rows follow each other).
struct PowerSeries {
  std::string name;           // DIR/timeline.csv, for messages
  std::vector<double> t;      // t_begin_s: each row holds from here to the next row's
  std::vector<double> it_mw;  // the row's mean IT power
  std::vector<double> facility_mw;
  std::vector<std::string> state;
  std::vector<double> duration_s;
  double t_end = 0;            // the last row's t_end_s
  double last_energy_mwh = 0;  // energy_mwh of the last row
};

/// One row-to-row change of the facility's draw (summary.json energy.swings.largest).
struct PowerSwing {
  double t_s = 0;
  double delta_mw = 0;  // after - before
  std::string from, to, cause;
};

/// Every change of one cause (energy.swings.by_cause).
struct SwingsOfCause {
  std::string cause;
  double count = 0;
  double max_mw = 0;  // the largest |delta|
  double t_max_s = 0;
};

/// summary.json's "energy" object, the keys the report shows (unknown keys are ignored).
struct EnergySummary {
  double facility_mwh = 0, it_mwh = 0, mean_mw = 0, step_swing_mw = 0;
  double peak_mw = 0, peak_t_s = 0;
  std::string peak_phase;
  double ramp_mw_per_s = 0, ramp_t_s = 0, ramp_time_s = 0;
  std::string ramp_cause;  // "step" when the step's own swing is the fastest
  std::optional<double> joules_per_token, peak_instant_mw, compute_fraction, pue, compute_speed;
  std::optional<double> gpu_power_limit_w, power_floor_w;
  std::vector<std::pair<std::string, double>> by_component_mwh, by_phase_mwh;  // file order
  std::vector<PowerSwing> largest;                                             // largest first
  std::vector<SwingsOfCause> by_cause;                                         // file order
};

struct EnergyData {
  PowerSeries series;
  EnergySummary summary;
};

/// The energy of the run, or nullopt when neither timeline.csv has the power columns nor
/// summary.json an "energy" object (an output directory older than them). Throws InputError
/// (file:line: error: ...) when one is there without the other, or on a malformed value.
[[nodiscard]] std::optional<EnergyData> load_energy(const CsvTable& timeline, const nlohmann::ordered_json& summary,
                                                    const std::string& summary_name);

/// The highest and lowest facility power (MW) of the rows that hold for a positive time.
[[nodiscard]] std::pair<double, double> facility_range(const PowerSeries& s);

/// The headline figures, the power chart with the largest swings marked, the energy by component
/// and by phase, and the swings' tables. Starts with its own <h2>.
[[nodiscard]] std::string energy_section(const EnergyData& d);

}  // namespace fleetsim::report
