#pragma once
// A seeded generator of fleet workloads (docs/models/workload.md): jobs arrive as a Poisson process,
// or as one modulated by an hourly profile; each draws a gang size from a discrete distribution and
// a run time from a lognormal or Weibull law. Every kind of draw has its own named stream
// (models/core/random_stream.hpp), so the same seed gives the same workload on every platform and
// changing one law leaves the other draws as they were:
//   workload/arrivals   inter-arrival gaps (candidate gaps for trace_shaped)
//   workload/thinning   trace_shaped: accepting a candidate arrival
//   workload/gpus       gang sizes
//   workload/durations  run times
// The quantile functions are written here (normal: Wichura's AS241; lognormal and Weibull by
// inversion; discrete by a cumulative table), not taken from <random>, whose distributions differ
// between standard libraries. Each job takes exactly one uniform from each of gpus and durations.
//
// Generated jobs have ids gen-000001, gen-000002, ... in submit order and origin "generator"; all
// other fields come from the spec's defaults.

#include "job_spec.hpp"
#include "models/core/units.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fleetsim::models::fleet {

enum class ArrivalProcess {
  Poisson,      // homogeneous, at `rate`
  TraceShaped,  // non-homogeneous: rate(t) = rate * w[hour of t] / mean(w), drawn by thinning
};

enum class DurationLaw {
  Lognormal,  // median * exp(sigma * Z)
  Weibull,    // scale * (-ln U)^(1 / shape)
};

struct GpuWeight {
  long gpus = 1;
  double probability = 0;  // relative: the weights are normalised
};

/// 24 equal weights: trace_shaped with this profile is Poisson.
[[nodiscard]] constexpr std::array<double, 24> flat_hourly_profile()
{
  std::array<double, 24> w{};
  for (auto& x : w)
    x = 1;
  return w;
}

struct GeneratorSpec {
  // How many: stop after `jobs` jobs (0: no limit) or at the first arrival at or after `window`
  // (0: no limit), whichever comes first; at least one must be set.
  long jobs = 0;
  units::Seconds window{0};
  double rate = 0;  // mean arrivals per second; 0: jobs / window (then both must be set)
  ArrivalProcess arrival = ArrivalProcess::Poisson;
  // trace_shaped: relative arrival rate in each hour of the day, hour 0 starting at t = 0. The
  // weights are normalised by their mean, so the mean rate stays `rate`.
  std::array<double, 24> hourly_weights = flat_hourly_profile();
  std::vector<GpuWeight> gpus = {{1, 1.0}};
  DurationLaw duration = DurationLaw::Lognormal;
  units::Seconds median{3600};     // lognormal
  double sigma = 1;                // lognormal: standard deviation of ln(duration)
  double shape = 1;                // weibull: k
  units::Seconds scale{3600};      // weibull: lambda
  units::Seconds max_duration{0};  // a longer draw is cut to this (0: no cap)
  // Gang size and run time are joined by a Gaussian copula of this correlation, in [0, 1): a job's
  // run-time draw is corr z_gpus + sqrt(1 - corr^2) z, with z_gpus the normal score of its gang-size
  // draw. Each law stays as it is (the marginals do not change); only large jobs run longer. 0:
  // independent draws.
  double size_duration_correlation = 0;
  JobSpec defaults;  // checkpoint, restart, priority, recovery... of every generated job
};

/// What is wrong with a spec (lower-case messages naming the field); empty when it can be generated.
[[nodiscard]] std::vector<std::string> validate(const GeneratorSpec& spec);

/// The workload of a valid spec (asserted), sorted by submit. The same spec and seed give the same jobs.
[[nodiscard]] Workload generate(const GeneratorSpec& spec, std::uint64_t seed);

// ---- the laws, for the fit and the tests -------------------------------------------------------

/// The standard normal quantile, 0 < p < 1 (AS241: about 16 significant digits).
[[nodiscard]] double normal_quantile(double p);
/// The standard normal distribution function.
[[nodiscard]] double normal_cdf(double x);
/// E[gpus x min(duration, cap)] per job of a lognormal-duration spec with its copula correlation,
/// by quadrature over the gang-size draw's normal score (the GPU time a generated job carries).
[[nodiscard]] double expected_gpu_seconds(const GeneratorSpec& spec);
/// E[min(X, cap)] for X lognormal with that median and sigma; cap <= 0 means no cap.
[[nodiscard]] double lognormal_capped_mean(units::Seconds median, double sigma, units::Seconds cap);
/// Mean, median (smallest gpus with cumulative probability >= 1/2) and largest gpus with a
/// non-zero probability of a discrete distribution.
[[nodiscard]] double discrete_mean(const std::vector<GpuWeight>& gpus);
[[nodiscard]] long discrete_median(const std::vector<GpuWeight>& gpus);
[[nodiscard]] long discrete_max(const std::vector<GpuWeight>& gpus);

// ---- presets ----------------------------------------------------------------------------------

/// The presets' names: kalos.
[[nodiscard]] std::vector<std::string> generator_preset_names();

/// A preset's spec, or nullopt for an unknown name.
[[nodiscard]] std::optional<GeneratorSpec> generator_preset(std::string_view name);

/// One published figure and what the preset's laws give for it (analytically, not by sampling).
struct FitRow {
  std::string quantity;  // "gpus.mean", "duration.median", ...
  std::string unit;      // "GPUs", "s", "jobs", "s"
  double target = 0;
  double fitted = 0;
};

/// How a preset was fitted: its sources, the fitted parameters, target vs fit, and assumptions.
struct PresetFit {
  std::string source;
  std::vector<std::pair<std::string, double>> parameters;
  std::vector<FitRow> rows;
  std::vector<std::string> assumptions;
  [[nodiscard]] const FitRow* row(std::string_view quantity) const;
  [[nodiscard]] std::optional<double> parameter(std::string_view name) const;
};

/// The fit of a preset, or nullopt for an unknown name.
[[nodiscard]] std::optional<PresetFit> generator_preset_fit(std::string_view name);

}  // namespace fleetsim::models::fleet
