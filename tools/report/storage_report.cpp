#include "storage_report.hpp"

#include "fleet_charts.hpp"
#include "html_page.hpp"
#include "report_inputs.hpp"
#include "svg_chart.hpp"

#include <algorithm>
#include <filesystem>

namespace fleetsim::report {
namespace {

constexpr double kDay = 86400;
constexpr double kWidth = 1160;  // the full-width charts of the run and fleet pages, same margins
constexpr double kLeft = 120;
constexpr double kRight = 20;
constexpr double kGB = 1e9;
constexpr double kTB = 1e12;
constexpr double kSaturated = 0.999;  // servers_Bps at this share of their capacity or above
constexpr const char* kWriteColor = "#1f6fb4";
constexpr const char* kReadColor = "#e8710a";
constexpr const char* kCapacityColor = "#333";
constexpr const char* kCreditColor = "#00897b";

double holds_until(const StorageSeries& s, std::size_t i) { return i + 1 < s.t.size() ? s.t[i + 1] : s.t_end; }

std::string path_element(const std::string& d, const std::string& color, bool area, bool dashed = false)
{
  if (d.empty())
    return "";
  return area ? "<path fill=\"" + color + "\" fill-opacity=\"0.25\" stroke=\"none\" d=\"" + d + "\"/>"
              : "<path fill=\"none\" stroke=\"" + color + "\" stroke-width=\"1.2\"" +
                    (dashed ? " stroke-dasharray=\"4 3\"" : "") + " d=\"" + d + "\"/>";
}

// A vertical stroke per pixel column from the lowest to the highest value in it, where they differ.
std::string range_strokes(const Plot& p, const std::vector<StepBin>& bins, double unit, const std::string& color)
{
  std::string d;
  const double colw = (p.right() - p.left()) / static_cast<double>(bins.size());
  for (std::size_t c = 0; c < bins.size(); ++c)
    if (bins[c].covered > 0 && bins[c].max > bins[c].min)
      append(d, {"M", px(p.left() + (static_cast<double>(c) + 0.5) * colw), ",", px(p.y(bins[c].max / unit)), "V",
                 px(p.y(bins[c].min / unit))});
  return d.empty() ? "" : "<path stroke=\"" + color + "\" stroke-opacity=\"0.4\" d=\"" + d + "\"/>";
}

std::string gbps(double bps) { return format_number(bps / kGB, 4) + " GB/s"; }
std::string tb(double bytes) { return format_number(bytes / kTB, 4) + " TB"; }

std::string throughput_chart(const StorageSeries& s, int& columns)
{
  Plot p(kWidth, 260, kLeft, kRight, 12, 40);
  columns = static_cast<int>(p.right() - p.left());
  const auto w = step_bins(s.t, s.write, s.t_end, 0, s.t_end, columns);
  const auto r = step_bins(s.t, s.read, s.t_end, 0, s.t_end, columns);
  const auto c = step_bins(s.t, s.capacity, s.t_end, 0, s.t_end, columns);
  double hi = 0;
  for (const auto* bins : {&w, &r, &c})
    for (const StepBin& b : *bins)
      hi = std::max(hi, b.max / kGB);
  const Domain y = nice_domain(0, hi, 5);
  const double days = s.t_end / kDay;
  p.set_scales(Scale::linear(0, days, p.left(), p.right()), Scale::linear(y.lo, y.hi, p.bottom(), p.top()));
  p.axes(labelled_ticks(nice_ticks(0, days, 10)), labelled_ticks(nice_ticks(y.lo, y.hi, 5)), "simulated days", "GB/s");
  p.raw(path_element(step_outline(p, w, &StepBin::mean, kGB, true), kWriteColor, true));
  p.raw(path_element(step_outline(p, r, &StepBin::mean, kGB, true), kReadColor, true));
  p.raw(path_element(step_outline(p, c, &StepBin::max, kGB, false), kCapacityColor, false, true));
  p.raw(path_element(step_outline(p, r, &StepBin::max, kGB, false), kReadColor, false));
  p.raw(path_element(step_outline(p, w, &StepBin::max, kGB, false), kWriteColor, false));
  return legend({{kWriteColor, "write (line: highest in the column; shaded: time-weighted mean)"},
                 {kReadColor, "read (the same)"},
                 {kCapacityColor, "servers' capacity", true}}) +
         p.svg("storage throughput over time");
}

std::string credit_chart(const StorageSeries& s, int columns)
{
  Plot p(kWidth, 150, kLeft, kRight, 10, 40);
  const auto bins = step_bins(s.t, s.credit, s.t_end, 0, s.t_end, columns);
  double hi = 0;
  for (const StepBin& b : bins)
    hi = std::max(hi, b.max / kTB);
  const Domain y = nice_domain(0, hi, 3);
  const double days = s.t_end / kDay;
  p.set_scales(Scale::linear(0, days, p.left(), p.right()), Scale::linear(y.lo, y.hi, p.bottom(), p.top()));
  p.axes(labelled_ticks(nice_ticks(0, days, 10)), labelled_ticks(nice_ticks(y.lo, y.hi, 3)), "simulated days",
         "credit (TB)");
  p.raw(range_strokes(p, bins, kTB, kCreditColor));
  p.raw(path_element(step_outline(p, bins, &StepBin::min, kTB, false), kCreditColor, false));
  return legend({{kCreditColor,
                  "token-bucket burst credit (line: lowest in the column; light strokes: up to the highest)"}}) +
         p.svg("burst credit over time");
}

std::string stats_table(const StorageStats& st)
{
  const auto share = [&](double v) { return st.window_s > 0 ? percent(v / st.window_s) : "-"; };
  const std::string capacity = st.min_capacity == st.max_capacity
                                   ? gbps(st.max_capacity)
                                   : gbps(st.min_capacity) + " to " + gbps(st.max_capacity);
  std::vector<std::vector<Cell>> rows = {
      {Cell("mean write", kWriteColor), gbps(st.mean_write)},
      {Cell("mean read", kReadColor), gbps(st.mean_read)},
      {Cell("peak write", kWriteColor), gbps(st.peak_write)},
      {Cell("peak read", kReadColor), gbps(st.peak_read)},
      {"data written", tb(st.bytes_written)},
      {"data read", tb(st.bytes_read)},
      {"servers' capacity", capacity},
      {"servers saturated", share(st.saturated_s) + " (" + format_duration(st.saturated_s) + ")"},
  };
  if (st.has_credit)
    rows.push_back({Cell("burst credit", kCreditColor), tb(st.min_credit) + " to " + tb(st.max_credit)});
  return table({"over the window", "value"}, rows);
}

}  // namespace

std::optional<StorageSeries> load_storage(const std::string& dir, double t_end)
{
  const std::string path = dir + "/storage.csv";
  if (!std::filesystem::exists(path))
    return std::nullopt;
  const CsvTable csv = CsvTable::read(path);
  StorageSeries s;
  s.name = csv.name();
  std::vector<double>* columns[] = {&s.t, &s.write, &s.read, &s.servers, &s.capacity, &s.credit};
  const char* names[] = {
      "time_s", "write_Bps", "read_Bps", "servers_Bps", "servers_capacity_Bps", "burst_credit_bytes"};
  for (std::size_t k = 0; k < std::size(names); ++k) {
    const std::size_t col = csv.column(names[k]);
    for (std::size_t i = 0; i < csv.rows(); ++i) {
      const double v = csv.number(i, col);
      if (v < 0)
        throw InputError(s.name + ":" + std::to_string(i + 2) + ": error: column '" + names[k] + "' is negative");
      if (k == 0 && i > 0 && v < s.t.back())
        throw InputError(s.name + ":" + std::to_string(i + 2) + ": error: rows must be in time order");
      columns[k]->push_back(v);
    }
  }
  s.t_end = std::max(t_end, s.t.empty() ? 0.0 : s.t.back());
  return s;
}

StorageStats storage_stats(const StorageSeries& s)
{
  StorageStats st;
  st.window_s = s.t_end;
  bool first = true;
  for (std::size_t i = 0; i < s.t.size(); ++i) {
    st.has_credit = st.has_credit || s.credit[i] > 0;
    const double dt = holds_until(s, i) - s.t[i];
    if (!(dt > 0))
      continue;
    st.bytes_written += s.write[i] * dt;
    st.bytes_read += s.read[i] * dt;
    st.peak_write = std::max(st.peak_write, s.write[i]);
    st.peak_read = std::max(st.peak_read, s.read[i]);
    if (s.capacity[i] > 0 && s.servers[i] >= kSaturated * s.capacity[i])
      st.saturated_s += dt;
    st.min_capacity = first ? s.capacity[i] : std::min(st.min_capacity, s.capacity[i]);
    st.max_capacity = first ? s.capacity[i] : std::max(st.max_capacity, s.capacity[i]);
    st.min_credit = first ? s.credit[i] : std::min(st.min_credit, s.credit[i]);
    st.max_credit = first ? s.credit[i] : std::max(st.max_credit, s.credit[i]);
    first = false;
  }
  if (st.window_s > 0) {
    st.mean_write = st.bytes_written / st.window_s;
    st.mean_read = st.bytes_read / st.window_s;
  }
  return st;
}

std::string storage_section(const StorageSeries& s)
{
  std::string out = "<h2>Storage</h2>\n";
  if (s.t.empty() || !(s.t_end > 0))
    return out + "<p class=\"note\">storage.csv has no rows: the storage system carried no load.</p>\n";
  const StorageStats st = storage_stats(s);
  int columns = 0;
  const std::string chart = throughput_chart(s, columns);
  out += "<p class=\"note\">The load on the shared storage system from storage.csv: " +
         grouped(static_cast<double>(s.t.size())) +
         " rows, each rate held until the next row (the last until the end of the window). Each of the " +
         std::to_string(columns) + " pixel columns is " + format_duration(s.t_end / columns) +
         ": the line is the highest rate held in it, so a short burst keeps its height, and the shaded area "
         "its time-weighted mean, so the area keeps the bytes moved. The figures are time-weighted over the "
         "window; the servers count as saturated while they carry at least 99.9% of their capacity.</p>\n";
  out += chart;
  if (st.has_credit)
    out += credit_chart(s, columns);
  return out + stats_table(st);
}

}  // namespace fleetsim::report
