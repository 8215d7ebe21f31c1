#include "models/step/step_model.hpp"

#include "workload_fixture.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace fleetsim::models {
namespace {

using units::Bytes;
using units::BytesPerSecond;
using units::FlopsPerSecond;
using units::Seconds;

// A 1e9-parameter model, 10 layers, h = s = 1000: 6e9 + 12*10*1000*1000 = 6.12e9 FLOP per token.
StepInputs small_model()
{
  StepInputs in;
  in.workload.parameters = 1e9;
  in.workload.layers = 10;
  in.workload.hidden = 1000;
  in.workload.sequence_length = 1000;
  in.workload.global_batch_tokens = 1e6;
  in.workload.micro_batch_size = 1;
  in.workload.bytes_per_value = 2;
  in.workload.attention_heads = in.workload.kv_heads = 8;  // a multiple of every tp used here
  in.accelerator.peak_flops = FlopsPerSecond(1e15);
  in.accelerator.memory = Bytes(80e9);
  in.accelerator.gemm_efficiency = 0.5;
  in.fabric.nvlink_bandwidth = BytesPerSecond(1e11);
  in.fabric.nvlink_latency = Seconds(1e-6);
  in.fabric.nic_bandwidth = BytesPerSecond(1e10);
  in.fabric.nic_latency = Seconds(5e-6);
  return in;
}

bool mentions(const std::vector<std::string>& problems, const std::string& text)
{
  return std::any_of(problems.begin(), problems.end(),
                     [&](const std::string& p) { return p.find(text) != std::string::npos; });
}

TEST(TrainingFlopsPerToken, AddsAttentionTermToSixTimesParameters)
{
  EXPECT_DOUBLE_EQ(training_flops_per_token(small_model().workload), 6.12e9);
}

TEST(PipelineBubbleFraction, ShrinksWithMicroBatchesAndVirtualStages)
{
  EXPECT_DOUBLE_EQ(pipeline_bubble_fraction(4, 8, 1), 0.375);
  EXPECT_DOUBLE_EQ(pipeline_bubble_fraction(16, 16, 4), 0.234375);
  EXPECT_DOUBLE_EQ(pipeline_bubble_fraction(1, 1, 1), 0.0);
}

TEST(AnalyticStepModel, StepIsPureComputeWhenRunningOnOneGpu)
{
  const StepBreakdown b = AnalyticStepModel().step(small_model());
  // 6.12e9 * 1e6 / (1 * 1e15 * 0.5) = 12.24 s; m = 1e6 / 1000 = 1000.
  EXPECT_EQ(b.micro_batches, 1000);
  EXPECT_NEAR(b.compute.si(), 12.24, 1e-9);
  EXPECT_NEAR(b.step_time.si(), 12.24, 1e-9);
  EXPECT_EQ(b.comm.si(), 0.0);
  EXPECT_EQ(b.sync.si(), 0.0);
  EXPECT_EQ(b.overlap.si(), 0.0);
  EXPECT_NEAR(b.mfu, 0.5, 1e-12);
  EXPECT_NEAR(b.compute_fraction, 1.0, 1e-12);
  EXPECT_EQ(b.binding_term, "compute");
}

TEST(AnalyticStepModel, AddsEveryTermWhenAllThreeParallelismsAreUsed)
{
  StepInputs in = small_model();
  in.workload.layers = 8;
  in.workload.global_batch_tokens = 8000;
  in.layout = ParallelLayout{2, 2, 2, 2};
  in.fabric.dp_overlap = 0.5;
  const StepBreakdown b = AnalyticStepModel().step(in);
  // m = 8000 / (1000 * 1 * 2) = 4; flops/token = 6e9 + 12*8*1e6 = 6.096e9
  EXPECT_EQ(b.micro_batches, 4);
  // compute = 6.096e9 * 8000 / (8 * 1e15 * 0.5) = 0.012192
  EXPECT_NEAR(b.compute.si(), 0.012192, 1e-12);
  // bubble = (2-1)/(2*4) * 0.012192 = 0.001524
  EXPECT_NEAR(b.bubble.si(), 0.001524, 1e-12);
  // tp: all-reduce of 2e6 B over 2 ranks = 2e-6 + 2e-5; (8/2) layers * 4 mb * 4 = 64 of them
  EXPECT_NEAR(b.tp_comm.si(), 64 * 22e-6, 1e-12);
  // pp: 2*v*m = 16 sends of 1e6 B: 16 * (5e-6 + 1e-4)
  EXPECT_NEAR(b.pp_comm.si(), 16 * 105e-6, 1e-12);
  // dp: shard 1e9/4*2 = 5e8 B over 2 ranks: 2 * (5e-6 + 0.5*5e8/1e10) = 0.05001
  EXPECT_NEAR(b.dp_comm.si(), 0.05001, 1e-12);
  EXPECT_NEAR(b.comm.si(), 0.053098, 1e-12);
  // overlap = min(0.5 * 0.05001, 2/3 * 0.012192) = 0.008128 (backward compute limits it)
  EXPECT_NEAR(b.overlap.si(), 0.008128, 1e-12);
  EXPECT_NEAR(b.comm_exposed.si(), 0.04497, 1e-12);
  // barrier over 8 GPUs: 2 * 3 * 5e-6
  EXPECT_NEAR(b.barrier.si(), 30e-6, 1e-15);
  EXPECT_NEAR(b.sync.si(), 0.001554, 1e-12);
  EXPECT_NEAR(b.step_time.si(), 0.058716, 1e-12);
  // mfu = 6.096e9 * 8000 / (8 * 1e15 * 0.058716)
  EXPECT_NEAR(b.mfu, 0.103822, 1e-6);
  EXPECT_NEAR(b.compute_fraction, 0.207643, 1e-6);
  EXPECT_EQ(b.binding_term, "communication");
}

TEST(AnalyticStepModel, HidesOnlyOverlapShareOfGradientTrafficWhenComputeIsLong)
{
  StepInputs in = small_model();
  in.workload.global_batch_tokens = 2e6;
  in.layout.dp = 2;
  in.fabric.nic_latency = Seconds(0);
  in.fabric.dp_overlap = 0.8;
  const StepBreakdown b = AnalyticStepModel().step(in);
  // compute = 6.12e9 * 2e6 / (2 * 5e14) = 12.24 s; dp = 2 * (1/2) * 2e9 / 1e10 = 0.2 s
  EXPECT_NEAR(b.compute.si(), 12.24, 1e-9);
  EXPECT_NEAR(b.dp_comm.si(), 0.2, 1e-12);
  EXPECT_NEAR(b.overlap.si(), 0.16, 1e-12);
  EXPECT_NEAR(b.step_time.si(), 12.28, 1e-9);
  EXPECT_EQ(b.binding_term, "compute");
}

TEST(AnalyticStepModel, BindsOnCommunicationWhenNicIsSlow)
{
  StepInputs in = small_model();
  in.workload.global_batch_tokens = 4000;
  in.layout.dp = 4;
  in.fabric.nic_bandwidth = BytesPerSecond(1e9);
  in.fabric.nic_latency = Seconds(1e-6);
  in.fabric.dp_overlap = 0.5;
  const StepBreakdown b = AnalyticStepModel().step(in);
  // compute = 6.12e9 * 4000 / (4 * 5e14) = 0.01224 s
  // dp = 2 * (3e-6 + 3/4 * 2e9 / 1e9) = 3.000006 s; overlap = 2/3 * 0.01224 = 0.00816 s
  EXPECT_NEAR(b.compute.si(), 0.01224, 1e-12);
  EXPECT_NEAR(b.dp_comm.si(), 3.000006, 1e-9);
  EXPECT_NEAR(b.overlap.si(), 0.00816, 1e-12);
  EXPECT_NEAR(b.step_time.si(), 0.01224 + 3.000006 + 4e-6 - 0.00816, 1e-9);
  EXPECT_LT(b.mfu, 0.0021);
  EXPECT_EQ(b.binding_term, "communication");
}

TEST(AnalyticStepModel, BindsOnCoordinationWhenDeepPipelineHasOneMicroBatch)
{
  StepInputs in = small_model();
  in.workload.layers = 64;
  in.workload.global_batch_tokens = 1000;
  in.accelerator.gemm_efficiency = 1.0;
  in.layout.pp = 32;
  in.fabric.nic_bandwidth = BytesPerSecond(1e11);
  in.fabric.nic_latency = Seconds(1e-6);
  const StepBreakdown b = AnalyticStepModel().step(in);
  // flops/token = 6e9 + 12*64*1e6 = 6.768e9; compute = 6.768e12 / (32 * 1e15) = 2.115e-4 s
  EXPECT_EQ(b.micro_batches, 1);
  EXPECT_NEAR(b.compute.si(), 2.115e-4, 1e-15);
  // bubble = 31 * compute; pp = 2 sends of 2e6 B at 1e11 B/s + 1us each
  EXPECT_NEAR(b.bubble.si(), 31 * 2.115e-4, 1e-15);
  EXPECT_NEAR(b.pp_comm.si(), 2 * 21e-6, 1e-15);
  EXPECT_NEAR(b.barrier.si(), 10e-6, 1e-15);
  EXPECT_NEAR(b.step_time.si(), 32 * 2.115e-4 + 42e-6 + 10e-6, 1e-12);
  EXPECT_EQ(b.binding_term, "coordination");
}

TEST(CheckStepInputs, AcceptsConsistentLayout)
{
  StepInputs in = small_model();
  in.workload.global_batch_tokens = 8000;
  in.layout = ParallelLayout{2, 2, 2, 2};
  EXPECT_TRUE(check_step_inputs(in, 8).empty());
}

TEST(CheckStepInputs, ReportsMismatchWhenLayoutProductDiffersFromGpus)
{
  StepInputs in = small_model();
  in.workload.global_batch_tokens = 8000;
  in.layout = ParallelLayout{2, 2, 2, 1};
  const auto problems = check_step_inputs(in, 16);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("tp*pp*dp = 8"), std::string::npos) << problems[0];
  EXPECT_NE(problems[0].find("16 gpus"), std::string::npos) << problems[0];
}

