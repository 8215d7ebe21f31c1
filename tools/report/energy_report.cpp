#include "energy_report.hpp"

#include "models/summary/run_energy_fields.hpp"

#include "energy_parts.hpp"
#include "fleet_charts.hpp"
#include "html_page.hpp"
#include "run_report.hpp"
#include "svg_chart.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace fleetsim::report {
namespace {

using nlohmann::ordered_json;
namespace ms = models::summary;
namespace se = models::summary::energy;
namespace re = models::summary::run::energy;

constexpr double kDay = 86400;
constexpr double kHour = 3600;
constexpr double kWidth = 1160;  // the run page's full-width charts, same margins
constexpr double kLeft = 120;
constexpr double kRight = 20;
constexpr double kGap = 1e-6;    // s: timeline.csv writes microseconds
constexpr double kAgree = 1e-4;  // relative: the closure checks of the note
constexpr const char* kFacilityColor = "#e65100";
constexpr const char* kBandColor = "#ffcc80";  // opaque, so the render test can find it
constexpr const char* kItColor = "#283593";
constexpr const char* kSwingColor = "#212121";

void read_swings(const ordered_json& e, const std::string& what, EnergySummary& s)
{
  namespace sw = re::swings;
  const std::string swings = ms::path({se::kKey, re::kSwings.key});
  const ordered_json& sws = json_member(e, re::kSwings.key, se::kKey, what);
  const ordered_json& largest = json_member(sws, sw::kLargest.key, swings, what);
  if (!largest.is_array())
    bad_value(what, (swings + "." + sw::kLargest.key), "is not an array");
  for (std::size_t i = 0; i < largest.size(); ++i) {
    const std::string path = (swings + "." + sw::kLargest.key) + "[" + std::to_string(i) + "]";
    const ordered_json& x = largest[i];
    s.largest.push_back(
        {json_number_in(x, re::kTS.key, path, what), json_number_in(x, re::swing::kDeltaMw.key, path, what),
         json_string_in(x, re::swing::kFrom.key, path, what), json_string_in(x, re::swing::kTo.key, path, what),
         json_string_in(x, re::swing::kCause.key, path, what)});
  }
  const ordered_json& by_cause = json_member(sws, sw::kByCause.key, swings, what);
  if (!by_cause.is_object())
    bad_value(what, (swings + "." + sw::kByCause.key), "is not an object");
  for (const auto& [cause, c] : by_cause.items()) {
    namespace sc = re::swing_cause;
    const std::string path = (swings + "." + sw::kByCause.key) + "." + cause;
    s.by_cause.push_back({cause, json_number_in(c, sc::kCount.key, path, what),
                          json_number_in(c, sc::kMaxMw.key, path, what),
                          json_number_in(c, sc::kTMaxS.key, path, what)});
  }
}

EnergySummary read_summary(const ordered_json& e, const std::string& what)
{
  const std::string energy = se::kKey;
  const auto number = [&](const ms::Field& f) { return json_number_in(e, f.key, energy, what); };
  const auto optional = [&](const ms::Field& f) { return json_optional_in(e, f.key, energy, what); };
  const SharedEnergy shared = read_shared_energy(e, what);
  EnergySummary s;
  s.facility_mwh = shared.facility_mwh;
  s.it_mwh = shared.it_mwh;
  s.mean_mw = shared.mean_mw;
  s.step_swing_mw = number(re::kStepSwingMw);
  s.peak_mw = shared.peak_mw;
  s.peak_t_s = shared.peak_t_s;
  s.peak_phase = json_string_in(e[re::kPeakMw.key], re::peak::kPhase.key, ms::path({se::kKey, re::kPeakMw.key}), what);
  const std::string ramp_path = ms::path({se::kKey, re::kFastestRamp.key});
  const ordered_json& ramp = json_member(e, re::kFastestRamp.key, energy, what);
  s.ramp_mw_per_s = json_number_in(ramp, re::ramp::kMwPerS.key, ramp_path, what);
  s.ramp_t_s = json_number_in(ramp, re::kTS.key, ramp_path, what);
  s.ramp_time_s = json_number_in(ramp, re::ramp::kRampTimeS.key, ramp_path, what);
  s.ramp_cause = json_string_in(ramp, re::ramp::kCause.key, ramp_path, what);
  s.joules_per_token = optional(re::kJoulesPerToken);
  s.peak_instant_mw = optional(re::kPeakInstantMw);
  s.compute_fraction = optional(re::kComputeFraction);
  s.pue = optional(re::kPue);
  s.compute_speed = optional(re::kComputeSpeed);
  s.gpu_power_limit_w = optional(re::kGpuPowerLimitW);
  s.power_floor_w = optional(re::kPowerFloorW);
  s.by_component_mwh = shared.by_component_mwh;
  s.by_phase_mwh = json_mwh_in(e, re::kByPhaseMwh.key, energy, what);
  read_swings(e, what, s);
  return s;
}

PowerSeries read_series(const CsvTable& tl)
{
  PowerSeries s;
  s.name = tl.name();
  const std::size_t tb = tl.column("t_begin_s"), te = tl.column("t_end_s"), st = tl.column("state"),
                    it = tl.column("it_mw"), fa = tl.column("facility_mw"), en = tl.column("energy_mwh");
  for (std::size_t i = 0; i < tl.rows(); ++i) {
    const double a = tl.number(i, tb), b = tl.number(i, te), it_mw = tl.number(i, it), fa_mw = tl.number(i, fa),
                 mwh = tl.number(i, en);
    if (i > 0 && std::fabs(a - s.t_end) > kGap)
      throw InputError(tl.line(i) + ": error: the power rows must follow each other: this one begins at " +
                       fixed(a, 6) + " s, the previous one ended at " + fixed(s.t_end, 6) + " s");
    if (it_mw < 0 || fa_mw < 0)
      throw InputError(tl.line(i) + ": error: column '" + (it_mw < 0 ? "it_mw" : "facility_mw") + "' is negative");
    if (mwh < s.last_energy_mwh)
      throw InputError(tl.line(i) +
                       ": error: column 'energy_mwh' decreases (it is the energy from 0 to the row's end)");
    s.t.push_back(a);
    s.it_mw.push_back(it_mw);
    s.facility_mw.push_back(fa_mw);
    s.state.push_back(tl.row(i)[st]);
    s.duration_s.push_back(b - a);
    s.t_end = b;
    s.last_energy_mwh = mwh;
  }
  return s;
}

std::string signed_mw(double v)
{
  std::string out(v < 0 ? "-" : "+");  // not "literal" + std::string: GCC 12 warns about those
  return out + mw(std::fabs(v));
}
std::string swing_text(const PowerSwing& s)
{
  return signed_mw(s.delta_mw) + " at " + format_duration(s.t_s) + " (" + s.cause + ": " + s.from + " → " + s.to + ")";
}

std::string headline(const EnergySummary& s)
{
  std::vector<std::pair<std::string, std::string>> f = {
      {"facility energy", mwh(s.facility_mwh)},
      {"IT energy", mwh(s.it_mwh)},
      {"mean power", mw(s.mean_mw)},
      {"peak power (row mean)", mw(s.peak_mw)},
  };
  if (s.peak_instant_mw)
    f.emplace_back("peak at an instant", mw(*s.peak_instant_mw));
  if (s.joules_per_token)
    f.emplace_back("energy per token", format_number(*s.joules_per_token, 4) + " J");
  f.emplace_back("swing inside a step", mw(s.step_swing_mw));
  f.emplace_back("fastest ramp", format_number(s.ramp_mw_per_s, 4) + " MW/s");
  if (!s.largest.empty())
    f.emplace_back("largest swing", signed_mw(s.largest.front().delta_mw));
  if (s.pue)
    f.emplace_back("PUE", format_number(*s.pue, 4));
  if (s.compute_fraction)
    f.emplace_back("compute share of a step", percent(*s.compute_fraction));
  if (s.gpu_power_limit_w)
    f.emplace_back("GPU power limit", format_number(*s.gpu_power_limit_w, 4) + " W");
  if (s.compute_speed && (s.gpu_power_limit_w || *s.compute_speed != 1))
    f.emplace_back("compute speed", percent(*s.compute_speed));
  if (s.power_floor_w)
    f.emplace_back("power floor", format_number(*s.power_floor_w, 4) + " W per GPU");
  return figures(f);
}

// Each of the largest swings as a triangle above the plot at its time, numbered by rank, and a ring
// at the power it swung to. Labels that would collide are pushed right, with a leader to their time.
std::string swing_markers(const Plot& p, const EnergyData& d)
{
  const PowerSeries& s = d.series;
  std::vector<std::size_t> order(d.summary.largest.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return d.summary.largest[a].t_s < d.summary.largest[b].t_s; });
  constexpr double kLabel = 14;  // px between label centres
  std::vector<double> label_x(order.size());
  for (std::size_t k = 0; k < order.size(); ++k)
    label_x[k] = std::max(p.x(d.summary.largest[order[k]].t_s / kDay), k > 0 ? label_x[k - 1] + kLabel : p.left() + 6);
  for (std::size_t k = order.size(); k-- > 0;)
    label_x[k] = std::min(label_x[k], p.right() - 6 - kLabel * static_cast<double>(order.size() - 1 - k));
  std::string svg;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const PowerSwing& w = d.summary.largest[order[k]];
    const double x = p.x(w.t_s / kDay);
    const auto row = std::upper_bound(s.t.begin(), s.t.end(), w.t_s + kGap) - s.t.begin() - 1;
    const std::string tip = "swing " + std::to_string(order[k] + 1) + ": " + swing_text(w);
    append(svg, {"<g><title>",
                 html_escape(tip),
                 "</title><path fill=\"none\" stroke=\"",
                 kSwingColor,
                 "\" stroke-opacity=\"0.5\" d=\"M",
                 px(label_x[k]),
                 ",",
                 px(p.top() - 14),
                 "L",
                 px(x),
                 ",",
                 px(p.top() - 4),
                 "V",
                 px(p.bottom()),
                 "\"/><path fill=\"",
                 kSwingColor,
                 "\" d=\"M",
                 px(x - 4),
                 ",",
                 px(p.top() - 6),
                 "h8l-4,6z\"/><text class=\"tick\" text-anchor=\"middle\" x=\"",
                 px(label_x[k]),
                 "\" y=\"",
                 px(p.top() - 17),
                 "\">",
                 std::to_string(order[k] + 1),
                 "</text>"});
    if (row >= 0)
      append(svg, {"<circle fill=\"none\" stroke=\"", kSwingColor, "\" stroke-width=\"1.5\" cx=\"", px(x), "\" cy=\"",
                   px(p.y(s.facility_mw[static_cast<std::size_t>(row)])), "\" r=\"4\"/>"});
    svg += "</g>";
  }
  return svg;
}

