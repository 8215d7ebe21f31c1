#include "job_generator.hpp"

#include "models/core/check.hpp"

#include "models/core/random_stream.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace fleetsim::models::fleet {
namespace {

// Horner evaluation of c[0] + c[1] x + ... + c[7] x^7.
double poly(const std::array<double, 8>& c, double x)
{
  double v = c[7];
  for (int i = 6; i >= 0; --i)
    v = v * x + c[static_cast<size_t>(i)];
  return v;
}

// M. J. Wichura, "Algorithm AS 241: The Percentage Points of the Normal Distribution", Applied
// Statistics 37(3), 1988, PPND16: rational approximations in three regions of p.
constexpr std::array<double, 8> kCentralNum = {
    3.3871328727963666080e0,  1.3314166789178437745e+2, 1.9715909503065514427e+3, 1.3731693765509461125e+4,
    4.5921953931549871457e+4, 6.7265770927008700853e+4, 3.3430575583588128105e+4, 2.5090809287301226727e+3};
constexpr std::array<double, 8> kCentralDen = {1.0,
                                               4.2313330701600911252e+1,
                                               6.8718700749205790830e+2,
                                               5.3941960214247511077e+3,
                                               2.1213794301586595867e+4,
                                               3.9307895800092710610e+4,
                                               2.8729085735721942674e+4,
                                               5.2264952788528545610e+3};
constexpr std::array<double, 8> kNearNum = {
    1.42343711074968357734e0, 4.63033784615654529590e0,  5.76949722146069140550e0,  3.64784832476320460504e0,
    1.27045825245236838258e0, 2.41780725177450611770e-1, 2.27238449892691845833e-2, 7.74545014278341407640e-4};
constexpr std::array<double, 8> kNearDen = {1.0,
                                            2.05319162663775882187e0,
                                            1.67638483018380384940e0,
                                            6.89767334985100004550e-1,
                                            1.48103976427480074590e-1,
                                            1.51986665636164571966e-2,
                                            5.47593808499534494600e-4,
                                            1.05075007164441684324e-9};
constexpr std::array<double, 8> kTailNum = {
    6.65790464350110377720e0,  5.46378491116411436990e0,  1.78482653991729133580e0,  2.96560571828504891230e-1,
    2.65321895265761230930e-2, 1.24266094738807843860e-3, 2.71155556874348757815e-5, 2.01033439929228813265e-7};
constexpr std::array<double, 8> kTailDen = {1.0,
                                            5.99832206555887937690e-1,
                                            1.36929880922735805310e-1,
                                            1.48753612908506148525e-2,
                                            7.86869131145613259100e-4,
                                            1.84631831751005468180e-5,
                                            1.42151175831644588870e-7,
                                            2.04426310338993978564e-15};

/// Uniform on the open interval (0, 1), 52 bits: the midpoint of a 2^-52 cell (exact in a double),
/// so that the quantile functions never see 0 or 1.
double open_uniform(RandomStream& stream) { return (static_cast<double>(stream.next() >> 12) + 0.5) * 0x1.0p-52; }

// A run time; `z_gpus` is the normal score of the job's gang-size draw (the copula's other half).
double draw_duration(const GeneratorSpec& spec, RandomStream& stream, double z_gpus)
{
  const double u = open_uniform(stream);
  const double rho = spec.size_duration_correlation;
  double x = 0;
  if (rho == 0) {
    if (spec.duration == DurationLaw::Lognormal)
      x = spec.median.si() * std::exp(spec.sigma * normal_quantile(u));
    else
      x = spec.scale.si() * std::pow(-std::log(u), 1.0 / spec.shape);
  } else {
    // Increasing in z, so that a larger gang runs longer.
    const double z = rho * z_gpus + std::sqrt(1 - rho * rho) * normal_quantile(u);
    if (spec.duration == DurationLaw::Lognormal)
      x = spec.median.si() * std::exp(spec.sigma * z);
    else
      x = spec.scale.si() * std::pow(-std::log(normal_cdf(-z)), 1.0 / spec.shape);
  }
  return spec.max_duration.si() > 0 ? std::min(x, spec.max_duration.si()) : x;
}

// The cumulative probabilities of the GPU distribution, normalised, the last exactly 1.
std::vector<double> cumulative(const std::vector<GpuWeight>& gpus)
{
  const double total = std::accumulate(gpus.begin(), gpus.end(), 0.0,
                                       [](double s, const GpuWeight& w) { return s + w.probability; });
  std::vector<double> cdf;
  double sum = 0;
  for (const auto& w : gpus) {
    sum += w.probability;
    cdf.push_back(sum / total);
  }
  cdf.back() = 1.0;
  return cdf;
}

// A gang size, and the normal score of its uniform draw (for the copula) in `z`.
long draw_gpus(const std::vector<GpuWeight>& gpus, const std::vector<double>& cdf, RandomStream& stream, double& z)
{
  const double u = stream.uniform();  // [0, 1): upper_bound never passes the last entry (1)
  z = normal_quantile(std::max(u, 0x1.0p-53));
  const auto i = static_cast<size_t>(std::upper_bound(cdf.begin(), cdf.end(), u) - cdf.begin());
  return gpus[std::min(i, gpus.size() - 1)].gpus;
}

// Arrival times: Poisson at `rate`, or, for trace_shaped, candidates at the profile's peak rate
// each kept with probability w[hour] / max(w) (Lewis and Shedler's thinning).
class ArrivalClock {
public:
  ArrivalClock(const GeneratorSpec& spec, double rate, std::uint64_t seed)
      : spec_(spec), gaps_(seed, "workload/arrivals"), thinning_(seed, "workload/thinning")
  {
    const auto& w = spec.hourly_weights;
    peak_ = *std::max_element(w.begin(), w.end());
    const double mean = std::accumulate(w.begin(), w.end(), 0.0) / static_cast<double>(w.size());
    peak_rate_ = spec.arrival == ArrivalProcess::Poisson ? rate : rate * peak_ / mean;
  }