TEST(CheckStepInputs, ReportsFractionalMicroBatchesWhenBatchDoesNotDivide)
{
  StepInputs in = small_model();
  in.workload.global_batch_tokens = 3000;  // 3000 / (1000 * 1 * 2) = 1.5
  in.layout.dp = 2;
  EXPECT_TRUE(mentions(check_step_inputs(in, 2), "whole number of micro-batches"));
  in.workload.global_batch_tokens = 1000;  // 0.5 micro-batches
  EXPECT_TRUE(mentions(check_step_inputs(in, 2), "whole number of micro-batches"));
}

TEST(CheckStepInputs, ReportsOutOfRangeValuesWhenFieldsAreNonPositive)
{
  StepInputs in = small_model();
  in.workload.parameters = 0;
  in.workload.hidden = -1;
  in.accelerator.gemm_efficiency = 1.2;
  in.fabric.dp_overlap = -0.1;
  in.layout.virtual_stages = 0;
  const auto problems = check_step_inputs(in, 1);
  EXPECT_TRUE(mentions(problems, "parameters must be positive"));
  EXPECT_TRUE(mentions(problems, "hidden size must be positive"));
  EXPECT_TRUE(mentions(problems, "gemm efficiency must be in (0, 1]"));
  EXPECT_TRUE(mentions(problems, "dp overlap must be in [0, 1]"));
  EXPECT_TRUE(mentions(problems, "virtual stages must be at least 1"));
}

