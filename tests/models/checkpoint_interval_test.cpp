#include "models/checkpoint/checkpoint_interval.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace fleetsim::models {
namespace {

using units::kHour;
using units::kMinute;
using units::Seconds;

double minutes(Seconds t) { return t.si() / kMinute; }

const Seconds kDelta(5 * kMinute);

TEST(YoungInterval, Gives120MinutesWhenCheckpointTakes5MinutesAndMtbfIs24Hours)
{
  // sqrt(2 * 5 * 1440) = sqrt(14400) = 120 min
  EXPECT_NEAR(minutes(young_interval(kDelta, Seconds(24 * kHour))), 120.0, 1e-9);
}

TEST(YoungInterval, GrowsWithSquareRootOfMtbf)
{
  // sqrt(2 * 5 * 360) = 60 min
  EXPECT_NEAR(minutes(young_interval(kDelta, Seconds(6 * kHour))), 60.0, 1e-9);
}

// Daly (2006), worked examples with a 5 minute checkpoint.
TEST(DalyInterval, Gives116Point7MinutesWhenMtbfIs24Hours)
{
  EXPECT_NEAR(minutes(daly_interval(kDelta, Seconds(24 * kHour))), 116.7, 0.05);
}

TEST(DalyInterval, Gives56Point7MinutesWhenMtbfIs6Hours)
{
  EXPECT_NEAR(minutes(daly_interval(kDelta, Seconds(6 * kHour))), 56.7, 0.05);
}

TEST(DalyInterval, Gives9Point14MinutesWhenMtbfIs15Minutes)
{
  EXPECT_NEAR(minutes(daly_interval(kDelta, Seconds(15 * kMinute))), 9.14, 0.05);
}

TEST(DalyInterval, ReturnsMtbfWhenCheckpointTakesAtLeastTwiceMtbf)
{
  EXPECT_DOUBLE_EQ(daly_interval(Seconds(20 * kMinute), Seconds(10 * kMinute)).si(), 10 * kMinute);
  EXPECT_DOUBLE_EQ(daly_interval(Seconds(30 * kMinute), Seconds(10 * kMinute)).si(), 10 * kMinute);
}

TEST(DalyUsefulFraction, MatchesClosedFormWhenParametersAreRound)
{
  // tau = 60 min, delta = 5 min, R = 10 min, M = 6 h (all in minutes):
  // 60 / (360 e^{10/360} (e^{65/360} - 1)) = 0.81918...
  const double expected = 60.0 / (360.0 * std::exp(10.0 / 360.0) * (std::exp(65.0 / 360.0) - 1));
  const double f = daly_useful_fraction(Seconds(60 * kMinute), kDelta, Seconds(10 * kMinute), Seconds(6 * kHour));
  EXPECT_NEAR(f, expected, 1e-12);
  EXPECT_NEAR(f, 0.81918, 1e-5);
}

TEST(DalyUsefulFraction, PeaksNearDalyIntervalWhenScannedOverTau)
{
  const Seconds mtbf(6 * kHour);
  const Seconds restart(10 * kMinute);
  double best_tau = 0;
  double best = -1;
  for (double tau = 1.0; tau <= 4 * kHour; tau += 1.0) {
    const double f = daly_useful_fraction(Seconds(tau), kDelta, restart, mtbf);
    if (f > best) {
      best = f;
      best_tau = tau;
    }
  }
  const double daly = daly_interval(kDelta, mtbf).si();
  EXPECT_NEAR(best_tau, daly, 0.02 * daly);
  EXPECT_NEAR(best, 0.8194, 1e-4);
}

TEST(DalyUsefulFraction, TendsToTauOverTauPlusDeltaWhenMtbfIsHuge)
{
  // No failures: one checkpoint of 5 min per 55 min of work -> 55/60.
  const double f = daly_useful_fraction(Seconds(55 * kMinute), kDelta, Seconds(10 * kMinute), Seconds(1e12));
  EXPECT_NEAR(f, 55.0 / 60.0, 1e-6);
}

TEST(DalyUsefulFraction, FallsWhenRestartTakesLonger)
{
  const Seconds tau(60 * kMinute);
  const Seconds mtbf(6 * kHour);
  EXPECT_GT(daly_useful_fraction(tau, kDelta, Seconds(0), mtbf),
            daly_useful_fraction(tau, kDelta, Seconds(30 * kMinute), mtbf));
}

}  // namespace
}  // namespace fleetsim::models
