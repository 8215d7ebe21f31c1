// The fleet state machine driven directly (no SimGrid): the book's gang-scheduling and preemption
// examples, failures on busy and idle nodes, and the GPU-time ledger.

#include "models/fleet/fleet_state.hpp"
#include "models/core/invariant.hpp"

#include <gtest/gtest.h>

#include <memory>

namespace fm = fleetsim::models::fleet;

namespace {

constexpr double kMin = 60;

fm::JobSpec job(std::string id, double submit_min, long gpus, double work_min, int priority = 0)
{
  fm::JobSpec j;
  j.id = std::move(id);
  j.submit = submit_min * kMin;
  j.gpus = gpus;
  j.work = work_min * kMin;
  j.priority = priority;
  return j;
}

// Drives a FleetState through its arrivals and timers, as the simulator's actors do.
struct Driver {
  std::unique_ptr<fm::SchedulingPolicy> policy;
  std::unique_ptr<fm::FleetState> fleet;

  Driver(const std::string& policy_name, fm::FleetConfig cfg, const fm::Workload& w)
      : policy(fm::find_scheduling_policy(policy_name)->make())
  {
    fleet = std::make_unique<fm::FleetState>(std::move(cfg), w, *policy);
  }

  // Arrivals in order, timers in between, up to the horizon. `between` runs at given times.
  void run(const fm::Workload& w, double horizon, const std::vector<std::pair<double, std::function<void()>>>& at = {})
  {
    size_t next = 0;
    size_t next_at = 0;
    while (true) {
      double t_sub = next < w.size() ? w[next].submit : horizon;
      double t_at = next_at < at.size() ? at[next_at].first : horizon;
      double t_timer = fleet->next_timer().value_or(horizon);
      const double t = std::min({t_sub, t_at, t_timer, horizon});
      if (t >= horizon)
        break;
      if (t_timer <= t && t_timer < t_sub && t_timer < t_at)
        fleet->fire_timers(t);
      else if (t_sub <= t_at)
        fleet->submit(static_cast<long>(next++), t);
      else
        at[next_at++].second();
    }
    fleet->fire_timers(horizon);
    fleet->finish(horizon);
  }
};

fm::FleetConfig book_cluster()
{
  fm::FleetConfig c;
  c.nodes = 4;
  c.gpus_per_node = 8;
  c.nodes_per_rack = 2;
  c.horizon = 200 * kMin;
  c.timeline_interval = kMin;
  c.causes = {"node_fault"};
  c.detection = {0};
  return c;
}

double wait_min(const fm::FleetState& f, size_t j) { return f.jobs()[j].waited / kMin; }

}  // namespace

// The book's gang example: 16 GPUs x 50 min at 0, 24 GPUs x 6 min at 1 min, 8 GPUs x 3 min at 2 min.
TEST(FleetBook, FifoMakesTheShortJobWaitBehindTheBlockedOne)
{
  const fm::Workload w = {job("a", 0, 16, 50), job("b", 1, 24, 6), job("c", 2, 8, 3)};
  Driver d("fifo", book_cluster(), w);
  d.run(w, 200 * kMin);
  EXPECT_NEAR(wait_min(*d.fleet, 1), 49, 1e-9);
  EXPECT_NEAR(wait_min(*d.fleet, 2), 48, 1e-9);
}

TEST(FleetBook, BackfillStartsTheShortJobAtOnce)
{
  const fm::Workload w = {job("a", 0, 16, 50), job("b", 1, 24, 6), job("c", 2, 8, 3)};
  Driver d("easy_backfill", book_cluster(), w);
  d.run(w, 200 * kMin);
  EXPECT_NEAR(wait_min(*d.fleet, 1), 49, 1e-9);
  EXPECT_NEAR(wait_min(*d.fleet, 2), 0, 1e-9);
}

