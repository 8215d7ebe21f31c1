#include "models/checkpoint/interval_policy.hpp"

#include "models/checkpoint/checkpoint_interval.hpp"
#include "models/core/random_stream.hpp"
#include "models/core/units.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace fleetsim::models {
namespace {

using units::kHour;
using units::kMinute;
using units::Seconds;

constexpr double kDelta = 5 * kMinute;
// Llama 3 405B's pre-training: 419 unexpected interruptions in 54 days -> one every 3.09 h.
constexpr double kTrueMtbf = 3.09 * kHour;
constexpr double kInf = std::numeric_limits<double>::infinity();

double minutes(double s) { return s / kMinute; }
double daly_s(double delta, double mtbf) { return daly_interval(Seconds(delta), Seconds(mtbf)).si(); }
double young_s(double delta, double mtbf) { return young_interval(Seconds(delta), Seconds(mtbf)).si(); }

IntervalPolicySpec spec_of(IntervalPolicyKind kind)
{
  IntervalPolicySpec s;
  s.kind = kind;
  s.fixed_s = 30 * kMinute;
  return s;
}

IntervalPolicySpec adaptive(double prior_mtbf_s, double prior_weight = 2)
{
  IntervalPolicySpec s = spec_of(IntervalPolicyKind::Adaptive);
  s.prior_mtbf_s = prior_mtbf_s;
  s.prior_weight = prior_weight;
  return s;
}

TEST(IntervalPolicy, ParsesEveryNameAndGivesItBack)
{
  for (auto kind :
       {IntervalPolicyKind::Fixed, IntervalPolicyKind::Young, IntervalPolicyKind::Daly, IntervalPolicyKind::Adaptive})
    EXPECT_EQ(parse_interval_policy(interval_policy_name(kind)), kind);
  EXPECT_EQ(parse_interval_policy("daly"), IntervalPolicyKind::Daly);
  EXPECT_EQ(interval_policy_name(IntervalPolicyKind::Adaptive), "adaptive");
}

TEST(IntervalPolicy, RejectsNamesThatAreNotExactlyAPolicy)
{
  for (std::string_view bad : {"", "Daly", "daly ", "dal", "young_daly", "auto"})
    EXPECT_FALSE(parse_interval_policy(bad).has_value()) << "'" << bad << "'";
}

TEST(IntervalPolicy, FixedReturnsItsIntervalWhateverFailuresAndCostsDo)
{
  IntervalPolicy p(spec_of(IntervalPolicyKind::Fixed), kDelta, 6 * kHour);
  EXPECT_DOUBLE_EQ(p.interval_s(), 30 * kMinute);
  for (int i = 0; i < 20; ++i) {
    p.observe_exposure(10 * kMinute);
    p.observe_failure();
  }
  p.set_checkpoint_cost(20 * kMinute);
  EXPECT_DOUBLE_EQ(p.interval_s(), 30 * kMinute);
  EXPECT_EQ(p.failures_seen(), 20);
  EXPECT_DOUBLE_EQ(p.estimated_mtbf_s(), 6 * kHour);
}

// Daly (2006), worked examples with a 5 minute checkpoint: 116.7 min at M = 24 h, 56.7 min at 6 h.
TEST(IntervalPolicy, DalyGivesDalysWorkedExamplesAtTheKnownMtbf)
{
  EXPECT_NEAR(minutes(IntervalPolicy(spec_of(IntervalPolicyKind::Daly), kDelta, 24 * kHour).interval_s()), 116.7, 0.05);
  EXPECT_NEAR(minutes(IntervalPolicy(spec_of(IntervalPolicyKind::Daly), kDelta, 6 * kHour).interval_s()), 56.7, 0.05);
}

TEST(IntervalPolicy, YoungMatchesYoungIntervalAtTheKnownMtbf)
{
  // sqrt(2 * 5 * 1440) = 120 min, sqrt(2 * 5 * 360) = 60 min.
  EXPECT_NEAR(minutes(IntervalPolicy(spec_of(IntervalPolicyKind::Young), kDelta, 24 * kHour).interval_s()), 120.0,
              1e-9);
  EXPECT_NEAR(minutes(IntervalPolicy(spec_of(IntervalPolicyKind::Young), kDelta, 6 * kHour).interval_s()), 60.0, 1e-9);
}

TEST(IntervalPolicy, YoungAndDalyIgnoreObservedFailuresButFollowTheCheckpointCost)
{
  for (auto kind : {IntervalPolicyKind::Young, IntervalPolicyKind::Daly}) {
    IntervalPolicy p(spec_of(kind), kDelta, 6 * kHour);
    const double before = p.interval_s();
    for (int i = 0; i < 50; ++i) {
      p.observe_exposure(kMinute);
      p.observe_failure();
    }
    EXPECT_DOUBLE_EQ(p.interval_s(), before) << interval_policy_name(kind);
    EXPECT_DOUBLE_EQ(p.estimated_mtbf_s(), 6 * kHour);
    p.set_checkpoint_cost(20 * kMinute);
    const double expected = kind == IntervalPolicyKind::Young ? young_s(20 * kMinute, 6 * kHour)
                                                              : daly_s(20 * kMinute, 6 * kHour);
    EXPECT_DOUBLE_EQ(p.interval_s(), expected) << interval_policy_name(kind);
    EXPECT_GT(p.interval_s(), before);
  }
}

TEST(IntervalPolicy, YoungAndDalyFallBackToMaxOrNoFailureIntervalWhenNoFailureIsPredicted)
{
  for (auto kind : {IntervalPolicyKind::Young, IntervalPolicyKind::Daly}) {
    for (double none : {kInf, 0.0}) {
      IntervalPolicySpec s = spec_of(kind);
      EXPECT_DOUBLE_EQ(IntervalPolicy(s, kDelta, none).interval_s(), kNoFailureIntervalS);
      s.max_s = 12 * kHour;
      EXPECT_DOUBLE_EQ(IntervalPolicy(s, kDelta, none).interval_s(), 12 * kHour);
      EXPECT_DOUBLE_EQ(IntervalPolicy(s, 0.0, none).interval_s(), 12 * kHour);  // free checkpoints too
    }
  }
}

TEST(IntervalPolicy, FreeCheckpointsGiveTheFloorOrMinInsteadOfZero)
{
  IntervalPolicySpec s = spec_of(IntervalPolicyKind::Daly);
  EXPECT_DOUBLE_EQ(IntervalPolicy(s, 0.0, 6 * kHour).interval_s(), kMinFormulaIntervalS);
  s.min_s = 10 * kMinute;
  EXPECT_DOUBLE_EQ(IntervalPolicy(s, 0.0, 6 * kHour).interval_s(), 10 * kMinute);
}

TEST(IntervalPolicy, ClampsTheIntervalOfEveryKind)
{
  // Daly at 24 h is 116.7 min: a 60 min ceiling and a 3 h floor both bind.
  IntervalPolicySpec daly = spec_of(IntervalPolicyKind::Daly);
  daly.max_s = 60 * kMinute;
  EXPECT_DOUBLE_EQ(IntervalPolicy(daly, kDelta, 24 * kHour).interval_s(), 60 * kMinute);
  daly.max_s = 0;
  daly.min_s = 3 * kHour;
  EXPECT_DOUBLE_EQ(IntervalPolicy(daly, kDelta, 24 * kHour).interval_s(), 3 * kHour);
  // Neither binds when the formula's value lies between them.
  daly.min_s = 60 * kMinute;
  daly.max_s = 3 * kHour;
  EXPECT_DOUBLE_EQ(IntervalPolicy(daly, kDelta, 24 * kHour).interval_s(), daly_s(kDelta, 24 * kHour));

  IntervalPolicySpec fixed = spec_of(IntervalPolicyKind::Fixed);  // 30 min
  fixed.max_s = 20 * kMinute;
  EXPECT_DOUBLE_EQ(IntervalPolicy(fixed, kDelta, 6 * kHour).interval_s(), 20 * kMinute);

  IntervalPolicySpec young = spec_of(IntervalPolicyKind::Young);  // 60 min at 6 h
  young.min_s = 90 * kMinute;
  EXPECT_DOUBLE_EQ(IntervalPolicy(young, kDelta, 6 * kHour).interval_s(), 90 * kMinute);

  // Adaptive, clamped after many failures have pulled its estimate far down.
  IntervalPolicySpec a = adaptive(6 * kHour);
  a.min_s = 45 * kMinute;
  IntervalPolicy p(a, kDelta, kInf);
  for (int i = 0; i < 100; ++i) {
    p.observe_exposure(10 * kMinute);
    p.observe_failure();
  }
  EXPECT_LT(daly_s(kDelta, p.estimated_mtbf_s()), 45 * kMinute);
  EXPECT_DOUBLE_EQ(p.interval_s(), 45 * kMinute);
}

TEST(IntervalPolicy, AdaptiveIsDalyAtThePriorMtbfBeforeAnyEvidence)
{
  for (double prior : {4 * kTrueMtbf, kTrueMtbf / 4}) {
    // The known MTBF is passed wrong on purpose: Adaptive must not use it.
    IntervalPolicy p(adaptive(prior), kDelta, kTrueMtbf);
    EXPECT_DOUBLE_EQ(p.estimated_mtbf_s(), prior);
    EXPECT_DOUBLE_EQ(p.interval_s(), daly_s(kDelta, prior));
    EXPECT_EQ(p.failures_seen(), 0);
  }
}

TEST(IntervalPolicy, AdaptiveEstimateIsThePosteriorMeanRate)
{
  // Prior: 2 pseudo-failures over 20 h. Then 3 failures in 5 h: (20 h + 5 h) / (2 + 3) = 5 h.
  IntervalPolicy p(adaptive(10 * kHour), kDelta, kInf);
  p.observe_exposure(2 * kHour);
  p.observe_failure();
  p.observe_exposure(3 * kHour);
  p.observe_failure();
  p.observe_failure();
  EXPECT_DOUBLE_EQ(p.estimated_mtbf_s(), 5 * kHour);
  EXPECT_DOUBLE_EQ(p.interval_s(), daly_s(kDelta, 5 * kHour));
  // A weight of 8 makes the same evidence move the estimate less: (80 h + 5 h) / 11.
  IntervalPolicy heavy(adaptive(10 * kHour, 8), kDelta, kInf);
  heavy.observe_exposure(5 * kHour);
  for (int i = 0; i < 3; ++i)
    heavy.observe_failure();
  EXPECT_DOUBLE_EQ(heavy.estimated_mtbf_s(), 85 * kHour / 11);
}

TEST(IntervalPolicy, AdaptiveLengthensItsIntervalWhileNoFailureComes)
{
  IntervalPolicy p(adaptive(6 * kHour), kDelta, kInf);
  double last = p.interval_s();
  for (int day = 1; day <= 30; ++day) {
    p.observe_exposure(24 * kHour);
    EXPECT_GT(p.interval_s(), last) << "day " << day;
    last = p.interval_s();
  }
  // 30 days + the prior's 12 h over 2 pseudo-failures: finite, no fallback needed.
  EXPECT_DOUBLE_EQ(p.estimated_mtbf_s(), (12 * kHour + 30 * 24 * kHour) / 2);
  EXPECT_LT(p.interval_s(), kNoFailureIntervalS);
}

// ---- convergence with a failure rate the policy does not know -----------------------------------

constexpr int kSeeds = 1000;
constexpr double kTolerance = 0.15;

/// Adaptive's interval over Daly's at the true MTBF, after n = 0 .. n_max failures drawn as
/// exponential inter-arrival times. The exposure is reported in pieces of the interval in force, as
/// a job's actor would at each checkpoint.
std::vector<double> interval_ratios(double prior_mtbf_s, std::uint64_t seed, int n_max)
{
  RandomStream failures(seed, "interval_policy_test/failures");
  IntervalPolicy p(adaptive(prior_mtbf_s), kDelta, kInf);
  const double target = daly_s(kDelta, kTrueMtbf);
  std::vector<double> ratios{p.interval_s() / target};
  for (int n = 1; n <= n_max; ++n) {
    for (double left = failures.exponential(1.0 / kTrueMtbf); left > 0;) {
      const double piece = std::min(left, p.interval_s());
      p.observe_exposure(piece);
      left -= piece;
    }
    p.observe_failure();
    ratios.push_back(p.interval_s() / target);
  }
  return ratios;
}

/// P(X <= x) for X ~ Gamma(n, 1), integer n: 1 - e^-x sum_{k<n} x^k / k!.
double gamma_cdf(int n, double x)
{
  double term = std::exp(-x);
  double sum = 0;
  for (int k = 0; k < n; ++k) {
    sum += term;
    term *= x / (k + 1);
  }
  return 1.0 - sum;
}

/// The probability that Adaptive's interval is within kTolerance of Daly's after n failures. With
/// a the prior weight, f the prior's MTBF over the true one and G = T / M ~ Gamma(n, 1) the
/// exposure in true MTBFs, the estimate is M (a f + G) / (a + n), increasing in G: the interval
/// passes for G in an interval [g_lo, g_hi], found by bisection.
double expected_pass_rate(double prior_factor, double prior_weight, int n)
{
  const double target = daly_s(kDelta, kTrueMtbf);
  auto ratio = [&](double g) {
    return daly_s(kDelta, kTrueMtbf * (prior_weight * prior_factor + g) / (prior_weight + n)) / target;
  };
  auto first_g_where = [&](double r) {  // smallest g with ratio(g) > r
    double lo = 0;
    double hi = 10.0 * n + 100;
    for (int i = 0; i < 200; ++i)
      (ratio((lo + hi) / 2) > r ? hi : lo) = (lo + hi) / 2;
    return hi;
  };
  return gamma_cdf(n, first_g_where(1 + kTolerance)) - gamma_cdf(n, first_g_where(1 - kTolerance));
}

double measured_pass_rate(double prior_mtbf_s, int n)
{
  int pass = 0;
  for (int seed = 1; seed <= kSeeds; ++seed)
    pass += std::abs(interval_ratios(prior_mtbf_s, seed, n).back() - 1) <= kTolerance;
  return static_cast<double>(pass) / kSeeds;
}

// After n failures the MTBF estimate M (a f + G) / (a + n) has a relative spread of ~1/sqrt(n) (14%
// at n = 50) and Daly's interval goes as ~sqrt(M), so its spread is ~7%: 15% is only ~2 sigma. With
// delta = 5 min, M = 3.09 h, a = 2, f = 4 or 1/4, expected_pass_rate() gives at n = 50
//   prior 4x too high: 90.3% (the prior adds 8 M of pseudo-exposure: +11.5% on M, +6% on tau)
//   prior 4x too low:  95.0%
// and even with no prior at all (a -> 0) 95.1%: no estimator from 50 failures reaches 95% with a
// margin. This test checks the policy against that analysis (within 3 binomial sigma of kSeeds),
// the next one the "within 15% for 95% of seeds" criterion where it holds.
TEST(IntervalPolicy, AdaptiveIsWithin15PercentOfDalyAfter50FailuresAsOftenAsTheGammaPosteriorPredicts)
{
  for (double factor : {4.0, 0.25}) {
    const double expected = expected_pass_rate(factor, 2, 50);
    const double measured = measured_pass_rate(factor * kTrueMtbf, 50);
    const double sigma = std::sqrt(expected * (1 - expected) / kSeeds);
    RecordProperty("pass_rate_50_prior_x" + std::to_string(factor), std::to_string(measured));
    EXPECT_NEAR(measured, expected, 3 * sigma) << "prior " << factor << "x the true mtbf";
    EXPECT_GT(measured, 0.85) << "prior " << factor << "x the true mtbf";
  }
  EXPECT_NEAR(expected_pass_rate(4.0, 2, 50), 0.903, 0.001);
  EXPECT_NEAR(expected_pass_rate(0.25, 2, 50), 0.950, 0.001);
}

// expected_pass_rate() at n = 80: 97.4% (4x too high) and 98.7% (4x too low).
TEST(IntervalPolicy, AdaptiveIsWithin15PercentOfDalyFor95PercentOfSeedsAfter80Failures)
{
  for (double factor : {4.0, 0.25}) {
    const double measured = measured_pass_rate(factor * kTrueMtbf, 80);
    RecordProperty("pass_rate_80_prior_x" + std::to_string(factor), std::to_string(measured));
    EXPECT_GE(measured, 0.95) << "prior " << factor << "x the true mtbf";
    EXPECT_GT(expected_pass_rate(factor, 2, 80), 0.97);
  }
}

// Mean |tau / tau_Daly - 1| over the seeds. With the prior 4x too high, the bias (8 + n) / (2 + n)
// on M dominates early: ~+37% on tau at n = 5 (13/7 on M), ~6% at 50, ~0.6% at 500, where the
// noise (~1/(2 sqrt(n)) = 2.2%) is left: a mean absolute error of ~2%.
TEST(IntervalPolicy, AdaptiveErrorShrinksFrom5To50To500Failures)
{
  for (double factor : {4.0, 0.25}) {
    double err5 = 0, err50 = 0, err500 = 0;
    for (int seed = 1; seed <= kSeeds; ++seed) {
      const auto r = interval_ratios(factor * kTrueMtbf, seed, 500);
      err5 += std::abs(r[5] - 1) / kSeeds;
      err50 += std::abs(r[50] - 1) / kSeeds;
      err500 += std::abs(r[500] - 1) / kSeeds;
    }
    const std::string prior = "prior_x" + std::to_string(factor);
    RecordProperty("mean_error_5_" + prior, std::to_string(err5));
    RecordProperty("mean_error_50_" + prior, std::to_string(err50));
    RecordProperty("mean_error_500_" + prior, std::to_string(err500));
    SCOPED_TRACE(prior);
    EXPECT_GT(err5, 1.5 * err50);
    EXPECT_GT(err50, 1.5 * err500);
    EXPECT_LT(err500, 0.03);
  }
}

}  // namespace
}  // namespace fleetsim::models
