// ZeRO-3 / FSDP (ParallelLayout::sharded_weights) and the data-parallel rings' NCCL channels: the
// memory a sharded layout holds, the traffic it moves per micro-batch, and how a DP group with several
// members on a node spreads its rings over the node's NICs.
#include "models/network/collectives.hpp"
#include "models/step/iteration_plan.hpp"
#include "models/step/memory_model.hpp"
#include "models/step/step_model.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace fleetsim::models {
namespace {

// Llama 2 13B on 64 GPUs, FSDP only (torchtitan's layout), 8 GPUs per node.
StepInputs fsdp_13b()
{
  StepInputs in;
  Workload& w = in.workload;
  w.parameters = 13.016e9;
  w.layers = 40;
  w.hidden = 5120;
  w.attention_heads = w.kv_heads = 40;
  w.ffn_hidden = 13824;
  w.gated_mlp = true;
  w.vocabulary = 32000;
  w.sequence_length = 4096;
  w.micro_batch_size = 2;
  w.global_batch_tokens = 64.0 * 2 * 4096 * 2;  // two micro-batches per replica
  w.flash_attention = true;
  w.gradient_bytes = 4;
  in.accelerator.peak_flops = units::FlopsPerSecond(312e12);
  in.accelerator.memory = units::Bytes(80e9);
  in.accelerator.gemm_efficiency = 0.6;
  in.layout = ParallelLayout{1, 1, 64, 1};
  in.layout.sharded_weights = true;
  in.fabric.nvlink_bandwidth = units::BytesPerSecond(230e9);
  in.fabric.nic_bandwidth = units::BytesPerSecond(25e9);
  in.fabric.gpus_per_node = 8;
  return in;
}

TEST(ShardedDataParallel, WeightsShardOverTheReplicasButTwoWholeLayersStayGathered)
{
  StepInputs in = fsdp_13b();
  const MemoryEstimate sharded = estimate_memory(in);
  in.layout.sharded_weights = false;
  const MemoryEstimate replicated = estimate_memory(in);
  EXPECT_DOUBLE_EQ(sharded.parameters, replicated.parameters);
  // The largest unit of stage 0: a layer (the parameters less the embedding, over 40) beats the
  // embedding (32000 x 5120).
  const double layer = (13.016e9 - 32000.0 * 5120) / 40;
  ASSERT_GT(layer, 32000.0 * 5120);
  const double unit = std::max(layer, 32000.0 * 5120);
  EXPECT_NEAR(sharded.weights, replicated.weights / 64 + 2 * unit * 2, 1.0);
  EXPECT_NEAR(sharded.gradients, replicated.gradients / 64 + 2 * unit * 4, 1.0);
  EXPECT_DOUBLE_EQ(sharded.optimizer, replicated.optimizer / 64);  // ZeRO-3 implies ZeRO-1
  EXPECT_LT(sharded.total, replicated.total / 4);
}

TEST(ShardedDataParallel, EveryMicroBatchGathersTwiceAndReduceScattersInTheGradientsPrecision)
{
  StepInputs in = fsdp_13b();
  in.fabric.gpus_per_node = 1;  // one ring on the NICs: the plain ring formulas
  const StepBreakdown sharded = AnalyticStepModel().step(in);
  ASSERT_EQ(sharded.micro_batches, 2);
  // A ring all-gather of the 13.016e9 BF16 parameters over 64 ranks on 25 GB/s (no latency): each rank
  // sends 63/64 of 26.032 GB, 1.025010 s. Each micro-batch gathers twice (forward, backward) and
  // reduce-scatters the FP32 gradients (twice the bytes): 2 x (2 x 1.025010 + 2.050020) = 8.200080 s.
  EXPECT_NEAR(sharded.dp_comm.si(), 8.200080, 1e-6);
  in.layout.sharded_weights = false;
  in.layout.distributed_optimizer = true;
  const StepBreakdown zero1 = AnalyticStepModel().step(in);
  // ZeRO-1: one BF16 reduce-scatter and one all-gather a step, 2 x 1.025010 s.
  EXPECT_NEAR(zero1.dp_comm.si(), 2.050020, 1e-6);
}

TEST(ShardedDataParallel, AGroupWithKMembersOnANodeRunsKRings)
{
  ParallelLayout l{1, 1, 64, 1};
  EXPECT_EQ(dp_ring_channels(l, 8), 8);
  EXPECT_EQ(dp_ring_channels(l, 1), 1);
  l.tp = 2;
  l.dp = 32;
  EXPECT_EQ(dp_ring_channels(l, 8), 4);
  l.tp = 8;
  l.dp = 8;
  EXPECT_EQ(dp_ring_channels(l, 8), 1);  // Megatron's TP 8: one member per node, one ring per NIC
  l = ParallelLayout{2, 1, 4, 1, 2};     // tp 2, cp 2: a replica's two context ranks and the next replica's
  EXPECT_EQ(dp_ring_channels(l, 8), 4);
}

TEST(ShardedDataParallel, EachRingLeavesANodeThroughADifferentNic)
{
  StepInputs in = fsdp_13b();
  in.layout.dp = 32;  // four nodes
  in.workload.global_batch_tokens = 32.0 * 2 * 4096;
  const IterationPlan plan = make_iteration_plan(in);
  ASSERT_EQ(plan.dp_ring_step.flows.size(), 32u * 8);
  std::map<int, int> nic_sends;  // rank -> flows it sends off its node
  std::map<int, int> sends;
  std::map<int, int> receives;
  for (const Flow& f : plan.dp_ring_step.flows) {
    EXPECT_NE(f.src, f.dst);
    EXPECT_DOUBLE_EQ(f.bytes, 26.032e9 / 32 / 8);  // the BF16 parameters' 1/32 share, over 8 rings
    sends[f.src]++;
    receives[f.dst]++;
    if (f.src / 8 != f.dst / 8)
      nic_sends[f.src]++;
  }
  // Every GPU sends and receives once per ring; every GPU's NIC carries exactly one ring's hop.
  for (int r = 0; r < 32; ++r) {
    EXPECT_EQ(sends[r], 8);
    EXPECT_EQ(receives[r], 8);
    EXPECT_EQ(nic_sends[r], 1) << "rank " << r;
  }
  // Each ring is one cycle through all 32 members.
  for (size_t j = 0; j < 8; ++j) {
    std::map<int, int> next;
    for (size_t i = j * 32; i < (j + 1) * 32; ++i)
      next[plan.dp_ring_step.flows[i].src] = plan.dp_ring_step.flows[i].dst;
    std::set<int> seen;
    int r = 0;
    for (int i = 0; i < 32; ++i, r = next.at(r))
      seen.insert(r);
    EXPECT_EQ(r, 0);
    EXPECT_EQ(seen.size(), 32u);
  }
}

TEST(ShardedDataParallel, ThePlanCarriesTheUnitsAndTheReducePrecision)
{
  StepInputs in = fsdp_13b();
  const IterationPlan sharded = make_iteration_plan(in);
  EXPECT_EQ(sharded.fsdp_units, 40);
  EXPECT_DOUBLE_EQ(sharded.dp_reduce_ratio, 2.0);
  in.layout.sharded_weights = false;
  const IterationPlan plain = make_iteration_plan(in);
  EXPECT_EQ(plain.fsdp_units, 0);
  EXPECT_DOUBLE_EQ(plain.dp_reduce_ratio, 1.0);
}

}  // namespace
}  // namespace fleetsim::models