std::string stroke(const std::string& d, const char* color, double width)
{
  return d.empty() ? ""
                   : "<path fill=\"none\" stroke=\"" + std::string(color) + "\" stroke-width=\"" + px(width) +
                         "\" d=\"" + d + "\"/>";
}

std::string power_chart(const EnergyData& d, int& columns)
{
  const PowerSeries& s = d.series;
  Plot p(kWidth, 300, kLeft, kRight, 38, 40);
  columns = static_cast<int>(p.right() - p.left());
  const auto fac = step_bins(s.t, s.facility_mw, s.t_end, 0, s.t_end, columns);
  const auto it = step_bins(s.t, s.it_mw, s.t_end, 0, s.t_end, columns);
  const auto [peak, low] = facility_range(s);
  double it_peak = 0;
  for (const StepBin& b : it)
    it_peak = std::max(it_peak, b.covered > 0 ? b.max : 0.0);
  const Domain y = nice_domain(0, peak, 5);
  const double days = s.t_end / kDay;
  p.set_scales(Scale::linear(0, days, p.left(), p.right()), Scale::linear(y.lo, y.hi, p.bottom(), p.top()));
  p.axes(labelled_ticks(nice_ticks(0, days, 10)), labelled_ticks(nice_ticks(y.lo, y.hi, 5)), "simulated days", "MW");
  const std::string band = step_envelope(p, fac, 1);
  if (!band.empty())
    p.raw("<path fill=\"" + std::string(kBandColor) + "\" stroke=\"none\" d=\"" + band + "\"/>");
  p.raw(stroke(step_outline(p, it, &StepBin::mean, 1, false), kItColor, 1.2));
  p.raw(stroke(step_outline(p, fac, &StepBin::mean, 1, false), kFacilityColor, 1.4));
  p.raw(swing_markers(p, d));
  std::vector<LegendItem> items = {
      {kBandColor,
       "facility: lowest to highest row in each pixel column (peak " + mw(peak) + ", lowest " + mw(low) + ")"},
      {kFacilityColor, "facility: time-weighted mean of the column"},
      {kItColor, "IT (GPUs, nodes, network, storage): time-weighted mean (peak " + mw(it_peak) + ")"}};
  if (!d.summary.largest.empty())
    items.push_back({kSwingColor, "the largest swings, numbered by size (ring: the power swung to)"});
  return legend(items) + p.svg("facility and IT power over time");
}

