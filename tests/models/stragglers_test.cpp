// The straggler model: a synchronous step waits for its slowest worker.
#include "models/step/stragglers.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace fleetsim::models {
namespace {

TEST(Stragglers, OneWorkerAt80PercentSlowsAComputeBoundStepBy25PercentAndThroughputBy20)
{
  StragglerSpec s;
  s.persistent_fraction = 1.0 / 100;
  s.persistent_speed = 0.8;
  const double factor = expected_step_factor(s, 100, 1.0);
  EXPECT_DOUBLE_EQ(factor, 1.25);
  EXPECT_NEAR(1 - 1 / factor, 0.20, 1e-12);  // throughput lost
  // Only the compute share stretches: at 70 % compute the step grows by 0.7 x 25 %.
  EXPECT_NEAR(expected_step_factor(s, 100, 0.7), 1 + 0.7 * 0.25, 1e-12);
  // Half a straggler rounds to none.
  s.persistent_fraction = 0.4 / 100;
  EXPECT_DOUBLE_EQ(expected_step_factor(s, 100, 1.0), 1.0);
}

TEST(Stragglers, HundredWorkersAtOnePercentSlowSixtyThreePercentOfSteps)
{
  EXPECT_NEAR(probability_step_slowed(0.01, 100), 1 - std::pow(0.99, 100), 1e-15);
  EXPECT_NEAR(probability_step_slowed(0.01, 100), 0.634, 5e-4);
  StragglerSpec s;
  s.transient_probability = 0.01;
  s.transient_speed = 0.5;
  EXPECT_NEAR(expected_step_factor(s, 100, 1.0), 1 + 0.633968, 1e-6);
  // A persistent straggler slower than the transient ones hides them.
  s.persistent_fraction = 0.01;
  s.persistent_speed = 0.4;
  EXPECT_DOUBLE_EQ(expected_step_factor(s, 100, 1.0), 2.5);
  EXPECT_DOUBLE_EQ(step_speed(s, 0.4, true), 0.4);  // both: the lower of the two speeds
  EXPECT_DOUBLE_EQ(step_speed(s, 1.0, true), 0.5);
  EXPECT_DOUBLE_EQ(step_speed(s, 0.4, false), 0.4);
  EXPECT_FALSE(StragglerSpec{}.any());
  EXPECT_TRUE(s.any());
}

TEST(Stragglers, TinyProbabilitiesStayAccurateAtFleetScale)
{
  // 2,048 nodes at q = 1e-9: k q - C(k, 2) q^2 (+ 1.4e-18) = 2.048e-6 - 2.1e-12 of steps, where
  // 1 - pow(1 - q, k) keeps only about 7 digits.
  EXPECT_NEAR(probability_step_slowed(1e-9, 2048), 2048e-9 - 2048.0 * 2047 / 2 * 1e-18, 1e-17);
  EXPECT_DOUBLE_EQ(probability_step_slowed(1.0, 3), 1.0);
  EXPECT_DOUBLE_EQ(probability_step_slowed(0.0, 3), 0.0);
}

}  // namespace
}  // namespace fleetsim::models

namespace fleetsim::models {
namespace {

TEST(Diurnal, SlowestAtThePeakFullSpeedHalfADayLaterAndAHalfAmplitudeOnAverage)
{
  StragglerSpec s;
  s.diurnal_amplitude = 0.02;
  s.diurnal_peak = 15 * 3600.0;
  EXPECT_DOUBLE_EQ(diurnal_speed(s, s.diurnal_peak), 0.98);
  EXPECT_DOUBLE_EQ(diurnal_speed(s, s.diurnal_peak + 7 * 86400.0), 0.98);  // every day
  EXPECT_NEAR(diurnal_speed(s, s.diurnal_peak + 12 * 3600.0), 1.0, 1e-15);
  double sum = 0;
  constexpr int kSamples = 86400;
  for (int i = 0; i < kSamples; ++i)
    sum += diurnal_speed(s, i);
  EXPECT_NEAR(sum / kSamples, 1 - 0.02 / 2, 1e-9);
  s.diurnal_amplitude = 0;
  EXPECT_EQ(diurnal_speed(s, 12345.0), 1.0);
}

TEST(StepFactor, ReducesToTheExpectedFactorAndScalesOnlyTheComputeShare)
{
  StragglerSpec s;
  s.persistent_fraction = 0.01;
  s.persistent_speed = 0.8;
  s.transient_probability = 1e-4;
  s.transient_speed = 0.5;
  // The fleet state "the slowest node is a persistent straggler, clocks at full speed" is the
  // expected model's.
  EXPECT_DOUBLE_EQ(step_factor(s, 200, 0.7, 0.8, 1.0), expected_step_factor(s, 200, 0.7));
  // No transients: (1 - c) + c / (slowest x clock).
  s.transient_probability = 0;
  EXPECT_DOUBLE_EQ(step_factor(s, 200, 0.7, 0.5, 1.0), 0.3 + 0.7 / 0.5);
  EXPECT_DOUBLE_EQ(step_factor(s, 200, 0.7, 1.0, 0.98), 0.3 + 0.7 / 0.98);
  EXPECT_DOUBLE_EQ(step_factor(s, 200, 0.0, 0.5, 0.9), 1.0);  // nothing to stretch
}

}  // namespace
}  // namespace fleetsim::models
