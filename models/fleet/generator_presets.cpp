// generator_preset_names, generator_preset and generator_preset_fit, declared in job_generator.hpp:
// the built-in workloads and how each was fitted to its published figures.
#include "job_generator.hpp"

#include <charconv>
#include <cmath>
#include <functional>
#include <string>

namespace fleetsim::models::fleet {
namespace {

constexpr const char* kKalosSource =
    "InternLM/AcmeTrace, data/cluster_summary.csv, row Kalos (GPU jobs), "
    "https://github.com/InternLM/AcmeTrace; Hu et al., \"Characterization of Large Language Model "
    "Development in the Datacenter\", NSDI 2024";

// data/cluster_summary.csv, row Kalos: gpu_job_num, avg_gpu_num, med_gpu_num, max_gpu,
// avg_run_time_gpu, med_run_time_gpu, max_run_time_gpu; complete/cancel/fail_gpu_time summed.
constexpr double kKalosJobs = 19907;
constexpr double kKalosGpuMean = 26.77;
constexpr double kKalosGpuMedian = 1;
constexpr double kKalosGpuMax = 1024;
constexpr double kKalosRunMean = 1259.689;
constexpr double kKalosRunMedian = 124;
constexpr double kKalosRunMax = 625740;
constexpr double kKalosGpuTime = 1667685146.0 + 3239202064.0 + 426292851.0;  // GPU s
// ASSUMPTION (see kalos_assumptions): the span of Kalos' trace, May to August 2023.
constexpr double kKalosSpanDays = 123;
constexpr int kLargestLog2 = 10;  // 1024 GPUs

/// Gang sizes 2^k, k = 0..10, with log2(gpus) ~ N(0, s^2) rounded to the nearest integer and
/// clamped to [0, 10]: P(1) = Phi(0.5 / s) > 1/2, so the median is 1 whatever s.
std::vector<GpuWeight> log2_normal_gpus(double s)
{
  std::vector<GpuWeight> gpus;
  for (int k = 0; k <= kLargestLog2; ++k) {
    const double lo = k == 0 ? 0 : normal_cdf((k - 0.5) / s);
    const double hi = k == kLargestLog2 ? 1 : normal_cdf((k + 0.5) / s);
    gpus.push_back({1L << k, hi - lo});
  }
  return gpus;
}

/// x in [lo, hi] with f(x) = target, f increasing, by bisection to double precision.
double solve_increasing(const std::function<double(double)>& f, double lo, double hi, double target)
{
  for (int i = 0; i < 200 && hi - lo > 1e-14 * hi; ++i) {
    const double mid = (lo + hi) / 2;
    (f(mid) < target ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

struct KalosFit {
  double gpu_log2_sigma = 0;
  std::vector<GpuWeight> gpus;
  double duration_sigma_uncapped = 0;  // sqrt(2 ln(mean / median))
  double duration_sigma = 0;           // solved for the capped mean
  double correlation = 0;              // copula, solved for the GPU time per job
};

const KalosFit& kalos_fit()
{
  static const KalosFit fit = [] {
    KalosFit f;
    f.gpu_log2_sigma = solve_increasing([](double s) { return discrete_mean(log2_normal_gpus(s)); }, 0.5, 20,
                                        kKalosGpuMean);
    f.gpus = log2_normal_gpus(f.gpu_log2_sigma);
    f.duration_sigma_uncapped = std::sqrt(2 * std::log(kKalosRunMean / kKalosRunMedian));
    const auto capped_mean = [](double sigma) {
      return lognormal_capped_mean(units::Seconds(kKalosRunMedian), sigma, units::Seconds(kKalosRunMax));
    };
    f.duration_sigma = solve_increasing(capped_mean, f.duration_sigma_uncapped, f.duration_sigma_uncapped + 1,
                                        kKalosRunMean);
    // Large jobs run longer: the copula's correlation, for the published GPU time per job. The
    // marginals above do not depend on it.
    GeneratorSpec spec;
    spec.gpus = f.gpus;
    spec.median = units::Seconds(kKalosRunMedian);
    spec.sigma = f.duration_sigma;
    spec.max_duration = units::Seconds(kKalosRunMax);
    const auto gpu_time = [spec](double rho) mutable {
      spec.size_duration_correlation = rho;
      return expected_gpu_seconds(spec);
    };
    f.correlation = solve_increasing(gpu_time, 0, 0.999, kKalosGpuTime / kKalosJobs);
    return f;
  }();
  return fit;
}

GeneratorSpec kalos_spec()
{
  const auto& fit = kalos_fit();
  GeneratorSpec spec;
  spec.jobs = static_cast<long>(kKalosJobs);
  spec.rate = kKalosJobs / (kKalosSpanDays * units::kDay);
  spec.arrival = ArrivalProcess::Poisson;
  spec.gpus = fit.gpus;
  spec.duration = DurationLaw::Lognormal;
  spec.median = units::Seconds(kKalosRunMedian);
  spec.sigma = fit.duration_sigma;
  spec.max_duration = units::Seconds(kKalosRunMax);
  spec.size_duration_correlation = fit.correlation;
  return spec;
}

std::string fixed(double value, int decimals)
{
  char buffer[32];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed, decimals);
  return ec == std::errc() ? std::string(buffer, end) : std::string("?");
}

std::vector<std::string> kalos_assumptions()
{
  const double per_job = kKalosGpuTime / kKalosJobs;
  return {
      "arrival rate: ASSUMPTION, 19,907 GPU jobs over May to August 2023 (" + fixed(kKalosSpanDays, 0) + " days, " +
          fixed(kKalosJobs / kKalosSpanDays, 1) +
          " jobs/day, Poisson). The AcmeTrace README gives March to August 2023 for the release as a whole and its "
          "Kalos sample rows are from May 2023; Kalos' own span is not stated there",
      "gpus and durations are joined by a Gaussian copula (an ASSUMPTION of shape) whose correlation is fitted "
      "to the trace's GPU time per job (" +
          fixed(per_job, 0) + " GPU s, " + fixed(per_job / (kKalosGpuMean * kKalosRunMean), 2) +
          "x the product of the mean GPUs and the mean run time): the one joint figure the summary publishes",
      "job end states (54.1 % completed, 6.2 % cancelled, 39.7 % failed) are not modelled: each job runs its "
      "drawn time",
  };
}

PresetFit kalos_preset_fit()
{
  const auto& fit = kalos_fit();
  const auto spec = kalos_spec();
  PresetFit out;
  out.source = kKalosSource;
  out.parameters = {
      {"gpus.log2_sigma", fit.gpu_log2_sigma},
      {"gpus.p1", fit.gpus.front().probability},
      {"duration.median_s", kKalosRunMedian},
      {"duration.sigma", fit.duration_sigma},
      {"duration.sigma_uncapped", fit.duration_sigma_uncapped},
      {"duration.max_s", kKalosRunMax},
      {"size_duration_correlation", fit.correlation},
      {"arrival.jobs_per_day", spec.rate * units::kDay},
      {"arrival.span_days", kKalosSpanDays},
  };
  out.rows = {
      {"gpus.mean", "GPUs", kKalosGpuMean, discrete_mean(fit.gpus)},
      {"gpus.median", "GPUs", kKalosGpuMedian, static_cast<double>(discrete_median(fit.gpus))},
      {"gpus.max", "GPUs", kKalosGpuMax, static_cast<double>(discrete_max(fit.gpus))},
      {"duration.mean", "s", kKalosRunMean, lognormal_capped_mean(spec.median, spec.sigma, spec.max_duration)},
      {"duration.median", "s", kKalosRunMedian, spec.median.si()},
      {"duration.max", "s", kKalosRunMax, spec.max_duration.si()},
      {"gpu_time.mean", "GPU s", kKalosGpuTime / kKalosJobs, expected_gpu_seconds(spec)},
      {"jobs", "jobs", kKalosJobs, static_cast<double>(spec.jobs)},
  };
  out.assumptions = kalos_assumptions();
  return out;
}

}  // namespace

const FitRow* PresetFit::row(std::string_view quantity) const
{
  for (const auto& r : rows)
    if (r.quantity == quantity)
      return &r;
  return nullptr;
}

std::optional<double> PresetFit::parameter(std::string_view name) const
{
  for (const auto& [key, value] : parameters)
    if (key == name)
      return value;
  return std::nullopt;
}

std::vector<std::string> generator_preset_names() { return {"kalos"}; }

std::optional<GeneratorSpec> generator_preset(std::string_view name)
{
  if (name == "kalos")
    return kalos_spec();
  return std::nullopt;
}

std::optional<PresetFit> generator_preset_fit(std::string_view name)
{
  if (name == "kalos")
    return kalos_preset_fit();
  return std::nullopt;
}

}  // namespace fleetsim::models::fleet
