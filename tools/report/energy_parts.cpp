#include "energy_parts.hpp"

#include "models/summary/run_energy_fields.hpp"

#include "html_page.hpp"
#include "svg_chart.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace fleetsim::report {

using nlohmann::ordered_json;

void bad_value(const std::string& what, const std::string& path, const char* problem)
{
  throw InputError(what + ": error: '" + path + "' " + problem);
}

const ordered_json& json_member(const ordered_json& j, const std::string& key, const std::string& path,
                                const std::string& what)
{
  if (!j.is_object() || !j.contains(key))
    bad_value(what, path + "." + key, "is missing");
  return j[key];
}

double json_number_in(const ordered_json& j, const std::string& key, const std::string& path, const std::string& what)
{
  const ordered_json& v = json_member(j, key, path, what);
  if (!v.is_number())
    bad_value(what, path + "." + key, "is not a number");
  return v.get<double>();
}

std::string json_string_in(const ordered_json& j, const std::string& key, const std::string& path,
                           const std::string& what)
{
  const ordered_json& v = json_member(j, key, path, what);
  if (!v.is_string())
    bad_value(what, path + "." + key, "is not a string");
  return v.get<std::string>();
}

std::optional<double> json_optional_in(const ordered_json& j, const std::string& key, const std::string& path,
                                       const std::string& what)
{
  if (!j.is_object() || !j.contains(key) || j[key].is_null())
    return std::nullopt;
  return json_number_in(j, key, path, what);
}

EnergyParts json_mwh_in(const ordered_json& j, const std::string& key, const std::string& path, const std::string& what)
{
  const ordered_json& o = json_member(j, key, path, what);
  if (!o.is_object())
    bad_value(what, path + "." + key, "is not an object");
  EnergyParts out;
  for (const auto& [k, v] : o.items()) {
    const double e = json_number_in(o, k, path + "." + key, what);
    if (e < 0)
      bad_value(what, path + "." + key + "." + k, "is negative");
    out.emplace_back(k, e);
  }
  return out;
}

SharedEnergy read_shared_energy(const ordered_json& e, const std::string& what)
{
  namespace se = models::summary::energy;
  const std::string energy = se::kKey;
  // A replay's and a fleet's peak_mw hold the same two keys (and the replay's the phase too).
  const char* peak_key = models::summary::run::energy::kPeakMw.key;
  const std::string peak_path = models::summary::path({se::kKey, peak_key});
  const ordered_json& peak = json_member(e, peak_key, energy, what);
  SharedEnergy s;
  s.facility_mwh = json_number_in(e, se::kFacilityMwh.key, energy, what);
  s.it_mwh = json_number_in(e, se::kItMwh.key, energy, what);
  s.mean_mw = json_number_in(e, se::kMeanMw.key, energy, what);
  s.peak_mw = json_number_in(peak, se::kMw.key, peak_path, what);
  s.peak_t_s = json_number_in(peak, se::kTS.key, peak_path, what);
  s.by_component_mwh = json_mwh_in(e, se::kByComponentMwh.key, energy, what);
  return s;
}

bool has_energy_outputs(const CsvTable& timeline, const ordered_json& summary, const std::string& summary_name)
{
  const bool columns = timeline.has_column("it_mw") || timeline.has_column("facility_mw") ||
                       timeline.has_column("energy_mwh");
  const char* energy = models::summary::energy::kKey;
  const bool object = summary.is_object() && summary.contains(energy);
  if (!columns && !object)
    return false;
  if (!object)
    throw InputError(summary_name + ": error: '" + energy + "' is missing (" + timeline.name() +
                     " has the power columns it_mw, facility_mw, energy_mwh)");
  if (!summary[energy].is_object())
    bad_value(summary_name, energy, "is not an object");
  return true;  // a missing power column: "timeline.csv:1: error: no column ..." when it is read
}

std::string mw(double v) { return format_number(v, 4) + " MW"; }
std::string mwh(double v) { return (std::fabs(v) >= 1000 ? grouped(v) : format_number(v, 4)) + " MWh"; }

double sum_of(const EnergyParts& parts)
{
  double total = 0;
  for (const auto& [name, v] : parts)
    total += v;
  return total;
}

std::string component_color(const std::string& name, std::size_t i)
{
  static const std::map<std::string, std::string> colors = {{"gpu_compute", "#e65100"}, {"gpu_communicate", "#fb8c00"},
                                                            {"gpu_idle", "#ffb74d"},    {"gpu_checkpoint", "#1f6fb4"},
                                                            {"gpu_off", "#bdbdbd"},     {"power_floor", "#8d6e63"},
                                                            {"node", "#5c6bc0"},        {"network", "#26a69a"},
                                                            {"storage", "#7e57c2"},     {"overhead", "#90a4ae"}};
  const auto it = colors.find(name);
  return it != colors.end() ? it->second : palette(i + 3);
}

std::string share_bars(const EnergyParts& parts, double total, const std::vector<std::string>& colors,
                       const std::string& label)
{
  const double row = 20;
  Plot p(570, 24 + row * static_cast<double>(parts.size()) + 36, 120, 130, 10, 36);
  double hi = 1e-9;
  for (const auto& [name, v] : parts)
    hi = std::max(hi, v);
  const Domain xd = nice_domain(0, hi, 4);
  p.set_scales(Scale::linear(0, xd.hi, p.left(), p.right()), Scale::categorical(parts.size(), p.top(), p.bottom()));
  p.axes(labelled_ticks(nice_ticks(0, xd.hi, 4)), {}, "MWh", "");
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const auto& [name, v] = parts[i];
    const double yc = p.y(static_cast<double>(i));
    const std::string share = total > 0 ? percent(v / total) : "-";
    p.text_px(p.left() - 6, yc + 4, name, "end");
    p.rect_px(p.left(), yc - 6, p.x(v) - p.left(), 12, colors[i], name + ": " + mwh(v) + ", " + share);
    p.text_px(p.x(v) + 4, yc + 4, mwh(v) + " · " + share);
  }
  return p.svg(label);
}

std::string components_column(const EnergyParts& parts)
{
  const double total = sum_of(parts);
  std::vector<std::string> colors;
  std::vector<std::vector<Cell>> rows;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    colors.push_back(component_color(parts[i].first, i));
    rows.push_back({Cell(parts[i].first, colors.back()), mwh(parts[i].second),
                    total > 0 ? percent(parts[i].second / total) : "-"});
  }
  rows.push_back({"total", mwh(total), "100.0%"});
  return "<h3>Energy by component</h3>" + share_bars(parts, total, colors, "energy by component") +
         table({"component", "energy", "share"}, rows, "energy-components");
}

}  // namespace fleetsim::report
