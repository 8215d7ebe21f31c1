// Context parallelism's two key/value exchanges (ParallelLayout::cp_exchange): the all-gather, exposed,
// and ring attention, whose steps hide behind the attention kernel on the chunk at hand and whose
// partial outputs cost a merge kernel per step.
#include "llama3_inputs.hpp"
#include "models/step/layer_cost.hpp"
#include "models/step/step_model.hpp"

#include <gtest/gtest.h>

namespace fleetsim::models {
namespace {

// Llama 3 405B at 131,072 tokens on TP 8 x CP 16 x PP 16 x DP 8 (the paper.s long-context layout).
StepInputs long_context()
{
  StepInputs in = llama3_405b_inputs();
  in.workload.sequence_length = 131072;
  in.workload.vocabulary = 0;
  in.layout = ParallelLayout{8, 16, 8, 4, 16};
  in.layout.sequence_parallel = true;
  in.layout.sharded_gradients = true;
  return in;
}

TEST(CpExchange, ARingStepIsExposedOnlyBeyondItsChunksAttention)
{
  // 4 ranks, attention 8 s forward and 20 s backward per layer: chunks of 2 s and 5 s.
  const CpRingExposure hidden = cp_ring_exposure(4, 1.5, 8.0, 20.0);
  EXPECT_DOUBLE_EQ(hidden.forward_s, 0.0);
  EXPECT_DOUBLE_EQ(hidden.backward_s, 0.0);  // 2 x 1.5 s of keys, values and gradients under 5 s
  const CpRingExposure slow = cp_ring_exposure(4, 3.0, 8.0, 20.0);
  EXPECT_DOUBLE_EQ(slow.forward_s, 3 * (3.0 - 2.0));
  EXPECT_DOUBLE_EQ(slow.backward_s, 3 * (6.0 - 5.0));
  const CpRingExposure none = cp_ring_exposure(1, 3.0, 8.0, 20.0);
  EXPECT_DOUBLE_EQ(none.forward_s + none.backward_s, 0.0);
}

TEST(CpExchange, TheRingHidesWhatTheAllGatherExposesAndPaysItsMergeKernels)
{
  StepInputs in = long_context();
  const StepBreakdown gather = AnalyticStepModel().step(in);
  EXPECT_DOUBLE_EQ(cp_merge_seconds(in), 0.0);
  in.layout.cp_exchange = CpExchange::Ring;
  const StepBreakdown ring = AnalyticStepModel().step(in);
  ASSERT_GT(gather.cp_comm.si(), 0);
  EXPECT_DOUBLE_EQ(ring.cp_comm.si(), 0.0);  // 131K tokens: each chunk's attention outlasts its transfer
  // Fifteen merges per layer and pass, each two reads and a write of the local FP32 output.
  const double tensor = 131072.0 / 16 * 16384 / 8 * 4;
  EXPECT_NEAR(cp_merge_seconds(in), 15 * (3 * tensor / 3.35e12 + 5.5e-6), 1e-12);
  EXPECT_GT(ring.compute.si(), gather.compute.si());
  EXPECT_LT(ring.step_time.si(), gather.step_time.si());
  // On a slow enough network the ring is exposed too, and its backward (twice the bytes) more so.
  in.fabric.nic_bandwidth = units::BytesPerSecond(0.1e9);
  in.workload.sequence_length = 8192;
  in.workload.global_batch_tokens = 8192.0 * 8 * 16;
  in.layout.cp = 4;
  in.layout.dp = 32;
  const AttentionCost a = attention_seconds(in);
  const CpRingExposure r = cp_ring_exposure(4, 1.0, a.forward_s, a.backward_s);
  EXPECT_GT(r.forward_s, 0);
  EXPECT_GT(r.backward_s, r.forward_s);
  EXPECT_GT(AnalyticStepModel().step(in).cp_comm.si(), 0);
}

TEST(CpExchange, AGroupInsideOneNodeExchangesOnNvlinkAndOneAcrossNodesAtTheNicsRate)
{
  // TP 2 x CP 4 on 8-GPU nodes: ranks 0, 2, 4, 6 of one node; TP 4 x CP 4 spans two nodes.
  ParallelLayout inside{2, 4, 8, 1, 4};
  ParallelLayout across{4, 4, 8, 1, 4};
  EXPECT_TRUE(cp_group_within_node(inside, 8));
  EXPECT_FALSE(cp_group_within_node(across, 8));
  EXPECT_FALSE(cp_group_within_node(inside, 1));  // no NVLink island
  EXPECT_FALSE(cp_group_within_node(ParallelLayout{8, 1, 8, 1, 1}, 8));  // no context parallelism
  // The all-gather's time: 3 ring steps of one rank's keys and values, 5 us + bytes / 50 GB/s on the
  // NIC against 1 us + bytes / 370 GB/s on NVLink.
  StepInputs in = long_context();
  in.workload.sequence_length = 8192;
  in.workload.global_batch_tokens = 8192.0 * 16 * 32;
  in.fabric.gpus_per_node = 8;
  in.fabric.nvlink_bandwidth = units::BytesPerSecond(370e9);
  in.fabric.nvlink_latency = units::Seconds(1e-6);
  const auto cp_comm = [&](const ParallelLayout& l) {
    in.layout = l;
    in.layout.sequence_parallel = true;
    in.layout.sharded_gradients = true;
    return AnalyticStepModel().step(in).cp_comm.si();
  };
  const double rank_bytes = 2.0 * 8192 / 4 * 1024 / 2 * 2;  // 2 b (s/cp) h_kv / tp x 2 bytes, TP 2
  const double nvlink = cp_comm(inside);
  in.fabric.gpus_per_node = 1;  // the same layout with every rank on its own node
  const double nic = cp_comm(inside);
  EXPECT_NEAR(nvlink / nic, (1e-6 + rank_bytes / 370e9) / (5e-6 + rank_bytes / 50e9), 1e-9);
  in.fabric.gpus_per_node = 8;
  const double across_rank_bytes = rank_bytes / 2;  // TP 4 halves each rank's heads
  EXPECT_NEAR(cp_comm(across) / nic, (5e-6 + across_rank_bytes / 50e9) / (5e-6 + rank_bytes / 50e9), 1e-9);
}

}  // namespace
}  // namespace fleetsim::models
