#include "fleet_charts.hpp"

#include "html_page.hpp"
#include "svg_chart.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace fleetsim::report {
namespace {

constexpr double kDay = 86400;
constexpr double kWidth = 1160;  // the full-width charts, with the run page's margins
constexpr double kLeft = 120;
constexpr double kRight = 20;

// The stacked layers of the utilisation chart, bottom to top: together they are the cluster.
struct Layer {
  const char* label;
  const char* color;
};
constexpr std::array<Layer, 5> kLayers = {{
    {"training", "#43a047"},
    {"allocated, not training (checkpoints, start-ups, recovery)", "#ffb74d"},
    {"idle", "#cfd8dc"},
    {"spare (held back to replace failed nodes)", "#64b5f6"},
    {"down (in repair)", "#d32f2f"},
}};
constexpr const char* kAllocatedColor = "#1b5e20";
constexpr const char* kDemandColor = "#6d4c41";
constexpr double kDemandCap = 2;  // waiting demand above twice the cluster is clipped

using Layers = std::array<double, kLayers.size()>;

Layers layers_of(const FleetTimelineRow& r)
{
  return {r.training, std::max(0.0, r.allocated - r.training), r.idle, r.spare, r.down};
}

struct Slice {
  double t_mid = 0;
  Layers layers{};
  double allocated = 0;
};

// The timeline as at most `buckets` slices of equal length, each the time-weighted mean of the
// rows it overlaps (the area under each series is kept); the rows themselves when they are fewer.
std::vector<Slice> slices(const FleetData& d, std::size_t buckets)
{
  std::vector<Slice> out;
  if (d.timeline.size() <= buckets) {
    for (const auto& r : d.timeline)
      out.push_back({(r.t_begin + r.t_end) / 2, layers_of(r), r.allocated});
    return out;
  }
  const double dt = (d.t_end - d.t_begin) / static_cast<double>(buckets);
  std::vector<Slice> sum(buckets);
  std::vector<double> covered(buckets, 0);
  const auto last = static_cast<long>(buckets) - 1;
  for (const auto& r : d.timeline) {
    const long c0 = std::clamp(static_cast<long>(std::floor((r.t_begin - d.t_begin) / dt)), 0L, last);
    const long c1 = std::clamp(static_cast<long>(std::floor((r.t_end - d.t_begin) / dt)), 0L, last);
    const Layers v = layers_of(r);
    for (long c = c0; c <= c1; ++c) {
      const double a = std::max(r.t_begin, d.t_begin + static_cast<double>(c) * dt);
      const double w = std::min(r.t_end, d.t_begin + static_cast<double>(c + 1) * dt) - a;
      if (w <= 0)
        continue;
      auto& s = sum[static_cast<std::size_t>(c)];
      for (std::size_t k = 0; k < v.size(); ++k)
        s.layers[k] += v[k] * w;
      s.allocated += r.allocated * w;
      covered[static_cast<std::size_t>(c)] += w;
    }
  }
  for (std::size_t c = 0; c < buckets; ++c) {
    if (!(covered[c] > 0))
      continue;
    Slice s{d.t_begin + (static_cast<double>(c) + 0.5) * dt, {}, sum[c].allocated / covered[c]};
    for (std::size_t k = 0; k < s.layers.size(); ++k)
      s.layers[k] = sum[c].layers[k] / covered[c];
    out.push_back(s);
  }
  return out;
}

std::vector<Tick> percent_ticks(const Domain& y)
{
  std::vector<Tick> out;
  const std::vector<double> v = nice_ticks(y.lo, y.hi, 5);
  const double step = v.size() > 1 ? v[1] - v[0] : 1;
  for (double t : v)
    out.push_back({t, format_tick(100 * t, 100 * step) + "%"});
  return out;
}

// Time-weighted means over the whole timeline, as shares of the cluster: the layers, then allocated.
std::vector<double> overall_means(const FleetData& d)
{
  std::vector<double> m(kLayers.size() + 1, 0);
  for (const auto& r : d.timeline) {
    const Layers v = layers_of(r);
    const double w = r.t_end - r.t_begin;
    for (std::size_t k = 0; k < v.size(); ++k)
      m[k] += v[k] * w;
    m.back() += r.allocated * w;
  }
  for (double& v : m)
    v /= (d.t_end - d.t_begin) * d.gpus;
  return m;
}

// The stacked layers, bottom up, each a band from the top of the one below.
void stack(Plot& p, const std::vector<Slice>& sl, const FleetData& d)
{
  const double x0 = d.t_begin / kDay, x1 = d.t_end / kDay;
  std::vector<XY> lower, upper;
  for (const auto& s : sl)
    lower.push_back({s.t_mid / kDay, 0});
  lower.insert(lower.begin(), {x0, 0});
  lower.push_back({x1, 0});
  for (std::size_t k = 0; k < kLayers.size(); ++k) {
    upper = lower;
    for (std::size_t i = 0; i < upper.size(); ++i) {
      const Slice& s = sl[std::clamp<std::size_t>(i, 1, sl.size()) - 1];  // the edges repeat the end slices
      upper[i].y += s.layers[k] / d.gpus;
    }
    p.band(lower, upper, kLayers[k].color, 1.0);
    lower = upper;
  }
  std::vector<XY> allocated = {{x0, sl.front().allocated / d.gpus}};
  for (const auto& s : sl)
    allocated.push_back({s.t_mid / kDay, s.allocated / d.gpus});
  allocated.push_back({x1, sl.back().allocated / d.gpus});
  p.polyline(allocated, kAllocatedColor, 1.2);
}


// Round durations for a log time axis.
struct NamedTick {
  double seconds;
  const char* label;
};
constexpr NamedTick kTimeTicks[] = {{1, "1 s"},          {10, "10 s"},         {60, "1 min"}, {600, "10 min"},
                                    {3600, "1 h"},       {21600, "6 h"},       {kDay, "1 d"}, {7 * kDay, "7 d"},
                                    {30 * kDay, "30 d"}, {365 * kDay, "365 d"}};

constexpr std::array<const char*, 3> kQuantileColors = {"#bbdefb", "#64b5f6", "#0d47a1"};  // p50, p90, p99
constexpr const char* kCdfColor = "#1f6fb4";

std::string wait_cell(const WaitStats& w, double v) { return w.empty() ? "-" : format_duration(v); }

std::vector<Cell> wait_row(const std::string& name, const WaitStats& w)
{
  return {name,
          grouped(w.count),
          wait_cell(w, w.mean),
          wait_cell(w, w.p50),
          wait_cell(w, w.p90),
          wait_cell(w, w.p99),
          wait_cell(w, w.max)};
}

std::string wait_bars(const FleetData& d)
{
  double hi = 0;
  for (const auto& [name, w] : d.wait_by_size)
    hi = std::max(hi, w.empty() ? 0.0 : w.p99);
  const TimeUnit unit = time_unit_for(hi);
  Plot p(560, 300, 64, 10, 16, 60);
  const Domain y = nice_domain(0, hi / unit.seconds, 5);
  const std::size_t n = d.wait_by_size.size();
  p.set_scales(Scale::categorical(n, p.left(), p.right()), Scale::linear(y.lo, y.hi, p.bottom(), p.top()));
  std::vector<Tick> xt;
  for (std::size_t i = 0; i < n; ++i)
    xt.push_back({static_cast<double>(i), d.wait_by_size[i].first});
  p.axes(xt, labelled_ticks(nice_ticks(y.lo, y.hi, 5)), "GPUs a job asks for (jobs that started)",
         std::string("first wait (") + unit.name + ")");
  const double slot = (p.right() - p.left()) / static_cast<double>(std::max<std::size_t>(n, 1));
  const double bar = slot * 0.24;
  for (std::size_t i = 0; i < n; ++i) {
    const auto& [name, w] = d.wait_by_size[i];
    const double xc = p.x(static_cast<double>(i));
    p.text_px(xc, p.bottom() + 30, "n = " + grouped(w.count), "middle", "tick");
    if (w.empty())
      continue;
    const std::array<std::pair<const char*, double>, 3> q = {{{"p50", w.p50}, {"p90", w.p90}, {"p99", w.p99}}};
    for (std::size_t k = 0; k < q.size(); ++k) {
      const double v = q[k].second / unit.seconds;
      const double x = xc + (static_cast<double>(k) - 1.5) * bar;
      p.rect_px(x, p.y(v), bar - 1, p.bottom() - p.y(v), kQuantileColors[k],
                name + " GPUs, " + q[k].first + ": " + format_duration(q[k].second));
    }
    p.text_px(xc + bar, p.y(w.p99 / unit.seconds) - 4, format_number(w.p99 / unit.seconds, 3), "middle", "tick");
  }
  return legend({{kQuantileColors[0], "p50"}, {kQuantileColors[1], "p90"}, {kQuantileColors[2], "p99 (labelled)"}}) +
         p.svg("first wait by job size");
}

}  // namespace