std::string phases_column(const EnergyData& d)
{
  const auto& parts = d.summary.by_phase_mwh;
  const double total = sum_of(parts);
  std::map<std::string, double> hours;
  for (std::size_t i = 0; i < d.series.state.size(); ++i)
    hours[d.series.state[i]] += d.series.duration_s[i] / kHour;
  std::vector<std::string> colors;
  std::vector<std::vector<Cell>> rows;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const auto& [name, v] = parts[i];
    const double h = hours.count(name) ? hours[name] : 0;
    colors.push_back(state_color(name, i));
    rows.push_back({Cell(name, colors.back()), mwh(v), total > 0 ? percent(v / total) : "-", fixed(h, 1),
                    h > 0 ? mw(v / h) : "-"});
  }
  rows.push_back({"total", mwh(total), "100.0%", fixed(d.series.t_end / kHour, 1),
                  d.series.t_end > 0 ? mw(total / (d.series.t_end / kHour)) : "-"});
  return "<h3>Energy by phase</h3>" + share_bars(parts, total, colors, "energy by phase") +
         table({"phase", "energy", "share", "hours", "mean power"}, rows, "energy-phases");
}

std::string swings_tables(const EnergySummary& s)
{
  std::vector<std::vector<Cell>> largest;
  for (std::size_t i = 0; i < s.largest.size(); ++i) {
    const PowerSwing& w = s.largest[i];
    largest.push_back(
        {std::to_string(i + 1), signed_mw(w.delta_mw), format_duration(w.t_s), w.from + " → " + w.to, w.cause});
  }
  auto causes = s.by_cause;
  std::stable_sort(causes.begin(), causes.end(), [](const auto& a, const auto& b) { return a.max_mw > b.max_mw; });
  std::vector<std::vector<Cell>> by_cause;
  for (const SwingsOfCause& c : causes)
    by_cause.push_back({c.cause, grouped(c.count), mw(c.max_mw), format_duration(c.t_max_s)});
  return "<div class=\"row\"><div><h3>Largest swings</h3>" +
         table({"#", "change", "at", "from → to", "cause"}, largest, "energy-swings") +
         "</div><div><h3>Swings by cause</h3>" +
         table({"cause", "swings", "largest (either way)", "at"}, by_cause, "energy-causes") + "</div></div>\n";
}

