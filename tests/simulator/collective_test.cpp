// Collectives executed on a simulated fabric agree with the alpha-beta model when nothing
// contends, and the reduced simulation (each distinct step once) agrees with the full one.
#include "run_in_child.hpp"

#include "models/network/collective_plan.hpp"
#include "simulator/run/collective_simulation.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace fleetsim::testing {
namespace {

using models::CollectiveAlgo;
using models::CollectiveOp;

// 50 GB/s, 5 us NICs on H100-speed hosts, in `pod_size`-GPU pods at 1:`oversubscription`.
sim::FabricSpec nic_fabric(int ranks, int pod_size = 0, double oversubscription = 1)
{
  sim::FabricSpec spec;
  spec.ranks = ranks;
  spec.nic_bandwidth = 50e9;
  spec.nic_latency = 5e-6;
  spec.pod_size = pod_size;
  spec.pod_oversubscription = oversubscription;
  spec.gpu_flops = 989e12;
  return spec;
}

// Simulated time of a collective (`groups` copies at once), in a child process (one Engine per
// process). The fabric defaults to one non-blocking pod with 50 GB/s, 5 us NICs.
double simulate(CollectiveOp op, CollectiveAlgo algo, int ranks, double bytes, bool full, int groups = 1,
                int pod_size = 0, double oversubscription = 1)
{
  const std::string out = in_child([&] {
    const auto plan = models::concurrent_groups(models::make_plan(op, algo, ranks, bytes), groups);
    const auto t = sim::run_collective(plan, nic_fabric(plan.ranks, pod_size, oversubscription), full);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", t.time_s);
    return std::string(buf);
  });
  return out.empty() ? -1.0 : std::stod(out);
}

const models::AlphaBeta kLink{units::Seconds(5e-6), units::BytesPerSecond(50e9)};

// Time of `plan` on a fabric of 8-GPU NVLink nodes (450 GB/s, 1 us) with 50 GB/s, 5 us NICs,
// `pod_size`-GPU pods at 1:`oversubscription`.
double simulate_on_nodes(const models::CollectivePlan& plan, int pod_size = 0, double oversubscription = 1,
                         bool full = false)
{
  const std::string out = in_child([&] {
    sim::FabricSpec spec = nic_fabric(plan.ranks, pod_size, oversubscription);
    spec.gpus_per_node = 8;
    spec.nvlink_bandwidth = 450e9;
    spec.nvlink_latency = 1e-6;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", sim::run_collective(plan, spec, full).time_s);
    return std::string(buf);
  });
  return out.empty() ? -1.0 : std::stod(out);
}

TEST(Collective, UncontendedRingAllReduceMatchesAlphaBetaWithin1Percent)
{
  // 1 GB over 256 ranks at 50 GB/s and 5 us: 2(N-1) alpha + 2(N-1)/N M/beta = 42.39 ms.
  const double sim = simulate(CollectiveOp::AllReduce, CollectiveAlgo::Ring, 256, 1e9, true);
  const double model = models::ring_allreduce_time(units::Bytes(1e9), 256, kLink).si();
  EXPECT_NEAR(model, 0.042394, 1e-6);
  EXPECT_NEAR(sim, model, 0.01 * model);
}

TEST(Collective, UncontendedTreeAllReduceMatchesAlphaBetaWithin1Percent)
{
  // Binomial tree, not pipelined: 2 log2(N) (alpha + M/beta) = 16 x 20.005 ms = 320.08 ms.
  const double sim = simulate(CollectiveOp::AllReduce, CollectiveAlgo::Tree, 256, 1e9, true);
  const double model = models::tree_allreduce_time(units::Bytes(1e9), 256, kLink).si();
  EXPECT_NEAR(model, 0.32008, 1e-6);
  EXPECT_NEAR(sim, model, 0.01 * model);
}

TEST(Collective, ReducedSimulationAgreesWithFullWithin2Percent)
{
  for (auto [op, algo, ranks] : {std::tuple{CollectiveOp::AllReduce, CollectiveAlgo::Ring, 512},
                                 std::tuple{CollectiveOp::AllGather, CollectiveAlgo::Ring, 300},
                                 std::tuple{CollectiveOp::Broadcast, CollectiveAlgo::Tree, 1000}}) {
    const double full = simulate(op, algo, ranks, 256e6, true);
    const double reduced = simulate(op, algo, ranks, 256e6, false);
    ASSERT_GT(full, 0);
    EXPECT_NEAR(reduced, full, 0.02 * full) << models::op_name(op) << " " << models::algo_name(algo);
  }
  // The double tree and the hierarchical all-reduce on 8-GPU NVLink nodes, in 64-GPU pods at 1:4.
  for (const auto& plan :
       {models::make_plan(CollectiveOp::AllReduce, CollectiveAlgo::DoubleTree, 256, 256e6),
        models::make_plan(CollectiveOp::AllReduce, CollectiveAlgo::Hierarchical, 256, 256e6, {0, 8})}) {
    const double full = simulate_on_nodes(plan, 64, 4, true);
    const double reduced = simulate_on_nodes(plan, 64, 4, false);
    ASSERT_GT(full, 0);
    EXPECT_NEAR(reduced, full, 0.02 * full) << models::algo_name(plan.algo);
  }
}

TEST(Collective, OversubscribedPodsSlowRingsWhoseEveryHopCrossesPodsSevenfold)
{
  // scenarios/oversubscribed_pods.yaml: 8 pods of 64 GPUs at 1:7; 64 groups of 8 ranks, member i of
  // every group in pod i. Each ring step sends 64 flows out of every pod: 3.2 TB/s asked of a
  // 457 GB/s uplink, so each flow runs at 50/7 GB/s and the bandwidth term is 7x:
  // 2*7*5 us + 7 x (2*7/8 * 1 GB / 50 GB/s) = 0.07 ms + 245.0 ms.
  const double one_pod = simulate(CollectiveOp::AllReduce, CollectiveAlgo::Ring, 8, 1e9, true, 64, 0, 1);
  const double pods = simulate(CollectiveOp::AllReduce, CollectiveAlgo::Ring, 8, 1e9, true, 64, 64, 7);
  const double reduced = simulate(CollectiveOp::AllReduce, CollectiveAlgo::Ring, 8, 1e9, false, 64, 64, 7);
  EXPECT_NEAR(one_pod, 14 * 5e-6 + 2.0 * 7 / 8 * 1e9 / 50e9, 1e-6);
  EXPECT_NEAR(pods, 14 * 5e-6 + 7 * 2.0 * 7 / 8 * 1e9 / 50e9, 0.01 * pods);
  EXPECT_NEAR(reduced, pods, 0.02 * pods);
}

TEST(Collective, Llama3DataParallelRingsAreNotSlowedByThePodOversubscription)
{
  // 128 DP groups of 128 ranks on 16,384 GPUs in 3,072-GPU pods at 1:7, member i of group g on GPU
  // 128 i + g. A ring leaves a pod once per pod it spans, so 128 flows (6.4 TB/s) leave each pod
  // per step against a 21.9 TB/s uplink: no slowdown. Rings are kind to oversubscribed fabrics.
  const double t = simulate(CollectiveOp::AllReduce, CollectiveAlgo::Ring, 128, 1e9, false, 128, 3072, 7);
  const double model = models::ring_allreduce_time(units::Bytes(1e9), 128, kLink).si();
  EXPECT_NEAR(t, model, 0.01 * model);
}

const models::LinkClasses kNodes{8, {units::Seconds(1e-6), units::BytesPerSecond(450e9)}, kLink};

TEST(Collective, HierarchicalDoubleTreeAndAllToAllMatchTheirEndpointModelWhenNothingElseContends)
{
  // Hierarchical all-reduce: NVLink rings inside nodes, NIC rings across them; double tree: each NIC
  // carries two chunks per step; all-to-all: each NIC sends (N-1) M / N at once. On a
  // full-bisection fabric only the endpoints limit them, which is what plan_time prices.
  using models::PlanOptions;
  for (const auto& plan : {models::make_plan(CollectiveOp::AllReduce, CollectiveAlgo::Hierarchical, 256, 1e9, {0, 8}),
                           models::make_plan(CollectiveOp::AllReduce, CollectiveAlgo::DoubleTree, 256, 1e9),
                           models::make_plan(CollectiveOp::AllToAll, CollectiveAlgo::Direct, 64, 1e9)}) {
    const double model = models::plan_time(plan, kNodes).si();
    EXPECT_NEAR(simulate_on_nodes(plan), model, 0.01 * model) << models::algo_name(plan.algo);
  }
  // The hierarchical all-reduce beats the flat ring because the NICs carry M/8 instead of M:
  // 2 x 7 x (1 us + 125 MB / 450 GB/s) + 2 x 31 x (5 us + 3.9 MB / 50 GB/s) = 3.9 + 5.2 = 9.1 ms,
  // against 42.4 ms for the ring, whose every step waits for its NIC hops.
  const double flat = simulate_on_nodes(models::make_plan(CollectiveOp::AllReduce, CollectiveAlgo::Ring, 256, 1e9));
  const double hier = simulate_on_nodes(
      models::make_plan(CollectiveOp::AllReduce, CollectiveAlgo::Hierarchical, 256, 1e9, {0, 8}));
  EXPECT_LT(hier, 0.25 * flat);
}

TEST(Collective, AllToAllAcrossOversubscribedPodsIsLimitedByTheUplinks)
{
  // 64 ranks in 2 pods of 32 at 1:4. Each rank sends M/64 to each of 63 others; 32 x 32 flows of
  // M/64 leave each pod: 16 GB per GB of M, through an uplink of 32 x 50 / 4 = 400 GB/s, so the
  // exchange takes 16/400 s per GB = 40 ms, against 19.7 ms for the NICs alone ((63/64) GB at 50 GB/s).
  const auto plan = models::make_plan(CollectiveOp::AllToAll, CollectiveAlgo::Direct, 64, 1e9);
  const double free = simulate_on_nodes(plan);
  const double pods = simulate_on_nodes(plan, 32, 4);
  EXPECT_NEAR(pods, 5e-6 + 32.0 * 32 * (1e9 / 64) / (32 * 50e9 / 4), 0.02 * pods);
  EXPECT_GT(pods, 1.8 * free);
}

double simulate_on(const models::CollectivePlan& plan, const sim::FabricSpec& spec)
{
  const std::string out = in_child([&] {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", sim::run_collective(plan, spec, false).time_s);
    return std::string(buf);
  });
  return out.empty() ? -1.0 : std::stod(out);
}

sim::FabricSpec torus(std::vector<int> dims, int ranks)
{
  sim::FabricSpec spec = nic_fabric(ranks);
  spec.topology = "torus";
  spec.torus_dims = std::move(dims);
  spec.torus_link_bandwidth = 45e9;
  spec.torus_hop_latency = 1e-6;
  return spec;
}

TEST(Collective, TorusRingsPayOneLatencyPerHopAndWrapAround)
{
  // A ring on an 8-ring of the torus: every hop, the wrap 7 -> 0 included, is one link:
  // 2 x 7 x (1 us + 1 GB / 8 / 45 GB/s). On an 8 x 8 torus a 64-rank ring's row changes
  // (x = 7 -> x = 0, y + 1) take two hops on two links no other flow uses: 2 x 63 x (2 us + M/64/beta).
  const auto ring8 = models::make_plan(CollectiveOp::AllReduce, CollectiveAlgo::Ring, 8, 1e9);
  EXPECT_NEAR(simulate_on(ring8, torus({8, 1, 1}, 8)), 14 * (1e-6 + 1e9 / 8 / 45e9), 1e-9);
  const auto ring64 = models::make_plan(CollectiveOp::AllReduce, CollectiveAlgo::Ring, 64, 1e9);
  EXPECT_NEAR(simulate_on(ring64, torus({8, 8, 1}, 64)), 126 * (2e-6 + 1e9 / 64 / 45e9), 1e-9);
  // Going the short way round: 0 -> 6 on a ring of 8 is two hops backwards, not six forwards.
  models::CollectivePlan back;
  back.ranks = 8;
  back.steps.push_back({"0 -> 6", {{0, 6, 45e6}}, 1});
  EXPECT_NEAR(simulate_on(back, torus({8, 1, 1}, 8)), 2e-6 + 1e-3, 1e-12);
}

TEST(Collective, RailOptimizedFabricKeepsSameRailTrafficOffTheSpine)
{
  // Two 8-GPU nodes, one pod, rail uplinks at 1:8: each (pod, rail) group of 2 GPUs has
  // 2 x 50 / 8 = 12.5 GB/s to the spine. GPU i -> i + 8 stays on rail i: 1 GB in 20 ms. GPU i ->
  // GPU i + 9 changes rail, so the two GPUs of every rail share its uplink: 6.25 GB/s, 160 ms.
  sim::FabricSpec spec = nic_fabric(16, 16, 8);
  spec.gpus_per_node = 8;
  spec.nvlink_bandwidth = 450e9;
  spec.topology = "rail_optimized";
  models::CollectivePlan same;
  models::CollectivePlan cross;
  same.ranks = cross.ranks = 16;
  same.steps.push_back({"same rail", {}, 1});
  cross.steps.push_back({"cross rail", {}, 1});
  for (int i = 0; i < 16; ++i) {
    same.steps[0].flows.push_back({i, (i + 8) % 16, 1e9});
    cross.steps[0].flows.push_back({i, (i + 9) % 16, 1e9});
  }
  EXPECT_NEAR(simulate_on(same, spec), 5e-6 + 1e9 / 50e9, 1e-9);
  EXPECT_NEAR(simulate_on(cross, spec), 5e-6 + 1e9 / 6.25e9, 1e-9);
  // The same traffic on a Clos whose pod is the whole job never touches an uplink.
  spec.topology = "clos";
  EXPECT_NEAR(simulate_on(cross, spec), 5e-6 + 1e9 / 50e9, 1e-9);
}

TEST(Collective, SmallMessagesAreLatencyBound)
{
  // 8 KB over 64 ranks: the 126 alpha terms (630 us) dwarf the 0.3 us of transfer.
  const double sim = simulate(CollectiveOp::AllReduce, CollectiveAlgo::Ring, 64, 8e3, true);
  EXPECT_NEAR(sim, 126 * 5e-6 + 2.0 * 63 / 64 * 8e3 / 50e9, 1e-8);
}

}  // namespace
}  // namespace fleetsim::testing