std::string format_duration(double s)
{
  if (!std::isfinite(s))
    return "n/a";
  if (s == 0)
    return "0 s";
  const double a = std::fabs(s);
  if (a < 90)
    return format_number(s, 3) + " s";
  if (a < 90 * 60)
    return format_number(s / 60, 3) + " min";
  if (a < 2 * kDay)
    return format_number(s / 3600, 3) + " h";
  return format_number(s / kDay, 3) + " d";
}

std::string utilisation_section(const FleetData& d)
{
  Plot p(kWidth, 320, kLeft, kRight, 12, 40);
  const auto plot_px = static_cast<std::size_t>(p.right() - p.left());
  const std::vector<Slice> sl = slices(d, plot_px / 2);
  double top = 1, demand_peak = 0;
  for (const auto& s : sl) {
    double sum = 0;
    for (double v : s.layers)
      sum += v;
    top = std::max(top, sum / d.gpus);
  }
  std::vector<XY> demand;
  for (const auto& r : d.timeline) {
    demand.push_back({(r.t_begin + r.t_end) / 2 / kDay, r.demand_waiting / d.gpus});
    demand_peak = std::max(demand_peak, r.demand_waiting / d.gpus);
  }
  const Domain y = nice_domain(0, std::min(std::max(top > 1.001 ? top : 1.0, demand_peak), kDemandCap), 5);
  for (auto& q : demand)
    q.y = std::min(q.y, y.hi);
  const double x0 = d.t_begin / kDay, x1 = d.t_end / kDay;
  p.set_scales(Scale::linear(x0, x1, p.left(), p.right()), Scale::linear(y.lo, y.hi, p.bottom(), p.top()));
  p.axes(labelled_ticks(nice_ticks(x0, x1, 10)), percent_ticks(y), "simulated days",
         "share of the " + grouped(d.gpus) + " GPUs");
  stack(p, sl, d);
  p.polyline(downsample_min_max(demand, x0, x1, static_cast<int>(plot_px)), kDemandColor, 1.4, true);
  const std::vector<double> mean = overall_means(d);
  std::vector<LegendItem> items;
  for (std::size_t k = 0; k < kLayers.size(); ++k)
    items.push_back({kLayers[k].color, std::string(kLayers[k].label) + " " + percent(mean[k])});
  items.push_back({kAllocatedColor, "allocated, the dark line (training + not training) " + percent(mean.back())});
  items.push_back({kDemandColor,
                   "waiting demand: GPUs the queued jobs ask for (peak " + percent(demand_peak) +
                       (demand_peak > y.hi ? ", clipped at " + percent(y.hi, 0) : std::string()) + ")",
                   true});
  const std::string slice_note = d.timeline.size() > sl.size()
                                     ? "Each point averages " +
                                           format_duration((d.t_end - d.t_begin) / static_cast<double>(sl.size())) +
                                           " of the " + grouped(static_cast<double>(d.timeline.size())) + " intervals."
                                     : "One point per interval of timeline.csv (" +
                                           grouped(static_cast<double>(d.timeline.size())) + ").";
  return "<p class=\"note\">The cluster's GPUs at each moment, as time averages over each interval of "
         "timeline.csv, in shares of the cluster: the five layers add up to all of it. The percentages in the "
         "legend are the means over the window. " +
         slice_note + "</p>\n" + legend(items) + p.svg("utilisation over time");
}

