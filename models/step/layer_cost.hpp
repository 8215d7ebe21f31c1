#pragma once
// The compute of one transformer layer on one GPU, kernel by kernel: the GEMMs a layer runs (their
// shapes after tensor, context and expert parallelism), the attention core, and the memory-bound
// element-wise kernels; each timed by the accelerator's GEMM curve or its HBM bandwidth. Pure (no
// SimGrid): the analytic step sums it, the simulated step turns it into Exec sizes.
//
// Shapes per micro-batch of b sequences, m = b s / cp tokens per GPU, t = tp:
//   QKV [m x h] x [h x (h + 2 h_kv)/t], output projection [m x h/t] x [h/t x h],
//   MLP up [m x h] x [h x u ffn/t] (u = 2 gated, 1 otherwise), down [m x ffn/t] x [ffn/t x h],
//   logits [m x h] x [h x V/t] (once per pass over the model, spread over its layers);
//   attention core: per local head, [s/cp x d] x [d x s] and back, d = h / heads.
// A backward pass runs each GEMM twice (input and weight gradients) on the same dimensions.

#include "step_model.hpp"

#include <optional>
#include <vector>

namespace fleetsim::models {

struct Gemm {
  const char* name = "";
  double m = 0, k = 0, n = 0;  // [m x k] x [k x n]
  double count = 1;            // batch of one kernel: heads, local experts, ...
  [[nodiscard]] double flops() const { return 2.0 * m * k * n * count; }
};

/// The GEMMs of one layer's forward pass on one GPU, per micro-batch.
[[nodiscard]] std::vector<Gemm> layer_gemms(const StepInputs& in);

/// The attention core's score and value products as batched GEMMs, as the kernels run them: a
/// flash kernel skips the causal mask's upper half, a materialised softmax does not (the model-FLOP
/// convention, Workload::attention_flops, is separate).
[[nodiscard]] std::vector<Gemm> attention_gemms(const StepInputs& in);

/// Achieved fraction of peak of one GEMM, from gemm_seconds. Without a curve, the accelerator's
/// constant gemm_efficiency.
[[nodiscard]] double gemm_efficiency(const Accelerator& a, const Gemm& g, double bytes_per_value,
                                     GemmPass pass = GemmPass::Forward);

/// Seconds one GEMM kernel (all `count` of its batch) takes in `pass` (g is the forward's shape):
/// with a curve, max(flops / (e peak speed), bytes / HBM) + kernel_overhead, e = max_efficiency, or
/// with a measured table its efficiency for the shape and pass, at most max_efficiency. A batched
/// GEMM is looked up by the shape of one of its `count` products.
[[nodiscard]] double gemm_seconds(const Accelerator& a, const Gemm& g, double bytes_per_value,
                                  GemmPass pass = GemmPass::Forward);

/// The fused attention core of one layer's forward and backward on one GPU per micro-batch, from the
/// accelerator's attention table; nullopt unless the workload uses flash attention and the table is
/// there. The backward's time includes the scores it recomputes.
struct AttentionCost {
  double forward_s = 0;
  double backward_s = 0;
  double forward_flops = 0;  // FlashAttention's count: the unmasked half of 4 s^2 d per head
};
[[nodiscard]] std::optional<AttentionCost> measured_attention(const StepInputs& in);
/// One layer's attention core, forward and backward, whichever way the accelerator times it (the
/// measured table, the GEMM curve, or the flat efficiency): what ring attention hides its steps behind.
[[nodiscard]] AttentionCost attention_seconds(const StepInputs& in);
/// Ring attention's merge kernels in one layer's pass (0 unless cp > 1 with the ring exchange): cp - 1
/// rescale-and-add passes over the partial output in FP32 (the forward) or the query gradient (the
/// backward), each reading two and writing one (b s/cp) x (h/tp) x 4-byte tensor, plus its kernel gap.
[[nodiscard]] double cp_merge_seconds(const StepInputs& in);

/// How much longer a pass's attention core takes under context parallelism than 1/cp of it would:
/// 1 / the accelerator's cp efficiency for that pass when cp > 1, else 1.
[[nodiscard]] double cp_attention_factor(const StepInputs& in, bool backward);

/// One layer's forward and backward on one GPU, per micro-batch.
struct LayerCost {
  double forward_s = 0;        // GEMMs, attention core and element-wise kernels
  double backward_s = 0;       // twice the forward's math, plus recomputation
  double recompute_s = 0;      // the part of backward_s that repeats forward work
  double elementwise_s = 0;    // memory-bound kernels of one forward (part of forward_s)
  double forward_flops = 0;    // hardware FLOPs of the forward
  double backward_flops = 0;   // of the backward, recomputation included
  double gemm_efficiency = 0;  // FLOP-weighted achieved fraction of peak of the layer's GEMMs
};
[[nodiscard]] LayerCost layer_cost(const StepInputs& in);

/// The cross-entropy over the vocabulary per micro-batch on one GPU, memory-bound: its bytes and
/// seconds by pass (Workload::loss_kernel); zero without a vocabulary, a kernel curve or an HBM bandwidth.
struct LossCost {
  double forward_bytes = 0, backward_bytes = 0;
  double forward_s = 0, backward_s = 0;
};
[[nodiscard]] LossCost loss_cost(const StepInputs& in);

/// The output layer's forward seconds per micro-batch on one GPU: the logit GEMM and the loss (0 when
/// the vocabulary is unset).
[[nodiscard]] double logits_forward_seconds(const StepInputs& in);
/// Its backward: the input and weight gradients (twice the forward without a measured table).
[[nodiscard]] double logits_backward_seconds(const StepInputs& in);

/// Bytes per parameter the optimizer step moves through HBM: Adam reads and writes the FP32 master
/// weight and its two moments (24) and reads the FP32 gradient (4); the gradient-norm pass reads it
/// again (4) and the next step's accumulation buffer is zeroed (4); with 16-bit training the
/// updated master weight is copied into the 16-bit model weight (4 + bytes_per_value).
[[nodiscard]] double optimizer_bytes_per_parameter(const Workload& w);

/// Seconds of one GPU's optimizer step, memory-bound at HBM bandwidth: the parameters it updates
/// (its share of a stage, dp_shard_bytes / bytes_per_value, over dp cp more with the distributed
/// optimizer or sharded gradients) times optimizer_bytes_per_parameter, plus a kernel_overhead for
/// each of its four kernels. 0 without kernel times by shape or without an HBM bandwidth.
[[nodiscard]] double optimizer_seconds(const StepInputs& in);

/// Bytes the memory-bound kernels of one layer's forward move per micro-batch on one GPU: norms,
/// residual adds, dropout and the MLP's activation, and a materialised softmax. Norms, residuals
/// and dropout run on every TP rank unless sequence parallelism splits them.
[[nodiscard]] double elementwise_bytes(const StepInputs& in);

}  // namespace fleetsim::models