// Whether the components, the phases and timeline.csv's last energy_mwh add up to facility_mwh.
std::string closure_note(const EnergyData& d)
{
  const double f = d.summary.facility_mwh;
  const auto agree = [&](double v) { return std::fabs(v - f) <= kAgree * std::max(1.0, std::fabs(f)); };
  const double comp = sum_of(d.summary.by_component_mwh), phase = sum_of(d.summary.by_phase_mwh);
  const double rows = d.series.last_energy_mwh;
  if (agree(comp) && agree(phase) && agree(rows))
    return "The components, the phases and timeline.csv's energy_mwh at the last row each add up to the facility's " +
           mwh(f) + " (to within 0.01%).";
  return "Check: the components add up to " + mwh(comp) + ", the phases to " + mwh(phase) +
         " and timeline.csv's energy_mwh ends at " + mwh(rows) + ", against summary.json's facility_mwh of " + mwh(f) +
         ".";
}

}  // namespace

std::optional<EnergyData> load_energy(const CsvTable& timeline, const nlohmann::ordered_json& summary,
                                      const std::string& summary_name)
{
  if (!has_energy_outputs(timeline, summary, summary_name))
    return std::nullopt;
  EnergyData d;
  d.summary = read_summary(summary[se::kKey], summary_name);
  d.series = read_series(timeline);  // a missing power column: "timeline.csv:1: error: no column ..."
  return d;
}

