// One node pool, many jobs: each job a slot table over the same nodes, drawing replacements from the
// same idle nodes (models/resilience/node_pool.hpp). The single-job cases are node_pool_test.cpp.
#include "models/core/check.hpp"
#include "models/resilience/node_pool.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <vector>

namespace fleetsim::models {
namespace {

// Every node's state agrees with the slot tables: an active node holds exactly one slot of one job,
// which points back at it; idle and repaired nodes hold none; the counters add up per job and in all.
void expect_consistent(const NodePool& pool)
{
  std::map<long, long> held;  // job -> nodes holding its slots
  long active = 0;
  long idle = 0;
  for (long n = 0; n < pool.size(); ++n) {
    const long job = pool.job_of(n);
    if (pool.state(n) == NodeState::Active) {
      ++active;
      ASSERT_GE(job, 0) << "active node " << n << " holds no job's slot";
      EXPECT_EQ(pool.node_in(job, pool.slot_of(n)), n) << "node " << n << "'s slot points elsewhere";
      EXPECT_LT(pool.slot_of(n), pool.used_slots(job)) << "active node " << n << " beyond its job's width";
      ++held[job];
    } else {
      idle += pool.state(n) == NodeState::Idle ? 1 : 0;
      EXPECT_EQ(job, -1) << "node " << n << " is not active but holds a slot";
      EXPECT_EQ(pool.slot_of(n), -1) << "node " << n;
    }
  }
  EXPECT_EQ(pool.active(), active);
  EXPECT_EQ(pool.idle(), idle);
  for (long j = 0; j < pool.jobs(); ++j) {
    EXPECT_EQ(pool.active(j), held[j]) << "job " << j;
    EXPECT_EQ(pool.used_slots(j) - pool.empty_slots(j), pool.active(j)) << "job " << j;
  }
}

std::vector<long> range(long first, long count)
{
  std::vector<long> out;
  for (long n = first; n < first + count; ++n)
    out.push_back(n);
  return out;
}

TEST(NodePoolJobs, AnEmptyPoolHasEveryNodeIdleAndNoJob)
{
  const NodePool pool(12, 4, LemonSpec{}, 1);
  EXPECT_EQ(pool.size(), 12);
  EXPECT_EQ(pool.jobs(), 0);
  EXPECT_EQ(pool.idle(), 12);
  EXPECT_EQ(pool.active(), 0);
  EXPECT_EQ(pool.racks(), 3);
  expect_consistent(pool);
}

TEST(NodePoolJobs, JobsPlacedOnTheirOwnNodesHoldThemInSlotOrder)
{
  NodePool pool(12, 4, LemonSpec{}, 1);
  const long a = pool.add_job(4);
  const long b = pool.add_job(3);
  EXPECT_EQ(a, 0);
  EXPECT_EQ(b, 1);
  pool.place(a, {4, 5, 6, 7});
  pool.place(b, {9, 0, 2});  // a scattered placement keeps its rank order
  EXPECT_EQ(pool.job_of(5), a);
  EXPECT_EQ(pool.slot_of(5), 1);
  EXPECT_EQ(pool.node_in(b, 1), 0);
  EXPECT_EQ(pool.job_of(0), b);
  EXPECT_EQ(pool.active(a), 4);
  EXPECT_EQ(pool.active(b), 3);
  EXPECT_EQ(pool.idle(), 5);
  expect_consistent(pool);
}

TEST(NodePoolJobs, AFailureTellsEachStruckJobItsOwnSlots)
{
  NodePool pool(8, 4, LemonSpec{}, 1);
  const long a = pool.add_job(2);
  const long b = pool.add_job(2);
  pool.place(a, {2, 3});
  pool.place(b, {4, 5});
  // A rack of four nodes (0-3) goes down: two idle nodes and both of a's; b is untouched.
  const NodePool::Hit rack = pool.fail(0, 4, 0, false);
  EXPECT_EQ(rack.nodes, range(0, 4));
  EXPECT_EQ(rack.slots_of(a), (std::vector<long>{0, 1}));
  EXPECT_TRUE(rack.slots_of(b).empty());
  EXPECT_EQ(pool.empty_slots(a), 2);
  EXPECT_EQ(pool.empty_slots(b), 0);
  // Nodes 3 and 4: one already down, one of b's.
  const NodePool::Hit next = pool.fail(3, 2, 10, false);
  EXPECT_EQ(next.nodes, (std::vector<long>{4}));
  EXPECT_EQ(next.slots_of(b), (std::vector<long>{0}));
  EXPECT_TRUE(next.slots_of(a).empty());
  expect_consistent(pool);
}

// Two hot-spare jobs share two spare nodes: the first failure of each takes one; a third failure
// finds none, and its job waits (an empty slot) until a repair returns a node -- to that job, since
// the other holds all of its slots.
TEST(NodePoolJobs, TwoJobsShareTheSparesAndTheSecondWaitsWhenTheyAreGone)
{
  NodePool pool(10, 4, LemonSpec{}, 1);
  const long a = pool.add_job(4);
  const long b = pool.add_job(4);
  pool.place(a, range(0, 4));
  pool.place(b, range(4, 4));  // nodes 8 and 9 stay idle: the spares
  ASSERT_EQ(pool.idle(), 2);

  (void)pool.fail(1, 1, 0, true);
  EXPECT_EQ(pool.fill(a, 4), 0);
  EXPECT_EQ(pool.node_in(a, 1), 8);  // the lowest idle node
  (void)pool.fail(6, 1, 1, true);
  EXPECT_EQ(pool.fill(b, 4), 0);
  EXPECT_EQ(pool.node_in(b, 2), 9);
  EXPECT_EQ(pool.idle(), 0);

  (void)pool.fail(4, 1, 2, true);
  EXPECT_EQ(pool.fill(b, 4), 1) << "no idle node left: b waits with an empty slot";
  EXPECT_EQ(pool.node_in(b, 0), -1);
  EXPECT_EQ(pool.active(a), 4) << "a's nodes are not b's to take";
  expect_consistent(pool);

  pool.repaired(1);  // a's first failed node comes back idle, and b takes it
  EXPECT_EQ(pool.fill(b, 4), 0);
  EXPECT_EQ(pool.node_in(b, 0), 1);
  EXPECT_EQ(pool.job_of(1), b);
  expect_consistent(pool);
}

TEST(NodePoolJobs, AShrinkingJobLetsItsNodesGoToAnother)
{
  NodePool pool(8, 4, LemonSpec{}, 1);
  const long a = pool.add_job(6);
  const long b = pool.add_job(2);
  pool.place(a, range(0, 6));
  pool.place(b, {6, 7});
  (void)pool.fail(7, 1, 0, false);
  EXPECT_EQ(pool.fill(b, 2), 1) << "nothing idle";
  EXPECT_EQ(pool.fill(a, 4), 0);  // a shrinks to four slots: nodes 4 and 5 go idle
  EXPECT_EQ(pool.idle(), 2);
  EXPECT_EQ(pool.fill(b, 2), 0);
  EXPECT_EQ(pool.node_in(b, 1), 4);
  expect_consistent(pool);
}

TEST(NodePoolJobs, AReleasedJobsNodesGoIdleAndItHoldsNothing)
{
  NodePool pool(6, 4, LemonSpec{}, 1);
  const long a = pool.add_job(3);
  pool.place(a, {1, 3, 5});
  (void)pool.fail(3, 1, 0, false);
  pool.release(a);
  EXPECT_EQ(pool.active(a), 0);
  EXPECT_EQ(pool.used_slots(a), 0);
  EXPECT_EQ(pool.empty_slots(a), 0);
  EXPECT_EQ(pool.idle(), 5);
  EXPECT_EQ(pool.state(3), NodeState::Repair) << "a node in repair stays in repair";
  EXPECT_EQ(pool.job_of(1), -1);
  expect_consistent(pool);
  // The job may be placed again (a requeued job), on other nodes.
  pool.place(a, {0, 2, 4});
  EXPECT_EQ(pool.active(a), 3);
  expect_consistent(pool);
}

TEST(NodePoolJobs, SpeedsAndStragglersAreReadPerJob)
{
  NodePool pool(8, 4, LemonSpec{}, 1);
  const long a = pool.add_job(4);
  const long b = pool.add_job(4);
  pool.place(a, range(0, 4));
  pool.place(b, range(4, 4));
  pool.start_episode(5, 1, 0.5, 100);
  EXPECT_DOUBLE_EQ(pool.slowest_active_speed(a), 1);
  EXPECT_DOUBLE_EQ(pool.slowest_active_speed(b), 0.5);
  EXPECT_DOUBLE_EQ(pool.compute_stretch(a, 2, false), 1);
  EXPECT_DOUBLE_EQ(pool.compute_stretch(b, 2, false), 2);
  EXPECT_EQ(pool.slow_job_nodes(b, 0.8, 60, 200), (std::vector<long>{5}));
  EXPECT_TRUE(pool.slow_job_nodes(a, 0.8, 60, 200).empty());
  // An older generation on a job's last slots: the nodes holding them, not positions 0..n.
  pool.set_old_generation(b, 2, 0.5, false, 1);
  EXPECT_DOUBLE_EQ(pool.generation_speed(7), 0.5);
  EXPECT_DOUBLE_EQ(pool.generation_speed(6), 0.5);
  EXPECT_DOUBLE_EQ(pool.generation_speed(3), 1);
}

TEST(NodePoolJobs, NodesHeldForOtherJobsAreNoReplacements)
{
  // A fleet holds its other jobs' nodes in a table of their own: a replayed job's recovery finds
  // only the spares idle, a node back from repair returns to that table, and a node let go from it
  // is free for a replayed job's placement.
  NodePool pool(6, 2, LemonSpec{}, 1);
  const long others = pool.add_job(3);
  pool.place(others, {0, 1, 2});
  const long job = pool.add_job(2);
  pool.let_go(2);  // the fleet places the replayed job on nodes 2 and 3
  pool.place(job, {2, 3});
  expect_consistent(pool);
  EXPECT_EQ(pool.idle(), 2);         // nodes 4 and 5: the spares
  (void)pool.fail(1, 1, 0.0, true);  // one of the other jobs' nodes
  (void)pool.fail(3, 1, 0.0, true);  // one of the job's
  EXPECT_EQ(pool.fill(job, 2), 0);
  EXPECT_EQ(pool.node_in(job, 1), 4);  // a spare, not another job's node
  pool.repaired(1);
  pool.hold(others, 1);  // back to the other jobs, in its emptied slot
  EXPECT_EQ(pool.job_of(1), others);
  EXPECT_EQ(pool.slot_of(1), 1);
  EXPECT_EQ(pool.job_slots(others), 3);
  pool.repaired(3);
  pool.hold(others, 3);  // the slot node 2 left
  EXPECT_EQ(pool.slot_of(3), 2);
  pool.hold(others, 5);  // no empty slot: the table grows
  EXPECT_EQ(pool.slot_of(5), 3);
  EXPECT_EQ(pool.job_slots(others), 4);
  EXPECT_EQ(pool.idle(), 0);
  expect_consistent(pool);
}

TEST(NodePoolJobsDeath, PlacingOnABusyNodeOrAPlacedJobIsRefused)
{
  NodePool pool(4, 4, LemonSpec{}, 1);
  const long a = pool.add_job(2);
  const long b = pool.add_job(2);
  pool.place(a, {0, 1});
  EXPECT_EXIT(pool.place(b, {1, 2}), testing::ExitedWithCode(kInternalErrorExitCode), "idle nodes");
  EXPECT_EXIT(pool.place(a, {2, 3}), testing::ExitedWithCode(kInternalErrorExitCode), "placed whole");
}

}  // namespace
}  // namespace fleetsim::models
