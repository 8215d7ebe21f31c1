#pragma once
// Carbon (docs/models/energy.md), SimGrid-free:
//
//   operational  a draw times the grid's carbon intensity over the same time. The intensity is an
//                hourly profile (g CO2e per kWh, one value per hour, piecewise constant); it repeats
//                cyclically when the run is longer, and `start_hour` is the profile's row that
//                simulated t = 0 falls on. A constant draw over [t0, t1) emits
//                  kg = W x (integral of I over [t0, t1) in h) / 1e6,
//                split exactly at hour boundaries;
//   embodied     manufacturing emissions amortised linearly over the hardware's lifetime:
//                  kg = (gpu_kg x GPUs + node_kg x nodes) x elapsed / lifetime.
//
// Profiles are read from a CSV: a header `hour,gco2_per_kwh`, then one row per hour, hours
// 0, 1, 2, ... consecutive, intensities from 0 to 100,000 g/kWh (coal is about 1,000). Lines whose
// first cell starts with '#' are comments (a profile can carry its construction in its own header). Bad input is reported as
// "<name>:<line>: error: <message>", never thrown; with any error, no profile is returned.

#include <string>
#include <string_view>
#include <vector>

namespace fleetsim::models::energy {

constexpr double kSecondsPerHour = 3600;
constexpr double kJoulesPerKwh = 3.6e6;

class CarbonProfile {
public:
  CarbonProfile() = default;
  /// `g_per_kwh[h]` is the intensity over hour h of the profile; `start_hour` the row t = 0 is in.
  explicit CarbonProfile(std::vector<double> g_per_kwh, long start_hour = 0);

  [[nodiscard]] bool empty() const { return hourly_.empty(); }
  [[nodiscard]] size_t hours() const { return hourly_.size(); }
  [[nodiscard]] long start_hour() const { return start_hour_; }
  [[nodiscard]] const std::vector<double>& hourly() const { return hourly_; }

  /// g/kWh at simulated time t >= 0 (0 for an empty profile).
  [[nodiscard]] double at(double t) const;
  /// Integral of the intensity over [t0, t1), in g/kWh x hours: O(1) (prefix sums over the cycle).
  [[nodiscard]] double integral_hours(double t0, double t1) const;
  /// Mean intensity over [t0, t1) (the intensity at t0 when t1 <= t0).
  [[nodiscard]] double mean(double t0, double t1) const;
  /// kg CO2e of a constant `watts` over [t0, t1).
  [[nodiscard]] double operational_kg(double watts, double t0, double t1) const;

private:
  /// Integral from the profile's hour 0 to position x (hours since the profile's start, >= 0).
  [[nodiscard]] double cumulative(double x) const;

  std::vector<double> hourly_;
  std::vector<double> prefix_;  // prefix_[h]: integral over hours [0, h) of one cycle
  long start_hour_ = 0;
};

/// Carbon-aware start of a deferrable job submitted at t that may wait up to `max_delay` s and then
/// runs `run` s: among t itself and every hour start in (t, t + max_delay], the one whose mean
/// intensity over [start, start + run) is lowest; ties (within 1e-9 relative) go to the earliest.
/// t without a profile or a delay.
[[nodiscard]] double lowest_carbon_start(const CarbonProfile& p, double t, double max_delay, double run);

/// Manufacturing emissions of the hardware, amortised over its lifetime.
struct EmbodiedSpec {
  double gpu_kg = 0;                      // per GPU
  double node_kg = 0;                     // per node (the server without its GPUs)
  double lifetime_s = 6 * 365 * 86400.0;  // over which both are amortised
  [[nodiscard]] bool any() const { return gpu_kg > 0 || node_kg > 0; }
};

/// The share of the embodied emissions of `gpus` GPUs and `nodes` nodes over `elapsed_s`.
[[nodiscard]] double embodied_kg(const EmbodiedSpec& e, double gpus, double nodes, double elapsed_s);

/// What a scenario says of carbon: the grid's profile (empty: none given) and the hardware's
/// embodied emissions.
struct CarbonSpec {
  CarbonProfile profile;
  std::string file;  // the profile's CSV as shown in messages ("" = none)
  EmbodiedSpec embodied;
};

struct ProfileLoad {
  std::vector<double> g_per_kwh;
  std::vector<std::string> errors;
  [[nodiscard]] bool ok() const { return errors.empty(); }
};

/// Reads an hourly profile from CSV text; errors are named after `name` ("<name>:<line>").
[[nodiscard]] ProfileLoad load_profile_text(std::string_view text, std::string_view name);

}  // namespace fleetsim::models::energy