TEST(CheckStepInputs, AcceptsLayersThatDoNotDivideStages)
{
  StepInputs in = small_model();
  in.workload.layers = 126;
  in.layout.pp = 16;
  in.workload.global_batch_tokens = 16000;
  EXPECT_TRUE(check_step_inputs(in, 16).empty());
  in.workload.layers = 12;  // fewer layers than stages
  EXPECT_TRUE(mentions(check_step_inputs(in, 16), "fewer than pp*virtual stages"));
}

TEST(CheckStepInputs, ReportsMissingNicWhenDataParallel)
{
  StepInputs in = small_model();
  in.workload.global_batch_tokens = 2000;
  in.layout.dp = 2;
  in.fabric.nic_bandwidth = BytesPerSecond(0);
  EXPECT_TRUE(mentions(check_step_inputs(in, 2), "nic bandwidth must be positive"));
}

// Llama 3 405B pre-training at 16,384 H100s (8K context). Layout, batch and model shape from the
// paper; gemm efficiency, virtual stages and the fabric constants are assumptions (see docs).
StepInputs llama3_405b()
{
  StepInputs in;
  in.workload = testing::dense_workload(405e9, 126, 16384, 8192, 16777216.0);
  in.workload.attention_heads = 128;
  in.workload.kv_heads = 8;
  in.accelerator.peak_flops = FlopsPerSecond(989e12);
  in.accelerator.memory = Bytes(80e9);
  in.accelerator.gemm_efficiency = 0.6;
  in.layout = ParallelLayout{8, 16, 128, 4};
  in.fabric = FabricParams{BytesPerSecond(450e9), Seconds(1e-6), BytesPerSecond(50e9), Seconds(5e-6), 0.8};
  return in;
}

