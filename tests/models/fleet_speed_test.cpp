// A job's progress at a speed below 1 (a shared fabric slows its training, not its restarts or
// checkpoint stalls) and a segment re-based part-way through a cycle (job_progress.hpp), then the
// same in the fleet's state: FleetState::set_speed moves the job's end and charges the slow
// training to the "contention" loss cause, and the ledger still closes.

#include "models/core/invariant.hpp"
#include "models/fleet/fleet_state.hpp"
#include "models/fleet/job_progress.hpp"
#include "models/fleet/shared_speed.hpp"

#include <gtest/gtest.h>

#include <memory>

namespace fm = fleetsim::models::fleet;
namespace m = fleetsim::models;

namespace {

TEST(SegmentSpeed, AHalfSpeedJobTrainsTwiceAsLongButStallsAsLong)
{
  fm::Segment s{0, 60, 100, 10};
  s.speed = 0.5;
  // 250 s of work: 60 s restart, 500 s training, two checkpoints of 10 s.
  EXPECT_DOUBLE_EQ(fm::finish_time(s, 250), 60 + 500 + 2 * 10);
  const fm::SegmentState st = fm::segment_at(s, 60 + 200 + 10 + 50);  // 100 work, a checkpoint, 25 work
  EXPECT_DOUBLE_EQ(st.work, 125);
  EXPECT_DOUBLE_EQ(st.committed, 100);
  EXPECT_DOUBLE_EQ(st.checkpointing, 10);
  EXPECT_DOUBLE_EQ(st.training, 250);
}

TEST(SegmentSpeed, ARebasedSegmentEndsWhereTheOriginalWould)
{
  const fm::Segment s{5, 60, 100, 10};
  const double work = 437;
  for (double t = 5; t < fm::finish_time(s, work); t += 7.25) {
    const fm::SegmentState st = fm::segment_at(s, t);
    const fm::Segment r = fm::rebase(s, t, 1);
    // Work still to do, counted from the last checkpoint before the re-based segment.
    EXPECT_NEAR(fm::finish_time(r, work - st.committed), fm::finish_time(s, work), 1e-9) << "t=" << t;
    EXPECT_NEAR(fm::segment_at(r, 650).work + st.committed, fm::segment_at(s, 650).work, 1e-9) << "t=" << t;
    // Every second of a segment is restart, checkpoint stall or training.
    const fm::SegmentState later = fm::segment_at(r, t + 123);
    EXPECT_NEAR(later.restart_spent + later.checkpointing + later.training, 123, 1e-9) << "t=" << t;
  }
}

TEST(SegmentSpeed, ACheckpointUnderWayAtTheRebaseSavesTheCarriedWork)
{
  const fm::Segment s{0, 0, 100, 10};
  const fm::Segment r = fm::rebase(s, 104, 0.5);  // 4 s into the first checkpoint
  EXPECT_DOUBLE_EQ(r.carried, 100);
  EXPECT_DOUBLE_EQ(r.stall, 6);
  EXPECT_DOUBLE_EQ(fm::segment_at(r, 109).committed, 0);
  EXPECT_DOUBLE_EQ(fm::segment_at(r, 110).committed, 100);
  // 50 more work at half speed: 100 s after the checkpoint.
  EXPECT_DOUBLE_EQ(fm::finish_time(r, 150), 110 + 100);
}

constexpr double kHour = 3600;

fm::FleetConfig cluster(bool shared_fabric)
{
  fm::FleetConfig c;
  c.nodes = 4;
  c.gpus_per_node = 8;
  c.nodes_per_rack = 2;
  c.horizon = 10 * kHour;
  c.timeline_interval = kHour;
  if (shared_fabric)
    c.extra_causes = {"contention"};
  return c;
}

fm::JobSpec job(double interval)
{
  fm::JobSpec j;
  j.id = "j";
  j.gpus = 16;
  j.work = 1000;
  j.restart_cost = 100;
  j.checkpoint_interval = interval;
  j.checkpoint_cost = interval > 0 ? 10 : 0;
  return j;
}

TEST(FleetSpeed, AJobSlowedToHalfSpeedEndsLaterAndChargesContention)
{
  const std::unique_ptr<fm::SchedulingPolicy> policy = fm::find_scheduling_policy("fifo")->make();
  fm::FleetState state{cluster(true), {job(0)}, *policy};
  state.submit(0, 0);
  EXPECT_EQ(state.take_placement_changes(), std::vector<long>{0});
  EXPECT_EQ(state.placement_of(0).parts.size(), 2U);
  state.set_speed(0, 0.5, 300);  // 200 s of work done at full speed
  state.fire_timers(1899);
  const fm::JobRecord& r = state.jobs()[0];
  EXPECT_EQ(r.state, fm::JobState::Running);
  state.fire_timers(300 + 800 / 0.5);
  EXPECT_EQ(r.state, fm::JobState::Done);
  EXPECT_NEAR(r.time.productive, 16 * 1000.0, 1e-6);
  EXPECT_NEAR(r.time.lost[static_cast<size_t>(state.loss_cause("contention"))], 16 * 800.0, 1e-6);
  EXPECT_NEAR(r.time.lost[fm::kStartup], 16 * 100.0, 1e-6);
  EXPECT_EQ(state.take_placement_changes(), std::vector<long>{0});  // released
  state.finish(10 * kHour);  // the ledger closes (checked inside)
}

TEST(FleetSpeed, AFailureAfterASlowSpellLosesOnlyTheWorkSinceTheCheckpoint)
{
  const std::unique_ptr<fm::SchedulingPolicy> policy = fm::find_scheduling_policy("fifo")->make();
  fm::FleetConfig c = cluster(true);
  c.causes = {"fault"};
  c.detection = {0};
  fm::FleetState state{c, {job(200)}, *policy};
  state.submit(0, 0);
  state.set_speed(0, 0.5, 200);    // 100 s of work at full speed
  state.set_speed(0, 1.0, 400);    // 100 more at half speed: the checkpoint of 200 starts
  state.gpu_job_failure(0, 3, 450);  // 40 s after it: saved; 40 s of work since
  state.fire_timers(450);
  const fm::JobRecord& r = state.jobs()[0];
  EXPECT_DOUBLE_EQ(r.committed, 200);
  EXPECT_NEAR(r.time.lost[static_cast<size_t>(state.loss_cause("contention"))], 16 * 100.0, 1e-6);
  EXPECT_NEAR(r.time.lost[static_cast<size_t>(state.loss_cause("fault"))], 16 * 40.0, 1e-6);
  state.finish(10 * kHour);
}

// Data loading that gets half its rate binds below the fabric's 0.8: the job trains at 0.5; of the
// time lost, what 0.8 would have cost is contention, the rest waits for data.
TEST(FleetSpeed, DataLoadingBelowTheFabricsSpeedIsADataStall)
{
  const std::unique_ptr<fm::SchedulingPolicy> policy = fm::find_scheduling_policy("fifo")->make();
  fm::FleetConfig c = cluster(true);
  c.extra_causes.emplace_back("data_stall");
  fm::FleetState state{c, {job(0)}, *policy};
  state.submit(0, 0);
  state.set_speed(0, 0.8, 300);       // 200 s of work done
  state.set_data_ratio(0, 0.5, 300);  // 800 s of work left at 0.5
  state.fire_timers(300 + 800 / 0.5);
  const fm::JobRecord& r = state.jobs()[0];
  EXPECT_EQ(r.state, fm::JobState::Done);
  EXPECT_NEAR(r.time.lost[static_cast<size_t>(state.loss_cause("contention"))], 16 * 800 * (1 / 0.8 - 1), 1e-6);
  EXPECT_NEAR(r.time.lost[static_cast<size_t>(state.loss_cause("data_stall"))], 16 * 800 * (1 / 0.5 - 1 / 0.8), 1e-6);
  EXPECT_NEAR(r.time.productive, 16 * 1000.0, 1e-6);
  state.finish(10 * kHour);
}

TEST(FleetSpeed, ASlowJobWithoutASharedFabricBreaksAnInvariant)
{
  const std::unique_ptr<fm::SchedulingPolicy> policy = fm::find_scheduling_policy("fifo")->make();
  fm::FleetState state{cluster(false), {job(0)}, *policy};
  state.submit(0, 0);
  state.set_speed(0, 0.5, 300);
  EXPECT_THROW(state.fire_timers(2000), m::InvariantViolation);
}

}  // namespace