  double next()
  {
    for (;;) {
      t_ += gaps_.exponential(peak_rate_);
      if (spec_.arrival == ArrivalProcess::Poisson)
        return t_;
      const auto hour = static_cast<size_t>(std::fmod(t_, units::kDay) / units::kHour);
      if (thinning_.uniform() * peak_ < spec_.hourly_weights[std::min<size_t>(hour, 23)])
        return t_;
    }
  }

private:
  const GeneratorSpec& spec_;
  RandomStream gaps_;
  RandomStream thinning_;
  double peak_ = 1;
  double peak_rate_ = 0;
  double t_ = 0;
};

std::string job_id(long n)
{
  std::string digits = std::to_string(n);
  if (digits.size() < 6)
    digits.insert(0, 6 - digits.size(), '0');
  return "gen-" + digits;
}

bool positive(double x) { return std::isfinite(x) && x > 0; }
bool non_negative(double x) { return std::isfinite(x) && x >= 0; }

void validate_gpus(const std::vector<GpuWeight>& gpus, std::vector<std::string>& errors)
{
  if (gpus.empty()) {
    errors.emplace_back("gpus: the distribution has no entry");
    return;
  }
  double total = 0;
  for (const auto& w : gpus) {
    if (w.gpus < 1)
      errors.push_back("gpus: a gang size must be >= 1 (got " + std::to_string(w.gpus) + ")");
    if (!non_negative(w.probability))
      errors.push_back("gpus: the probability of " + std::to_string(w.gpus) + " GPUs must be finite and >= 0");
    else
      total += w.probability;
  }
  if (!(total > 0))
    errors.emplace_back("gpus: the probabilities sum to 0");
}

void validate_durations(const GeneratorSpec& spec, std::vector<std::string>& errors)
{
  if (spec.duration == DurationLaw::Lognormal) {
    if (!positive(spec.median.si()))
      errors.emplace_back("duration: the lognormal median must be > 0");
    if (!non_negative(spec.sigma))
      errors.emplace_back("duration: the lognormal sigma must be >= 0");
  } else {
    if (!positive(spec.shape))
      errors.emplace_back("duration: the weibull shape must be > 0");
    if (!positive(spec.scale.si()))
      errors.emplace_back("duration: the weibull scale must be > 0");
  }
  if (!non_negative(spec.max_duration.si()))
    errors.emplace_back("duration: the maximum duration must be >= 0 (0: no cap)");
  if (!(spec.size_duration_correlation >= 0 && spec.size_duration_correlation < 1))
    errors.emplace_back("size_duration_correlation must be in [0, 1)");
}

double arrival_rate(const GeneratorSpec& spec)
{
  return spec.rate > 0 ? spec.rate : static_cast<double>(spec.jobs) / spec.window.si();
}

}  // namespace

