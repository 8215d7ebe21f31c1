#include "carbon.hpp"

#include "models/core/csv_reader.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>

namespace fleetsim::models::energy {

CarbonProfile::CarbonProfile(std::vector<double> g_per_kwh, long start_hour)
    : hourly_(std::move(g_per_kwh)), prefix_(hourly_.size() + 1, 0.0)
{
  for (size_t h = 0; h < hourly_.size(); ++h)
    prefix_[h + 1] = prefix_[h] + hourly_[h];
  const long n = static_cast<long>(hourly_.size());
  start_hour_ = n > 0 ? ((start_hour % n) + n) % n : 0;
}

double CarbonProfile::cumulative(double x) const
{
  const double n = static_cast<double>(hourly_.size());
  const double cycles = std::floor(x / n);
  const double rem = x - cycles * n;
  const auto h = std::min(static_cast<size_t>(rem), hourly_.size() - 1);
  return cycles * prefix_.back() + prefix_[h] + (rem - static_cast<double>(h)) * hourly_[h];
}

double CarbonProfile::at(double t) const
{
  if (empty())
    return 0;
  const double x = t / kSecondsPerHour + static_cast<double>(start_hour_);
  const double n = static_cast<double>(hourly_.size());
  const double rem = x - std::floor(x / n) * n;
  return hourly_[std::min(static_cast<size_t>(rem), hourly_.size() - 1)];
}

double CarbonProfile::integral_hours(double t0, double t1) const
{
  if (empty() || !(t1 > t0))
    return 0;
  // Both ends shifted by whole cycles so that t0 lies in the first: the difference stays exact to
  // the last digits however long the run.
  const double n = static_cast<double>(hourly_.size());
  double x0 = t0 / kSecondsPerHour + static_cast<double>(start_hour_);
  double x1 = t1 / kSecondsPerHour + static_cast<double>(start_hour_);
  const double shift = std::floor(x0 / n) * n;
  x0 -= shift;
  x1 -= shift;
  return cumulative(x1) - cumulative(x0);
}

double CarbonProfile::mean(double t0, double t1) const
{
  if (!(t1 > t0))
    return at(t0);
  return integral_hours(t0, t1) / ((t1 - t0) / kSecondsPerHour);
}

double CarbonProfile::operational_kg(double watts, double t0, double t1) const
{
  // W x (g/kWh x h) = g x W / kW = g x 1e-3; kg = g x 1e-3.
  return watts * integral_hours(t0, t1) * 1e-6;
}

double lowest_carbon_start(const CarbonProfile& p, double t, double max_delay, double run)
{
  if (p.empty() || !(max_delay > 0))
    return t;
  double best = t;
  double best_mean = p.mean(t, t + run);
  for (double h = std::floor(t / kSecondsPerHour) + 1; h * kSecondsPerHour <= t + max_delay; ++h) {
    const double start = h * kSecondsPerHour;
    const double m = p.mean(start, start + run);
    if (m < best_mean - 1e-9 * std::max(1.0, std::fabs(best_mean))) {
      best = start;
      best_mean = m;
    }
  }
  return best;
}

double embodied_kg(const EmbodiedSpec& e, double gpus, double nodes, double elapsed_s)
{
  if (!(e.lifetime_s > 0) || !(elapsed_s > 0))
    return 0;
  return (e.gpu_kg * gpus + e.node_kg * nodes) * elapsed_s / e.lifetime_s;
}

namespace {

constexpr size_t kMaxErrors = 20;
// No grid comes near it (coal plants emit about 1,000 g/kWh), and it keeps the sums of a profile,
// over its cycle and over a run, finite: values up to 1e308 made the cycle's integral infinite.
constexpr double kMaxGramsPerKwh = 1e5;

std::optional<double> parse_number(std::string_view text)
{
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value))
    return std::nullopt;
  return value;
}

bool is_comment(const fleet::CsvRecord& r) { return !r.cells.empty() && r.cells[0].rfind('#', 0) == 0; }

// The checks of one data row; returns its intensity, or reports why not.
// `next_hour` moves past the row's hour, so that one gap is one error, not one per later row.
std::optional<double> read_row(const fleet::CsvRecord& rec, long& next_hour, std::string& error)
{
  const long expected_hour = next_hour++;
  if (rec.cells.size() != 2) {
    error = "a row has 2 cells (hour, gco2_per_kwh), this one " + std::to_string(rec.cells.size());
    return std::nullopt;
  }
  const std::optional<double> hour = parse_number(rec.cells[0]);
  if (!hour || *hour != std::floor(*hour)) {
    error = "hour '" + rec.cells[0] + "' is not a whole number";
    return std::nullopt;
  }
  if (*hour != static_cast<double>(expected_hour)) {
    if (std::fabs(*hour) < 1e15)
      next_hour = static_cast<long>(*hour) + 1;
    error = "hour " + rec.cells[0] + " where hour " + std::to_string(expected_hour) +
            " was expected (hours start at 0 and are consecutive)";
    return std::nullopt;
  }
  const std::optional<double> g = parse_number(rec.cells[1]);
  if (!g || *g < 0 || *g > kMaxGramsPerKwh) {
    error = "intensity '" + rec.cells[1] + "' is not a number from 0 to 100000 (g CO2e per kWh)";
    return std::nullopt;
  }
  return g;
}

}  // namespace

ProfileLoad load_profile_text(std::string_view text, std::string_view name)
{
  ProfileLoad out;
  long count = 0;
  auto error = [&](long line, const std::string& message) {
    if (count++ < static_cast<long>(kMaxErrors)) {
      // appended, not "literal" + std::string: GCC 12 warns falsely on that (-Wrestrict, PR 105329)
      std::string where(name);
      if (line > 0)
        where.append(":").append(std::to_string(line));
      out.errors.push_back(where.append(": error: ").append(message));
    }
  };
  fleet::CsvReader reader(text);
  fleet::CsvRecord rec;
  std::string message;
  bool header = false;
  long hour = 0;
  for (fleet::CsvReader::Status s; (s = reader.next(rec, message)) != fleet::CsvReader::Status::End;) {
    if (s == fleet::CsvReader::Status::Error) {
      error(rec.line, message);
      continue;
    }
    if (is_comment(rec))
      continue;
    if (!header) {
      header = true;
      if (rec.cells.size() != 2 || rec.cells[0] != "hour" || rec.cells[1] != "gco2_per_kwh")
        error(rec.line, "the header must be 'hour,gco2_per_kwh'");
      continue;
    }
    if (const std::optional<double> g = read_row(rec, hour, message))
      out.g_per_kwh.push_back(*g);
    else
      error(rec.line, message);
  }
  if (!header)
    error(0, "no header: the profile must start with 'hour,gco2_per_kwh'");
  else if (hour == 0 && out.errors.empty())
    error(0, "no hours after the header");
  if (count > static_cast<long>(kMaxErrors))
    out.errors.push_back(std::string(name) + ": error: " + std::to_string(count - static_cast<long>(kMaxErrors)) +
                         " more errors");
  if (!out.errors.empty())
    out.g_per_kwh.clear();
  return out;
}

}  // namespace fleetsim::models::energy
