#include "models/checkpoint/checkpoint_plan.hpp"
#include "models/resilience/run_plan.hpp"

#include <gtest/gtest.h>

#include <string>

namespace fleetsim::models {
namespace {

using units::kDay;
using units::Seconds;

// ---- steps_per_checkpoint -----------------------------------------------------------------------

TEST(StepsPerCheckpoint, RoundsToNearestWholeStepWhenIntervalIsNotAMultiple)
{
  // 600 / 6.28 = 95.54 -> 96 (rounded, not truncated to 95).
  EXPECT_EQ(steps_per_checkpoint(Seconds(600), Seconds(6.28)), 96);
  // 620 / 6.28 = 98.73 -> 99; 590 / 6.28 = 93.95 -> 94; 6.2 / 6.28 = 0.99 -> 1.
  EXPECT_EQ(steps_per_checkpoint(Seconds(620), Seconds(6.28)), 99);
  EXPECT_EQ(steps_per_checkpoint(Seconds(590), Seconds(6.28)), 94);
  // 302 / 6 = 50.33 -> 50 (rounded down, not up).
  EXPECT_EQ(steps_per_checkpoint(Seconds(302), Seconds(6)), 50);
}

TEST(StepsPerCheckpoint, GivesExactCountWhenIntervalIsAMultiple)
{
  EXPECT_EQ(steps_per_checkpoint(Seconds(1800), Seconds(6)), 300);
}

TEST(StepsPerCheckpoint, IsAtLeastOneWhenIntervalIsShorterThanAStep)
{
  EXPECT_EQ(steps_per_checkpoint(Seconds(1), Seconds(6)), 1);
  EXPECT_EQ(steps_per_checkpoint(Seconds(0), Seconds(6)), 1);
}

// ---- uniform_arrival_time -----------------------------------------------------------------------

TEST(UniformArrivalTime, IsKPlusOneHalfOverRate)
{
  EXPECT_DOUBLE_EQ(uniform_arrival_time(0, 2.0), 0.25);
  EXPECT_DOUBLE_EQ(uniform_arrival_time(3, 0.5), 7.0);
}

TEST(UniformArrivalTime, SpreadsEventsInsideTheWindowWhen47EventsOver54Days)
{
  const double window = 54 * kDay;
  const long n = 47;
  const double rate = static_cast<double>(n) / window;
  EXPECT_NEAR(uniform_arrival_time(0, rate), window / 94, 1e-6);
  const double last = uniform_arrival_time(n - 1, rate);
  EXPECT_NEAR(last, window * 93.0 / 94.0, 1e-6);
  EXPECT_LT(last, window);
  // Evenly spaced one period apart, half a period from each edge.
  EXPECT_NEAR(uniform_arrival_time(1, rate) - uniform_arrival_time(0, rate), window / n, 1e-6);
  EXPECT_NEAR(window - last, uniform_arrival_time(0, rate), 1e-6);
}

// ---- detection_delay ----------------------------------------------------------------------------

TEST(DetectionDelay, UsesCauseValueWhenSet)
{
  FailureCause c;
  c.detection = Seconds(300);
  EXPECT_EQ(detection_delay(c, Seconds(60)).si(), 300);
  c.detection = Seconds(0);  // an explicit zero is still the cause's own value
  EXPECT_EQ(detection_delay(c, Seconds(60)).si(), 0);
}

TEST(DetectionDelay, FallsBackToDefaultWhenCauseHasNone)
{
  const FailureCause c;
  EXPECT_EQ(detection_delay(c, Seconds(60)).si(), 60);
}

// ---- component_label ----------------------------------------------------------------------------

TEST(ComponentLabel, JoinsScopeNameAndIndexWhenScopeIsAComponent)
{
  EXPECT_EQ(component_label(Scope::Gpu, 12), "gpu:12");
  EXPECT_EQ(component_label(Scope::Node, 3), "node:3");
  EXPECT_EQ(component_label(Scope::Rack, 0), "rack:0");
  EXPECT_EQ(component_label(Scope::Gpu, 16383), "gpu:16383");
}

TEST(ComponentLabel, IsJobWithoutIndexWhenScopeIsJob)
{
  EXPECT_EQ(component_label(Scope::Job, 0), "job");
  EXPECT_EQ(component_label(Scope::Job, 7), "job");
}

}  // namespace
}  // namespace fleetsim::models