std::pair<double, double> facility_range(const PowerSeries& s)
{
  double hi = 0, lo = 0;
  bool first = true;
  for (std::size_t i = 0; i < s.facility_mw.size(); ++i) {
    if (!(s.duration_s[i] > 0))
      continue;
    hi = first ? s.facility_mw[i] : std::max(hi, s.facility_mw[i]);
    lo = first ? s.facility_mw[i] : std::min(lo, s.facility_mw[i]);
    first = false;
  }
  return {hi, lo};
}

std::string energy_section(const EnergyData& d)
{
  const EnergySummary& s = d.summary;
  std::string out = "<h2 id=\"energy\">Energy and power</h2>\n" + headline(s);
  if (d.series.t.empty() || !(d.series.t_end > 0))
    return out + "<p class=\"note\">timeline.csv has no rows with a duration: there is no power to draw.</p>\n";
  int columns = 0;
  const std::string chart = power_chart(d, columns);
  std::string note = "Power from timeline.csv's facility_mw and it_mw: each of its " +
                     grouped(static_cast<double>(d.series.t.size())) +
                     " rows holds its mean power from t_begin_s to t_end_s. Each of the " + std::to_string(columns) +
                     " pixel columns is " + format_duration(d.series.t_end / columns) +
                     ": the band spans the lowest and highest row in it, so a checkpoint's dip or a restart's "
                     "drop stays visible, and the lines are its time-weighted means, so their area keeps the "
                     "energy. The facility is the IT power times the PUE. The peak row: " +
                     mw(s.peak_mw) + " in " + s.peak_phase + " at " + format_duration(s.peak_t_s) + ".";
  if (!s.largest.empty())
    note += " The largest swing between rows: " + swing_text(s.largest.front()) + ".";
  note += " The fastest ramp: " + format_number(s.ramp_mw_per_s, 4) + " MW/s, " +
          (s.ramp_cause == "step" ? std::string("the swing inside a training step (compute against communicate)")
                                  : "the " + s.ramp_cause + " swing at " + format_duration(s.ramp_t_s)) +
          ", taken over the " + format_number(s.ramp_time_s, 3) + " s ramp time. " + closure_note(d);
  out += "<p class=\"note\">" + html_escape(note) + "</p>\n" + chart;
  out += "<div class=\"row\"><div>" + components_column(s.by_component_mwh) + "</div><div>" + phases_column(d) +
         "</div></div>\n";
  return out + swings_tables(s);
}

}  // namespace fleetsim::report
