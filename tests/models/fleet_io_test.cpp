// FleetState for jobs whose checkpoints go through the storage (checkpoint_bytes > 0), driven by
// hand as the simulator does: the state asks for each transfer, the test says when it completes.

#include "models/fleet/fleet_state.hpp"

#include <gtest/gtest.h>

#include <memory>

namespace fm = fleetsim::models::fleet;

namespace {

constexpr double kMin = 60;

struct Storing {
  std::unique_ptr<fm::SchedulingPolicy> policy = fm::find_scheduling_policy("fifo")->make();
  fm::Workload w;
  std::unique_ptr<fm::FleetState> fleet;

  explicit Storing(bool async = false)
  {
    fm::JobSpec j;
    j.id = "storing";
    j.gpus = 16;
    j.work = 30 * kMin;
    j.checkpoint_interval = 10 * kMin;
    j.checkpoint_cost = 1 * kMin;  // the estimate only
    j.restart_cost = 2 * kMin;
    j.checkpoint_bytes = 1e12;
    j.checkpoint_async = async;
    j.snapshot_cost = 6;  // s
    w.push_back(j);
    fm::FleetConfig c;
    c.nodes = 2;
    c.gpus_per_node = 8;
    c.nodes_per_rack = 2;
    c.horizon = 1000 * kMin;
    c.timeline_interval = kMin;
    c.causes = {"crash"};
    c.detection = {1 * kMin};
    fleet = std::make_unique<fm::FleetState>(c, w, *policy);
  }
  // Fires the timers up to t (each at its own time) and returns the transfers asked for.
  std::vector<fm::IoRequest> at(double t)
  {
    fleet->fire_timers(t);
    return fleet->take_io();
  }
};

TEST(FleetIo, ACheckpointIsAWriteTheJobWaitsForAndCommitsWhenItCompletes)
{
  Storing f;
  f.fleet->submit(0, 0);
  EXPECT_TRUE(f.at(11.9 * kMin).empty());  // restart 2 min, then 10 min of training
  auto io = f.at(12 * kMin);
  ASSERT_EQ(io.size(), 1U);
  EXPECT_TRUE(io[0].write);
  EXPECT_DOUBLE_EQ(io[0].bytes, 1e12);
  EXPECT_EQ(f.fleet->jobs()[0].state, fm::JobState::Checkpointing);
  // The write takes 3 min, three times the estimate: the job resumes then.
  f.fleet->io_done(0, io[0].epoch, 15 * kMin);
  EXPECT_EQ(f.fleet->jobs()[0].state, fm::JobState::Running);
  EXPECT_DOUBLE_EQ(f.fleet->jobs()[0].committed, 10 * kMin);
  io = f.at(25 * kMin);
  ASSERT_EQ(io.size(), 1U);
  f.fleet->io_done(0, io[0].epoch, 26 * kMin);
  // The last 10 min need no checkpoint: done at 36 min.
  EXPECT_TRUE(f.at(36 * kMin).empty());
  EXPECT_EQ(f.fleet->jobs()[0].state, fm::JobState::Done);
  EXPECT_DOUBLE_EQ(f.fleet->jobs()[0].end, 36 * kMin);
  f.fleet->finish(1000 * kMin);
  const auto& t = f.fleet->jobs()[0].time;
  EXPECT_NEAR(t.lost[fm::kCheckpoint], 16 * 4 * kMin, 1e-6);  // 3 + 1 min of writes on 16 GPUs
  EXPECT_NEAR(t.productive, 16 * 30 * kMin, 1e-6);
}

TEST(FleetIo, AFailureDuringAWriteLosesThatCheckpointAndARestartReadsTheLastOneBack)
{
  Storing f;
  f.fleet->submit(0, 0);
  auto io = f.at(12 * kMin);
  f.fleet->io_done(0, io[0].epoch, 13 * kMin);  // checkpoint 1: 10 min saved
  io = f.at(23 * kMin);                         // checkpoint 2 falls due
  ASSERT_EQ(io.size(), 1U);
  const long stale = io[0].epoch;
  f.fleet->node_failure(0, 0, 1, 24 * kMin);  // mid-write
  io = f.fleet->take_io();
  ASSERT_EQ(io.size(), 1U);
  EXPECT_TRUE(io[0].abort);               // the simulator cancels the write
  f.fleet->io_done(0, stale, 25 * kMin);  // a completion that raced the failure changes nothing
  EXPECT_DOUBLE_EQ(f.fleet->jobs()[0].committed, 10 * kMin);
  // Detected at 25 min, requeued; it needs both nodes, one is in repair.
  f.fleet->fire_timers(25 * kMin);
  f.fleet->repair_due(0, 40 * kMin);
  io = f.at(40 * kMin);
  EXPECT_TRUE(io.empty());  // restarting: 2 min before the read
  io = f.at(42 * kMin);
  ASSERT_EQ(io.size(), 1U);
  EXPECT_FALSE(io[0].write);  // the restore reads checkpoint 1 back
  EXPECT_EQ(f.fleet->jobs()[0].state, fm::JobState::Restoring);
  f.fleet->io_done(0, io[0].epoch, 44 * kMin);
  EXPECT_EQ(f.fleet->jobs()[0].state, fm::JobState::Running);
  f.fleet->finish(44 * kMin);
  const auto& t = f.fleet->jobs()[0].time;
  // Charged to the crash on 16 GPUs: the failed checkpoint's 10 min of training, 1 min of detection,
  // and the restart it caused (2 min, then the 2 min read).
  EXPECT_NEAR(t.lost[fm::kFirstFailureCause], 16 * (10 + 1 + 2 + 2) * kMin, 1e-6);
  EXPECT_NEAR(t.lost[fm::kCheckpoint], 16 * (1 + 1) * kMin, 1e-6);  // checkpoint 1, and 2 until the crash
}

TEST(FleetIo, AnAsyncCheckpointStallsForItsSnapshotThenTrainsWhileTheWriteDrains)
{
  Storing f(true);
  f.fleet->submit(0, 0);
  EXPECT_TRUE(f.at(12 * kMin).empty());  // due: the 6 s snapshot first
  EXPECT_EQ(f.fleet->jobs()[0].state, fm::JobState::Checkpointing);
  auto io = f.at(12 * kMin + 6);
  ASSERT_EQ(io.size(), 1U);
  EXPECT_TRUE(io[0].write);
  EXPECT_EQ(f.fleet->jobs()[0].state, fm::JobState::Running);  // training on while it drains
  EXPECT_DOUBLE_EQ(f.fleet->jobs()[0].committed, 0);
  f.fleet->io_done(0, io[0].epoch, 15 * kMin);  // drained after 3 min: it counts
  EXPECT_DOUBLE_EQ(f.fleet->jobs()[0].committed, 10 * kMin);
  // The next is due 10 min of training after the snapshot, and the last 10 min need none: the job
  // trains 30 min in 36 min 12 s, two snapshots of stall.
  io = f.at(22 * kMin + 12);
  ASSERT_EQ(io.size(), 1U);
  f.fleet->io_done(0, io[0].epoch, 23 * kMin);
  EXPECT_TRUE(f.at(32 * kMin + 12).empty());
  EXPECT_EQ(f.fleet->jobs()[0].state, fm::JobState::Done);
  f.fleet->finish(1000 * kMin);
  const auto& t = f.fleet->jobs()[0].time;
  EXPECT_NEAR(t.lost[fm::kCheckpoint], 16 * 12.0, 1e-6);
  EXPECT_NEAR(t.productive, 16 * 30 * kMin, 1e-6);
}

TEST(FleetIo, AnAsyncCheckpointWaitsForTheDrainInFlightAndAFailureMidDrainLosesIt)
{
  Storing f(true);
  f.fleet->submit(0, 0);
  auto io = f.at(12 * kMin + 6);
  ASSERT_EQ(io.size(), 1U);
  // The drain is slow: the next checkpoint falls due at 22 min 6 s and waits for the host buffer.
  EXPECT_TRUE(f.at(22 * kMin + 6).empty());
  EXPECT_EQ(f.fleet->jobs()[0].state, fm::JobState::Checkpointing);
  f.fleet->io_done(0, io[0].epoch, 25 * kMin);  // drained: the waiting checkpoint snapshots now
  EXPECT_DOUBLE_EQ(f.fleet->jobs()[0].committed, 10 * kMin);
  io = f.at(25 * kMin + 6);
  ASSERT_EQ(io.size(), 1U);
  EXPECT_EQ(f.fleet->jobs()[0].state, fm::JobState::Running);
  // A failure before the second drain completes loses its 10 min with the 1 min trained since.
  f.fleet->node_failure(0, 0, 1, 26 * kMin + 6);
  io = f.fleet->take_io();
  ASSERT_EQ(io.size(), 1U);
  EXPECT_TRUE(io[0].abort);
  EXPECT_DOUBLE_EQ(f.fleet->jobs()[0].committed, 10 * kMin);
  f.fleet->finish(26 * kMin + 6);
  const auto& t = f.fleet->jobs()[0].time;
  EXPECT_NEAR(t.lost[fm::kFirstFailureCause], 16 * 11 * kMin, 1e-6);
  EXPECT_NEAR(t.lost[fm::kCheckpoint], 16 * (6 + (3 * kMin - 6) + 6), 1e-6);  // snapshot, wait, snapshot
}

}  // namespace
