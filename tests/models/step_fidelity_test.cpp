// FLOP conventions, recomputation, HFU, the memory model and kernel times by shape (issue 15).
#include "models/step/iteration_plan.hpp"
#include "models/step/layer_cost.hpp"
#include "models/step/memory_model.hpp"
#include "models/step/step_model.hpp"

#include <gtest/gtest.h>

#include <string>

namespace fleetsim::models {
namespace {

// Narayanan et al. 2021, Table 1, 1T row: 128 layers, h 25,600, 160 heads, TP 8, PP 64, DP 6,
// 3,072 sequences of 2,048 tokens, vocabulary 51,200, on 80 GB A100s.
StepInputs gpt_1t()
{
  StepInputs in;
  Workload& w = in.workload;
  w.parameters = 1008e9;
  w.layers = 128;
  w.hidden = 25600;
  w.sequence_length = 2048;
  w.global_batch_tokens = 3072.0 * 2048;
  w.attention_heads = w.kv_heads = 160;
  w.vocabulary = 51200;
  w.dropout = true;
  in.accelerator.peak_flops = units::FlopsPerSecond(312e12);
  in.accelerator.memory = units::Bytes(80e9);
  in.accelerator.gemm_efficiency = 0.8;
  in.accelerator.check_memory = true;
  in.layout = ParallelLayout{8, 64, 6, 1};
  in.fabric.nvlink_bandwidth = units::BytesPerSecond(300e9);
  in.fabric.nic_bandwidth = units::BytesPerSecond(25e9);
  return in;
}

// The logit GEMM is the model's last chunk's: once in its forward, twice in its backward, nowhere
// else. The analytic step charges it whole to the critical (last) stage, outside the bubble.
TEST(StepFidelity, TheLogitGemmRunsOnTheLastChunkOfTheLastStageOnly)
{
  ParallelLayout l{1, 4, 1, 2};
  for (int stage = 0; stage < 4; ++stage)
    for (int chunk = 0; chunk < 2; ++chunk) {
      const bool last = stage == 3 && chunk == 1;
      EXPECT_DOUBLE_EQ(pass_work({10, 20, 1, 2}, l, stage, {PassKind::Forward, 0, chunk}), last ? 11 : 10);
      EXPECT_DOUBLE_EQ(pass_work({10, 20, 1, 2}, l, stage, {PassKind::Backward, 0, chunk}), last ? 22 : 20);
    }
  // With embedding chunks the first chunk of the first stage and the last of the last hold no layers:
  // the first does (next to) nothing, the last only the logits.
  l.embedding_chunks = true;
  for (int stage = 0; stage < 4; ++stage)
    for (int chunk = 0; chunk < 2; ++chunk) {
      const bool first = stage == 0 && chunk == 0;
      const bool last = stage == 3 && chunk == 1;
      EXPECT_DOUBLE_EQ(pass_work({10, 20, 1, 2}, l, stage, {PassKind::Forward, 0, chunk}), first ? 0 : last ? 1 : 10);
      EXPECT_DOUBLE_EQ(pass_work({10, 20, 1, 2}, l, stage, {PassKind::Backward, 0, chunk}), first ? 0 : last ? 2 : 20);
    }
  StepInputs in = gpt_1t();
  in.accelerator.check_memory = false;
  in.accelerator.hbm_bandwidth = units::BytesPerSecond(2039e9);
  in.accelerator.gemm_curve.max_efficiency = 0.87;
  in.accelerator.gemm_curve.kernel_overhead = 5.5e-6;
  const StepBreakdown with = AnalyticStepModel().step(in);
  in.workload.vocabulary = 0;
  const StepBreakdown without = AnalyticStepModel().step(in);
  in.workload.vocabulary = 51200;
  const double logits = logits_forward_seconds(in) + logits_backward_seconds(in);
  EXPECT_GT(logits, 3.0 * (logits_forward_seconds(in) - loss_cost(in).forward_s));  // the loss on top of the GEMM
  EXPECT_NEAR(with.compute.si() - without.compute.si(), with.micro_batches * logits, 1e-9);
  EXPECT_NEAR(with.bubble.si(), without.bubble.si(), 1e-12);
}

// The optimizer step: Adam over the GPU's parameters at HBM bandwidth, after the gradients are
// reduced; the distributed optimizer updates only the GPU's 1/(dp cp) shard.
TEST(StepFidelity, TheOptimizerStepStreamsItsParametersStateThroughHbmOnce)
{
  Workload w;
  w.bytes_per_value = 2;
  EXPECT_DOUBLE_EQ(optimizer_bytes_per_parameter(w), 24 + 4 + 4 + 4 + 4 + 2);  // 42
  w.bytes_per_value = 4;
  EXPECT_DOUBLE_EQ(optimizer_bytes_per_parameter(w), 36);  // no 16-bit copy

  StepInputs in = gpt_1t();
  in.accelerator.check_memory = false;
  EXPECT_EQ(optimizer_seconds(in), 0);  // no kernel times by shape
  in.accelerator.gemm_curve.max_efficiency = 0.87;
  in.accelerator.gemm_curve.kernel_overhead = 5.5e-6;
  EXPECT_EQ(optimizer_seconds(in), 0);  // no HBM bandwidth
  in.accelerator.hbm_bandwidth = units::BytesPerSecond(2039e9);
  // 1,008e9 parameters over tp 8 x pp 64: 1.97e9 per GPU, x 42 bytes at 2,039 GB/s: 40.6 ms.
  const double per_gpu = 1008e9 / (8 * 64);
  const double expected = per_gpu * 42 / 2039e9 + 4 * 5.5e-6;
  EXPECT_NEAR(optimizer_seconds(in), expected, 1e-12);
  const StepBreakdown plain = AnalyticStepModel().step(in);
  in.layout.distributed_optimizer = true;
  EXPECT_NEAR(optimizer_seconds(in), per_gpu / 6 * 42 / 2039e9 + 4 * 5.5e-6, 1e-12);
  const StepBreakdown sharded = AnalyticStepModel().step(in);
  // It is compute of the critical stage, outside the pipeline bubble; the traffic does not change.
  EXPECT_NEAR(plain.compute.si() - sharded.compute.si(), expected - optimizer_seconds(in), 1e-9);
  EXPECT_NEAR(plain.bubble.si(), sharded.bubble.si(), 1e-12);
  EXPECT_NEAR(plain.dp_comm.si(), sharded.dp_comm.si(), 1e-12);
  EXPECT_NEAR(make_iteration_plan(in).optimizer_s, optimizer_seconds(in), 1e-15);
}

TEST(StepFidelity, CausalCountingHalvesTheAttentionTerm)
{
  Workload w = gpt_1t().workload;
  const double full = training_flops_per_token(w);
  w.attention_flops = AttentionFlops::Causal;
  const double causal = training_flops_per_token(w);
  EXPECT_DOUBLE_EQ(full - causal, 6.0 * 128 * 25600 * 2048);
}

TEST(StepFidelity, FullRecomputationAddsOneForwardOfTheLayers)
{
  Workload w = gpt_1t().workload;
  EXPECT_DOUBLE_EQ(hardware_flops_per_token(w), training_flops_per_token(w));
  w.recompute = Recompute::Full;
  const double attention_forward = 4.0 * 128 * 25600 * 2048;
  EXPECT_DOUBLE_EQ(hardware_flops_per_token(w) - training_flops_per_token(w),
                   2.0 * (1008e9 - 51200.0 * 25600) + attention_forward);
  w.recompute = Recompute::Selective;
  EXPECT_DOUBLE_EQ(hardware_flops_per_token(w) - training_flops_per_token(w), attention_forward);
}

TEST(StepFidelity, RecomputationRaisesHfuAboveMfuAndSlowsTheStep)
{
  StepInputs in = gpt_1t();
  in.accelerator.check_memory = false;
  const StepBreakdown none = AnalyticStepModel().step(in);
  EXPECT_DOUBLE_EQ(none.hfu, none.mfu);
  in.workload.recompute = Recompute::Full;
  const StepBreakdown full = AnalyticStepModel().step(in);
  EXPECT_GT(full.step_time, none.step_time);
  EXPECT_GT(full.hfu, full.mfu * 1.3);
  EXPECT_LT(full.mfu, none.mfu);
}

TEST(StepFidelity, ALayoutThatDoesNotFitIsRejectedNamingTheBiggestTerm)
{
  StepInputs in = gpt_1t();
  // Without recomputation the materialised scores of 1,024 in-flight micro-batch layers do not fit.
  const auto problems = check_step_inputs(in, in.layout.gpus());
  ASSERT_EQ(problems.size(), 1U);
  EXPECT_NE(problems[0].find("does not fit in HBM"), std::string::npos) << problems[0];
  EXPECT_NE(problems[0].find("the biggest term is the activations"), std::string::npos) << problems[0];
  // Full recomputation keeps one layer input per layer and micro-batch: it fits.
  in.workload.recompute = Recompute::Full;
  EXPECT_TRUE(check_step_inputs(in, in.layout.gpus()).empty());
  // On one GPU per model replica the optimizer state is the biggest term.
  StepInputs small = gpt_1t();
  small.workload.recompute = Recompute::Full;
  small.layout = ParallelLayout{1, 1, 3072, 1};
  const MemoryEstimate e = estimate_memory(small);
  EXPECT_EQ(e.biggest().name, "optimizer state");
  EXPECT_DOUBLE_EQ(e.optimizer, 12.0 * e.parameters);
}

TEST(StepFidelity, SequenceParallelismAndTheDistributedOptimizerShrinkMemory)
{
  StepInputs in = gpt_1t();
  in.workload.recompute = Recompute::Selective;
  const MemoryEstimate base = estimate_memory(in);
  in.layout.sequence_parallel = true;
  const MemoryEstimate sp = estimate_memory(in);
  // Korthikanti et al. 2022, Table 2: sbh(10 + 24/t) against sbh 34/t per layer.
  EXPECT_NEAR(layer_activation_bytes(in), 2048.0 * 25600 * 34 / 8, 1.0);
  EXPECT_LT(sp.activations, base.activations / 2);
  in.layout.distributed_optimizer = true;
  const MemoryEstimate zero1 = estimate_memory(in);
  EXPECT_DOUBLE_EQ(zero1.optimizer, sp.optimizer / 6);
  EXPECT_DOUBLE_EQ(zero1.gradients, sp.gradients);
  in.layout.sharded_gradients = true;  // FSDP / ZeRO-2
  EXPECT_DOUBLE_EQ(estimate_memory(in).gradients, sp.gradients / 6);
}

TEST(StepFidelity, ThinGemmsRunFurtherFromPeakThanLargeOnes)
{
  Accelerator a;
  a.peak_flops = units::FlopsPerSecond(989e12);
  a.hbm_bandwidth = units::BytesPerSecond(3.35e12);
  a.gemm_curve.max_efficiency = 0.8;
  a.gemm_curve.kernel_overhead = 5.5e-6;
  const double large = gemm_efficiency(a, Gemm{"", 8192, 8192, 8192, 1}, 2);
  const double thin = gemm_efficiency(a, Gemm{"", 4096, 4096, 256, 1}, 2);
  const double small = gemm_efficiency(a, Gemm{"", 256, 512, 256, 1}, 2);
  EXPECT_GT(large, 0.78);
  EXPECT_LT(large, 0.8);
  EXPECT_LT(thin, 0.7 * large);  // 0.52 against 0.80: the fixed kernel cost is a third of its time
  EXPECT_LT(small, 0.05);
}

TEST(StepFidelity, TensorParallelismMustSplitTheAttentionHeads)
{
  StepInputs in = gpt_1t();
  in.workload.recompute = Recompute::Full;
  in.workload.attention_heads = in.workload.kv_heads = 100;  // 100 heads do not split over tp 8
  const auto problems = check_step_inputs(in, in.layout.gpus());
  ASSERT_EQ(problems.size(), 1U);
  EXPECT_NE(problems[0].find("attention heads (100) are not a multiple of tp (8)"), std::string::npos) << problems[0];
}

TEST(StepFidelity, HidingTensorParallelTrafficShortensTheStep)
{
  StepInputs in = gpt_1t();
  in.workload.recompute = Recompute::Full;
  const StepBreakdown exposed = AnalyticStepModel().step(in);
  in.fabric.tp_overlap = 0.5;
  const StepBreakdown hidden = AnalyticStepModel().step(in);
  EXPECT_NEAR((exposed.step_time - hidden.step_time).si(), 0.5 * exposed.tp_comm.si(), 1e-9);
  EXPECT_DOUBLE_EQ(hidden.comm.si(), exposed.comm.si());
}

}  // namespace
}  // namespace fleetsim::models
