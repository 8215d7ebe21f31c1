// Collective plans: the traffic each algorithm generates, and its alpha-beta price.
#include "models/collective_plan.hpp"

#include <gtest/gtest.h>

#include <set>

namespace fleetsim::models {
namespace {

const AlphaBeta kLink{units::Seconds(5e-6), units::BytesPerSecond(50e9)};

TEST(CollectivePlan, RingAllReduceIsOneStepOfNFlowsRepeated2NMinus2Times)
{
  const auto p = make_plan(CollectiveOp::AllReduce, CollectiveAlgo::Ring, 8, 800);
  ASSERT_EQ(p.steps.size(), 1u);
  EXPECT_EQ(p.steps[0].repetitions, 14);
  ASSERT_EQ(p.steps[0].flows.size(), 8u);
  for (const auto& f : p.steps[0].flows) {
    EXPECT_EQ(f.dst, (f.src + 1) % 8);
    EXPECT_DOUBLE_EQ(f.bytes, 100);
  }
  EXPECT_DOUBLE_EQ(p.bytes_sent_per_rank(), 1400);  // 2(N-1)/N M
  EXPECT_EQ(p.total_step_executions(), 14);
}

TEST(CollectivePlan, RingPriceEqualsTheAlphaBetaFormula)
{
  const auto p = make_plan(CollectiveOp::AllReduce, CollectiveAlgo::Ring, 256, 1e9);
  EXPECT_NEAR(plan_time(p, kLink).si(), ring_allreduce_time(units::Bytes(1e9), 256, kLink).si(), 1e-12);
  const auto rs = make_plan(CollectiveOp::ReduceScatter, CollectiveAlgo::Ring, 256, 1e9);
  EXPECT_NEAR(plan_time(rs, kLink).si(), ring_reduce_scatter_time(units::Bytes(1e9), 256, kLink).si(), 1e-12);
}

TEST(CollectivePlan, BinomialTreeGivesEachReceiverOneMessagePerLevel)
{
  const auto p = make_plan(CollectiveOp::AllReduce, CollectiveAlgo::Tree, 8, 1e6);
  ASSERT_EQ(p.steps.size(), 6u);  // 3 reduce levels, 3 broadcast levels
  EXPECT_EQ(p.steps[0].flows.size(), 4u);  // 1->0, 3->2, 5->4, 7->6
  EXPECT_EQ(p.steps[2].flows.size(), 1u);  // 4->0
  EXPECT_EQ(p.steps[2].flows[0].src, 4);
  EXPECT_EQ(p.steps[2].flows[0].dst, 0);
  for (const auto& s : p.steps) {
    std::set<int> receivers;
    for (const auto& f : s.flows)
      EXPECT_TRUE(receivers.insert(f.dst).second) << s.label;
  }
  EXPECT_NEAR(plan_time(p, kLink).si(), 6 * (5e-6 + 1e6 / 50e9), 1e-15);
  EXPECT_NEAR(tree_allreduce_time(units::Bytes(1e9), 256, kLink).si(), 0.32008, 1e-9);
}

TEST(CollectivePlan, TreeHandlesRankCountsThatAreNotPowersOfTwo)
{
  const auto p = make_plan(CollectiveOp::Broadcast, CollectiveAlgo::Tree, 5, 1e6);
  std::set<int> reached = {0};
  for (const auto& s : p.steps)
    for (const auto& f : s.flows) {
      EXPECT_TRUE(reached.count(f.src)) << "rank " << f.src << " sends before it has the data";
      reached.insert(f.dst);
    }
  EXPECT_EQ(reached.size(), 5u);
  EXPECT_EQ(p.steps.size(), 3u);  // ceil(log2 5)
}

TEST(CollectivePlan, BusBandwidthFollowsNcclConvention)
{
  // All-reduce of 1 GB in 42.394 ms over 256 ranks: algbw 23.59 GB/s, busbw x 2(255)/256.
  EXPECT_NEAR(bus_bandwidth(CollectiveOp::AllReduce, 256, 1e9, units::Seconds(0.042394)), 46.99e9, 0.01e9);
  EXPECT_NEAR(bus_bandwidth(CollectiveOp::AllGather, 4, 1e9, units::Seconds(1)), 0.75e9, 1);
  EXPECT_NEAR(bus_bandwidth(CollectiveOp::Broadcast, 4, 1e9, units::Seconds(1)), 1e9, 1);
  EXPECT_EQ(bus_bandwidth(CollectiveOp::AllReduce, 1, 1e9, units::Seconds(1)), 0);
}

TEST(CollectivePlan, TreeOnlyRunsAllReduceAndBroadcast)
{
  EXPECT_TRUE(plan_supported(CollectiveOp::AllReduce, CollectiveAlgo::Tree));
  EXPECT_TRUE(plan_supported(CollectiveOp::Broadcast, CollectiveAlgo::Tree));
  EXPECT_FALSE(plan_supported(CollectiveOp::AllGather, CollectiveAlgo::Tree));
  EXPECT_TRUE(plan_supported(CollectiveOp::AllGather, CollectiveAlgo::Ring));
  EXPECT_EQ(op_from_name("allreduce"), CollectiveOp::AllReduce);
  EXPECT_FALSE(op_from_name("all-reduce").has_value());
  EXPECT_EQ(algo_from_name("tree"), CollectiveAlgo::Tree);
}

TEST(CollectivePlan, ConcurrentGroupsInterleaveRanksDataParallelOutermost)
{
  const auto one = make_plan(CollectiveOp::AllReduce, CollectiveAlgo::Ring, 4, 400);
  const auto p = concurrent_groups(one, 3);
  EXPECT_EQ(p.ranks, 12);
  ASSERT_EQ(p.steps[0].flows.size(), 12u);
  EXPECT_EQ(p.steps[0].repetitions, one.steps[0].repetitions);
  // Group 1's ring 0->1->2->3->0 lands on GPUs 1->4->7->10->1.
  std::set<std::pair<int, int>> edges;
  for (const auto& f : p.steps[0].flows)
    edges.insert({f.src, f.dst});
  for (auto e : {std::pair{1, 4}, std::pair{4, 7}, std::pair{7, 10}, std::pair{10, 1}})
    EXPECT_TRUE(edges.count(e)) << e.first << "->" << e.second;
  EXPECT_DOUBLE_EQ(p.bytes_sent_per_rank(), one.bytes_sent_per_rank());
  EXPECT_NEAR(plan_time(p, kLink).si(), plan_time(one, kLink).si(), 1e-15);
}

TEST(CollectivePlan, SingleRankHasNoTraffic)
{
  const auto p = make_plan(CollectiveOp::AllReduce, CollectiveAlgo::Ring, 1, 1e9);
  EXPECT_TRUE(p.steps.empty());
  EXPECT_EQ(plan_time(p, kLink).si(), 0);
}

}  // namespace
}  // namespace fleetsim::models