// Preemption: 32 GPUs x 50 min checkpointing every 12 min; a priority 8-GPU job of 3 min at 14 min.
TEST(FleetBook, FifoMakesThePriorityJobWait)
{
  fm::Workload w = {job("bg", 0, 32, 50), job("urgent", 14, 8, 3, 10)};
  w[0].checkpoint_interval = 12 * kMin;
  Driver d("fifo", book_cluster(), w);
  d.run(w, 200 * kMin);
  EXPECT_NEAR(wait_min(*d.fleet, 1), 36, 1e-9);
}

TEST(FleetBook, KillPreemptionCostsTheBackgroundJobTwoMinutes)
{
  fm::Workload w = {job("bg", 0, 32, 50), job("urgent", 14, 8, 3, 10)};
  w[0].checkpoint_interval = 12 * kMin;
  fm::FleetConfig c = book_cluster();
  c.preemption = fm::Preemption::Kill;
  Driver d("priority", c, w);
  d.run(w, 200 * kMin);
  const auto& f = *d.fleet;
  EXPECT_NEAR(wait_min(f, 1), 0, 1e-9);
  EXPECT_NEAR(f.jobs()[0].end / kMin, 55, 1e-9);
  EXPECT_NEAR(f.total().lost[fm::kPreemption] / kMin, 64, 1e-9);  // 32 GPUs x 2 min
  EXPECT_EQ(f.jobs()[0].preemptions, 1);
}

TEST(FleetBook, CheckpointPreemptionLosesNoWork)
{
  fm::Workload w = {job("bg", 0, 32, 50), job("urgent", 14, 8, 3, 10)};
  w[0].checkpoint_interval = 12 * kMin;
  w[0].checkpoint_cost = 1 * kMin;
  fm::FleetConfig c = book_cluster();
  c.preemption = fm::Preemption::Checkpoint;
  Driver d("priority", c, w);
  d.run(w, 200 * kMin);
  const auto& f = *d.fleet;
  // bg: checkpoint at 12-13 min, preempted at 14 with 1 min of work unsaved: writes it 14-15.
  EXPECT_NEAR(wait_min(f, 1), 1, 1e-9);
  EXPECT_NEAR(f.total().lost[fm::kPreemption] / kMin, 32, 1e-9);  // the 1-min checkpoint x 32 GPUs
  // Restarts at 18 with 13 min done: 37 left, 3 more checkpoints of 1 min: ends at 58.
  EXPECT_NEAR(f.jobs()[0].end / kMin, 58, 1e-9);
}

TEST(FleetFailures, ABusyNodeInterruptsExactlyItsJobAndAnIdleNodeNone)
{
  fm::Workload w = {job("a", 0, 16, 50), job("b", 0, 8, 50)};
  w[0].checkpoint_interval = 10 * kMin;
  Driver d("fifo", book_cluster(), w);
  d.run(w, 200 * kMin,
        {{25 * kMin, [&] { d.fleet->node_failure(0, 3, 1, 25 * kMin); }},    // node 3: idle
         {30 * kMin, [&] { d.fleet->node_failure(0, 0, 1, 30 * kMin); }}});  // node 0: job a
  const auto& f = *d.fleet;
  EXPECT_EQ(f.jobs()[0].interruptions, 1);
  EXPECT_EQ(f.jobs()[1].interruptions, 0);
  EXPECT_EQ(f.failures_on_idle(), 1);
  EXPECT_NEAR(f.total().lost[fm::kFirstFailureCause] / kMin, 0, 1e-9);  // a had just checkpointed at 30
  // a (nodes 0-1) checkpointed at 30 and is requeued; nodes 0 and 3 stay in repair and b holds node 2,
  // so a waits for b to end at 50, then does its last 20 min.
  EXPECT_NEAR(f.jobs()[0].end / kMin, 50 + 20, 1e-9);
}