// Llama 3's long-context layout ([L3] Table 4): TP 8, CP 16, PP 16, DP 8 at 131,072 tokens.
StepInputs llama3_405b_long_context()
{
  StepInputs in = llama3_405b();
  in.workload.sequence_length = 131072;
  in.layout.cp = 16;
  in.layout.dp = 8;
  return in;
}

TEST(AnalyticStepModel, LandsNearReportedMfuWhenLaidOutLikeLlama3At16kGpus)
{
  const StepInputs in = llama3_405b();
  ASSERT_TRUE(check_step_inputs(in, 16384).empty());
  const StepBreakdown b = AnalyticStepModel().step(in);
  // m = 2^24 / (8192 * 1 * 128) = 16
  EXPECT_EQ(b.micro_batches, 16);
  // flops/token = 6*405e9 + 12*126*16384*8192 = 2.632937e12
  EXPECT_NEAR(b.flops_per_token, 2632937204736.0, 1.0);
  // compute = 2.632937e12 * 2^24 / (16384 * 989e12 * 0.6) = 4.5435 s; bubble = 15/64 of it
  EXPECT_NEAR(b.compute.si(), 4.54352, 1e-4);
  EXPECT_NEAR(b.bubble.si(), 1.06489, 1e-4);
  EXPECT_NEAR(b.tp_comm.si(), 0.533189, 1e-5);
  EXPECT_NEAR(b.pp_comm.si(), 0.0865393, 1e-6);
  EXPECT_NEAR(b.dp_comm.si(), 0.252417, 1e-5);
  EXPECT_NEAR(b.overlap.si(), 0.201934, 1e-5);
  EXPECT_NEAR(b.barrier.si(), 140e-6, 1e-12);
  EXPECT_NEAR(b.step_time.si(), 6.27877, 1e-4);
  EXPECT_NEAR(b.mfu, 0.43418, 1e-4);
  EXPECT_GT(b.mfu, 0.30);
  EXPECT_LT(b.mfu, 0.50);
  EXPECT_EQ(b.binding_term, "compute");
}

TEST(AnalyticStepModel, ContextParallelismAddsKeyValueGathersAndSplitsTheSequence)
{
  // Llama 3's long-context layout ([L3] Table 4): TP 8, CP 16, PP 16, DP 8 at 131,072 tokens.
  StepInputs in = llama3_405b_long_context();
  ASSERT_TRUE(check_step_inputs(in, 16384).empty());
  const StepBreakdown b = AnalyticStepModel().step(in);
  EXPECT_EQ(b.micro_batches, 16);  // 2^24 / (131072 x 8)
  // Per layer and pass, a ring all-gather over 16 ranks of 2 b (s/cp) h (kv/heads) / tp x 2 bytes
  // = 2 x 8192 x 1024 / 8 x 2 = 4.19 MB per rank: 15 (5 us + 83.9 us); 2 x 126/16 x 16 = 252 of them.
  const double per_rank = 2.0 * 8192 * 1024 / 8 * 2;
  EXPECT_NEAR(b.cp_comm.si(), 252 * 15 * (5e-6 + per_rank / 50e9), 1e-9);
  // TP and PP messages carry s/cp tokens: the same sizes as at 8,192 tokens with CP 1.
  const StepBreakdown short_ctx = AnalyticStepModel().step(llama3_405b());
  EXPECT_NEAR(b.tp_comm.si(), short_ctx.tp_comm.si(), 1e-12);
  EXPECT_NEAR(b.pp_comm.si(), short_ctx.pp_comm.si(), 1e-12);
  // Gradients are reduced over dp x cp = 128 replicas of each shard, as with DP 128.
  EXPECT_NEAR(b.dp_comm.si(), short_ctx.dp_comm.si(), 1e-12);
  EXPECT_NEAR((b.compute + b.comm + b.sync - b.overlap).si(), b.step_time.si(), 1e-9);
  in.workload.sequence_length = 131000;  // not a multiple of cp
  in.workload.global_batch_tokens = 131000.0 * 128;
  EXPECT_FALSE(check_step_inputs(in, 16384).empty());
}

