// The checkpoint rules the replay and a fleet's jobs share (models/checkpoint/checkpoint_plan.hpp).
#include "models/checkpoint/checkpoint_plan.hpp"

#include <gtest/gtest.h>

namespace fleetsim::models {
namespace {

TEST(CheckpointPlan, FilesPerCheckpointFollowTheLayoutOfTheFiles)
{
  EXPECT_EQ(checkpoint_files(CheckpointFiles::PerRank, 16384, 8), 16384);
  EXPECT_EQ(checkpoint_files(CheckpointFiles::PerNode, 16384, 8), 2048);
  EXPECT_EQ(checkpoint_files(CheckpointFiles::PerNode, 12, 8), 2) << "a partial node writes its own file";
  EXPECT_EQ(checkpoint_files(CheckpointFiles::Consolidated, 16384, 8), 1);
}

TEST(CheckpointPlan, ASyncCheckpointCostsItsWholeWriteAnAsyncOneItsPause)
{
  CheckpointSpec c;
  c.state_per_gpu = units::Bytes(2e9);
  c.write_overhead = units::Seconds(5);
  c.snapshot_bandwidth = units::BytesPerSecond(20e9);
  StorageSpec st;
  st.write_bandwidth = units::BytesPerSecond(1e12);
  const double bytes = 2e9 * 1024;
  CheckpointPlan sync = make_checkpoint_plan(c, bytes, 1024, 8);
  EXPECT_DOUBLE_EQ(checkpoint_cost(sync, st), 5 + bytes / 1e12);
  EXPECT_EQ(sync.files, 1024);
  EXPECT_EQ(sync.remote_every, 1) << "only multi_level drains every k-th snapshot";
  c.strategy = CheckpointStrategy::Async;
  const CheckpointPlan async = make_checkpoint_plan(c, bytes, 1024, 8);
  EXPECT_DOUBLE_EQ(async.snapshot_s, 2e9 / 20e9);
  EXPECT_DOUBLE_EQ(checkpoint_cost(async, st), 0.1);
  // Its write must drain before the host buffer is needed again: no shorter interval than that.
  EXPECT_DOUBLE_EQ(interval_spec(async, c, st).min_s, 5 + bytes / 1e12);
  EXPECT_DOUBLE_EQ(interval_spec(sync, c, st).min_s, 0);
  c.strategy = CheckpointStrategy::MultiLevel;
  c.remote_every = 4;
  const CheckpointPlan multi = make_checkpoint_plan(c, bytes, 1024, 8);
  EXPECT_EQ(multi.remote_every, 4);
  EXPECT_DOUBLE_EQ(interval_spec(multi, c, st).min_s, (5 + bytes / 1e12) / 4);
  c.snapshot_bandwidth = units::BytesPerSecond(0);
  EXPECT_DOUBLE_EQ(make_checkpoint_plan(c, bytes, 1024, 8).snapshot_s, 0) << "no snapshot bandwidth, no pause";
}

TEST(CheckpointPlan, AReadAloneGetsTheTightestOfItsCapsTheServersAndTheJobsNics)
{
  StorageSpec st;
  st.read_bandwidth = units::BytesPerSecond(3e12);
  EXPECT_DOUBLE_EQ(alone_read_rate(st, 1024, 8), 3e12);
  st.bandwidth = units::BytesPerSecond(1e12);
  EXPECT_DOUBLE_EQ(alone_read_rate(st, 1024, 8), 1e12);
  st.burst_bandwidth = units::BytesPerSecond(2e12);
  EXPECT_DOUBLE_EQ(alone_read_rate(st, 1024, 8), 2e12) << "a burst credit lifts the servers' cap";
  st.client_bandwidth = units::BytesPerSecond(10e9);
  EXPECT_DOUBLE_EQ(alone_read_rate(st, 1024, 8), 128 * 10e9);
}

TEST(CheckpointPlan, StepsBetweenCheckpointsAndSnapshotsAreWholeAndAtLeastOne)
{
  EXPECT_EQ(steps_per_checkpoint(units::Seconds(1800), units::Seconds(7)), 257);
  EXPECT_EQ(steps_per_checkpoint(units::Seconds(1), units::Seconds(7)), 1);
  EXPECT_EQ(steps_per_snapshot(0, 7), 1) << "0: every step";
  EXPECT_EQ(steps_per_snapshot(70, 7), 10);
}

}  // namespace
}  // namespace fleetsim::models
