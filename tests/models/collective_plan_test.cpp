// Collective plans: the traffic each algorithm generates, and its alpha-beta price.
#include "models/network/collective_plan.hpp"

#include <gtest/gtest.h>

#include <map>
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
  ASSERT_EQ(p.steps.size(), 6u);           // 3 reduce levels, 3 broadcast levels
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

TEST(CollectivePlan, DoubleTreeLeavesOfOneTreeAreInnerRanksOfTheOther)
{
  // 16 ranks: tree 1 is the heap 0..15, tree 2 the same heap on ranks 15..0. Every rank then has
  // at most 2 children over both trees, so a step moves at most 2 chunks through any NIC.
  const auto p = make_plan(CollectiveOp::AllReduce, CollectiveAlgo::DoubleTree, 16, 64e6, {4, 1});
  ASSERT_EQ(p.steps.size(), 2u);
  EXPECT_EQ(p.steps[0].repetitions, 4 + 4 - 1);  // heap height 4 (ranks 15 -> 7 -> 3 -> 1 -> 0), 4 chunks
  EXPECT_EQ(p.steps[0].flows.size(), 30u);       // 15 edges per tree
  std::map<int, int> children;
  for (const auto& f : p.steps[0].flows) {
    EXPECT_DOUBLE_EQ(f.bytes, 64e6 / 2 / 4);
    children[f.dst]++;
  }
  for (const auto& [rank, n] : children)
    EXPECT_LE(n, 2) << rank;
  // alpha-beta: 2 (d + C - 1)(alpha + 2 chunks / beta).
  EXPECT_NEAR(plan_time(p, kLink).si(), 2 * 7 * (5e-6 + 2 * 8e6 / 50e9), 1e-12);
  // 1 GB over 1,024 ranks in 1 MiB chunks (C = 477, height 10): 2 x 486 steps of 5 us + 41.9 us:
  // the bandwidth term 2M/beta = 40 ms, like the ring's, plus 972 alphas (4.9 ms) against the
  // ring's 2,046 (10.2 ms).
  const auto big = make_plan(CollectiveOp::AllReduce, CollectiveAlgo::DoubleTree, 1024, 1e9);
  const double bw_term = 2 * 1e9 / 50e9;
  EXPECT_NEAR(plan_time(big, kLink).si(), 972 * (5e-6 + 2 * (0.5e9 / 477) / 50e9), 1e-9);
  EXPECT_LT(plan_time(big, kLink).si(), ring_allreduce_time(units::Bytes(1e9), 1024, kLink).si());
  EXPECT_GT(plan_time(big, kLink).si(), bw_term);
}

TEST(CollectivePlan, HierarchicalAllReduceRunsRingsInsideNodesThenAcrossThem)
{
  // 4 nodes of 8: intra-node ring reduce-scatter (7 steps of M/8), inter-node ring reduce-scatter
  // among equal local ranks (3 steps of M/32), then the mirror image.
  const auto p = make_plan(CollectiveOp::AllReduce, CollectiveAlgo::Hierarchical, 32, 32e6, {0, 8});
  ASSERT_EQ(p.steps.size(), 4u);
  EXPECT_EQ(p.steps[0].repetitions, 7);
  EXPECT_EQ(p.steps[1].repetitions, 3);
  EXPECT_DOUBLE_EQ(p.steps[0].flows[0].bytes, 4e6);
  EXPECT_DOUBLE_EQ(p.steps[1].flows[0].bytes, 1e6);
  for (const auto& f : p.steps[0].flows)
    EXPECT_EQ(f.src / 8, f.dst / 8);  // inside a node
  for (const auto& f : p.steps[1].flows) {
    EXPECT_EQ(f.src % 8, f.dst % 8);  // same local rank
    EXPECT_NE(f.src / 8, f.dst / 8);
  }
  const AlphaBeta nvlink{units::Seconds(1e-6), units::BytesPerSecond(450e9)};
  const LinkClasses links{8, nvlink, kLink};
  EXPECT_NEAR(plan_time(p, links).si(), 2 * 7 * (1e-6 + 4e6 / 450e9) + 2 * 3 * (5e-6 + 1e6 / 50e9), 1e-12);
  // Against a flat ring on the same links: every flat step has a NIC hop, 2 x 31 of them.
  const auto flat = make_plan(CollectiveOp::AllReduce, CollectiveAlgo::Ring, 32, 32e6);
  EXPECT_NEAR(plan_time(flat, links).si(), 62 * (5e-6 + 1e6 / 50e9), 1e-12);
  EXPECT_LT(plan_time(p, links).si(), plan_time(flat, links).si());
}

