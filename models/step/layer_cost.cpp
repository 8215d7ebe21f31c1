#include "layer_cost.hpp"

#include <algorithm>

namespace fleetsim::models {
namespace {

double tokens_per_gpu(const StepInputs& in)
{
  return static_cast<double>(in.workload.micro_batch_size) * in.workload.sequence_length / in.layout.cp;
}

double kv_hidden(const Workload& w) { return static_cast<double>(w.hidden) * w.kv_heads / w.attention_heads; }

/// MLP matrices in one expert, from the experts' parameter count: (u + 1) h ffn_e per expert.
double expert_ffn(const Workload& w)
{
  const double matrices = w.gated_mlp ? 3.0 : 2.0;
  return w.expert_parameters / (static_cast<double>(w.layers) * w.experts * matrices * w.hidden);
}

double sum_seconds(const Accelerator& a, const std::vector<Gemm>& gemms, double bytes,
                   GemmPass pass = GemmPass::Forward)
{
  double s = 0;
  for (const Gemm& g : gemms)
    s += gemm_seconds(a, g, bytes, pass);
  return s;
}

/// Both gradients of every GEMM.
double sum_backward_seconds(const Accelerator& a, const std::vector<Gemm>& gemms, double bytes)
{
  return sum_seconds(a, gemms, bytes, GemmPass::InputGradient) + sum_seconds(a, gemms, bytes, GemmPass::WeightGradient);
}

double sum_flops(const std::vector<Gemm>& gemms)
{
  double f = 0;
  for (const Gemm& g : gemms)
    f += g.flops();
  return f;
}

double hbm_seconds(const Accelerator& a, double bytes)
{
  return a.hbm_bandwidth.si() > 0 ? bytes / (a.hbm_bandwidth.si() * a.hbm_efficiency) : 0.0;
}

constexpr double kFp32 = 4;  // bytes of an FP32 value: eager code's upcast copies, ring attention's accumulators

/// RMSNorm as PyTorch eager code writes it (torchtitan's RMSNorm: x.float(), pow(2), mean, times
/// rsqrt(. + eps), type_as(x), times the weight): bytes per normalised value and kernels; fused, one
/// kernel reads the input and writes the output.
double norm_bytes_per_value(const Workload& w)
{
  const double v = w.bytes_per_value;
  return w.norm_kernel == Kernels::Eager ? (v + kFp32) + 2 * kFp32 + kFp32 + 2 * kFp32 + (kFp32 + v) + 2 * v
                                         : 2 * v;
}
double norm_kernels(const Workload& w) { return w.norm_kernel == Kernels::Eager ? 8.0 : 1.0; }

/// Rotary embedding per rotated query or key value: fused, read and written once; eager as torchtitan's
/// apply_rotary_emb (x.float(), a complex multiply, type_as), 20 bytes in BF16.
double rotary_bytes_per_value(const Workload& w)
{
  const double v = w.bytes_per_value;
  return w.kernels == Kernels::Eager ? (v + kFp32) + 2 * kFp32 + (kFp32 + v) : 2 * v;
}

/// The MLP activation per MLP value: SwiGLU fused reads both halves and writes one; eager, silu then
/// the product are two kernels (silu's output written and read again). GeLU is one kernel either way.
double activation_bytes_per_value(const Workload& w)
{
  const double v = w.bytes_per_value;
  if (!w.gated_mlp)
    return 2 * v;
  return w.kernels == Kernels::Eager ? 5 * v : 3 * v;
}

bool grouped_query(const Workload& w) { return w.kv_heads > 0 && w.kv_heads < w.attention_heads; }

/// Memory-bound kernels of one layer's forward: the norms, two residual adds (dropout fused into
/// them), the MLP's activation, the rotary embedding of queries and keys, eager code's K/V repeat for
/// grouped-query attention, and a materialised softmax.
double elementwise_kernels(const StepInputs& in)
{
  const Workload& w = in.workload;
  const bool eager = w.kernels == Kernels::Eager;
  double k = 2 * norm_kernels(w) + 2 + (eager && w.gated_mlp ? 2 : 1);
  if (w.rotary_fraction > 0)
    k += eager ? 6 : 2;
  if (eager && grouped_query(w))
    k += 2;
  return k + (w.flash_attention ? 0 : 1);
}

/// Bytes a materialised softmax (and its dropout) moves per layer forward; 0 with flash attention.
double softmax_bytes(const StepInputs& in)
{
  const Workload& w = in.workload;
  if (w.flash_attention)
    return 0;
  const double scores = tokens_per_gpu(in) * w.sequence_length * w.attention_heads / in.layout.tp;
  const double per_score = 2.0 * w.bytes_per_value + (w.dropout ? 2.0 * w.bytes_per_value + 1.0 : 0.0);
  return scores * per_score;
}

}  // namespace

std::vector<Gemm> layer_gemms(const StepInputs& in)
{
  const Workload& w = in.workload;
  const double t = in.layout.tp;
  const double m = tokens_per_gpu(in);
  const double h = w.hidden;
  const double u = w.gated_mlp ? 2.0 : 1.0;
  std::vector<Gemm> g;
  g.push_back({"qkv", m, h, (h + 2.0 * kv_hidden(w)) / t, 1});
  g.push_back({"attention output", m, h / t, h, 1});
  if (w.moe()) {
    const double ffn = expert_ffn(w);
    const double ep = in.layout.ep;
    const double local = w.experts / ep;
    const double m_expert = m * ep * w.experts_per_token / w.experts;
    g.push_back({"expert up", m_expert, h, u * ffn / t, local});
    g.push_back({"expert down", m_expert, ffn / t, h, local});
  } else {
    const double ffn = w.ffn();
    g.push_back({"mlp up", m, h, u * ffn / t, 1});
    g.push_back({"mlp down", m, ffn / t, h, 1});
  }
  return g;
}

std::vector<Gemm> attention_gemms(const StepInputs& in)
{
  const Workload& w = in.workload;
  const double d = static_cast<double>(w.hidden) / w.attention_heads;
  const double queries = static_cast<double>(w.sequence_length) / in.layout.cp;
  // A causal decoder's fused (flash) kernel skips the masked half of the score blocks; a materialised
  // softmax computes every score. Either way, model FLOPs follow Workload::attention_flops.
  const double keys = w.flash_attention ? w.sequence_length / 2.0 : w.sequence_length;
  const double batch = static_cast<double>(w.micro_batch_size) * w.attention_heads / in.layout.tp;
  return {{"attention scores", queries, d, keys, batch}, {"attention values", queries, keys, d, batch}};
}

double gemm_seconds(const Accelerator& a, const Gemm& g, double bytes_per_value, GemmPass pass)
{
  if (!a.gemm_curve.enabled())
    return g.flops() / (a.peak_flops.si() * a.gemm_efficiency * a.speed);
  double efficiency = a.gemm_curve.max_efficiency;
  if (a.gemm_curve.measured_gemms())
    efficiency = std::min(efficiency, a.gemm_curve.table->efficiency(pass, g.m, g.k, g.n));
  const double math = g.flops() / (a.peak_flops.si() * efficiency * a.speed);
  // Roofline: a kernel cannot run faster than it reads its operands and writes its result.
  const double bytes = bytes_per_value * (g.m * g.k + g.k * g.n + g.m * g.n) * g.count;
  return std::max(math, hbm_seconds(a, bytes)) + a.gemm_curve.kernel_overhead;
}

double gemm_efficiency(const Accelerator& a, const Gemm& g, double bytes_per_value, GemmPass pass)
{
  return g.flops() / (gemm_seconds(a, g, bytes_per_value, pass) * a.peak_flops.si());
}

double cp_attention_factor(const StepInputs& in, bool backward)
{
  if (in.layout.cp <= 1)
    return 1.0;
  const GemmCurve& g = in.accelerator.gemm_curve;
  return 1.0 / (backward ? g.cp_backward_efficiency : g.cp_forward_efficiency);
}

std::optional<AttentionCost> measured_attention(const StepInputs& in)
{
  const Accelerator& a = in.accelerator;
  const Workload& w = in.workload;
  const auto& table = a.gemm_curve.attention;
  if (!w.flash_attention || !a.gemm_curve.enabled() || !table || table->empty())
    return std::nullopt;
  const std::string kernel = w.attention_kernel.empty() ? table->kernels().front() : w.attention_kernel;
  const double d = static_cast<double>(w.hidden) / w.attention_heads;
  const double s = w.sequence_length;
  const double heads = static_cast<double>(w.micro_batch_size) * w.attention_heads / in.layout.tp;
  // Every model here is a causal decoder: the fused kernel skips the masked blocks. Under context
  // parallelism a GPU's kernels run on its s/cp queries, at the rate of that shorter length, and the
  // load-balanced ring adds its imbalance (cp_attention_factor).
  const int cp = in.layout.cp;
  const AttentionRate rate = table->rate(kernel, true, d, s / cp);
  AttentionCost c;
  c.forward_flops = attention_forward_flops(heads, s, d, true) / cp;
  c.forward_s = c.forward_flops / (rate.forward * 1e12 * a.speed) * cp_attention_factor(in, false) +
                a.gemm_curve.kernel_overhead;
  c.backward_s = 2.5 * c.forward_flops / (rate.backward * 1e12 * a.speed) *
                     cp_attention_factor(in, true) +
                 a.gemm_curve.kernel_overhead;
  return c;
}

double elementwise_bytes(const StepInputs& in)
{
  const Workload& w = in.workload;
  const double m = tokens_per_gpu(in);
  const double h = w.hidden;
  const double v = w.bytes_per_value;
  // Two norms, two residual adds (read 2h, write h), two dropouts (read and write h, and a one-byte
  // mask): on every TP rank unless sequence parallelism splits them.
  double replicated = 2.0 * h * norm_bytes_per_value(w) + 2.0 * 3.0 * h * v + (w.dropout ? 2.0 * (2.0 * h * v + h) : 0.0);
  if (in.layout.sequence_parallel)
    replicated /= in.layout.tp;
  const double t = in.layout.tp;
  const double ffn = w.moe() ? expert_ffn(w) * w.experts_per_token : w.ffn();
  const double activation = activation_bytes_per_value(w) * ffn / t;
  // Rotary embedding on this rank's queries and keys (the rotated share of each head).
  const double rotary = w.rotary_fraction * (h + kv_hidden(w)) / t * rotary_bytes_per_value(w);
  // Eager grouped-query attention materialises keys and values at the query heads' count (torchtitan's
  // repeat_kv); a fused kernel reads the shared heads in place.
  const double repeat = w.kernels == Kernels::Eager && grouped_query(w) ? 2.0 * (kv_hidden(w) + h) * v / t : 0.0;
  return m * (replicated + activation + rotary + repeat) + softmax_bytes(in);
}

double optimizer_bytes_per_parameter(const Workload& w)
{
  const double adam = 6.0 * 4.0 + 4.0;  // master weight and two moments read and written, gradient read
  const double norm_and_zero = 4.0 + 4.0;
  const double to_model = w.bytes_per_value < 4 ? 4.0 + w.bytes_per_value : 0.0;
  return adam + norm_and_zero + to_model;
}

double optimizer_seconds(const StepInputs& in)
{
  const Accelerator& a = in.accelerator;
  if (!a.gemm_curve.enabled() || !(a.hbm_bandwidth.si() > 0))
    return 0;
  const Workload& w = in.workload;
  const ParallelLayout& l = in.layout;
  double parameters = dp_shard_bytes(in) / w.bytes_per_value;
  if (l.sharded_optimizer())
    parameters /= static_cast<double>(l.dp) * l.cp;
  constexpr double kKernels = 4;  // gradient norm, Adam, copy to the model weights, zeroing
  return hbm_seconds(a, parameters * optimizer_bytes_per_parameter(w)) + kKernels * a.gemm_curve.kernel_overhead;
}

namespace {

/// layer_cost with a measured table: each GEMM's forward and both gradients at their own efficiency
/// (the GEMM table's, or max_efficiency), the fused attention core at the attention table's rates, the element-wise kernels'
/// backward moving twice their forward's bytes.
LayerCost measured_layer_cost(const StepInputs& in)
{
  const Accelerator& a = in.accelerator;
  const Workload& w = in.workload;
  const double v = w.bytes_per_value;
  const std::vector<Gemm> gemms = layer_gemms(in);
  const double gemm_f = sum_flops(gemms);
  double attention_forward_s = 0;
  double attention_backward_s = 0;
  double attention_f = 0;
  double recompute_s = 0;  // repeated forward work inside the backward
  double extra_s = 0;      // the part of it not already in a backward kernel's time
  if (const auto fused = measured_attention(in)) {
    attention_forward_s = fused->forward_s;
    attention_backward_s = fused->backward_s;
    attention_f = fused->forward_flops;
    recompute_s = fused->backward_s / 5;  // the scores again: 0.5 of the backward's 2.5 forwards
  } else {
    const std::vector<Gemm> attention = attention_gemms(in);
    attention_forward_s = sum_seconds(a, attention, v) * cp_attention_factor(in, false);
    attention_backward_s = sum_backward_seconds(a, attention, v) * cp_attention_factor(in, true);
    attention_f = sum_flops(attention);
    if (w.flash_attention)
      extra_s += attention_forward_s / 2;
  }
  LayerCost c;
  c.elementwise_s = hbm_seconds(a, elementwise_bytes(in)) + elementwise_kernels(in) * a.gemm_curve.kernel_overhead;
  c.forward_s = sum_seconds(a, gemms, v) + attention_forward_s + c.elementwise_s;
  c.forward_flops = gemm_f + attention_f;
  double recompute_f = w.flash_attention ? attention_f / 2 : 0.0;
  if (w.recompute == Recompute::Full) {
    extra_s += c.forward_s;
    recompute_f += c.forward_flops;
  } else if (w.recompute == Recompute::Selective && !w.flash_attention) {
    extra_s += attention_forward_s + hbm_seconds(a, softmax_bytes(in));
    recompute_f += attention_f;
  }
  c.recompute_s = recompute_s + extra_s;
  c.backward_s = sum_backward_seconds(a, gemms, v) + attention_backward_s + 2.0 * c.elementwise_s + extra_s;
  c.backward_flops = 2.0 * c.forward_flops + recompute_f;
  c.gemm_efficiency = c.forward_flops / ((c.forward_s - c.elementwise_s) * a.peak_flops.si());
  return c;
}

}  // namespace

namespace {
LayerCost layer_cost_of_kernels(const StepInputs& in);
}  // namespace

AttentionCost attention_seconds(const StepInputs& in)
{
  if (const auto fused = measured_attention(in))
    return *fused;
  const Accelerator& a = in.accelerator;
  const double v = in.workload.bytes_per_value;
  const std::vector<Gemm> attention = attention_gemms(in);
  AttentionCost c;
  c.forward_flops = sum_flops(attention);
  if (a.gemm_curve.measured()) {
    c.forward_s = sum_seconds(a, attention, v) * cp_attention_factor(in, false);
    c.backward_s = sum_backward_seconds(a, attention, v) * cp_attention_factor(in, true);
  } else {
    c.forward_s = sum_seconds(a, attention, v);
    c.backward_s = 2.0 * c.forward_s;
  }
  return c;
}

double cp_merge_seconds(const StepInputs& in)
{
  const ParallelLayout& l = in.layout;
  if (l.cp <= 1 || l.cp_exchange != CpExchange::Ring)
    return 0;
  const Accelerator& a = in.accelerator;
  // The partial output and the running one are accumulated in FP32.
  const double tensor = tokens_per_gpu(in) * in.workload.hidden / l.tp * kFp32;
  return (l.cp - 1) * (hbm_seconds(a, 3.0 * tensor) + a.gemm_curve.kernel_overhead);
}

LayerCost layer_cost(const StepInputs& in)
{
  LayerCost c = layer_cost_of_kernels(in);
  // Ring attention's merge kernels run in both passes (the forward's output, the backward's dQ).
  const double merge = cp_merge_seconds(in);
  c.forward_s += merge;
  c.backward_s += merge;
  if (in.workload.recompute == Recompute::Full) {
    c.backward_s += merge;  // the re-run forward merges again
    c.recompute_s += merge;
  }
  return c;
}

namespace {

LayerCost layer_cost_of_kernels(const StepInputs& in)
{
  if (in.accelerator.gemm_curve.measured())
    return measured_layer_cost(in);
  const Accelerator& a = in.accelerator;
  const Workload& w = in.workload;
  const double v = w.bytes_per_value;
  const std::vector<Gemm> gemms = layer_gemms(in);
  const std::vector<Gemm> attention = attention_gemms(in);
  const double gemm_s = sum_seconds(a, gemms, v);
  const double attn_s = sum_seconds(a, attention, v);
  const double gemm_f = sum_flops(gemms);
  const double attn_f = sum_flops(attention);
  LayerCost c;
  c.elementwise_s = hbm_seconds(a, elementwise_bytes(in)) + elementwise_kernels(in) * a.gemm_curve.kernel_overhead;
  c.forward_s = gemm_s + attn_s + c.elementwise_s;
  c.forward_flops = gemm_f + attn_f;
  // Flash attention's backward recomputes the scores (half the core's forward) from Q and K.
  double recompute_s = w.flash_attention ? attn_s / 2 : 0.0;
  double recompute_f = w.flash_attention ? attn_f / 2 : 0.0;
  if (w.recompute == Recompute::Full) {
    recompute_s += c.forward_s;
    recompute_f += c.forward_flops;
  } else if (w.recompute == Recompute::Selective && !w.flash_attention) {
    recompute_s += attn_s + hbm_seconds(a, softmax_bytes(in));
    recompute_f += attn_f;
  }
  c.recompute_s = recompute_s;
  c.backward_s = 2.0 * c.forward_s + recompute_s;
  c.backward_flops = 2.0 * c.forward_flops + recompute_f;
  c.gemm_efficiency = (gemm_f + attn_f) / ((gemm_s + attn_s) * a.peak_flops.si());
  return c;
}

}  // namespace

LossCost loss_cost(const StepInputs& in)
{
  const Workload& w = in.workload;
  const Accelerator& a = in.accelerator;
  if (w.vocabulary <= 0 || !a.gemm_curve.enabled() || !(a.hbm_bandwidth.si() > 0))
    return {};
  const double v = w.bytes_per_value;
  const double logits = tokens_per_gpu(in) * w.vocabulary / in.layout.tp;
  LossCost c;
  if (w.loss_kernel == Kernels::Eager) {
    // Megatron's vocab-parallel cross-entropy on logits.float(): the cast, max, subtract, exp, sum and
    // divide forward; the gradient's scale and the cast back in the backward.
    c.forward_bytes = logits * ((v + kFp32) + kFp32 + 2 * kFp32 + 2 * kFp32 + kFp32 + 2 * kFp32);
    c.backward_bytes = logits * (2 * kFp32 + (kFp32 + v));
    c.forward_s = hbm_seconds(a, c.forward_bytes) + 6 * a.gemm_curve.kernel_overhead;
    c.backward_s = hbm_seconds(a, c.backward_bytes) + 2 * a.gemm_curve.kernel_overhead;
  } else {
    // One kernel reads the logits for the loss; one reads them again and writes their gradient.
    c.forward_bytes = logits * v;
    c.backward_bytes = logits * 2 * v;
    c.forward_s = hbm_seconds(a, c.forward_bytes) + a.gemm_curve.kernel_overhead;
    c.backward_s = hbm_seconds(a, c.backward_bytes) + a.gemm_curve.kernel_overhead;
  }
  return c;
}

double logits_forward_seconds(const StepInputs& in)
{
  const Workload& w = in.workload;
  if (w.vocabulary <= 0)
    return 0;
  const Gemm g{"logits", tokens_per_gpu(in), static_cast<double>(w.hidden),
               static_cast<double>(w.vocabulary) / in.layout.tp, 1};
  return gemm_seconds(in.accelerator, g, w.bytes_per_value) + loss_cost(in).forward_s;
}

double logits_backward_seconds(const StepInputs& in)
{
  const Workload& w = in.workload;
  if (w.vocabulary <= 0)
    return 0;
  const Gemm g{"logits", tokens_per_gpu(in), static_cast<double>(w.hidden),
               static_cast<double>(w.vocabulary) / in.layout.tp, 1};
  if (!in.accelerator.gemm_curve.measured_gemms())
    return 2.0 * gemm_seconds(in.accelerator, g, w.bytes_per_value) + loss_cost(in).backward_s;
  return sum_backward_seconds(in.accelerator, {g}, w.bytes_per_value) + loss_cost(in).backward_s;
}

}  // namespace fleetsim::models
