// How a layer's memory-bound operations are implemented (issue 32): fused kernels against PyTorch's
// eager op-by-op code, the rotary embedding and the cross-entropy over the vocabulary. Each is
// checked against the bytes its kernels move, counted from the code the keys' documentation names.
#include "models/step/layer_cost.hpp"
#include "models/step/step_model.hpp"

#include <gtest/gtest.h>

namespace fleetsim::models {
namespace {

// A Llama-like layer (grouped-query attention, SwiGLU) on one GPU with kernel times by shape.
StepInputs llama_like()
{
  StepInputs in;
  Workload& w = in.workload;
  w.parameters = 8e9;
  w.layers = 32;
  w.hidden = 4096;
  w.attention_heads = 32;
  w.kv_heads = 8;
  w.ffn_hidden = 14336;
  w.gated_mlp = true;
  w.sequence_length = 4096;
  w.micro_batch_size = 2;
  w.global_batch_tokens = 4096.0 * 2 * 8;
  w.vocabulary = 128256;
  w.flash_attention = true;
  in.accelerator.peak_flops = units::FlopsPerSecond(989e12);
  in.accelerator.hbm_bandwidth = units::BytesPerSecond(3.35e12);
  in.accelerator.gemm_curve.max_efficiency = 0.8;
  in.accelerator.gemm_curve.kernel_overhead = 5e-6;
  in.layout = ParallelLayout{1, 1, 8, 1};
  return in;
}

constexpr double kTokens = 2.0 * 4096;  // micro-batch x sequence on one GPU
constexpr double kH = 4096;
constexpr double kKv = 4096.0 * 8 / 32;
constexpr double kFfn = 14336;

TEST(KernelImplementation, FusedDefaultsChargeEachOperationOneReadAndOneWrite)
{
  const StepInputs in = llama_like();
  // Two norms (2h each), two residual adds (3h each), SwiGLU (3 ffn), BF16.
  EXPECT_DOUBLE_EQ(elementwise_bytes(in), kTokens * (2 * 2 * kH * 2 + 2 * 3 * kH * 2 + 3 * kFfn * 2));
}

TEST(KernelImplementation, RotaryEmbeddingReadsAndWritesTheRotatedQueriesAndKeys)
{
  StepInputs in = llama_like();
  const double none = elementwise_bytes(in);
  in.workload.rotary_fraction = 1;
  const double full = elementwise_bytes(in);
  EXPECT_DOUBLE_EQ(full - none, kTokens * (kH + kKv) * 4);  // BF16 in and out
  in.workload.rotary_fraction = 0.5;  // Nemotron-4's rotary_percentage
  EXPECT_DOUBLE_EQ(elementwise_bytes(in) - none, (full - none) / 2);
  // Tensor parallelism splits the heads, and the bytes with them.
  in.workload.rotary_fraction = 1;
  in.layout.tp = 4;
  const double split = elementwise_bytes(in);
  in.workload.rotary_fraction = 0;
  EXPECT_DOUBLE_EQ(split - elementwise_bytes(in), (full - none) / 4);
}

TEST(KernelImplementation, EagerCodeMovesTheBytesOfEachOpItRuns)
{
  StepInputs in = llama_like();
  in.workload.rotary_fraction = 1;
  const double fused = elementwise_bytes(in);
  const double fused_kernels = layer_cost(in).elementwise_s;
  in.workload.kernels = Kernels::Eager;
  // Rotary: x.float() (2 + 4), the complex multiply (4 + 4), type_as (4 + 2) = 20 bytes, not 4.
  // SwiGLU: silu (2 + 2) then the product (4 + 2) = 10 bytes per MLP value, not 6.
  // repeat_kv: keys and values read at h_kv and written at h.
  const double extra = (kH + kKv) * (20 - 4) + kFfn * (10 - 6) + 2 * (kKv + kH) * 2;
  EXPECT_DOUBLE_EQ(elementwise_bytes(in) - fused, kTokens * extra);
  EXPECT_GT(layer_cost(in).elementwise_s, fused_kernels);
  // Without grouped-query attention there is nothing to repeat.
  in.workload.kv_heads = in.workload.attention_heads;
  StepInputs mha = in;
  mha.workload.kernels = Kernels::Fused;
  const double h_kv = kH;
  EXPECT_DOUBLE_EQ(elementwise_bytes(in) - elementwise_bytes(mha), kTokens * ((kH + h_kv) * 16 + kFfn * 4));
  // A GeLU MLP is one kernel either way.
  in.workload.gated_mlp = false;
  mha.workload.gated_mlp = false;
  EXPECT_DOUBLE_EQ(elementwise_bytes(in) - elementwise_bytes(mha), kTokens * (kH + h_kv) * 16);
}

TEST(KernelImplementation, EagerRmsNormRunsEightKernelsInFp32)
{
  StepInputs in = llama_like();
  const LayerCost fused = layer_cost(in);
  const double fused_bytes = elementwise_bytes(in);
  in.workload.norm_kernel = Kernels::Eager;
  // float() 2+4, pow 4+4, mean 4, times rsqrt 4+4, type_as 4+2, times the weight 2+2 = 36 bytes, not 4.
  EXPECT_DOUBLE_EQ(elementwise_bytes(in) - fused_bytes, kTokens * 2 * kH * (36 - 4));
  // Seven more kernels per norm, two norms: their fixed cost on top of the bytes.
  // 2 norms x 32 more bytes a value x h at 3.35 TB/s, plus 14 launches of 5 us.
  EXPECT_NEAR(layer_cost(in).elementwise_s - fused.elementwise_s, kTokens * 2 * kH * 32 / 3.35e12 + 14 * 5e-6,
              1e-12);
  // Sequence parallelism splits the norms over the TP ranks.
  in.layout.tp = 4;
  in.layout.sequence_parallel = true;
  StepInputs fused_sp = in;
  fused_sp.workload.norm_kernel = Kernels::Fused;
  EXPECT_DOUBLE_EQ(elementwise_bytes(in) - elementwise_bytes(fused_sp), kTokens * 2 * kH * 32 / 4);
}

TEST(KernelImplementation, TheLossReadsEveryLogitAndEagerCodeMovesThemInFp32)
{
  StepInputs in = llama_like();
  const double logits = kTokens * 128256;
  const LossCost fused = loss_cost(in);
  EXPECT_DOUBLE_EQ(fused.forward_bytes, logits * 2);
  EXPECT_DOUBLE_EQ(fused.backward_bytes, logits * 4);
  in.workload.loss_kernel = Kernels::Eager;
  const LossCost eager = loss_cost(in);
  // Megatron's vocab-parallel cross-entropy on logits.float(): 52 bytes per logit in all.
  EXPECT_DOUBLE_EQ(eager.forward_bytes + eager.backward_bytes, logits * 52);
  EXPECT_NEAR(eager.forward_s, eager.forward_bytes / 3.35e12 + 6 * 5e-6, 1e-12);
  // The loss is part of the output layer's time, after the logit GEMM.
  const double with_eager = logits_forward_seconds(in) + logits_backward_seconds(in);
  in.workload.loss_kernel = Kernels::Fused;
  // 52 against 6 bytes a logit at 3.35 TB/s, and 8 kernels (6 forward, 2 backward) against 2 of 5 us.
  EXPECT_NEAR(with_eager - (logits_forward_seconds(in) + logits_backward_seconds(in)),
              logits * (52 - 6) / 3.35e12 + (8 - 2) * 5e-6, 1e-12);
  // Tensor parallelism splits the vocabulary.
  in.layout.tp = 8;
  EXPECT_DOUBLE_EQ(loss_cost(in).forward_bytes, logits * 2 / 8);
  // Without a vocabulary, or without kernel times, nothing is charged.
  in.workload.vocabulary = 0;
  EXPECT_EQ(loss_cost(in).forward_s, 0);
  in = llama_like();
  in.accelerator.gemm_curve.max_efficiency = 0;
  EXPECT_EQ(loss_cost(in).backward_bytes, 0);
}

}  // namespace
}  // namespace fleetsim::models
