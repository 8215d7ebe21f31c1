#include "checkpoint_report.hpp"

#include "models/summary/run_summary_fields.hpp"

#include "fleet_charts.hpp"
#include "html_page.hpp"

#include <algorithm>
#include <cmath>

namespace fleetsim::report {
namespace {

constexpr double kDay = 86400;
constexpr double kWidth = 1160;  // the run page's full-width charts, same margins
constexpr double kLeft = 120;
constexpr double kRight = 20;
constexpr const char* kPauseColor = "#1f6fb4";  // the checkpoint state's colour
constexpr const char* kDrainColor = "#8d6e00";


double mean(const std::vector<double>& v)
{
  double sum = 0;
  for (double x : v)
    sum += x;
  return v.empty() ? 0 : sum / static_cast<double>(v.size());
}

std::vector<double> durations(const std::vector<XY>& pts)
{
  std::vector<double> out;
  for (const auto& q : pts)
    out.push_back(q.y);
  return out;
}

// Per pixel column, a vertical stroke from the shortest to the longest duration that began in it
// (at least 2 px tall, so a single one shows).
std::string duration_chart(const std::vector<XY>& pts, double t_end, const std::string& color, const std::string& what)
{
  Plot p(kWidth, 170, kLeft, kRight, 10, 40);
  double hi = 0;
  for (const auto& q : pts)
    hi = std::max(hi, q.y);
  const TimeUnit unit = time_unit_for(hi);
  const Domain y = nice_domain(0, 1.05 * hi / unit.seconds, 4);  // headroom above the longest
  const double days = t_end / kDay;
  p.set_scales(Scale::linear(0, days, p.left(), p.right()), Scale::linear(y.lo, y.hi, p.bottom(), p.top()));
  p.axes(labelled_ticks(nice_ticks(0, days, 10)), labelled_ticks(nice_ticks(y.lo, y.hi, 4)), "simulated days",
         what + " (" + unit.name + ")");
  const auto columns = static_cast<long>(p.right() - p.left());
  std::vector<double> lo(static_cast<std::size_t>(columns), -1), up(static_cast<std::size_t>(columns), -1);
  for (const auto& q : pts) {
    const auto c = static_cast<std::size_t>(
        std::clamp(static_cast<long>(std::floor(q.x / t_end * static_cast<double>(columns))), 0L, columns - 1));
    lo[c] = lo[c] < 0 ? q.y : std::min(lo[c], q.y);
    up[c] = std::max(up[c], q.y);
  }
  std::string path;
  for (std::size_t c = 0; c < lo.size(); ++c) {
    if (lo[c] < 0)
      continue;
    const double y0 = p.y(up[c] / unit.seconds), y1 = std::max(p.y(lo[c] / unit.seconds), y0 + 2);
    append(path, {"M", px(p.left() + static_cast<double>(c) + 0.5), ",", px(y0), "V", px(y1)});
  }
  if (!path.empty())
    p.raw("<path stroke=\"" + color + "\" stroke-width=\"1.5\" fill=\"none\" d=\"" + path + "\"/>");
  return p.svg(what + " against time");
}

std::string stats_table(const CheckpointEvents& ev, const nlohmann::ordered_json& summary, const std::string& name)
{
  namespace sr = models::summary::run;
  namespace cf = models::summary::run::checkpoints;
  const auto& ck = summary.contains(sr::kCheckpoints.key) ? summary[sr::kCheckpoints.key] : nlohmann::ordered_json();
  const std::vector<double> pauses = durations(ev.pauses);
  const std::vector<double> drains = durations(ev.drains);
  const auto dur = [](const std::vector<double>& v, double x) { return v.empty() ? "-" : format_duration(x); };
  std::vector<std::vector<Cell>> rows = {
      {"strategy", json_string_at(ck, cf::kStrategy.key, "-")},
      {"interval policy", json_string_at(ck, cf::kPolicy.key, "-")},
      {"checkpoints taken (pauses)", grouped(static_cast<double>(ev.taken))},
      {"of them completed", grouped(static_cast<double>(ev.pauses.size()))},
      {"interrupted by a failure or stop", grouped(static_cast<double>(ev.interrupted))},
      {"cut by the window's end", grouped(static_cast<double>(ev.window_end))},
      {Cell("pause mean", kPauseColor), dur(pauses, mean(pauses))},
      {Cell("pause p50", kPauseColor), dur(pauses, quantile(pauses, 0.5))},
      {Cell("pause max", kPauseColor), dur(pauses, quantile(pauses, 1))},
  };
  if (!drains.empty()) {
    rows.push_back({"drains (asynchronous writes done)", grouped(static_cast<double>(drains.size()))});
    rows.push_back({Cell("drain mean", kDrainColor), format_duration(mean(drains))});
    rows.push_back({Cell("drain max", kDrainColor), format_duration(quantile(drains, 1))});
  }
  if (ck.contains(cf::kCommitted.key) && ck[cf::kCommitted.key].is_number())
    rows.push_back({"committed (summary.json)", grouped(json_number(ck, cf::kCommitted.key, name))});
  rows.push_back({"corrupt (fell back to an older one)", grouped(static_cast<double>(ev.corrupt))});
  return table({"checkpoints", "value"}, rows);
}

}  // namespace

CheckpointEvents checkpoint_events(const CsvTable& events)
{
  CheckpointEvents ev;
  const std::size_t t = events.column("time_s"), e = events.column("event"), d = events.column("duration_s"),
                    o = events.column("outcome");
  for (std::size_t i = 0; i < events.rows(); ++i) {
    const std::string& kind = events.row(i)[e];
    if (kind == "checkpoint") {
      ++ev.taken;
      const std::string& outcome = events.row(i)[o];
      if (outcome == "completed")
        ev.pauses.push_back({events.number(i, t), events.number(i, d)});
      ev.interrupted += outcome == "interrupted" ? 1 : 0;
      ev.window_end += outcome == "window_end" ? 1 : 0;
    } else if (kind == "checkpoint_drained") {
      const double end = events.number(i, t), drain = events.number(i, d);
      ev.drains.push_back({end - drain, drain});
    } else if (kind == "checkpoint_corrupt") {
      ++ev.corrupt;
    }
  }
  return ev;
}

double quantile(std::vector<double> v, double q)
{
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  const double pos = std::clamp(q, 0.0, 1.0) * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

std::string checkpoints_section(const CheckpointEvents& ev, const nlohmann::ordered_json& summary,
                                const std::string& summary_name, double t_end)
{
  std::string out =
      "<h2>Checkpoints</h2>\n<p class=\"note\">From events.csv: each <code>checkpoint</code> row is a training "
      "pause (the statistics are over those that completed; a failure cuts the others short), each "
      "<code>checkpoint_drained</code> row an asynchronous write that finished, drawn at its snapshot, so a drain "
      "that waits behind others rises above the rest. Each pixel column of the charts draws the range, shortest to "
      "longest, of the durations that began in it; strategy, policy and the committed count are "
      "summary.json's.</p>\n";
  std::string charts;
  if (!ev.pauses.empty() && t_end > 0)
    charts += legend({{kPauseColor, "pause (training stalled)"}}) +
              duration_chart(ev.pauses, t_end, kPauseColor, "pause");
  if (!ev.drains.empty() && t_end > 0)
    charts += legend({{kDrainColor, "drain (snapshot to the end of its write)"}}) +
              duration_chart(ev.drains, t_end, kDrainColor, "drain");
  if (ev.taken == 0)
    charts = "<p class=\"note\">No checkpoint was taken in this run.</p>\n";
  return out + stats_table(ev, summary, summary_name) + charts;
}

}  // namespace fleetsim::report
