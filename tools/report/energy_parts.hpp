#pragma once
// What the run page's and the fleet page's energy sections share: reading summary.json's "energy"
// values with messages that name the key, telling whether a directory has the energy outputs at
// all, formatting MW and MWh, and the energy-by-component bars and table.

#include "report_inputs.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fleetsim::report {

/// Named energies (MWh) in file order, as summary.json's by_component_mwh has them.
using EnergyParts = std::vector<std::pair<std::string, double>>;

/// Throws InputError "`what`: error: '`path`' `problem`".
[[noreturn]] void bad_value(const std::string& what, const std::string& path, const char* problem);
/// j[key], which must exist; `path` is j's dotted path, for the message.
[[nodiscard]] const nlohmann::ordered_json& json_member(const nlohmann::ordered_json& j, const std::string& key,
                                                        const std::string& path, const std::string& what);
/// j[key] as a number or a string; throws InputError naming `path`.`key` otherwise.
[[nodiscard]] double json_number_in(const nlohmann::ordered_json& j, const std::string& key, const std::string& path,
                                    const std::string& what);
[[nodiscard]] std::string json_string_in(const nlohmann::ordered_json& j, const std::string& key,
                                         const std::string& path, const std::string& what);
/// j[key] as a number; nullopt when absent or null.
[[nodiscard]] std::optional<double> json_optional_in(const nlohmann::ordered_json& j, const std::string& key,
                                                     const std::string& path, const std::string& what);
/// j[key], an object of non-negative numbers (MWh), in file order.
[[nodiscard]] EnergyParts json_mwh_in(const nlohmann::ordered_json& j, const std::string& key, const std::string& path,
                                      const std::string& what);

/// The figures a replay's and a fleet's "energy" object share (models/summary/summary_fields.hpp).
struct SharedEnergy {
  double facility_mwh = 0, it_mwh = 0, mean_mw = 0;
  double peak_mw = 0, peak_t_s = 0;  // peak_mw.mw, peak_mw.t_s
  EnergyParts by_component_mwh;
};
/// Reads them from summary.json's "energy" object `e`; throws InputError naming the key.
[[nodiscard]] SharedEnergy read_shared_energy(const nlohmann::ordered_json& e, const std::string& what);

/// Whether the directory has the energy outputs: false when neither `timeline` has a power column
/// (it_mw, facility_mw, energy_mwh) nor `summary` an "energy" key (outputs older than the energy
/// model). Throws InputError when one is there without the other or "energy" is not an object.
[[nodiscard]] bool has_energy_outputs(const CsvTable& timeline, const nlohmann::ordered_json& summary,
                                      const std::string& summary_name);

[[nodiscard]] std::string mw(double v);   // "17.1 MW" (4 significant digits)
[[nodiscard]] std::string mwh(double v);  // "924.5 MWh", "12,345 MWh"
[[nodiscard]] double sum_of(const EnergyParts& parts);
/// A component's colour (gpu_compute, node, overhead, ...); palette(i + 3) for an unknown one.
[[nodiscard]] std::string component_color(const std::string& name, std::size_t i);

/// Horizontal bars of `parts` in MWh, each labelled with its MWh and share of `total`.
[[nodiscard]] std::string share_bars(const EnergyParts& parts, double total, const std::vector<std::string>& colors,
                                     const std::string& label);
/// "Energy by component": bars and a table (component, energy, share of their sum, total row).
[[nodiscard]] std::string components_column(const EnergyParts& parts);

}  // namespace fleetsim::report
