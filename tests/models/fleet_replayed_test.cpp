// A replayed job in the fleet's state machine (JobSpec::replayed), driven directly: it starts at its
// submit and its runtime is told so, the fleet leaves its nodes' and the spares' failures to it, and
// its trace's accounting enters the fleet's ledger and timeline (models/fleet/replayed_time.hpp).

#include "models/core/invariant.hpp"
#include "models/fleet/fleet_state.hpp"
#include "models/fleet/replayed_time.hpp"

#include <gtest/gtest.h>

#include <memory>

namespace fm = fleetsim::models::fleet;
namespace m = fleetsim::models;

namespace {

constexpr double kHour = 3600;

// 4 nodes of 8 GPUs (the last a spare), 10 hours; one failure cause.
fm::FleetConfig cluster()
{
  fm::FleetConfig c;
  c.nodes = 4;
  c.gpus_per_node = 8;
  c.nodes_per_rack = 2;
  c.spare_nodes = 1;
  c.horizon = 10 * kHour;
  c.timeline_interval = kHour;
  c.causes = {"node_fault"};
  c.detection = {60};
  c.extra_causes.assign(fm::kReplayedLossCauses.begin(), fm::kReplayedLossCauses.end());
  c.spares_replayed = true;
  return c;
}

fm::Workload workload()
{
  fm::JobSpec replayed;
  replayed.id = "hero";
  replayed.gpus = 16;
  replayed.replayed = true;
  replayed.preemptible = false;
  fm::JobSpec small;
  small.id = "small";
  small.gpus = 8;
  small.work = 2 * kHour;
  small.submit = 1;
  small.recovery = fm::JobRecovery::InPlace;
  return {replayed, small};
}

// A replayed job's report: 10 h, of which 7 h of tokens, 2 h lost to node_fault, 0.5 h checkpoints,
// 0.5 h maintenance; training rows over [0, 3 h) and [4 h, 9 h) on 16 GPUs.
m::GoodputReport report()
{
  m::GoodputReport r;
  r.elapsed = 10 * kHour;
  r.goodput_s = 7 * kHour;
  r.lost_by_cause = {{"node_fault", 2 * kHour}, {"checkpoint", 0.5 * kHour}, {"planned", 0.5 * kHour}};
  r.unexpected = 3;
  m::TimelineRow a;
  a.t_begin = 0;
  a.t_end = 3 * kHour;
  a.active_gpus = 16;
  m::TimelineRow gap = a;
  gap.t_begin = 3 * kHour;
  gap.t_end = 4 * kHour;
  gap.phase = m::Phase::Restart;
  m::TimelineRow b = a;
  b.t_begin = 4 * kHour;
  b.t_end = 9 * kHour;
  r.timeline = {a, gap, b};
  return r;
}

struct Fleet {
  std::unique_ptr<fm::SchedulingPolicy> policy = fm::find_scheduling_policy("fifo")->make();
  fm::Workload w = workload();
  fm::FleetState state{cluster(), w, *policy};
};

}  // namespace

TEST(ReplayedTime, MapsTheReplaysAccountingOntoTheFleetsTerms)
{
  const fm::ReplayedTime t = fm::replayed_time(report());
  EXPECT_DOUBLE_EQ(t.productive_s, 7 * kHour);
  double lost = 0;
  for (const auto& [cause, s] : t.lost_s)
    lost += s;
  EXPECT_DOUBLE_EQ(t.productive_s + lost, 10 * kHour);
  ASSERT_EQ(t.training.size(), 2U);  // the restart row is not training
  EXPECT_DOUBLE_EQ(t.training[1].t_begin, 4 * kHour);
  EXPECT_EQ(t.training[1].gpus, 16);
  EXPECT_EQ(t.interruptions, 3);
}

TEST(FleetReplayed, StartsAtItsSubmitAndItsRuntimeIsTold)
{
  Fleet f;
  f.state.submit(0, 0);
  EXPECT_EQ(f.state.take_started_replayed(), std::vector<long>{0});
  EXPECT_TRUE(f.state.take_started_replayed().empty());
  EXPECT_EQ(f.state.jobs()[0].state, fm::JobState::Running);
  EXPECT_EQ(f.state.jobs()[0].held, 16);
}

TEST(FleetReplayed, ItsNodesAndTheSparesFailOnlyInItsRuntime)
{
  Fleet f;
  f.state.submit(0, 0);   // nodes 0 and 1
  f.state.submit(1, 1);   // node 2; node 3 is the spare
  // The fleet's draw on the replayed job's node and on the spare takes nothing down.
  EXPECT_TRUE(f.state.node_failure(0, 0, 2, 100).empty());
  EXPECT_TRUE(f.state.node_failure(0, 3, 1, 100).empty());
  EXPECT_EQ(f.state.jobs()[0].interruptions, 0);
  // The small job's node fails: it cannot take the spare (the replayed job's) and waits in the queue.
  EXPECT_EQ(f.state.node_failure(0, 2, 1, 200), std::vector<long>{2});
  f.state.fire_timers(300);
  EXPECT_EQ(f.state.jobs()[1].interruptions, 1);
  EXPECT_EQ(f.state.jobs()[1].state, fm::JobState::Waiting);
  EXPECT_EQ(f.state.in_place_recoveries(), 0);
}

TEST(FleetReplayed, ItsTraceEntersTheLedgerAndTheTimeline)
{
  Fleet f;
  f.state.submit(0, 0);
  f.state.close_replayed(0, fm::replayed_time(report()), 10 * kHour);
  f.state.finish(10 * kHour);  // checks that every ledger closes
  const fm::JobRecord& r = f.state.jobs()[0];
  EXPECT_DOUBLE_EQ(r.time.allocated, 16 * 10 * kHour);
  EXPECT_DOUBLE_EQ(r.time.productive, 16 * 7 * kHour);
  EXPECT_DOUBLE_EQ(r.time.lost[static_cast<size_t>(f.state.loss_cause("node_fault"))], 16 * 2 * kHour);
  EXPECT_DOUBLE_EQ(r.time.lost[fm::kCheckpoint], 16 * 0.5 * kHour);
  EXPECT_DOUBLE_EQ(r.time.lost[static_cast<size_t>(f.state.loss_cause("planned"))], 16 * 0.5 * kHour);
  EXPECT_EQ(f.state.interruptions(), 3);
  // The timeline trains 16 GPUs in hours 0-2 and 4-8, none in hour 3.
  EXPECT_DOUBLE_EQ(f.state.timeline().mean(fm::kTraining, 2), 16);
  EXPECT_DOUBLE_EQ(f.state.timeline().mean(fm::kTraining, 3), 0);
  EXPECT_DOUBLE_EQ(f.state.timeline().mean(fm::kTraining, 9), 0);
  EXPECT_DOUBLE_EQ(f.state.timeline().integral(fm::kTraining), 16 * 8 * kHour);
}

TEST(FleetReplayed, ALossWithoutAFleetCauseOrAnUnclosedJobIsAnInvariantViolation)
{
  Fleet f;
  f.state.submit(0, 0);
  fm::ReplayedTime t = fm::replayed_time(report());
  t.lost_s.emplace_back("cosmic_rays", 1.0);
  EXPECT_THROW(f.state.close_replayed(0, t, 10 * kHour), m::InvariantViolation);
  Fleet g;
  g.state.submit(0, 0);
  EXPECT_THROW(g.state.finish(10 * kHour), m::InvariantViolation);  // its runtime never closed it
}