TEST(FleetLedger, LostTimeAddsUpToAllocatedMinusProductive)
{
  fm::Workload w = {job("a", 0, 16, 50), job("b", 1, 24, 6), job("c", 2, 8, 3), job("d", 3, 3, 90)};
  for (auto& j : w) {
    j.checkpoint_interval = 7 * kMin;
    j.checkpoint_cost = 0.5 * kMin;
    j.restart_cost = 2 * kMin;
  }
  Driver d("easy_backfill", book_cluster(), w);
  d.run(w, 100 * kMin,
        {{20.3 * kMin, [&] { d.fleet->node_failure(0, 0, 2, 20.3 * kMin); }},
         {21 * kMin, [&] { d.fleet->repair_due(0, 40 * kMin); }}});
  const auto& t = d.fleet->total();
  EXPECT_GT(t.lost[fm::kFirstFailureCause], 0);
  EXPECT_GT(t.lost[fm::kCheckpoint], 0);
  EXPECT_NEAR(t.allocated, t.productive + t.lost_total(), 1e-6 * t.allocated);
}

TEST(FleetLedger, ALedgerThatDoesNotCloseIsAnInvariantViolation)
{
  fm::GpuTime g;
  g.allocated = 100;
  g.productive = 60;
  g.charge(fm::kCheckpoint, 40);
  EXPECT_NO_THROW(fm::check_closes(g, "test"));
  g.charge(fm::kStartup, 1);
  EXPECT_THROW(fm::check_closes(g, "test"), fleetsim::models::InvariantViolation);
}

// The ledger's allocated GPU-seconds (summed at each release) against the timeline's gpus_allocated
// column (a step function of the GPUs held): a GPU-second gone from both sides of the ledger still
// closes it, but not against the timeline.
TEST(FleetLedger, AllocatedGpuTimeThatTheTimelineDidNotHoldIsAnInvariantViolation)
{
  fm::Workload w = {job("a", 0, 16, 50), job("b", 1, 24, 6), job("c", 2, 8, 3), job("d", 3, 3, 90)};
  for (auto& j : w) {
    j.checkpoint_interval = 7 * kMin;
    j.checkpoint_cost = 0.5 * kMin;
    j.restart_cost = 2 * kMin;
  }
  Driver d("easy_backfill", book_cluster(), w);
  d.run(w, 100 * kMin, {{20.3 * kMin, [&] { d.fleet->node_failure(0, 0, 2, 20.3 * kMin); }}});
  const fm::GpuTime& total = d.fleet->total();
  EXPECT_NEAR(total.allocated, d.fleet->timeline().integral(fm::kAllocated), 1e-9 * total.allocated);
  EXPECT_NO_THROW(fm::check_allocated(total, d.fleet->timeline()));
  fm::GpuTime g = total;
  g.allocated -= 60;
  g.productive -= 60;
  EXPECT_NO_THROW(fm::check_closes(g, "test"));
  try {
    fm::check_allocated(g, d.fleet->timeline());
    ADD_FAILURE() << "the check did not fire";
  } catch (const fleetsim::models::InvariantViolation& v) {
    EXPECT_EQ(v.invariant(), "GPU time: allocated = the timeline's GPUs held");
  }
}

// Guards of the fleet's state machine and its cluster (preconditions, not comparisons): each fires
// when its operation is misused.
TEST(FleetGuards, ASecondSubmitOfAJobIsAnInvariantViolation)
{
  const fm::Workload w = {job("a", 0, 8, 5)};
  Driver d("fifo", book_cluster(), w);
  d.fleet->submit(0, 0);
  EXPECT_THROW(d.fleet->submit(0, 1), fleetsim::models::InvariantViolation);
}

TEST(FleetGuards, TakingGpusTwiceOrGivingBackMoreThanANodeHasIsAnInvariantViolation)
{
  fm::Cluster c(2, 8, 1, 0, 0);
  const auto p = c.place(8, fm::Packing::FirstFit);
  ASSERT_TRUE(p.has_value());
  c.take(*p);
  EXPECT_THROW(c.take(*p), fleetsim::models::InvariantViolation);  // no longer free
  auto projection = c.projection();
  projection.take(8);
  EXPECT_THROW(projection.give(*p), fleetsim::models::InvariantViolation);  // a give after a take
  c.give(*p);
  EXPECT_THROW(c.give(*p), fleetsim::models::InvariantViolation);  // 16 free GPUs on an 8-GPU node
  // (The cluster is left inconsistent by the violation: it is not used again.)
}