namespace {

// The speeds the shared fabric and data loading give (models/fleet/shared_speed.hpp).
TEST(SharedSpeed, ASlowestHopAtAQuarterOfItsNicStretchesTheCommunicationFourfold)
{
  // f = 0.3 of the step is communication; 4 x as long: 1 + 0.3 x 3.
  EXPECT_DOUBLE_EQ(fm::fabric_slowdown(400e9, 100e9, 0.3), 1.9);
  // Communicating 0.3 x 4 of 1.9.
  EXPECT_DOUBLE_EQ(fm::communicating_share(400e9, 100e9, 0.3), 1.2 / 1.9);
  // At its NIC's rate, to the reading's precision: not slowed; alone it communicates f of the time.
  EXPECT_EQ(fm::fabric_slowdown(400e9, 400e9 * (1 - 1e-8), 0.3), 1.0);
  EXPECT_DOUBLE_EQ(fm::communicating_share(400e9, 400e9, 0.3), 0.3);
  EXPECT_EQ(fm::fabric_slowdown(400e9, 1e9, 0), 1.0);  // nothing to stretch
}

TEST(SharedSpeed, DataArrivingAtAShareOfItsRateCapsTheJobAtThatShare)
{
  EXPECT_DOUBLE_EQ(fm::data_ratio(60e9, 100e9), 0.6);
  EXPECT_EQ(fm::data_ratio(100e9 * (1 - 1e-8), 100e9), 1.0);
  EXPECT_EQ(fm::data_ratio(200e9, 100e9), 1.0);
  EXPECT_GT(fm::data_ratio(0, 100e9), 0);  // a job starved of data still ends (no division by zero)
}

}  // namespace