// A Mixtral-8x7B shape (scenarios/moe_mixtral_8x7b_1k.yaml): 46.7e9 parameters, 45.1e9 of them
// in 8 experts, top-2; TP 2 x PP 4 x DP 128 with EP 8, on 1,024 GPUs.
StepInputs mixtral_8x7b()
{
  StepInputs in;
  in.workload = testing::dense_workload(46.7e9, 32, 4096, 4096, 4194304);
  in.workload.attention_heads = 32;
  in.workload.kv_heads = 8;
  in.workload.experts = 8;
  in.workload.experts_per_token = 2;
  in.workload.expert_parameters = 45.1e9;
  in.accelerator.peak_flops = units::FlopsPerSecond(989e12);
  in.accelerator.gemm_efficiency = 0.5;
  in.layout = ParallelLayout{2, 4, 128, 2, 1, 8};
  in.fabric.nvlink_bandwidth = units::BytesPerSecond(450e9);
  in.fabric.nic_bandwidth = units::BytesPerSecond(50e9);
  in.fabric.nic_latency = units::Seconds(5e-6);
  return in;
}

TEST(AnalyticStepModel, ExpertParallelismTradesGradientTrafficForTokenAllToAlls)
{
  // A Mixtral-8x7B shape (scenarios/moe_mixtral_8x7b_1k.yaml): 46.7e9 parameters, 45.1e9 of them
  // in 8 experts, top-2; TP 2 x PP 4 x DP 128 with EP 8.
  StepInputs in = mixtral_8x7b();
  ASSERT_TRUE(check_step_inputs(in, 1024).empty());
  // Active parameters: 46.7e9 - 45.1e9 x (1 - 2/8) = 12.875e9.
  EXPECT_NEAR(in.workload.active_parameters(), 12.875e9, 1);
  EXPECT_NEAR(training_flops_per_token(in.workload), 6 * 12.875e9 + 12.0 * 32 * 4096 * 4096, 1);
  // One all-to-all: 4,096 tokens x 4,096 x 2 bytes / tp 2, k = 2 copies, 7/8 leave the rank.
  EXPECT_DOUBLE_EQ(ep_alltoall_bytes(in), 4096.0 * 4096 * 2 / 2 * 2 * 7 / 8);
  const StepBreakdown b = AnalyticStepModel().step(in);
  // 4 per layer and micro-batch (dispatch + combine, forward + backward): 4 x 8 layers x 8 mbs.
  EXPECT_NEAR(b.ep_comm.si(), 256 * (5e-6 + ep_alltoall_bytes(in) / 50e9), 1e-12);
  // Gradients: the dense 1.6e9 over tp pp, the experts' 45.1e9 split 8 ways as well.
  EXPECT_NEAR(dp_shard_bytes(in), (1.6e9 + 45.1e9 / 8) / 8 * 2, 1);
  StepInputs no_ep = in;
  no_ep.layout.ep = 1;
  EXPECT_EQ(AnalyticStepModel().step(no_ep).ep_comm.si(), 0);
  EXPECT_GT(AnalyticStepModel().step(no_ep).dp_comm.si(), 4 * b.dp_comm.si());
  EXPECT_NEAR((b.compute + b.comm + b.sync - b.overlap).si(), b.step_time.si(), 1e-9);
}

TEST(AnalyticStepModel, FullRecomputationRunsTheForwardsCollectivesAgainInTheBackward)
{
  // A recomputed forward repeats its TP all-reduces, CP gathers and EP all-to-alls before the
  // backward's own: a pass pair carries 3 forwards' worth instead of 2. Selective recomputation
  // re-runs only the attention core, which has none of them.
  StepInputs in = llama3_405b_long_context();
  ASSERT_TRUE(check_step_inputs(in, 16384).empty());
  const StepBreakdown none = AnalyticStepModel().step(in);
  in.workload.recompute = Recompute::Selective;
  const StepBreakdown selective = AnalyticStepModel().step(in);
  in.workload.recompute = Recompute::Full;
  const StepBreakdown full = AnalyticStepModel().step(in);
  EXPECT_DOUBLE_EQ(backward_collectives_factor(in.workload), 2.0);
  ASSERT_GT(none.tp_comm.si(), 0);
  ASSERT_GT(none.cp_comm.si(), 0);
  EXPECT_NEAR(full.tp_comm.si(), 1.5 * none.tp_comm.si(), 1e-12);
  EXPECT_NEAR(full.cp_comm.si(), 1.5 * none.cp_comm.si(), 1e-12);
  EXPECT_DOUBLE_EQ(selective.tp_comm.si(), none.tp_comm.si());
  EXPECT_DOUBLE_EQ(selective.cp_comm.si(), none.cp_comm.si());
  // Pipeline sends and gradients are not recomputed.
  EXPECT_DOUBLE_EQ(full.pp_comm.si(), none.pp_comm.si());
  EXPECT_DOUBLE_EQ(full.dp_comm.si(), none.dp_comm.si());

  StepInputs moe = mixtral_8x7b();
  const double ep_none = AnalyticStepModel().step(moe).ep_comm.si();
  moe.workload.recompute = Recompute::Full;
  EXPECT_NEAR(AnalyticStepModel().step(moe).ep_comm.si(), 1.5 * ep_none, 1e-12);
}

