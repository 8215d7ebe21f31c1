#include "memory_model.hpp"

#include "iteration_plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace fleetsim::models {
namespace {

constexpr double kWeightBytes = 2;      // BF16 weights
constexpr double kLogitBytes = 4;       // FP32 logits for the loss, per vocabulary entry per token

std::string gb(double bytes)
{
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GB", bytes / 1e9);
  return buf;
}

int micro_batches(const StepInputs& in)
{
  const Workload& w = in.workload;
  return static_cast<int>(std::lround(w.global_batch_tokens /
                                      (static_cast<double>(w.sequence_length) * w.micro_batch_size * in.layout.dp)));
}

/// One GPU's share of the model's parameters, by kind: the layers' dense weights and experts (of all
/// layers, over tp and tp x ep), and the embedding (or output layer) over tp.
struct ParameterShares {
  double layers = 0;
  double embedding = 0;
  [[nodiscard]] bool holds_embedding(const ParallelLayout& l, int stage) const { return stage == 0 || stage == l.pp - 1; }
};

ParameterShares parameter_shares(const StepInputs& in)
{
  const Workload& w = in.workload;
  const ParallelLayout& l = in.layout;
  const double embedding = static_cast<double>(w.vocabulary) * w.hidden;
  const double expert = w.moe() ? w.expert_parameters : 0.0;
  const double layers_dense = std::max(0.0, w.parameters - expert - embedding);
  return {(layers_dense + expert / l.ep) / l.tp, embedding / l.tp};
}

/// Parameters one GPU of `stage` holds: its layers' (stage_layers) dense weights over tp, its experts over tp x ep,
/// and the embedding (first stage) or the output layer (last stage) over tp.
double stage_parameters(const StepInputs& in, int stage)
{
  const ParameterShares p = parameter_shares(in);
  const double layers = in.workload.layers > 0 ? stage_layers(in.workload, in.layout, stage) / in.workload.layers
                                               : 1.0 / in.layout.pp;
  return p.layers * layers + (p.holds_embedding(in.layout, stage) ? p.embedding : 0.0);
}

/// The largest FSDP unit of `stage`, in parameters one GPU gathers: a layer, or the embedding or
/// output layer on the first and last stage.
double fsdp_unit_parameters(const StepInputs& in, int stage)
{
  const ParameterShares p = parameter_shares(in);
  const double layer = p.layers / std::max(1, in.workload.layers);
  return p.holds_embedding(in.layout, stage) ? std::max(layer, p.embedding) : layer;
}

MemoryEstimate stage_estimate(const StepInputs& in, int stage)
{
  const Workload& w = in.workload;
  const ParallelLayout& l = in.layout;
  MemoryEstimate e;
  e.stage = stage;
  e.parameters = stage_parameters(in, stage);
  const double replicas = static_cast<double>(l.dp) * l.cp;
  e.weights = e.parameters * kWeightBytes;
  e.gradients = e.parameters * w.gradient_bytes / (l.sharded_grads() ? replicas : 1.0);
  e.optimizer = e.parameters * w.optimizer_bytes / (l.sharded_optimizer() ? replicas : 1.0);
  if (l.sharded_weights) {
    // ZeRO-3: a shard of the weights, plus the units gathered whole at once: the one computing and the
    // one prefetched, each with its unsharded gradients before their reduce-scatter.
    const double unit = fsdp_unit_parameters(in, stage);
    e.weights = e.weights / replicas + 2.0 * unit * kWeightBytes;
    e.gradients += 2.0 * unit * w.gradient_bytes;
  }
  e.in_flight = peak_in_flight(l.pp, micro_batches(in), l.virtual_stages, stage);
  // Every in-flight chunk's activations as a chunk of layers' (the embedding chunk's are fewer).
  e.activations = e.in_flight * layers_per_chunk(w, l) * layer_activation_bytes(in);
  if (stage == l.pp - 1 && w.vocabulary > 0)
    e.activations += static_cast<double>(w.micro_batch_size) * w.sequence_length / l.cp * w.vocabulary * kLogitBytes /
                     l.tp;
  e.total = e.weights + e.gradients + e.optimizer + e.activations;
  e.capacity = in.accelerator.memory.si() - in.accelerator.memory_reserved.si();
  return e;
}

}  // namespace

std::vector<MemoryTerm> MemoryEstimate::terms() const
{
  return {{"weights", weights}, {"gradients", gradients}, {"optimizer state", optimizer}, {"activations", activations}};
}

MemoryTerm MemoryEstimate::biggest() const
{
  const auto t = terms();
  return *std::max_element(t.begin(), t.end(),
                           [](const MemoryTerm& a, const MemoryTerm& b) { return a.bytes < b.bytes; });
}

double layer_activation_bytes(const StepInputs& in)
{
  const Workload& w = in.workload;
  const ParallelLayout& l = in.layout;
  const double v = w.bytes_per_value;
  const double tokens = static_cast<double>(w.micro_batch_size) * w.sequence_length / l.cp;
  const double h = w.hidden;
  const double sp = l.sequence_parallel ? l.tp : 1.0;
  if (w.recompute == Recompute::Full)
    return tokens * h * v / sp;  // the layer's input only
  const double kv = h * w.kv_heads / w.attention_heads;
  double replicated = 4.0 * h * v + (w.dropout ? 2.0 * h : 0.0);
  double ffn = w.ffn();
  if (w.moe())
    ffn = w.expert_parameters / (static_cast<double>(w.layers) * w.experts * (w.gated_mlp ? 3.0 : 2.0) * h) *
          w.experts_per_token;
  const double inner = ((w.gated_mlp ? 2.0 : 1.0) * ffn + ffn);  // the MLP's up output and activation
  double split = (h + 2.0 * kv + h + inner) * v;  // Q, K, V, the attention output, the MLP's inner tensors
  if (!w.flash_attention && w.recompute == Recompute::None)
    split += static_cast<double>(w.attention_heads) * w.sequence_length * (w.dropout ? 2.0 * v + 1.0 : v);
  return tokens * (replicated / sp + split / l.tp);
}

int peak_in_flight(int stages, int micro_batches, int chunks, int stage)
{
  if (!schedule_supported(stages, micro_batches, chunks))
    return micro_batches * chunks;  // no schedule: as if every forward ran first
  int live = 0;
  int peak = 0;
  for (const PipelineOp& op : pipeline_order(stages, micro_batches, chunks, stage)) {
    live += op.kind == PassKind::Forward ? 1 : -1;
    peak = std::max(peak, live);
  }
  return peak;
}

MemoryEstimate estimate_memory(const StepInputs& in)
{
  MemoryEstimate first = stage_estimate(in, 0);
  if (in.layout.pp == 1)
    return first;
  MemoryEstimate last = stage_estimate(in, in.layout.pp - 1);
  return last.total > first.total ? last : first;
}

std::string memory_problem(const StepInputs& in)
{
  if (!(in.accelerator.memory.si() > 0))
    return "";
  const MemoryEstimate e = estimate_memory(in);
  if (e.fits())
    return "";
  const MemoryTerm big = e.biggest();
  std::string parts;
  for (const MemoryTerm& t : e.terms())
    parts += (parts.empty() ? "" : ", ") + t.name + " " + gb(t.bytes);
  return "the layout does not fit in HBM: stage " + std::to_string(e.stage) + " needs " + gb(e.total) +
         " per GPU against " + gb(e.capacity) + " usable; the biggest term is the " + big.name + ", " + gb(big.bytes) +
         " (" + parts + ")";
}

}  // namespace fleetsim::models