namespace fleetsim::models {
namespace {

TEST(RunPlanRates, RatePerSecondIsCountOverWindow)
{
  // 47 planned interruptions in 54 days: one every 27.6 hours.
  EXPECT_NEAR(1.0 / rate_per_second(47, units::Seconds(54 * units::kDay)), 54.0 * 24 / 47 * 3600, 1e-6);
  EXPECT_EQ(rate_per_second(0, units::Seconds(1)), 0.0);
}

TEST(RunPlanRates, CheckpointWriteTimeIsOverheadPlusBytesOverBandwidth)
{
  // Llama 3 scenario: 350 MB x 16,384 GPUs at 2 TB/s plus 10 s = 2.8672 s + 10 s.
  const auto t = checkpoint_write_time(units::Bytes(350e6 * 16384), units::BytesPerSecond(2e12), units::Seconds(10));
  EXPECT_NEAR(t.si(), 12.8672, 1e-9);
  EXPECT_NEAR(checkpoint_write_time(units::Bytes(3e11), units::BytesPerSecond(1e9), units::Seconds(0)).si(), 300, 1e-9);
}

}  // namespace
}  // namespace fleetsim::models

namespace fleetsim::models {
namespace {

TEST(ElasticRules, ReplicasOccupyWholeNodesRoundedUp)
{
  // Llama 3: a replica is TP 8 x PP 16 = 128 GPUs = 16 nodes of 8.
  EXPECT_EQ(nodes_for_replicas(128, 128, 8, 2048), 2048);
  EXPECT_EQ(nodes_for_replicas(127, 128, 8, 2048), 2032);
  // Replicas smaller than a node share it: 3 replicas of 4 GPUs need 2 nodes.
  EXPECT_EQ(nodes_for_replicas(3, 4, 8, 100), 2);
  EXPECT_EQ(nodes_for_replicas(300, 4, 8, 100), 100);  // never more than the job's nodes
}

TEST(ElasticRules, WidthIsTheMostWholeReplicasTheHealthyNodesHold)
{
  EXPECT_EQ(elastic_width(2048, 128, 8, 128, 2048), 128);
  EXPECT_EQ(elastic_width(2047, 128, 8, 128, 2048), 127);  // one node lost drops a whole replica
  EXPECT_EQ(elastic_width(2032, 128, 8, 128, 2048), 127);
  EXPECT_EQ(elastic_width(2031, 128, 8, 128, 2048), 126);
  EXPECT_EQ(elastic_width(5000, 128, 8, 128, 2048), 128);  // at most the layout's dp
  EXPECT_EQ(elastic_width(15, 128, 8, 128, 2048), 0);
  EXPECT_EQ(elastic_width(1, 4, 8, 100, 50), 2);  // two 4-GPU replicas on one node
}

TEST(ElasticRules, GlobalBatchKeptToWholeMicroBatchesOrPerReplicaBatchKept)
{
  const double seq = 8192;
  const double batch = 16.0 * seq * 128;  // 16 micro-batches per replica on 128 replicas
  EXPECT_DOUBLE_EQ(elastic_global_batch(batch, seq, 128, 128, true), batch);
  // 127 replicas: 16.13 micro-batches each rounds to 16 (0.8 % fewer tokens per step).
  EXPECT_DOUBLE_EQ(elastic_global_batch(batch, seq, 127, 128, true), 16.0 * seq * 127);
  // 120 replicas: 17.07 rounds to 17 (a slightly larger batch).
  EXPECT_DOUBLE_EQ(elastic_global_batch(batch, seq, 120, 128, true), 17.0 * seq * 120);
  EXPECT_DOUBLE_EQ(elastic_global_batch(batch, seq, 1, 128, true), 2048.0 * seq);
  EXPECT_DOUBLE_EQ(elastic_global_batch(batch, seq, 127, 128, false), batch / 128 * 127);
}

}  // namespace
}  // namespace fleetsim::models
