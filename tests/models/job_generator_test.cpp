#include "models/fleet/job_generator.hpp"

#include "models/fleet/job_trace.hpp"
#include "models/core/statistics.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

namespace fleetsim::models::fleet {
namespace {

GeneratorSpec small_spec()
{
  GeneratorSpec spec;
  spec.jobs = 500;
  spec.rate = 500 / units::kDay;
  spec.gpus = {{1, 0.5}, {8, 0.3}, {64, 0.2}};
  spec.median = units::Seconds(600);
  spec.sigma = 1.5;
  return spec;
}

std::vector<double> submits(const Workload& jobs)
{
  std::vector<double> out;
  for (const auto& j : jobs)
    out.push_back(j.submit);
  return out;
}

std::vector<double> works(const Workload& jobs)
{
  std::vector<double> out;
  for (const auto& j : jobs)
    out.push_back(j.work);
  return out;
}

std::vector<double> gangs(const Workload& jobs)
{
  std::vector<double> out;
  for (const auto& j : jobs)
    out.push_back(static_cast<double>(j.gpus));
  return out;
}

TEST(JobGenerator, RepeatsTheWorkloadForTheSameSeedAndChangesItForAnother)
{
  const auto spec = small_spec();
  const auto a = generate(spec, 7);
  const auto b = generate(spec, 7);
  const auto c = generate(spec, 8);
  ASSERT_EQ(a.size(), 500u);
  ASSERT_EQ(b.size(), a.size());
  EXPECT_EQ(submits(a), submits(b));
  EXPECT_EQ(works(a), works(b));
  EXPECT_EQ(gangs(a), gangs(b));
  ASSERT_EQ(c.size(), a.size());
  EXPECT_NE(submits(a), submits(c));
  EXPECT_NE(works(a), works(c));
  EXPECT_NE(gangs(a), gangs(c));
}

TEST(JobGenerator, NamesJobsInSubmitOrderAndCopiesTheDefaults)
{
  auto spec = small_spec();
  spec.defaults.checkpoint_interval = 900;
  spec.defaults.priority = 3;
  const auto jobs = generate(spec, 1);
  EXPECT_EQ(jobs.front().id, "gen-000001");
  EXPECT_EQ(jobs[41].id, "gen-000042");
  EXPECT_TRUE(std::is_sorted(jobs.begin(), jobs.end(), [](auto& x, auto& y) { return x.submit < y.submit; }));
  for (const auto& j : jobs) {
    EXPECT_EQ(j.origin, "generator");
    EXPECT_DOUBLE_EQ(j.checkpoint_interval, 900.0);
    EXPECT_EQ(j.priority, 3);
    EXPECT_TRUE(j.gpus == 1 || j.gpus == 8 || j.gpus == 64) << j.gpus;
  }
}

TEST(JobGenerator, KeepsArrivalsAndGangSizesWhenOnlyTheDurationLawChanges)
{
  auto spec = small_spec();
  const auto lognormal = generate(spec, 11);
  spec.duration = DurationLaw::Weibull;
  spec.shape = 0.7;
  const auto weibull = generate(spec, 11);
  EXPECT_EQ(submits(lognormal), submits(weibull));
  EXPECT_EQ(gangs(lognormal), gangs(weibull));
  EXPECT_NE(works(lognormal), works(weibull));
}

TEST(JobGenerator, SpacesPoissonArrivalsByWindowOverJobsOnAverage)
{
  GeneratorSpec spec;
  spec.jobs = 100000;
  spec.window = units::Seconds(1e6);  // rate 0.1/s: mean gap 10 s
  const auto jobs = generate(spec, 3);
  // The window ends it first about half the time, a few hundred jobs short at most.
  ASSERT_LE(jobs.size(), 100000u);
  ASSERT_GT(jobs.size(), 99000u);
  std::vector<double> gaps;
  double previous = 0;
  for (const auto& j : jobs) {
    gaps.push_back(j.submit - previous);
    previous = j.submit;
  }
  const auto s = summarize(gaps);
  EXPECT_NEAR(s.mean, 10.0, 0.1);  // 3 standard errors: 10 / sqrt(1e5) = 0.032
  EXPECT_NEAR(s.sd / s.mean, 1.0, 0.02) << "exponential gaps have a coefficient of variation of 1";
}

TEST(JobGenerator, StopsAtTheWindowWhenNoJobCountIsGiven)
{
  GeneratorSpec spec;
  spec.window = units::Seconds(7 * units::kDay);
  spec.rate = 0.01;  // 6,048 expected
  const auto jobs = generate(spec, 5);
  EXPECT_NEAR(static_cast<double>(jobs.size()), 6048.0, 3 * std::sqrt(6048.0));
  EXPECT_LT(jobs.back().submit, spec.window.si());
}

TEST(JobGenerator, PutsMoreArrivalsInHeavierHoursAndKeepsTheMeanRate)
{
  GeneratorSpec spec;
  spec.arrival = ArrivalProcess::TraceShaped;
  spec.window = units::Seconds(60 * units::kDay);
  spec.rate = 0.05;  // 259,200 expected
  for (size_t h = 0; h < 24; ++h)
    spec.hourly_weights[h] = h < 12 ? 1.0 : 3.0;
  const auto jobs = generate(spec, 9);
  const double expected = spec.rate * spec.window.si();
  EXPECT_NEAR(static_cast<double>(jobs.size()), expected, 4 * std::sqrt(expected));
  const auto in_heavy_hours = std::count_if(
      jobs.begin(), jobs.end(), [](const JobSpec& j) { return std::fmod(j.submit, units::kDay) >= 12 * units::kHour; });
  const double share = static_cast<double>(in_heavy_hours) / static_cast<double>(jobs.size());
  EXPECT_NEAR(share, 0.75, 0.005);  // 3 / (1 + 3); binomial sd 0.00085
}

TEST(JobGenerator, DrawsWeibullDurationsAroundTheirMedianAndCapsThem)
{
  GeneratorSpec spec;
  spec.jobs = 100000;
  spec.rate = 1;
  spec.duration = DurationLaw::Weibull;
  spec.shape = 0.5;
  spec.scale = units::Seconds(1000);
  spec.max_duration = units::Seconds(20000);
  const auto w = works(generate(spec, 4));
  const double median = 1000 * std::pow(std::log(2.0), 1 / 0.5);  // 480.5 s
  EXPECT_NEAR(quantile(w, 0.5) / median, 1.0, 0.02);
  EXPECT_DOUBLE_EQ(*std::max_element(w.begin(), w.end()), 20000.0);  // P(X > 20000) = e^-4.47 = 1.1 %
}

TEST(JobGenerator, ComputesTheNormalQuantileToDoublePrecision)
{
  EXPECT_DOUBLE_EQ(normal_quantile(0.5), 0.0);
  EXPECT_NEAR(normal_quantile(0.975), 1.959963984540054, 1e-15);
  EXPECT_NEAR(normal_quantile(0.3), -0.5244005127080407, 1e-15);
  EXPECT_NEAR(normal_quantile(1e-10), -6.361340902404056, 1e-13);
  EXPECT_NEAR(normal_quantile(1 - 1e-12), 7.0344869100478356, 1e-11);
  for (double p : {1e-6, 0.01, 0.2, 0.6, 0.9, 0.999})
    EXPECT_NEAR(normal_cdf(normal_quantile(p)) / p, 1.0, 1e-12) << p;
}

// E[min(X, c)] = integral from 0 to c of P(X > x) dx, by Simpson's rule over t = ln x above mu - 12 sigma.
double capped_mean_by_quadrature(double median, double sigma, double cap)
{
  const double mu = std::log(median);
  const double lo = mu - 12 * sigma;
  const double hi = std::log(cap);
  const int n = 20000;  // even
  const double h = (hi - lo) / n;
  double sum = 0;
  for (int i = 0; i <= n; ++i) {
    const double t = lo + i * h;
    const double f = (1 - normal_cdf((t - mu) / sigma)) * std::exp(t);
    sum += f * (i == 0 || i == n ? 1 : (i % 2 ? 4 : 2));
  }
  return std::exp(lo) + sum * h / 3;  // P(X > x) is 1 to 1e-33 below e^lo
}

TEST(JobGenerator, GivesTheCappedLognormalMeanAndTheDiscreteMoments)
{
  const units::Seconds median(100);
  EXPECT_NEAR(lognormal_capped_mean(median, 1.0, units::Seconds(0)), 100 * std::exp(0.5), 1e-9);
  EXPECT_NEAR(lognormal_capped_mean(median, 1.0, units::Seconds(1e12)), 100 * std::exp(0.5), 1e-6);
  for (double cap : {30.0, 100.0, 1000.0})
    EXPECT_NEAR(lognormal_capped_mean(median, 1.3, units::Seconds(cap)) / capped_mean_by_quadrature(100, 1.3, cap), 1.0,
                1e-9)
        << cap;
  const std::vector<GpuWeight> g = {{8, 1}, {1, 2}, {64, 1}};
  EXPECT_DOUBLE_EQ(discrete_mean(g), (8 + 2 + 64) / 4.0);
  EXPECT_EQ(discrete_median(g), 1);
  EXPECT_EQ(discrete_max(g), 64);
}

TEST(JobGenerator, ReportsWhatMakesASpecInvalid)
{
  EXPECT_TRUE(validate(small_spec()).empty());
  GeneratorSpec none;
  EXPECT_FALSE(validate(none).empty());
  auto spec = small_spec();
  spec.rate = 0;  // and no window
  ASSERT_EQ(validate(spec).size(), 1u);
  EXPECT_NE(validate(spec)[0].find("rate = jobs / window"), std::string::npos);
  spec = small_spec();
  spec.gpus = {{0, 1.0}, {8, -0.5}};
  EXPECT_EQ(validate(spec).size(), 2u);
  spec = small_spec();
  spec.arrival = ArrivalProcess::TraceShaped;
  spec.hourly_weights.fill(0);
  ASSERT_EQ(validate(spec).size(), 1u);
  EXPECT_EQ(validate(spec)[0], "arrival: the hourly weights sum to 0");
}

TEST(JobGenerator, FitsTheKalosPresetToAcmeTracesPublishedFigures)
{
  const auto fit = generator_preset_fit("kalos");
  ASSERT_TRUE(fit);
  for (const auto& row : fit->rows)
    EXPECT_NEAR(row.fitted / row.target, 1.0, 1e-9) << row.quantity;
  EXPECT_DOUBLE_EQ(fit->row("gpus.mean")->target, 26.77);
  EXPECT_DOUBLE_EQ(fit->row("duration.median")->target, 124.0);
  EXPECT_GT(*fit->parameter("gpus.p1"), 0.5);
  EXPECT_GT(*fit->parameter("duration.sigma"), *fit->parameter("duration.sigma_uncapped"));
  EXPECT_NEAR(*fit->parameter("duration.sigma_uncapped"), std::sqrt(2 * std::log(1259.689 / 124)), 1e-12);
  EXPECT_FALSE(fit->assumptions.empty());
  EXPECT_FALSE(generator_preset("pai"));
  EXPECT_FALSE(generator_preset_fit("pai"));
}

TEST(JobGenerator, SamplesTheKalosPresetWithinAFewPercentOfItsTargets)
{
  auto spec = *generator_preset("kalos");
  ASSERT_TRUE(validate(spec).empty());
  spec.jobs = 200000;
  const auto jobs = generate(spec, 2024);
  ASSERT_EQ(jobs.size(), 200000u);
  const auto g = gangs(jobs);
  const auto w = works(jobs);
  // Standard errors at this size: GPUs' mean 0.25 (0.95 %), durations' mean 20 s (1.6 %), their
  // median 0.75 s (0.6 %).
  EXPECT_NEAR(summarize(g).mean / 26.77, 1.0, 0.03);
  EXPECT_EQ(quantile(g, 0.5), 1.0);
  EXPECT_EQ(*std::max_element(g.begin(), g.end()), 1024.0);
  EXPECT_NEAR(summarize(w).mean / 1259.689, 1.0, 0.05);
  EXPECT_NEAR(quantile(w, 0.5) / 124.0, 1.0, 0.02);
  EXPECT_LE(*std::max_element(w.begin(), w.end()), 625740.0);
  const double mean_gap = jobs.back().submit / static_cast<double>(jobs.size());
  EXPECT_NEAR(mean_gap * spec.rate, 1.0, 0.01);
}

TEST(JobGenerator, TheCopulaMakesLargeJobsRunLongerAndCarryTheTracesGpuTime)
{
  auto spec = *generator_preset("kalos");
  const auto fit = generator_preset_fit("kalos");
  const double target = fit->row("gpu_time.mean")->target;
  EXPECT_NEAR(target, 267904.76, 0.01);  // (1,667,685,146 + 3,239,202,064 + 426,292,851) / 19,907 GPU s
  // Independent draws: the quadrature gives the product of the means.
  GeneratorSpec independent = spec;
  independent.size_duration_correlation = 0;
  EXPECT_NEAR(expected_gpu_seconds(independent) /
                  (discrete_mean(spec.gpus) * lognormal_capped_mean(spec.median, spec.sigma, spec.max_duration)),
              1.0, 1e-6);
  EXPECT_NEAR(expected_gpu_seconds(spec) / target, 1.0, 1e-9);
  EXPECT_GT(spec.size_duration_correlation, 0.3);
  spec.jobs = 400000;
  spec.rate = 1;
  const auto jobs = generate(spec, 3);
  double gpu_seconds = 0;
  std::vector<double> small, large;
  for (const auto& j : jobs) {
    gpu_seconds += static_cast<double>(j.gpus) * j.work;
    if (j.gpus == 1)
      small.push_back(j.work);
    else if (j.gpus >= 256)
      large.push_back(j.work);
  }
  // The heavy tail makes the sample mean noisy (one 1,024-GPU job of a week is 1.6 % of it).
  EXPECT_NEAR(gpu_seconds / static_cast<double>(jobs.size()) / target, 1.0, 0.1);
  EXPECT_GT(quantile(large, 0.5), 10 * quantile(small, 0.5));
  // The marginals do not move.
  EXPECT_NEAR(summarize(works(jobs)).mean / 1259.689, 1.0, 0.05);
  EXPECT_NEAR(quantile(works(jobs), 0.5) / 124.0, 1.0, 0.02);
  independent.jobs = 400000;
  independent.rate = 1;
  const auto flat = generate(independent, 3);
  double flat_gpu_seconds = 0;
  for (const auto& j : flat)
    flat_gpu_seconds += static_cast<double>(j.gpus) * j.work;
  EXPECT_LT(flat_gpu_seconds, gpu_seconds / 4);
}

TEST(JobGenerator, RoundTripsAGeneratedWorkloadThroughTheAcmeTraceLayout)
{
  auto spec = *generator_preset("kalos");
  spec.jobs = 2000;
  const auto generated = generate(spec, 77);
  std::ostringstream csv;
  write_trace_csv(generated, csv);
  TraceOptions options;
  options.preset = "acme";
  const auto load = load_trace_text(csv.str(), "sample.csv", options);
  ASSERT_TRUE(load.ok()) << (load.errors.empty() ? "" : load.errors[0]);
  ASSERT_EQ(load.jobs.size(), generated.size());
  for (size_t i = 0; i < generated.size(); ++i) {
    const auto& g = generated[i];
    const auto& r = load.jobs[i];
    ASSERT_EQ(r.id, g.id);
    EXPECT_EQ(r.gpus, g.gpus) << g.id;
    EXPECT_EQ(r.work, g.work) << g.id;  // exactly: numbers are written to round-trip
    EXPECT_EQ(r.submit, g.submit - generated.front().submit) << g.id;
  }
}

}  // namespace
}  // namespace fleetsim::models::fleet
