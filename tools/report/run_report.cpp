#include "run_report.hpp"

#include "models/accounting/trace_records.hpp"
#include "models/summary/run_summary_fields.hpp"
#include "simulator/metrics/metric_registry.hpp"

#include "checkpoint_report.hpp"
#include "energy_report.hpp"
#include "html_page.hpp"
#include "report_inputs.hpp"
#include "storage_report.hpp"
#include "svg_chart.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

namespace fleetsim::report {
namespace {

namespace ms = models::summary;
namespace sr = models::summary::run;

constexpr double kDay = 86400;
constexpr double kHour = 3600;
constexpr double kWidth = 1160;  // every full-width chart
constexpr double kLeft = 120;    // and its plot area, so their time axes line up
constexpr double kRight = 20;

const std::vector<std::string>& known_states()
{
  static const std::vector<std::string> s = [] {
    std::vector<std::string> names;
    for (const models::Phase p : models::kPhases)
      names.emplace_back(models::phase_name(p));
    return names;
  }();
  return s;
}

struct RunData {
  nlohmann::ordered_json summary;
  std::string summary_name;
  std::vector<StateSegment> segments;
  std::vector<XY> goodput;       // (t_end days, cumulative goodput)
  std::vector<XY> productive;    // (t_end s, cumulative productive seconds)
  std::vector<double> failures;  // times (s)
  std::vector<double> planned;
  CheckpointEvents checkpoints;
  std::optional<StorageSeries> storage;  // none in an output directory older than storage.csv
  std::optional<EnergyData> energy;      // none in one older than the energy model
  double t_end = 0;
};

RunData load(const std::string& dir)
{
  RunData d;
  d.summary_name = dir + "/summary.json";
  d.summary = read_json(d.summary_name);
  const CsvTable tl = CsvTable::read(dir + "/timeline.csv");
  const std::size_t tb = tl.column("t_begin_s"), te = tl.column("t_end_s"), st = tl.column("state"),
                    pr = tl.column("productive_s"), gp = tl.column("goodput");
  for (std::size_t i = 0; i < tl.rows(); ++i) {
    const double a = tl.number(i, tb), b = tl.number(i, te);
    if (b < a || a < d.t_end - 1e-6)
      throw InputError(tl.name() + ":" + std::to_string(i + 2) + ": error: segments must follow each other in time");
    d.segments.push_back({a, b, tl.row(i)[st]});
    d.goodput.push_back({b / kDay, tl.number(i, gp)});
    d.productive.push_back({b, tl.number(i, pr)});
    d.t_end = b;
  }
  if (d.segments.empty())
    throw InputError(tl.name() + ": error: no rows (an empty run?)");
  d.energy = load_energy(tl, d.summary, d.summary_name);
  const CsvTable ev = CsvTable::read(dir + "/events.csv");
  const std::size_t et = ev.column("time_s"), en = ev.column("event");
  for (std::size_t i = 0; i < ev.rows(); ++i) {
    const std::string& kind = ev.row(i)[en];
    if (kind == "failure")
      d.failures.push_back(ev.number(i, et));
    else if (kind == "planned_interruption")
      d.planned.push_back(ev.number(i, et));
  }
  d.checkpoints = checkpoint_events(ev);
  d.storage = load_storage(dir, json_number(d.summary, sr::kSimulatedTimeS.key, d.summary_name));
  return d;
}

std::string header_html(const RunData& d)
{
  const auto& j = d.summary;
  const std::string& w = d.summary_name;
  const std::string scenario = json_string_at(j, ms::kScenario.key, "?");
  const auto& in = j.contains(sr::kInterruptions.key) ? j[sr::kInterruptions.key] : nlohmann::ordered_json();
  std::vector<std::pair<std::string, std::string>> f = {
      {"scenario", scenario},
      {"seed", fixed(json_number(j, ms::kSeed.key, w), 0)},
      {"GPUs", fixed(json_number(j, sr::kGpus.key, w), 0)},
      {"simulated days", fixed(json_number(j, sr::kSimulatedTimeS.key, w) / kDay, 1)},
      {"ETTR", fixed(json_number(j, sr::kEttr.key, w), 4)},
      {"goodput ratio", fixed(json_number(j, sr::kGoodputRatio.key, w), 4)},
      {"step time", fixed(json_number(j, sr::kStepTimeS.key, w), 3) + " s"},
      {"MFU", percent(json_number(j, sr::kMfu.key, w))},
      {"unexpected interruptions", fixed(json_number(in, sr::interruptions::kUnexpected.key, w), 0)},
      {"planned interruptions", fixed(json_number(in, sr::interruptions::kPlanned.key, w), 0)},
  };
  if (j.contains(sr::kTokensTrained.key) && j[sr::kTokensTrained.key].is_number())
    f.emplace_back("tokens trained", format_number(j[sr::kTokensTrained.key].get<double>(), 4));
  std::string out = "<h1>fleetsim run report: " + html_escape(scenario) + "</h1>\n";
  if (const std::string file = json_string_at(j, sr::kScenarioFile.key, ""); !file.empty())
    out += "<p class=\"note\">Scenario file " + html_escape(file) +
           ". Every figure below is read from summary.json, timeline.csv and events.csv in this directory.</p>\n";
  return out + figures(f);
}

std::vector<Tick> day_ticks(const Scale& x)
{
  std::vector<Tick> out;
  const auto t = x.ticks(10);
  const double step = t.size() > 1 ? t[1] - t[0] : 1;
  for (double v : t)
    out.push_back({v, format_tick(v, step)});
  return out;
}

// Productive seconds at time t, linear within the segment that contains it.
double productive_at(const std::vector<XY>& prod, double t)
{
  auto it = std::lower_bound(prod.begin(), prod.end(), t, [](const XY& p, double v) { return p.x < v; });
  if (it == prod.end())
    return prod.empty() ? 0 : prod.back().y;
  const double x0 = it == prod.begin() ? 0 : (it - 1)->x;
  const double y0 = it == prod.begin() ? 0 : (it - 1)->y;
  return it->x > x0 ? y0 + (it->y - y0) * (t - x0) / (it->x - x0) : it->y;
}

std::string goodput_chart(const RunData& d)
{
  const double days = d.t_end / kDay;
  const double window = days >= 4 ? kDay : kHour;
  Plot p(kWidth, 280, kLeft, kRight, 12, 40);
  std::vector<XY> bars;  // productive fraction per window
  for (double a = 0; a < d.t_end - 1e-9; a += window) {
    const double b = std::min(a + window, d.t_end);
    bars.push_back({a / kDay, (productive_at(d.productive, b) - productive_at(d.productive, a)) / (b - a)});
  }
  double lo = 1;
  for (const auto& q : bars)
    lo = std::min(lo, q.y);
  for (const auto& q : d.goodput)
    lo = std::min(lo, q.y);
  const Domain yd = nice_domain(std::max(0.0, lo), 1.0, 5);
  p.set_scales(Scale::linear(0, days, p.left(), p.right()), Scale::linear(yd.lo, yd.hi, p.bottom(), p.top()));
  std::vector<Tick> yt;
  const auto yv = nice_ticks(yd.lo, yd.hi, 5);
  for (double v : yv)
    yt.push_back({v, format_tick(v, yv.size() > 1 ? yv[1] - yv[0] : 0.1)});
  p.axes(day_ticks(Scale::linear(0, days, 0, 1)), yt, "simulated days", "goodput");
  const double bw = p.x(window / kDay) - p.x(0);
  for (const auto& q : bars)
    p.rect_px(p.x(q.x) + 0.5, p.y(q.y), std::max(bw - 1, 0.5), p.bottom() - p.y(q.y), "#c8e6c9",
              "from day " + fixed(q.x, 1) + ": " + percent(q.y) + " productive");
  const double ettr = json_number(d.summary, sr::kEttr.key, d.summary_name);
  p.polyline({{0, ettr}, {days, ettr}}, "#555", 1, true);
  p.text_px(p.right() - 4, p.y(ettr) - 5, "final ETTR " + fixed(ettr, 4), "end");
  const int buckets = static_cast<int>(p.right() - p.left());
  p.polyline(downsample_min_max(d.goodput, 0, days, buckets), "#1b5e20", 1.6);
  return legend({{"#1b5e20", "goodput so far (timeline.csv goodput: productive time / elapsed time)"},
                 {"#c8e6c9", std::string("productive fraction of each simulated ") + (window == kDay ? "day" : "hour")},
                 {"#555", "final ETTR", true}}) +
         p.svg("goodput over time");
}

std::string state_band(const StateColumns& sc, const Plot& p, double y0, double h)
{
  std::string svg;
  const double colw = (p.right() - p.left()) / static_cast<double>(sc.share.size());
  for (std::size_t s = 0; s < sc.states.size(); ++s) {
    std::string path;
    for (std::size_t c = 0; c < sc.share.size(); ++c) {
      double above = 0;
      for (std::size_t k = 0; k < s; ++k)
        above += sc.share[c][k];
      const double f = sc.share[c][s];
      if (f <= 0)
        continue;
      append(path, {"M", px(p.left() + static_cast<double>(c) * colw), ",", px(y0 + above * h), "h", px(colw), "v",
                    px(f * h), "h-", px(colw), "z"});
    }
    if (!path.empty())
      svg += "<path fill=\"" + state_color(sc.states[s], s) + "\" d=\"" + path + "\"/>";
  }
  return svg;
}

std::string dominant_band(const StateColumns& sc, const Plot& p, double y0, double h)
{
  const double colw = (p.right() - p.left()) / static_cast<double>(sc.share.size());
  std::string svg;
  std::size_t c = 0;
  auto dominant = [&](std::size_t col) {
    int best = -1;
    for (std::size_t s = 0; s < sc.states.size(); ++s)
      if (sc.states[s] != "training" && sc.share[col][s] > 0 && (best < 0 || sc.share[col][s] > sc.share[col][best]))
        best = static_cast<int>(s);
    return best;
  };
  while (c < sc.share.size()) {
    const int s = dominant(c);
    std::size_t e = c + 1;
    while (e < sc.share.size() && dominant(e) == s)
      ++e;
    if (s >= 0)
      svg += "<rect x=\"" + px(p.left() + static_cast<double>(c) * colw) + "\" y=\"" + px(y0) + "\" width=\"" +
             px(static_cast<double>(e - c) * colw) + "\" height=\"" + px(h) + "\" fill=\"" +
             state_color(sc.states[s], s) + "\"/>";
    c = e;
  }
  return svg;
}

std::string rug(const std::vector<double>& times, const Plot& p, double t_end, double y0, double h,
                const std::string& color)
{
  std::string path;
  long last = -1;
  for (double t : times) {
    const long col = std::lround(p.left() + t / t_end * (p.right() - p.left()));
    if (col == last)
      continue;
    last = col;
    append(path, {"M", std::to_string(col), ",", px(y0), "v", px(h)});
  }
  return path.empty() ? "" : "<path stroke=\"" + color + "\" stroke-width=\"1\" d=\"" + path + "\"/>";
}

std::string state_timeline(const RunData& d)
{
  Plot p(kWidth, 150, kLeft, kRight, 8, 40);
  const int columns = static_cast<int>(p.right() - p.left());
  const StateColumns sc = state_columns(d.segments, d.t_end, columns);
  const double days = d.t_end / kDay;
  p.set_scales(Scale::linear(0, days, p.left(), p.right()), Scale::linear(0, 1, p.bottom(), p.top()));
  p.raw(rug(d.failures, p, d.t_end, 10, 12, "#d32f2f") + rug(d.planned, p, d.t_end, 24, 10, "#546e7a"));
  p.raw(state_band(sc, p, 40, 44));
  p.raw(dominant_band(sc, p, 90, 18));
  p.text_px(p.left() - 8, 20, "failures", "end");
  p.text_px(p.left() - 8, 33, "planned stops", "end");
  p.text_px(p.left() - 8, 66, "share of time", "end");
  p.text_px(p.left() - 8, 103, "main non-training", "end");
  p.axes(day_ticks(Scale::linear(0, days, 0, 1)), {}, "simulated days", "");
  std::map<std::string, double> hours;
  for (const auto& s : d.segments)
    hours[s.state] += (s.t_end - s.t_begin) / kHour;
  std::vector<LegendItem> items;
  for (std::size_t s = 0; s < sc.states.size(); ++s)
    items.push_back({state_color(sc.states[s], s), sc.states[s] + " (" + fixed(hours[sc.states[s]], 1) + " h)"});
  items.push_back({"#d32f2f", std::to_string(d.failures.size()) + " failures"});
  items.push_back({"#546e7a", std::to_string(d.planned.size()) + " planned stops"});
  return legend(items) + p.svg("state timeline");
}

std::string interruptions_section(const RunData& d)
{
  const auto& in = d.summary.contains(sr::kInterruptions.key) ? d.summary[sr::kInterruptions.key]
                                                              : nlohmann::ordered_json();
  const auto expected = json_numbers(in, sr::interruptions::kExpectedByCause.key, d.summary_name);
  const auto simulated = json_numbers(in, sr::interruptions::kByCause.key, d.summary_name);
  std::vector<std::string> causes;
  std::map<std::string, std::pair<double, double>> v;
  for (const auto& [c, e] : expected) {
    causes.push_back(c);
    v[c].first = e;
  }
  for (const auto& [c, s] : simulated) {
    if (!v.count(c))
      causes.push_back(c);
    v[c].second = s;
  }
  double te = 0, ts = 0, hi = 1;
  for (const auto& [c, es] : v) {
    te += es.first;
    ts += es.second;
    hi = std::max({hi, es.first, es.second});
  }
  const double row = 20;
  Plot p(560, 30 + row * static_cast<double>(causes.size()) + 36, 190, 30, 14, 36);
  const Domain xd = nice_domain(0, hi, 5);
  const auto xt = nice_ticks(0, xd.hi, 5);
  p.set_scales(Scale::linear(0, xd.hi, p.left(), p.right()), Scale::categorical(causes.size(), p.top(), p.bottom()));
  std::vector<Tick> ticks;
  for (double t : xt)
    ticks.push_back({t, format_tick(t, xt.size() > 1 ? xt[1] - xt[0] : 1)});
  p.axes(ticks, {}, "interruptions in the run", "");
  std::vector<std::vector<Cell>> rows;
  for (std::size_t i = 0; i < causes.size(); ++i) {
    const auto [e, s] = v[causes[i]];
    const double yc = p.y(static_cast<double>(i));
    p.text_px(p.left() - 6, yc + 4, causes[i], "end");
    p.rect_px(p.left(), yc - 8, p.x(e) - p.left(), 7, "#90a4ae", causes[i] + ": expected " + fixed(e, 1));
    p.rect_px(p.left(), yc, p.x(s) - p.left(), 7, "#e8710a", causes[i] + ": simulated " + fixed(s, 0));
    p.text_px(p.x(std::max(e, s)) + 4, yc + 4, fixed(s, 0));
    rows.push_back(
        {causes[i], fixed(e, 1), fixed(s, 0), te > 0 ? percent(e / te) : "-", ts > 0 ? percent(s / ts) : "-"});
  }
  rows.push_back({"total", fixed(te, 1), fixed(ts, 0), "100.0%", "100.0%"});
  return legend({{"#90a4ae", "expected (the scenario's reference rates)"}, {"#e8710a", "simulated (this run)"}}) +
         "<div class=\"row\"><div>" + p.svg("interruptions by cause") + "</div><div>" +
         table({"cause", "expected", "simulated", "share exp.", "share sim."}, rows) + "</div></div>\n";
}

std::string breakdown_bar(const std::vector<std::pair<std::string, double>>& parts, double total)
{
  Plot p(kWidth, 44, 0, 0, 0, 0);
  double x = 0;
  const double w = kWidth - 2;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const double f = total > 0 ? parts[i].second / total : 0;
    if (f <= 0)
      continue;
    const std::string label = parts[i].first + " " + percent(f);
    p.rect_px(1 + x * w, 4, f * w, 36, state_color(parts[i].first, i), label);
    if (f * w > 7.0 * static_cast<double>(label.size()))
      p.text_px(1 + (x + f / 2) * w, 26, label, "middle", parts[i].first == "productive" ? "lbl inv" : "lbl");
    x += f;
  }
  return p.svg("time breakdown");
}

std::string breakdown_section(const RunData& d)
{
  const auto parts = json_numbers(d.summary, sr::kTimeBreakdownS.key, d.summary_name);
  double total = 0;
  for (const auto& [n, s] : parts)
    total += s;
  std::vector<std::vector<Cell>> rows;
  for (std::size_t i = 0; i < parts.size(); ++i)
    rows.push_back({Cell(parts[i].first, state_color(parts[i].first, i)), fixed(parts[i].second / kHour, 2),
                    total > 0 ? percent(parts[i].second / total) : "-"});
  rows.push_back({"total", fixed(total / kHour, 2), "100.0%"});
  auto lost = json_numbers(d.summary, sr::kLostTimeByCauseS.key, d.summary_name);
  std::stable_sort(lost.begin(), lost.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  double hi = 1e-9;
  for (const auto& [n, s] : lost)
    hi = std::max(hi, s / kHour);
  Plot p(700, 30 + 18 * static_cast<double>(lost.size()) + 36, 200, 50, 10, 36);
  const Domain xd = nice_domain(0, hi, 5);
  const auto xt = nice_ticks(0, xd.hi, 5);
  p.set_scales(Scale::linear(0, xd.hi, p.left(), p.right()), Scale::categorical(lost.size(), p.top(), p.bottom()));
  std::vector<Tick> ticks;
  for (double t : xt)
    ticks.push_back({t, format_tick(t, xt.size() > 1 ? xt[1] - xt[0] : 1)});
  p.axes(ticks, {}, "hours lost", "");
  for (std::size_t i = 0; i < lost.size(); ++i) {
    const double yc = p.y(static_cast<double>(i)), h = lost[i].second / kHour;
    const std::string color = lost[i].first == "planned" || lost[i].first == "checkpoint" ||
                                      lost[i].first == "data_stall"
                                  ? state_color(lost[i].first, 0)
                                  : std::string("#d84315");
    p.text_px(p.left() - 6, yc + 4, lost[i].first, "end");
    p.rect_px(p.left(), yc - 6, p.x(h) - p.left(), 12, color, lost[i].first + ": " + fixed(h, 2) + " h");
    p.text_px(p.x(h) + 4, yc + 4, fixed(h, 1) + " h");
  }
  return breakdown_bar(parts, total) + "<div class=\"row\"><div>" + table({"component", "hours", "share"}, rows) +
         "</div><div><h3>Lost time by cause (elapsed minus goodput, charged to one cause each)</h3>" +
         p.svg("lost time by cause") + "</div></div>\n";
}

}  // namespace

std::string state_color(const std::string& state, std::size_t fallback_index)
{
  static const std::map<std::string, std::string> colors = {
      {"training", "#43a047"}, {"productive", "#43a047"}, {"checkpoint", "#1f6fb4"}, {"detection", "#f9a825"},
      {"restart", "#d32f2f"},  {"reload", "#7b3fa0"},     {"warmup", "#ff8a65"},     {"planned", "#78909c"},
      {"waiting", "#6d4c41"},  {"lost_work", "#880e4f"},  {"data_stall", "#00bcd4"}};
  const auto it = colors.find(state);
  return it != colors.end() ? it->second : palette(fallback_index + 3);
}

StateColumns state_columns(const std::vector<StateSegment>& segments, double t_end, int columns)
{
  StateColumns sc;
  for (const auto& k : known_states())
    for (const auto& s : segments)
      if (s.state == k) {
        sc.states.push_back(k);
        break;
      }
  for (const auto& s : segments)
    if (std::find(sc.states.begin(), sc.states.end(), s.state) == sc.states.end())
      sc.states.push_back(s.state);
  sc.share.assign(static_cast<std::size_t>(std::max(columns, 1)), std::vector<double>(sc.states.size(), 0));
  if (!(t_end > 0))
    return sc;
  const double dt = t_end / static_cast<double>(sc.share.size());
  for (const auto& s : segments) {
    const auto k = static_cast<std::size_t>(std::find(sc.states.begin(), sc.states.end(), s.state) - sc.states.begin());
    const auto last = static_cast<long>(sc.share.size()) - 1;
    const long c0 = std::clamp(static_cast<long>(std::floor(s.t_begin / dt)), 0L, last);
    const long c1 = std::clamp(static_cast<long>(std::floor(s.t_end / dt)), 0L, last);
    for (long c = c0; c <= c1; ++c) {
      const double a = std::max(s.t_begin, static_cast<double>(c) * dt);
      const double b = std::min(s.t_end, static_cast<double>(c + 1) * dt);
      if (b > a)
        sc.share[static_cast<std::size_t>(c)][k] += (b - a) / dt;
    }
  }
  return sc;
}

std::string metrics_section(const nlohmann::ordered_json& ordered, const std::vector<const metrics::Metric*>& shown)
{
  const nlohmann::json summary = nlohmann::json::parse(ordered.dump());
  std::vector<std::vector<Cell>> rows;
  for (const metrics::Metric* m : shown) {
    const double v = m->read(summary);
    if (std::isnan(v))
      continue;
    rows.push_back({m->name, format_number(v, 6), m->unit, m->description});
  }
  return "<h2>Metrics</h2>\n<p class=\"note\">The values compare.csv and a sweep's results.csv take from this run's "
         "summary.json: every metric it has a value for (the recovery counters a policy does not report read as "
         "0).</p>\n" +
         table({"metric", "value", "unit", "what it is"}, rows, "metrics");
}

std::string run_report_html(const std::string& dir)
{
  const RunData d = load(dir);
  std::string body = header_html(d);
  body +=
      "<h2>Goodput over time</h2>\n<p class=\"note\">The line is the effective training time ratio so far: "
      "productive time divided by elapsed time at the end of each timeline segment (drawn at one point per pixel "
      "column: the lowest and highest value in it). The bars are the productive share of each window.</p>\n";
  body += goodput_chart(d);
  body +=
      "<h2>State timeline</h2>\n<p class=\"note\">Each pixel column is a slice of the run: the middle band stacks "
      "the share of that slice spent in each state, top to bottom in legend order; the lower band shows the "
      "non-training state that took most of the slice. Ticks above mark each failure and planned stop.</p>\n";
  body += state_timeline(d);
  body +=
      "<h2>Interruptions by cause</h2>\n<p class=\"note\">Unexpected interruptions drawn in this run beside the "
      "counts the scenario's reference rates predict for this fleet and window (for the Llama 3 replay, Table 5 of "
      "the Llama 3 paper).</p>\n";
  body += interruptions_section(d);
  body += "<h2>Where the time went</h2>\n";
  body += breakdown_section(d);
  body += checkpoints_section(d.checkpoints, d.summary, d.summary_name, d.t_end);
  if (d.storage)
    body += storage_section(*d.storage);
  if (d.energy)
    body += energy_section(*d.energy);
  std::vector<const metrics::Metric*> all;
  for (const metrics::Metric& m : metrics::all_metrics())
    all.push_back(&m);
  body += metrics_section(d.summary, all);
  const std::string scenario = d.summary.contains("scenario") && d.summary["scenario"].is_string()
                                   ? d.summary["scenario"].get<std::string>()
                                   : "run";
  return html_page("fleetsim report: " + scenario, body);
}

}  // namespace fleetsim::report