TEST(CollectivePlan, DirectAllToAllSendsEveryPairAtOnce)
{
  const auto p = make_plan(CollectiveOp::AllToAll, CollectiveAlgo::Direct, 8, 8e6);
  ASSERT_EQ(p.steps.size(), 1u);
  EXPECT_EQ(p.steps[0].flows.size(), 56u);
  EXPECT_DOUBLE_EQ(p.bytes_sent_per_rank(), 7e6);
  // Each NIC sends and receives (N-1) M / N.
  EXPECT_NEAR(plan_time(p, kLink).si(), 5e-6 + 7e6 / 50e9, 1e-15);
  const auto pair = make_plan(CollectiveOp::SendRecv, CollectiveAlgo::Direct, 2, 1e6);
  ASSERT_EQ(pair.steps[0].flows.size(), 1u);
  EXPECT_NEAR(plan_time(pair, kLink).si(), 5e-6 + 1e6 / 50e9, 1e-15);
  EXPECT_FALSE(plan_supported(CollectiveOp::AllToAll, CollectiveAlgo::Ring));
  EXPECT_FALSE(plan_supported(CollectiveOp::Broadcast, CollectiveAlgo::DoubleTree));
  EXPECT_EQ(op_from_name("alltoall"), CollectiveOp::AllToAll);
  EXPECT_EQ(algo_from_name("hierarchical"), CollectiveAlgo::Hierarchical);
}

TEST(CollectivePlan, ChunkedBroadcastChainTakesCPlusNMinus2Steps)
{
  const auto p = make_plan(CollectiveOp::Broadcast, CollectiveAlgo::Ring, 8, 64e6, {16, 1});
  EXPECT_EQ(p.steps[0].repetitions, 16 + 8 - 2);
  EXPECT_DOUBLE_EQ(p.steps[0].flows[0].bytes, 4e6);
  EXPECT_EQ(p.steps[0].flows.size(), 7u);
}

TEST(CollectivePlan, WireBytesSplitTrafficByTheLinksItCrosses)
{
  // Ring all-reduce over 32 ranks in 8-GPU nodes, 16-GPU racks, 32... with pods of 16: per step
  // 32 flows of M/32; 28 stay in a node, 2 cross nodes in a rack (7->8, 23->24), 2 cross pods.
  const auto p = make_plan(CollectiveOp::AllReduce, CollectiveAlgo::Ring, 32, 32e6);
  const WireBytes w = wire_bytes(p, 8, 16, 16);
  const double per_flow = 1e6 * 62;
  EXPECT_DOUBLE_EQ(w.nvlink, 28 * per_flow);
  EXPECT_DOUBLE_EQ(w.in_rack, 2 * per_flow);
  EXPECT_DOUBLE_EQ(w.in_pod, 0);
  EXPECT_DOUBLE_EQ(w.cross_pod, 2 * per_flow);
  const WireBytes flat = wire_bytes(p, 1, 0, 0);  // no hierarchy: all NIC, one pod
  EXPECT_DOUBLE_EQ(flat.in_pod, 32 * per_flow);
}

}  // namespace
}  // namespace fleetsim::models