double normal_quantile(double p)
{
  FLEETSIM_CHECK(p > 0 && p < 1, "normal_quantile needs 0 < p < 1");
  const double q = p - 0.5;
  if (std::abs(q) <= 0.425) {
    const double r = 0.180625 - q * q;
    return q * poly(kCentralNum, r) / poly(kCentralDen, r);
  }
  double r = std::sqrt(-std::log(q < 0 ? p : 1 - p));
  double value = 0;
  if (r <= 5) {
    r -= 1.6;
    value = poly(kNearNum, r) / poly(kNearDen, r);
  } else {
    r -= 5;
    value = poly(kTailNum, r) / poly(kTailDen, r);
  }
  return q < 0 ? -value : value;
}

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

double lognormal_capped_mean(units::Seconds median, double sigma, units::Seconds cap)
{
  const double mu = std::log(median.si());
  const double mean = std::exp(mu + sigma * sigma / 2);
  if (cap.si() <= 0)
    return mean;
  if (sigma == 0)
    return std::min(median.si(), cap.si());
  // E[X; X < c] + c P(X >= c), E[X; X < c] = mean * Phi((ln c - mu - sigma^2) / sigma).
  const double z = (std::log(cap.si()) - mu) / sigma;
  return mean * normal_cdf(z - sigma) + cap.si() * (1 - normal_cdf(z));
}

double expected_gpu_seconds(const GeneratorSpec& spec)
{
  // Over each gang size's band of normal scores (Phi^-1 of its cumulative probabilities), the run
  // time given the score z is lognormal with median m exp(sigma rho z) and sigma sqrt(1 - rho^2):
  // its capped mean is closed-form; the band is integrated by Simpson's rule in z.
  const auto cdf = cumulative(spec.gpus);
  const double rho = spec.size_duration_correlation;
  const double sigma_given_z = spec.sigma * std::sqrt(1 - rho * rho);
  constexpr double kTail = 8.5;  // |z| beyond this carries < 1e-16 of the mass
  constexpr int kSteps = 400;    // per band, even
  double total = 0;
  double lo = -kTail;
  for (size_t k = 0; k < spec.gpus.size(); ++k) {
    const double p = cdf[k];
    const double hi = k + 1 == spec.gpus.size()
                          ? kTail
                          : std::clamp(normal_quantile(std::clamp(p, 1e-300, 1 - 1e-16)), -kTail, kTail);
    if (hi > lo) {
      const double h = (hi - lo) / kSteps;
      double band = 0;
      for (int i = 0; i <= kSteps; ++i) {
        const double z = lo + i * h;
        const double w = (i == 0 || i == kSteps) ? 1 : (i % 2 ? 4 : 2);
        const double phi = std::exp(-z * z / 2) / std::sqrt(2 * M_PI);
        const units::Seconds median(spec.median.si() * std::exp(spec.sigma * rho * z));
        band += w * phi * lognormal_capped_mean(median, sigma_given_z, spec.max_duration);
      }
      total += static_cast<double>(spec.gpus[k].gpus) * band * h / 3;
    }
    lo = std::max(lo, hi);
  }
  return total;
}