TEST(AnalyticStepModel, SequenceParallelismGathersTheLinearsInputsAgainInTheBackward)
{
  // With sequence parallelism each all-reduce becomes a reduce-scatter and an all-gather (the same
  // bytes), but the column-parallel linears keep only their shard of the input and all-gather it
  // again in the backward: half an all-reduce more per all-reduce of the backward. CP's and EP's
  // collectives are not affected.
  StepInputs in = llama3_405b();
  ASSERT_GT(in.layout.tp, 1);
  ASSERT_TRUE(check_step_inputs(in, 16384).empty());
  const StepBreakdown plain = AnalyticStepModel().step(in);
  in.layout.sequence_parallel = true;
  const StepBreakdown sp = AnalyticStepModel().step(in);
  EXPECT_DOUBLE_EQ(tp_backward_collectives_factor(in.workload, in.layout), 1.5);
  EXPECT_DOUBLE_EQ(backward_collectives_factor(in.workload), 1.0);
  ASSERT_GT(plain.tp_comm.si(), 0);
  EXPECT_NEAR(sp.tp_comm.si(), 2.5 / 2.0 * plain.tp_comm.si(), 1e-12);
  EXPECT_DOUBLE_EQ(sp.pp_comm.si(), plain.pp_comm.si());
  // Under full recomputation the re-run forward's collectives come on top: 1 + 2 + 1/2 forwards.
  in.workload.recompute = Recompute::Full;
  const double full_sp = AnalyticStepModel().step(in).tp_comm.si();
  in.layout.sequence_parallel = false;
  const double full = AnalyticStepModel().step(in).tp_comm.si();
  EXPECT_NEAR(full_sp, 3.5 / 3.0 * full, 1e-12);
  // Without tensor parallelism there is nothing to gather.
  in.layout.sequence_parallel = true;
  in.layout.tp = 1;
  EXPECT_DOUBLE_EQ(tp_backward_collectives_factor(in.workload, in.layout), 2.0);
}

TEST(AnalyticStepModel, GradientsAfterTheFlushHideNoneOfTheirTraffic)
{
  // Megatron's local DDP reduces the gradients after the pipeline flush: dp_overlap does not apply.
  StepInputs in = small_model();
  in.workload.global_batch_tokens = 2e6;
  in.layout.dp = 2;
  in.fabric.nic_latency = Seconds(0);
  in.fabric.dp_overlap = 0.8;
  in.layout.gradients_after_flush = true;
  const StepBreakdown b = AnalyticStepModel().step(in);
  EXPECT_NEAR(b.dp_comm.si(), 0.2, 1e-12);
  EXPECT_EQ(b.overlap.si(), 0);
  EXPECT_NEAR(b.step_time.si(), 12.44, 1e-9);  // 12.24 s of compute + 0.2 s exposed
}

TEST(CheckStepInputs, ExpertParallelismNeedsExpertsThatDivide)
{
  StepInputs in = small_model();
  in.layout = ParallelLayout{2, 2, 2, 1, 1, 2};
  const auto dense = check_step_inputs(in, 8);
  ASSERT_FALSE(dense.empty());
  EXPECT_NE(dense[0].find("mixture-of-experts"), std::string::npos) << dense[0];
  in.workload.experts = 3;
  in.workload.expert_parameters = in.workload.parameters / 2;
  const auto odd = check_step_inputs(in, 8);
  ASSERT_FALSE(odd.empty());
  EXPECT_NE(odd[0].find("must divide"), std::string::npos) << odd[0];
  in.workload.experts = 4;
  EXPECT_TRUE(check_step_inputs(in, 8).empty());
  in.workload.experts_per_token = 5;
  EXPECT_FALSE(check_step_inputs(in, 8).empty());
}

TEST(AnalyticStepModel, NamesItselfAnalytic)
{
  const AnalyticStepModel model;
  const StepTimeModel& base = model;
  EXPECT_EQ(base.name(), "analytic");
}

}  // namespace
}  // namespace fleetsim::models