std::string wait_by_size_section(const FleetData& d)
{
  std::vector<std::vector<Cell>> rows;
  bool waited = false;
  for (const auto& [name, w] : d.wait_by_size) {
    rows.push_back(wait_row(name, w));
    waited = waited || (!w.empty() && w.p99 > 0);
  }
  rows.push_back(wait_row("all sizes", d.wait));
  const std::string table_html = table({"GPUs asked", "jobs started", "mean", "p50", "p90", "p99", "max"}, rows);
  const std::string note =
      "<p class=\"note\">The first wait of each job that started (submission to first start; a requeue after a "
      "failure or a preemption is not counted), by the number of GPUs it asks for: summary.json's wait_s_by_gpus "
      "and, for all sizes, wait_s. Jobs still waiting at the end of the window are not in these figures.</p>\n";
  if (!waited)
    return note + "<p class=\"note\">No size class has a p99 above 0 s, so there are no bars to draw.</p>\n" +
           table_html;
  return note + "<div class=\"row\"><div>" + wait_bars(d) + "</div><div>" + table_html + "</div></div>\n";
}

namespace {

// The time axis of the CDF: from the round duration at or below the shortest positive wait (at
// least 1 s) to the one at or above the longest.
Domain cdf_range(double shortest, double longest)
{
  Domain r{1, std::max(longest, 2.0)};
  for (const NamedTick& t : kTimeTicks)
    if (t.seconds <= std::max(shortest, 1.0))
      r.lo = t.seconds;
  for (auto it = std::rbegin(kTimeTicks); it != std::rend(kTimeTicks); ++it)
    if (it->seconds >= longest && it->seconds > r.lo)
      r.hi = it->seconds;
  return r;
}

// The empirical CDF of the sorted waits over [x.lo, x.hi], as (log2 seconds, share) steps,
// starting at the share of waits <= x.lo.
std::vector<XY> cdf_steps(const std::vector<double>& w, const Domain& x)
{
  const auto n = static_cast<double>(w.size());
  auto i = static_cast<std::size_t>(std::upper_bound(w.begin(), w.end(), x.lo) - w.begin());
  std::vector<XY> pts = {{std::log2(x.lo), static_cast<double>(i) / n}};
  while (i < w.size()) {
    const auto j = static_cast<std::size_t>(
        std::upper_bound(w.begin() + static_cast<std::ptrdiff_t>(i), w.end(), w[i]) - w.begin());
    const double lx = std::log2(w[i]);
    pts.push_back({lx, static_cast<double>(i) / n});
    pts.push_back({lx, static_cast<double>(j) / n});
    i = j;
  }
  pts.push_back({std::log2(x.hi), 1});
  return pts;
}

std::string cdf_text(const FleetData& d, std::size_t zero, std::size_t below_lo, const Domain& x)
{
  const std::size_t n = d.waits.size();
  std::string t = "Of the " + grouped(static_cast<double>(n)) + " jobs that started, " +
                  grouped(static_cast<double>(zero)) + " (" +
                  percent(static_cast<double>(zero) / static_cast<double>(n)) +
                  ") did not wait: they started the moment they were submitted. A log axis has no zero, so they are "
                  "the height at which the curve starts";
  if (below_lo > zero)
    t += " (with " + grouped(static_cast<double>(below_lo - zero)) + " waits shorter than " + format_duration(x.lo) +
         ")";
  t += ". ";
  if (d.jobs > n)
    t += grouped(static_cast<double>(d.jobs - n)) +
         " jobs had not started by the end of the window; their waits are unknown and not in the curve. ";
  return t;
}

}  // namespace

