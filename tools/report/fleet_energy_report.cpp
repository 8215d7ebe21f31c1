#include "fleet_energy_report.hpp"

#include "models/summary/fleet_summary_fields.hpp"

#include "fleet_charts.hpp"
#include "html_page.hpp"
#include "svg_chart.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>

namespace fleetsim::report {
namespace {

using nlohmann::ordered_json;
namespace ms = models::summary;
namespace sf = models::summary::fleet;
namespace fe = models::summary::fleet::energy;

constexpr double kDay = 86400;
constexpr double kHour = 3600;
constexpr double kWidth = 1160;  // the fleet page's full-width charts, same margins
constexpr double kLeft = 120;
constexpr double kRight = 20;
constexpr double kGap = 1e-3;    // s: the fleet's timeline.csv writes milliseconds
constexpr double kAgree = 1e-4;  // relative: the closure checks of the note
constexpr const char* kFacilityColor = "#212121";
constexpr const char* kBandColor = "#d5d5d5";
constexpr const char* kCarbonColor = "#2e7d32";

void check_row(const CsvTable& tl, std::size_t i, const std::string& column, double v, double previous, bool cumulative)
{
  if (v < 0)
    throw InputError(tl.line(i) + ": error: column '" + column + "' is negative");
  if (cumulative && v < previous)
    throw InputError(tl.line(i) + ": error: column '" + column + "' decreases (it is cumulative from 0)");
}

FleetPowerSeries read_series(const CsvTable& tl, const EnergyParts& parts)
{
  FleetPowerSeries s;
  const std::size_t tb = tl.column("t_begin_s"), te = tl.column("t_end_s"), it = tl.column("it_mw"),
                    fa = tl.column("facility_mw"), en = tl.column("energy_mwh");
  const bool carbon = tl.has_column("carbon_kg");
  const std::size_t co = carbon ? tl.column("carbon_kg") : 0;
  std::vector<std::size_t> cols;
  for (const auto& [name, mwh_total] : parts) {
    cols.push_back(tl.column(name + "_mw"));  // "timeline.csv:1: error: no column ..." when absent
    s.layers.emplace_back(name, std::vector<double>{});
  }
  for (std::size_t i = 0; i < tl.rows(); ++i) {
    const double a = tl.number(i, tb), b = tl.number(i, te);
    if (i > 0 && std::fabs(a - s.t_end) > kGap)
      throw InputError(tl.line(i) + ": error: the power rows must follow each other: this one begins at " +
                       fixed(a, 3) + " s, the previous one ended at " + fixed(s.t_end, 3) + " s");
    for (std::size_t k = 0; k < cols.size(); ++k) {
      s.layers[k].second.push_back(tl.number(i, cols[k]));
      check_row(tl, i, tl.header()[cols[k]], s.layers[k].second.back(), 0, false);
    }
    s.it_mw.push_back(tl.number(i, it));
    check_row(tl, i, "it_mw", s.it_mw.back(), 0, false);
    s.facility_mw.push_back(tl.number(i, fa));
    check_row(tl, i, "facility_mw", s.facility_mw.back(), 0, false);
    const double e = tl.number(i, en);
    check_row(tl, i, "energy_mwh", e, s.last_energy_mwh, true);
    if (carbon) {
      s.carbon_kg.push_back(tl.number(i, co));
      check_row(tl, i, "carbon_kg", s.carbon_kg.back(), i > 0 ? s.carbon_kg[i - 1] : 0, true);
    }
    s.t.push_back(a);
    s.t_end = b;
    s.last_energy_mwh = e;
  }
  return s;
}

FleetCarbon read_carbon(const ordered_json& c, const std::string& what)
{
  namespace cb = ms::carbon;
  const std::string path = ms::path({ms::energy::kKey, ms::energy::kCarbon.key});
  if (!c.is_object())
    bad_value(what, path, "is not an object");
  FleetCarbon out;
  if (c.contains(cb::kIntensityProfile.key) && !c[cb::kIntensityProfile.key].is_null())
    out.profile = json_string_in(c, cb::kIntensityProfile.key, path, what);
  out.operational_t = json_optional_in(c, cb::kOperationalT.key, path, what);
  out.mean_intensity_g_per_kwh = json_optional_in(c, cb::kMeanIntensityGPerKwh.key, path, what);
  out.embodied_t = json_number_in(c, cb::kEmbodiedT.key, path, what);
  out.total_t = json_number_in(c, cb::kTotalT.key, path, what);
  return out;
}

CarbonAware read_carbon_aware(const ordered_json& a, const std::string& what)
{
  namespace ca = sf::carbon_aware;
  const std::string path = sf::kCarbonAware.key;
  const ordered_json& enabled = json_member(a, ca::kEnabled.key, path, what);
  if (!enabled.is_boolean())
    bad_value(what, ms::path({path.c_str(), ca::kEnabled.key}), "is not true or false");
  const auto mean_of = [&](const ms::Field& f) {
    return json_number_in(json_member(a, f.key, path, what), ca::stat::kMean.key, ms::path({path.c_str(), f.key}),
                          what);
  };
  const auto number = [&](const ms::Field& f) { return json_number_in(a, f.key, path, what); };
  CarbonAware c;
  c.enabled = enabled.get<bool>();
  c.deferrable = number(ca::kDeferrableJobs);
  c.deferred = number(ca::kDeferredJobs);
  c.deferred_at_end = json_optional_in(a, ca::kDeferredAtEnd.key, path, what).value_or(0);
  c.started = json_optional_in(a, ca::kStarted.key, path, what).value_or(c.deferrable);
  c.deferral_mean_s = mean_of(ca::kDeferralS);
  c.queue_after_eligible_mean_s = mean_of(ca::kQueueAfterEligibleS);
  c.submit_to_start_mean_s = mean_of(ca::kSubmitToStartS);
  c.energy_mwh = number(ca::kEnergyMwh);
  c.carbon_t = number(ca::kCarbonT);
  c.mean_intensity_g_per_kwh = number(ca::kMeanIntensityGPerKwh);
  return c;
}

FleetEnergy read_summary(const ordered_json& summary, const std::string& what)
{
  const std::string energy = ms::energy::kKey;
  const ordered_json& e = summary[ms::energy::kKey];
  const auto number = [&](const ms::Field& f) { return json_number_in(e, f.key, energy, what); };
  const SharedEnergy shared = read_shared_energy(e, what);
  FleetEnergy out;
  out.facility_mwh = shared.facility_mwh;
  out.it_mwh = shared.it_mwh;
  out.mean_mw = shared.mean_mw;
  out.peak_mw = shared.peak_mw;
  out.peak_t_s = shared.peak_t_s;
  out.row_s = number(fe::kRowS);
  out.jobs_mwh = number(fe::kJobsMwh);
  out.energy_per_token_j = json_optional_in(e, fe::kEnergyPerTokenJ.key, energy, what);
  out.by_component_mwh = shared.by_component_mwh;
  if (e.contains(ms::energy::kCarbon.key))
    out.carbon = read_carbon(e[ms::energy::kCarbon.key], what);
  if (summary.contains(sf::kCarbonAware.key))
    out.carbon_aware = read_carbon_aware(summary[sf::kCarbonAware.key], what);
  return out;
}

std::string tonnes(double t) { return format_number(t, 4) + " t CO2e"; }
std::string intensity(double g) { return format_number(g, 4) + " g/kWh"; }

std::string headline(const FleetEnergy& e)
{
  std::vector<std::pair<std::string, std::string>> f = {
      {"facility energy", mwh(e.facility_mwh)}, {"IT energy", mwh(e.it_mwh)},
      {"jobs' energy", mwh(e.jobs_mwh)},        {"mean power", mw(e.mean_mw)},
      {"peak power (row mean)", mw(e.peak_mw)}, {"peak at", format_duration(e.peak_t_s)},
  };
  if (e.energy_per_token_j)
    f.emplace_back("energy per token", format_number(*e.energy_per_token_j, 4) + " J");
  if (e.carbon && (e.carbon->operational_t || e.carbon->total_t > 0)) {  // no profile, no embodied: no carbon
    if (e.carbon->operational_t)
      f.emplace_back("operational carbon", tonnes(*e.carbon->operational_t));
    if (e.carbon->mean_intensity_g_per_kwh)
      f.emplace_back("mean grid intensity", intensity(*e.carbon->mean_intensity_g_per_kwh));
    f.emplace_back("embodied carbon", tonnes(e.carbon->embodied_t));
    f.emplace_back("total carbon", tonnes(e.carbon->total_t));
  }
  return figures(f);
}

std::string fill(const std::string& d, const std::string& color)
{
  return d.empty() ? "" : "<path fill=\"" + color + "\" stroke=\"none\" d=\"" + d + "\"/>";
}

std::string stroke(const std::string& d, const char* color, double width)
{
  return d.empty() ? ""
                   : "<path fill=\"none\" stroke=\"" + std::string(color) + "\" stroke-width=\"" + px(width) +
                         "\" d=\"" + d + "\"/>";
}

// The components' cumulative sums, bottom to top, as one slice per pixel column each; components
// that drew nothing are left out. Each entry: the component's index in s.layers and its slices.
std::vector<std::pair<std::size_t, std::vector<StepBin>>> stacked_bins(const FleetPowerSeries& s, int columns)
{
  std::vector<std::pair<std::size_t, std::vector<StepBin>>> out;
  std::vector<double> sum(s.t.size(), 0);
  for (std::size_t k = 0; k < s.layers.size(); ++k) {
    const auto& v = s.layers[k].second;
    if (std::none_of(v.begin(), v.end(), [](double x) { return x > 0; }))
      continue;
    for (std::size_t i = 0; i < v.size(); ++i)
      sum[i] += v[i];
    out.emplace_back(k, step_bins(s.t, sum, s.t_end, s.t.front(), s.t_end, columns));
  }
  return out;
}

std::string power_chart(const FleetEnergy& e, int columns)
{
  const FleetPowerSeries& s = e.series;
  Plot p(kWidth, 300, kLeft, kRight, 20, 40);
  const auto stack = stacked_bins(s, columns);
  const auto fac = step_bins(s.t, s.facility_mw, s.t_end, s.t.front(), s.t_end, columns);
  double peak = 0;
  for (const StepBin& b : fac)
    peak = std::max(peak, b.covered > 0 ? b.max : 0.0);
  const Domain y = nice_domain(0, peak, 5);
  const double d0 = s.t.front() / kDay, d1 = s.t_end / kDay;
  p.set_scales(Scale::linear(d0, d1, p.left(), p.right()), Scale::linear(y.lo, y.hi, p.bottom(), p.top()));
  p.axes(labelled_ticks(nice_ticks(d0, d1, 10)), labelled_ticks(nice_ticks(y.lo, y.hi, 5)), "simulated days", "MW");
  p.raw(fill(step_envelope(p, fac, 1), kBandColor));
  for (std::size_t k = stack.size(); k-- > 0;)
    p.raw(fill(step_outline(p, stack[k].second, &StepBin::mean, 1, true),
               component_color(s.layers[stack[k].first].first, stack[k].first)));
  p.raw(stroke(step_outline(p, fac, &StepBin::mean, 1, false), kFacilityColor, 1.4));
  std::string ring;  // the peak row, at its time
  append(ring, {"<circle fill=\"none\" stroke=\"", kFacilityColor, "\" stroke-width=\"1.5\" cx=\"",
                px(p.x(e.peak_t_s / kDay)), "\" cy=\"", px(p.y(e.peak_mw)), "\" r=\"4\"/>"});
  p.raw(ring);
  const double hours = (s.t_end - s.t.front()) / kHour;
  std::vector<LegendItem> items;
  for (const auto& [k, bins] : stack) {
    const std::string& name = s.layers[k].first;
    const double part = e.by_component_mwh[k].second;
    items.push_back({component_color(name, k), name + " (mean " + mw(hours > 0 ? part / hours : 0) + ")"});
  }
  items.push_back({kFacilityColor, "facility, the top of the stack (ring: the peak row, " + mw(e.peak_mw) + ")"});
  items.push_back({kBandColor, "facility: lowest to highest row in each pixel column"});
  return legend(items) + p.svg("the fleet's power by component over time");
}

// The operational carbon from timeline.csv's carbon_kg (cumulative to each row's end), in tonnes.
std::string carbon_chart(const FleetPowerSeries& s, int columns)
{
  std::vector<XY> pts = {{s.t.front() / kDay, 0}};
  for (std::size_t i = 0; i < s.carbon_kg.size(); ++i)
    pts.push_back({(i + 1 < s.t.size() ? s.t[i + 1] : s.t_end) / kDay, s.carbon_kg[i] / 1000});
  const double d0 = s.t.front() / kDay, d1 = s.t_end / kDay;
  pts = downsample_min_max(pts, d0, d1, columns);
  Plot p(kWidth, 220, kLeft, kRight, 14, 40);
  const Domain y = nice_domain(0, s.carbon_kg.back() / 1000, 4);
  p.set_scales(Scale::linear(d0, d1, p.left(), p.right()), Scale::linear(y.lo, y.hi, p.bottom(), p.top()));
  p.axes(labelled_ticks(nice_ticks(d0, d1, 10)), labelled_ticks(nice_ticks(y.lo, y.hi, 4)), "simulated days", "t CO2e");
  p.polyline(pts, kCarbonColor, 1.6);
  return legend({{kCarbonColor, "operational carbon since the start, from timeline.csv's carbon_kg (" +
                                    tonnes(s.carbon_kg.back() / 1000) + " at the end)"}}) +
         p.svg("cumulative operational carbon");
}

std::string carbon_aware_table(const CarbonAware& a, const std::optional<FleetCarbon>& carbon)
{
  std::string versus;
  if (carbon && carbon->mean_intensity_g_per_kwh)
    versus = " (the fleet's: " + intensity(*carbon->mean_intensity_g_per_kwh) + ")";
  const std::vector<std::vector<Cell>> rows = {
      {"carbon-aware scheduling", a.enabled ? "on" : "off: the jobs start when submitted"},
      {"deferrable jobs", grouped(a.deferrable)},
      {"deferred (eligible after their submission)", grouped(a.deferred)},
      {"still deferred at the end", grouped(a.deferred_at_end)},
      {"started", grouped(a.started)},
      {"mean deferral (submission to eligible)", format_duration(a.deferral_mean_s)},
      {"mean queueing after eligibility", format_duration(a.queue_after_eligible_mean_s)},
      {"mean submission to start", format_duration(a.submit_to_start_mean_s)},
      {"their energy", mwh(a.energy_mwh)},
      {"their operational carbon", tonnes(a.carbon_t)},
      {"their mean grid intensity", intensity(a.mean_intensity_g_per_kwh) + versus},
  };
  return "<h3>Deferrable jobs</h3>" + table({"figure", "value"}, rows, "energy-carbon-aware") +
         "<p class=\"note\">summary.json&#39;s carbon_aware: the means are over the deferrable jobs that "
         "started.</p>";
}

// Whether the components and timeline.csv's last energy_mwh (and carbon_kg) add up to the summary's.
std::string closure_note(const FleetEnergy& e)
{
  const auto agree = [](double v, double ref) { return std::fabs(v - ref) <= kAgree * std::max(1.0, std::fabs(ref)); };
  const double comp = sum_of(e.by_component_mwh), rows = e.series.last_energy_mwh;
  std::string note = agree(comp, e.facility_mwh) && agree(rows, e.facility_mwh)
                         ? "The components and timeline.csv's energy_mwh at the last row each add up to the "
                           "facility's " +
                               mwh(e.facility_mwh) + " (to within 0.01%)."
                         : "Check: the components add up to " + mwh(comp) + " and timeline.csv's energy_mwh ends at " +
                               mwh(rows) + ", against summary.json's facility_mwh of " + mwh(e.facility_mwh) + ".";
  if (e.carbon && e.carbon->operational_t && !e.series.carbon_kg.empty()) {
    const double t = e.series.carbon_kg.back() / 1000;
    note += agree(t, *e.carbon->operational_t)
                ? " timeline.csv's carbon_kg ends at the operational " + tonnes(*e.carbon->operational_t) + "."
                : " Check: timeline.csv's carbon_kg ends at " + tonnes(t) + ", against the operational " +
                      tonnes(*e.carbon->operational_t) + ".";
  }
  return note;
}

}  // namespace

std::optional<FleetEnergy> load_fleet_energy(const std::string& dir, const ordered_json& summary,
                                             const std::string& summary_name)
{
  const CsvTable tl = CsvTable::read(dir + "/timeline.csv");
  if (!has_energy_outputs(tl, summary, summary_name))
    return std::nullopt;
  FleetEnergy e = read_summary(summary, summary_name);
  e.series = read_series(tl, e.by_component_mwh);
  return e;
}

std::string fleet_energy_section(const FleetEnergy& e)
{
  const FleetPowerSeries& s = e.series;
  std::string out = "<h2 id=\"energy\">Energy and power</h2>\n" + headline(e);
  if (s.t.empty() || !(s.t_end > s.t.front()))
    return out + "<p class=\"note\">timeline.csv has no rows with a duration: there is no power to draw.</p>\n";
  constexpr int kColumns = static_cast<int>(kWidth - kLeft - kRight);
  const std::string note =
      "Power from timeline.csv's component columns (gpu_compute_mw ... overhead_mw): each of its " +
      grouped(static_cast<double>(s.t.size())) + " rows (" + format_duration(e.row_s) +
      ") holds its mean power from t_begin_s to t_end_s. The layers stack the GPUs by state, the power floor, "
      "the nodes, network and storage, and the facility's overhead on top, so the top of the stack is the "
      "facility power; components that drew nothing are left out. Each of the " +
      grouped(kColumns) + " pixel columns is " + format_duration((s.t_end - s.t.front()) / kColumns) +
      ": the layers are its time-weighted means, so their area keeps the energy, and the grey band spans its "
      "lowest to highest row. The peak row: " +
      mw(e.peak_mw) + " at " + format_duration(e.peak_t_s) + ". " + closure_note(e);
  out += "<p class=\"note\">" + html_escape(note) + "</p>\n" + power_chart(e, kColumns);
  if (e.carbon && e.carbon->operational_t && !s.carbon_kg.empty() && s.carbon_kg.back() > 0)
    out += "<h3>Cumulative operational carbon</h3>\n" + carbon_chart(s, kColumns);
  EnergyParts drew;  // the components that drew nothing are left out of the bars too
  std::copy_if(e.by_component_mwh.begin(), e.by_component_mwh.end(), std::back_inserter(drew),
               [](const auto& part) { return part.second > 0; });
  out += "<div class=\"row\"><div>" + components_column(drew) + "</div>";
  if (e.carbon_aware && e.carbon_aware->deferrable > 0)
    out += "<div>" + carbon_aware_table(*e.carbon_aware, e.carbon) + "</div>";
  return out + "</div>\n";
}

}  // namespace fleetsim::report