double discrete_mean(const std::vector<GpuWeight>& gpus)
{
  double total = 0;
  double sum = 0;
  for (const auto& w : gpus) {
    total += w.probability;
    sum += w.probability * static_cast<double>(w.gpus);
  }
  return total > 0 ? sum / total : 0;
}

long discrete_median(const std::vector<GpuWeight>& gpus)
{
  auto sorted = gpus;
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.gpus < b.gpus; });
  const double total = std::accumulate(sorted.begin(), sorted.end(), 0.0,
                                       [](double s, const GpuWeight& w) { return s + w.probability; });
  double sum = 0;
  for (const auto& w : sorted) {
    sum += w.probability;
    if (sum >= total / 2)
      return w.gpus;
  }
  return sorted.empty() ? 0 : sorted.back().gpus;
}

long discrete_max(const std::vector<GpuWeight>& gpus)
{
  long max = 0;
  for (const auto& w : gpus)
    if (w.probability > 0)
      max = std::max(max, w.gpus);
  return max;
}

std::vector<std::string> validate(const GeneratorSpec& spec)
{
  std::vector<std::string> errors;
  if (spec.jobs < 0)
    errors.emplace_back("jobs: must be >= 0");
  if (!non_negative(spec.window.si()))
    errors.emplace_back("window: must be finite and >= 0");
  if (spec.jobs <= 0 && !(spec.window.si() > 0))
    errors.emplace_back("the generator needs a number of jobs or a window (or both)");
  if (!non_negative(spec.rate))
    errors.emplace_back("rate: must be finite and >= 0");
  else if (spec.rate == 0 && !(spec.jobs > 0 && spec.window.si() > 0))
    errors.emplace_back("rate: without an explicit rate, both jobs and window are needed (rate = jobs / window)");
  if (spec.arrival == ArrivalProcess::TraceShaped) {
    const auto& w = spec.hourly_weights;
    if (std::any_of(w.begin(), w.end(), [](double x) { return !non_negative(x); }))
      errors.emplace_back("arrival: the hourly weights must be finite and >= 0");
    else if (!(std::accumulate(w.begin(), w.end(), 0.0) > 0))
      errors.emplace_back("arrival: the hourly weights sum to 0");
  }
  validate_gpus(spec.gpus, errors);
  validate_durations(spec, errors);
  return errors;
}

Workload generate(const GeneratorSpec& spec, std::uint64_t seed)
{
  FLEETSIM_CHECK(validate(spec).empty(), "generate() needs a valid spec: check validate() first");
  ArrivalClock clock(spec, arrival_rate(spec), seed);
  RandomStream gpu_stream(seed, "workload/gpus");
  RandomStream duration_stream(seed, "workload/durations");
  const auto cdf = cumulative(spec.gpus);

  Workload jobs;
  if (spec.jobs > 0)
    jobs.reserve(static_cast<size_t>(spec.jobs));
  while (spec.jobs <= 0 || static_cast<long>(jobs.size()) < spec.jobs) {
    const double t = clock.next();
    if (spec.window.si() > 0 && t >= spec.window.si())
      break;
    JobSpec job = spec.defaults;
    job.id = job_id(static_cast<long>(jobs.size()) + 1);
    job.submit = t;
    double z_gpus = 0;
    job.gpus = draw_gpus(spec.gpus, cdf, gpu_stream, z_gpus);
    job.work = draw_duration(spec, duration_stream, z_gpus);
    job.origin = "generator";
    jobs.push_back(std::move(job));
  }
  return jobs;
}

}  // namespace fleetsim::models::fleet