std::string wait_cdf_section(const FleetData& d)
{
  const std::vector<double>& w = d.waits;
  if (w.empty())
    return "<p class=\"note\">No job started, so there is no wait to draw.</p>\n";
  const auto zero = static_cast<std::size_t>(std::upper_bound(w.begin(), w.end(), 0.0) - w.begin());
  if (zero == w.size())
    return "<p class=\"note\">Every one of the " + grouped(static_cast<double>(w.size())) +
           " jobs that started did so the moment it was submitted: no job waited, and the distribution is a single "
           "step at 0 s.</p>\n";
  const Domain x = cdf_range(w[zero], w.back());
  const auto below = static_cast<std::size_t>(std::upper_bound(w.begin(), w.end(), x.lo) - w.begin());
  Plot p(kWidth, 300, kLeft, kRight, 12, 40);
  const auto plot_px = static_cast<int>(p.right() - p.left());
  std::vector<XY> pts = downsample_min_max(cdf_steps(w, x), std::log2(x.lo), std::log2(x.hi), plot_px / 3);
  for (auto& q : pts)
    q.x = std::exp2(q.x);
  const Domain y = nice_domain(static_cast<double>(below) / static_cast<double>(w.size()), 1, 5);
  p.set_scales(Scale::log2(x.lo, x.hi, p.left(), p.right()), Scale::linear(y.lo, y.hi, p.bottom(), p.top()));
  std::vector<Tick> xt;
  for (const NamedTick& t : kTimeTicks)
    if (t.seconds >= x.lo && t.seconds <= x.hi)
      xt.push_back({t.seconds, t.label});
  p.axes(xt, percent_ticks(y), "first wait (log scale)", "started jobs that waited at most x");
  if (!d.wait.empty() && d.wait.p99 > x.lo && d.wait.p99 < x.hi) {
    p.polyline({{d.wait.p99, y.lo}, {d.wait.p99, y.hi}}, "#555", 1, true);
    p.text_px(p.x(d.wait.p99) + 4, p.top() + 12, "p99 " + format_duration(d.wait.p99));
  }
  p.polyline(pts, kCdfColor, 1.6);
  std::string note = cdf_text(d, zero, below, x);
  if (y.lo > 0)
    note += "The y axis starts at " + percent(y.lo, 0) + ". ";
  note += "The curve is drawn at " + std::to_string(plot_px / 3) +
          " x positions (the lowest and highest share within each), from jobs.csv's wait_s.";
  return "<p class=\"note\">" + html_escape(note) + "</p>\n" +
         legend({{kCdfColor, "share of started jobs whose first wait is at most x"},
                 {"#555", "p99 of all sizes (summary.json)", true}}) +
         p.svg("distribution of first waits");
}

}  // namespace fleetsim::report
