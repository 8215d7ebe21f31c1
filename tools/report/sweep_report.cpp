#include "sweep_report.hpp"

#include "simulator/metrics/metric_registry.hpp"

#include "html_page.hpp"
#include "report_inputs.hpp"
#include "svg_chart.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>

namespace fleetsim::report {
namespace {

constexpr double kChartWidth = 590;
constexpr double kChartHeight = 290;

// One metric's five columns in results.csv.
struct Metric {
  std::string name;
  std::size_t mean = 0, ci95 = 0, p5 = 0, p95 = 0;
};

// An axis of the grid: the parameter columns that vary together, and its distinct values in order.
struct Axis {
  std::vector<std::size_t> columns;
  std::vector<std::string> values;  // each the columns' cells joined by '\x1f'
};

struct SweepData {
  CsvTable results;
  std::vector<std::string> params;
  std::vector<Metric> metrics;
  std::vector<Axis> axes;
  std::size_t x_axis = 0;
  std::vector<std::string> series;             // labels, in first-appearance order
  std::vector<std::size_t> row_series, row_x;  // per row: its series and x value index
  nlohmann::ordered_json manifest;             // sweep.json, or null
};

std::string axis_value(const CsvTable& t, std::size_t row, const Axis& a)
{
  std::string v;
  for (std::size_t c : a.columns)
    v += (v.empty() ? "" : "\x1f") + t.row(row)[c];
  return v;
}

std::vector<Metric> find_metrics(const CsvTable& t, std::size_t first)
{
  std::vector<Metric> out;
  const auto& h = t.header();
  const std::string suffix = "_mean";
  for (std::size_t i = first; i < h.size(); ++i) {
    if (h[i].size() <= suffix.size() || h[i].compare(h[i].size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    Metric m;
    m.name = h[i].substr(0, h[i].size() - suffix.size());
    m.mean = i;
    m.ci95 = t.column(m.name + "_ci95");
    m.p5 = t.column(m.name + "_p5");
    m.p95 = t.column(m.name + "_p95");
    for (std::size_t r = 0; r < t.rows(); ++r)
      for (std::size_t c : {m.mean, m.ci95, m.p5, m.p95})
        if (!t.blank(r, m.mean))
          (void)t.number(r, c);  // throws on a non-number (a blank mean: no value at that point)
    out.push_back(m);
  }
  if (out.empty())
    throw InputError(t.name() + ":1: error: no <metric>_mean columns after 'replicas'");
  return out;
}

// Whether the cells of columns a and b determine each other (a bijection over the rows).
bool one_to_one(const CsvTable& t, std::size_t a, std::size_t b)
{
  std::map<std::string, std::string> ab, ba;
  for (std::size_t r = 0; r < t.rows(); ++r) {
    const auto& ca = t.row(r)[a];
    const auto& cb = t.row(r)[b];
    if (ab.emplace(ca, cb).first->second != cb || ba.emplace(cb, ca).first->second != ca)
      return false;
  }
  return ab.size() > 1;
}

// Axes from sweep.json when present (keys of one axis vary together), else one per parameter column.
std::vector<Axis> find_axes(const SweepData& d, const std::string& manifest_name)
{
  std::vector<Axis> axes;
  std::vector<bool> used(d.params.size(), false);
  if (!d.manifest.is_null()) {
    if (!d.manifest.is_object() || !d.manifest.contains("axes") || !d.manifest["axes"].is_array())
      throw InputError(manifest_name + ": error: 'axes' is missing or not a list");
    for (const auto& a : d.manifest["axes"]) {
      if (!a.is_object() || !a.contains("keys") || !a["keys"].is_array() || a["keys"].empty())
        throw InputError(manifest_name + ": error: each axis needs a non-empty 'keys' list");
      Axis axis;
      for (const auto& k : a["keys"]) {
        const auto it = std::find(d.params.begin(), d.params.end(), k.is_string() ? k.get<std::string>() : "");
        if (it == d.params.end())
          throw InputError(manifest_name + ": error: axis key " + k.dump() +
                           " is not a parameter column of results.csv");
        axis.columns.push_back(static_cast<std::size_t>(it - d.params.begin()));
        used[axis.columns.back()] = true;
      }
      axes.push_back(axis);
    }
  }
  for (std::size_t i = 0; i < d.params.size(); ++i) {
    if (used[i])
      continue;
    // Without sweep.json, a column in one-to-one correspondence with an earlier free column is a
    // zipped key of its axis: in a grid of independent axes, no two columns correspond one to one.
    auto zipped = std::find_if(axes.begin(), axes.end(), [&](const Axis& a) {
      return d.manifest.is_null() && !used[a.columns.front()] && one_to_one(d.results, a.columns.front(), i);
    });
    if (zipped != axes.end())
      zipped->columns.push_back(i);
    else
      axes.push_back({{i}, {}});
  }
  for (auto& a : axes)
    for (std::size_t r = 0; r < d.results.rows(); ++r)
      if (const std::string v = axis_value(d.results, r, a);
          std::find(a.values.begin(), a.values.end(), v) == a.values.end())
        a.values.push_back(v);
  return axes;
}

std::string first_cell(const std::string& joined) { return joined.substr(0, joined.find('\x1f')); }

std::string axis_label(const SweepData& d, const Axis& a, const std::string& value)
{
  std::string out;
  std::size_t start = 0;
  for (std::size_t k = 0; k < a.columns.size(); ++k) {
    const std::size_t end = value.find('\x1f', start);
    const std::string cell = value.substr(start, end == std::string::npos ? std::string::npos : end - start);
    out += (k == 0 ? "" : k == 1 ? " (" : ", ") + d.params[a.columns[k]] + "=" + cell;
    start = end == std::string::npos ? value.size() : end + 1;
  }
  return a.columns.size() > 1 ? out + ")" : out;
}

SweepData load(const std::string& dir)
{
  SweepData d{CsvTable::read(dir + "/results.csv"), {}, {}, {}, 0, {}, {}, {}, nullptr};
  const std::size_t rep = d.results.column("replicas");
  d.params.assign(d.results.header().begin(), d.results.header().begin() + static_cast<long>(rep));
  d.metrics = find_metrics(d.results, rep + 1);
  if (d.results.rows() == 0)
    throw InputError(d.results.name() + ": error: no result rows");
  const std::string manifest_name = dir + "/sweep.json";
  if (std::filesystem::exists(manifest_name))
    d.manifest = read_json(manifest_name);
  d.axes = find_axes(d, manifest_name);
  for (std::size_t i = 1; i < d.axes.size(); ++i)
    if (d.axes[i].values.size() > d.axes[d.x_axis].values.size())
      d.x_axis = i;
  for (std::size_t r = 0; r < d.results.rows(); ++r) {
    std::string label;
    for (std::size_t i = 0; i < d.axes.size(); ++i)
      if (i != d.x_axis)
        label += (label.empty() ? "" : ", ") + axis_label(d, d.axes[i], axis_value(d.results, r, d.axes[i]));
    auto it = std::find(d.series.begin(), d.series.end(), label);
    if (it == d.series.end())
      it = d.series.insert(d.series.end(), label);
    d.row_series.push_back(static_cast<std::size_t>(it - d.series.begin()));
    const auto& xs = d.axes.empty() ? std::vector<std::string>{""} : d.axes[d.x_axis].values;
    const std::string xv = d.axes.empty() ? "" : axis_value(d.results, r, d.axes[d.x_axis]);
    d.row_x.push_back(static_cast<std::size_t>(std::find(xs.begin(), xs.end(), xv) - xs.begin()));
  }
  return d;
}

std::string integer_or_number(double v)
{
  char buf[40];
  if (v == std::round(v) && std::fabs(v) < 1e7)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    return format_number(v, 3);
  return buf;
}

// The x scale over the plot's width, and its tick labels.
std::pair<Scale, std::vector<Tick>> x_scale(const XPlacement& xp, const std::vector<std::string>& texts, const Plot& p)
{
  std::vector<Tick> ticks;
  if (xp.kind == XPlacement::Kind::Categorical) {
    const Scale s = Scale::categorical(texts.size(), p.left(), p.right());
    for (std::size_t i = 0; i < texts.size(); ++i)
      ticks.push_back({static_cast<double>(i), texts[i]});
    return {s, ticks};
  }
  const auto [lo_it, hi_it] = std::minmax_element(xp.positions.begin(), xp.positions.end());
  if (xp.kind == XPlacement::Kind::Log2) {
    const Scale s = Scale::log2(*lo_it / std::pow(2, 0.3), *hi_it * std::pow(2, 0.3), p.left(), p.right());
    for (double v : s.ticks(5))
      ticks.push_back({v, integer_or_number(v) + xp.unit});
    return {s, ticks};
  }
  const Domain dom = *hi_it > *lo_it ? nice_domain(*lo_it, *hi_it, 5) : nice_domain(*lo_it, *lo_it, 5);
  const Scale s = Scale::linear(dom.lo, dom.hi, p.left(), p.right());
  const auto tv = s.ticks(5);
  for (double v : tv)
    ticks.push_back({v, format_tick(v, tv.size() > 1 ? tv[1] - tv[0] : 1) + xp.unit});
  return {s, ticks};
}

std::string metric_chart(const SweepData& d, const Metric& m, const XPlacement& xp,
                         const std::vector<std::string>& texts)
{
  Plot p(kChartWidth, kChartHeight, 70, 18, 12, 44);
  const CsvTable& t = d.results;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (std::size_t r = 0; r < t.rows(); ++r) {
    if (t.blank(r, m.mean))
      continue;
    const double mean = t.number(r, m.mean), ci = t.number(r, m.ci95);
    lo = std::min({lo, mean - ci, t.number(r, m.p5)});
    hi = std::max({hi, mean + ci, t.number(r, m.p95)});
  }
  if (lo > hi)  // no point has a value
    return "<div><h3>" + html_escape(m.name) + "</h3><p>No values: no point has one for every replica.</p></div>\n";
  const Domain yd = nice_domain(lo, hi, 5);
  auto [xs, xticks] = x_scale(xp, texts, p);
  p.set_scales(xs, Scale::linear(yd.lo, yd.hi, p.bottom(), p.top()));
  std::vector<Tick> yticks;
  const auto yv = nice_ticks(yd.lo, yd.hi, 5);
  for (double v : yv)
    yticks.push_back({v, format_tick(v, yv.size() > 1 ? yv[1] - yv[0] : 1)});
  const Axis* xa = d.axes.empty() ? nullptr : &d.axes[d.x_axis];
  const std::string x_title = xa == nullptr ? ""
                                            : d.params[xa->columns.front()] +
                                                  (xp.kind == XPlacement::Kind::Log2 ? " (log scale)" : "");
  p.axes(xticks, yticks, x_title, m.name);
  for (std::size_t s = 0; s < d.series.size(); ++s) {
    std::vector<std::pair<double, std::size_t>> rows;  // (x position, row)
    for (std::size_t r = 0; r < t.rows(); ++r)
      if (d.row_series[r] == s && !t.blank(r, m.mean))
        rows.emplace_back(xp.positions[d.row_x[r]], r);
    std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<XY> mean, lower, upper, p5, p95;
    for (const auto& [x, r] : rows) {
      const double mu = t.number(r, m.mean), ci = t.number(r, m.ci95);
      mean.push_back({x, mu});
      lower.push_back({x, mu - ci});
      upper.push_back({x, mu + ci});
      p5.push_back({x, t.number(r, m.p5)});
      p95.push_back({x, t.number(r, m.p95)});
    }
    const std::string& c = palette(s);
    p.band(lower, upper, c, 0.2);
    p.polyline(p5, c, 1, true);
    p.polyline(p95, c, 1, true);
    p.polyline(mean, c, 2);
    p.circles(mean, c, 3);
  }
  const metrics::Metric* def = metrics::find_metric(m.name);
  const std::string what = def == nullptr ? std::string()
                                          : "<p class=\"note\">" + html_escape(def->description) +
                                                (def->unit.empty() ? "" : " (" + html_escape(def->unit) + ")") + "</p>";
  return "<div><h3>" + html_escape(m.name) + "</h3>" + what + p.svg(m.name + " by " + x_title) + "</div>\n";
}

std::vector<const Metric*> table_metrics(const SweepData& d)
{
  std::vector<const Metric*> out;
  for (const char* name : {"ettr", "goodput_ratio", "tokens_trained", "unexpected_interruptions", "time_to_target_h"})
    for (const auto& m : d.metrics)
      if (m.name == name)
        out.push_back(&m);
  for (std::size_t i = 0; out.size() < 4 && i < d.metrics.size(); ++i)
    if (std::find(out.begin(), out.end(), &d.metrics[i]) == out.end())
      out.push_back(&d.metrics[i]);
  return out;
}

std::string results_table(const SweepData& d)
{
  const CsvTable& t = d.results;
  const std::size_t rep = t.column("replicas");
  const auto ms = table_metrics(d);
  std::vector<std::string> header(d.params.begin(), d.params.end());
  header.push_back("replicas");
  for (const Metric* m : ms)
    header.push_back(m->name + " (mean ± 95% CI)");
  std::vector<std::vector<Cell>> rows;
  for (std::size_t r = 0; r < t.rows(); ++r) {
    std::vector<Cell> row;
    for (std::size_t c = 0; c < d.params.size(); ++c)
      row.emplace_back(t.row(r)[c]);
    row.emplace_back(t.row(r)[rep]);
    for (const Metric* m : ms)
      row.emplace_back(t.blank(r, m->mean)
                           ? std::string("no value")
                           : format_number(t.number(r, m->mean), 4) + " ± " + format_number(t.number(r, m->ci95), 2));
    rows.push_back(std::move(row));
  }
  return table(header, rows, "params");
}

std::string header_html(const SweepData& d, const std::string& dir, const XPlacement& xp)
{
  const std::string name = std::filesystem::path(dir).lexically_normal().filename().string();
  std::vector<std::pair<std::string, std::string>> f = {{"points", std::to_string(d.results.rows())},
                                                        {"series", std::to_string(d.series.size())},
                                                        {"metrics", std::to_string(d.metrics.size())}};
  const std::size_t rep = d.results.column("replicas");
  f.emplace_back("replicas per point", d.results.row(0)[rep]);
  if (d.manifest.is_object() && d.manifest.contains("first_seed") && d.manifest["first_seed"].is_number())
    f.emplace_back("first seed", d.manifest["first_seed"].dump());
  std::string out = "<h1>fleetsim sweep report: " + html_escape(name.empty() ? dir : name) + "</h1>\n" + figures(f);
  std::string note = "Read from results.csv";
  note += d.manifest.is_null() ? " (no sweep.json: each parameter column is an axis, except that columns whose values "
                                 "correspond one to one vary together). "
                               : " and sweep.json. ";
  if (!d.axes.empty()) {
    const Axis& xa = d.axes[d.x_axis];
    note += "x: " + d.params[xa.columns.front()];
    for (std::size_t k = 1; k < xa.columns.size(); ++k)
      note += (k == 1 ? " (with " : ", ") + d.params[xa.columns[k]] + (k + 1 == xa.columns.size() ? ")" : "");
    note += ", " + std::to_string(xa.values.size()) + " values, " +
            (xp.kind == XPlacement::Kind::Log2     ? "log2 scale"
             : xp.kind == XPlacement::Kind::Linear ? "linear scale"
                                                   : "in sweep order") +
            ". Each line is the mean over the replicas; the shaded band is its 95% confidence interval (mean ± ci95); "
            "the dashed lines are the 5th and 95th percentiles of the replicas.";
  }
  return out + "<p class=\"note\">" + html_escape(note) + "</p>\n";
}

}  // namespace

XPlacement place_values(const std::vector<std::string>& values)
{
  XPlacement xp;
  bool numeric = !values.empty();
  for (std::size_t i = 0; i < values.size() && numeric; ++i) {
    const auto v = parse_number_with_unit(values[i]);
    if (!v || (i > 0 && v->unit != xp.unit)) {
      numeric = false;
      break;
    }
    xp.unit = v->unit;
    xp.positions.push_back(v->value);
  }
  if (!numeric) {
    xp = {};
    for (std::size_t i = 0; i < values.size(); ++i)
      xp.positions.push_back(static_cast<double>(i));
    return xp;
  }
  const auto [lo, hi] = std::minmax_element(xp.positions.begin(), xp.positions.end());
  xp.kind = *lo > 0 && *hi / *lo >= 16 ? XPlacement::Kind::Log2 : XPlacement::Kind::Linear;
  return xp;
}

std::string sweep_report_html(const std::string& dir)
{
  const SweepData d = load(dir);
  std::vector<std::string> texts;  // the x axis's first-key values
  if (d.axes.empty())
    texts.push_back("(base)");
  else
    for (const auto& v : d.axes[d.x_axis].values)
      texts.push_back(first_cell(v));
  const XPlacement xp = d.axes.empty() ? XPlacement{XPlacement::Kind::Categorical, {0}, ""} : place_values(texts);
  std::string body = header_html(d, dir, xp);
  std::vector<LegendItem> items;
  for (std::size_t s = 0; s < d.series.size(); ++s)
    items.push_back({palette(s), d.series[s].empty() ? "all points" : d.series[s]});
  items.push_back({"#777", "p5 / p95", true});
  body += "<h2>Metrics against " +
          html_escape(d.axes.empty() ? "the base point" : d.params[d.axes[d.x_axis].columns.front()]) + "</h2>\n" +
          legend(items) + "<div class=\"grid\">\n";
  for (const auto& m : d.metrics)
    body += metric_chart(d, m, xp, texts);
  body += "</div>\n<h2>Results</h2>\n" + results_table(d);
  return html_page("fleetsim sweep report", body);
}

}  // namespace fleetsim::report
