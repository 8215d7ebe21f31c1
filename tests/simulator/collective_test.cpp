// Collectives executed on a simulated fabric agree with the alpha-beta model when nothing
// contends, and the reduced simulation (each distinct step once) agrees with the full one.
#include "run_in_child.hpp"

#include "models/collective_plan.hpp"
#include "simulator/run/collective_simulation.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace fleetsim::testing {
namespace {

using models::CollectiveAlgo;
using models::CollectiveOp;

// Simulated time of a collective (`groups` copies at once), in a child process (one Engine per
// process). The fabric defaults to one non-blocking pod with 50 GB/s, 5 us NICs.
double simulate(CollectiveOp op, CollectiveAlgo algo, int ranks, double bytes, bool full, int groups = 1,
                int pod_size = 0, double oversubscription = 1)
{
  const std::string out = in_child([&] {
    const auto plan = models::concurrent_groups(models::make_plan(op, algo, ranks, bytes), groups);
    const auto t = sim::run_collective(plan, {plan.ranks, 50e9, 5e-6, pod_size, oversubscription, 989e12}, full);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", t.time_s);
    return std::string(buf);
  });
  return out.empty() ? -1.0 : std::stod(out);
}

const models::AlphaBeta kLink{units::Seconds(5e-6), units::BytesPerSecond(50e9)};

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

TEST(Collective, SmallMessagesAreLatencyBound)
{
  // 8 KB over 64 ranks: the 126 alpha terms (630 us) dwarf the 0.3 us of transfer.
  const double sim = simulate(CollectiveOp::AllReduce, CollectiveAlgo::Ring, 64, 8e3, true);
  EXPECT_NEAR(sim, 126 * 5e-6 + 2.0 * 63 / 64 * 8e3 / 50e9, 1e-8);
}

}  // namespace
}  // namespace fleetsim::testing
