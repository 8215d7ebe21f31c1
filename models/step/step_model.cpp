#include "step_model.hpp"

#include "models/core/check.hpp"

#include "iteration_plan.hpp"
#include "layer_cost.hpp"
#include "memory_model.hpp"
#include "models/network/collectives.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <string>

namespace fleetsim::models {
namespace {

// Megatron tensor parallelism: two all-reduces in the forward pass of a layer (after attention
// and after the MLP) and two in the backward pass.
constexpr double kTpAllReducesPerLayerPass = 2.0;  // after attention and after the MLP
// Backward pass share of the compute of a step (forward 2 units, backward 4 units of 6).
constexpr double kBackwardShare = 2.0 / 3.0;

std::string num(double v)
{
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

/// global_batch_tokens / (s * micro_batch_size * dp) as a real number.
double micro_batches_exact(const StepInputs& in)
{
  const Workload& w = in.workload;
  return w.global_batch_tokens / (static_cast<double>(w.sequence_length) * w.micro_batch_size * in.layout.dp);
}

void check_workload(const Workload& w, std::vector<std::string>& out)
{
  if (!(w.parameters > 0))
    out.push_back("parameters must be positive (got " + num(w.parameters) + ")");
  if (w.layers <= 0)
    out.push_back("layers must be positive (got " + std::to_string(w.layers) + ")");
  if (w.hidden <= 0)
    out.push_back("hidden size must be positive (got " + std::to_string(w.hidden) + ")");
  if (w.sequence_length <= 0)
    out.push_back("sequence length must be positive (got " + std::to_string(w.sequence_length) + ")");
  if (!(w.global_batch_tokens > 0))
    out.push_back("global batch tokens must be positive (got " + num(w.global_batch_tokens) + ")");
  if (w.micro_batch_size <= 0)
    out.push_back("micro-batch size must be positive (got " + std::to_string(w.micro_batch_size) + ")");
  if (!(w.bytes_per_value > 0))
    out.push_back("bytes per value must be positive (got " + num(w.bytes_per_value) + ")");
  if (w.moe() && (w.experts_per_token < 1 || w.experts_per_token > w.experts))
    out.push_back("experts per token (" + std::to_string(w.experts_per_token) + ") must be between 1 and the " +
                  std::to_string(w.experts) + " experts");
  if (w.moe() && !(w.expert_parameters > 0 && w.expert_parameters < w.parameters))
    out.push_back("expert parameters (" + num(w.expert_parameters) + ") must be positive and below the " +
                  num(w.parameters) + " parameters");
  if (w.attention_heads <= 0 || w.kv_heads <= 0 || w.attention_heads % w.kv_heads != 0)
    out.push_back("attention heads (" + std::to_string(w.attention_heads) +
                  ") must be a positive multiple of key/value heads (" + std::to_string(w.kv_heads) + ")");
}

void check_accelerator(const Accelerator& a, std::vector<std::string>& out)
{
  if (!(a.peak_flops.si() > 0))
    out.push_back("peak flops must be positive (got " + num(a.peak_flops.si()) + ")");
  if (a.memory.si() < 0)
    out.push_back("memory must not be negative (got " + num(a.memory.si()) + ")");
  for (double e : {a.gemm_curve.cp_forward_efficiency, a.gemm_curve.cp_backward_efficiency})
    if (!(e > 0 && e <= 1))
      out.push_back("context-parallel attention efficiency must be in (0, 1] (got " + num(e) + ")");
  if (!(a.hbm_efficiency > 0 && a.hbm_efficiency <= 1))
    out.push_back("hbm efficiency must be in (0, 1] (got " + num(a.hbm_efficiency) + ")");
  if (!(a.gemm_efficiency > 0 && a.gemm_efficiency <= 1))
    out.push_back("gemm efficiency must be in (0, 1] (got " + num(a.gemm_efficiency) + ")");
  if (!(a.gemm_curve.max_efficiency >= 0 && a.gemm_curve.max_efficiency <= 1))
    out.push_back("gemm max efficiency must be in (0, 1] (got " + num(a.gemm_curve.max_efficiency) + ")");
  if (!(a.gemm_curve.kernel_overhead >= 0))
    out.push_back("kernel overhead must not be negative (got " + num(a.gemm_curve.kernel_overhead) + ")");
  if (a.memory_reserved.si() < 0 || (a.memory.si() > 0 && a.memory_reserved.si() >= a.memory.si()))
    out.push_back("reserved memory (" + num(a.memory_reserved.si()) + " bytes) must be at least 0 and below the " +
                  num(a.memory.si()) + " bytes of HBM");
}

void check_layout(const ParallelLayout& l, long gpus, std::vector<std::string>& out)
{
  if (l.tp <= 0 || l.pp <= 0 || l.dp <= 0 || l.cp <= 0) {
    out.push_back("tp, cp, pp and dp must be positive (got tp=" + std::to_string(l.tp) + " cp=" + std::to_string(l.cp) +
                  " pp=" + std::to_string(l.pp) + " dp=" + std::to_string(l.dp) + ")");
    return;
  }
  if (l.virtual_stages < 1)
    out.push_back("virtual stages must be at least 1 (got " + std::to_string(l.virtual_stages) + ")");
  // In double: four int degrees can overflow a long (1e6 * 1e6 * 1e6 * 1e8). The product is exact
  // up to 2^53, and one above that cannot equal a gpu count anyway.
  const double product = static_cast<double>(l.tp) * l.cp * l.pp * l.dp;
  if (product != static_cast<double>(gpus))
    out.push_back(std::string(l.cp > 1 ? "tp*cp*pp*dp" : "tp*pp*dp") + " = " +
                  (product < 9e15 ? std::to_string(static_cast<long>(product)) : num(product)) +
                  " does not match the " + std::to_string(gpus) + " gpus of the job");
}

void check_fabric(const FabricParams& f, const ParallelLayout& l, std::vector<std::string>& out)
{
  if (l.tp > 1 && !(f.nvlink_bandwidth.si() > 0))
    out.push_back("nvlink bandwidth must be positive when tp > 1 (got " + num(f.nvlink_bandwidth.si()) + ")");
  if ((l.pp > 1 || l.dp > 1) && !(f.nic_bandwidth.si() > 0))
    out.push_back("nic bandwidth must be positive when pp > 1 or dp > 1 (got " + num(f.nic_bandwidth.si()) + ")");
  if (f.nvlink_latency.si() < 0 || f.nic_latency.si() < 0)
    out.push_back("latencies must not be negative");
  if (!(f.dp_overlap >= 0 && f.dp_overlap <= 1))
    out.push_back("dp overlap must be in [0, 1] (got " + num(f.dp_overlap) + ")");
  if (!(f.tp_overlap >= 0 && f.tp_overlap <= 1))
    out.push_back("tp overlap must be in [0, 1] (got " + num(f.tp_overlap) + ")");
  if (!(f.overlap_slowdown >= 0 && f.overlap_slowdown <= 1))
    out.push_back("overlap slowdown must be in [0, 1] (got " + num(f.overlap_slowdown) + ")");
  if (f.pp_overhead.si() < 0)
    out.push_back("pipeline send overhead must not be negative");
}

void check_partitioning(const StepInputs& in, std::vector<std::string>& out)
{
  const Workload& w = in.workload;
  const ParallelLayout& l = in.layout;
  const long chunks = l.layer_chunks();
  if (l.embedding_chunks && l.pp > 0 && l.virtual_stages >= 1 && chunks < 1)
    out.push_back("embedding chunks need a pipeline of at least 3 chunks (pp*virtual stages = " +
                  std::to_string(chunks + 2) + "): two hold only the embedding and the output layer");
  else if (w.layers > 0 && l.pp > 0 && l.virtual_stages >= 1 && w.layers < chunks)
    out.push_back("layers (" + std::to_string(w.layers) + ") fewer than pp*virtual stages" +
                  (l.embedding_chunks ? " - 2 (" : " (") + std::to_string(chunks) + ")");
  if (l.ep < 1 || (l.ep > 1 && !w.moe()))
    out.push_back("expert parallelism (ep = " + std::to_string(l.ep) + ") needs a mixture-of-experts model");
  else if (w.moe() && (l.dp % l.ep != 0 || w.experts % l.ep != 0))
    out.push_back("ep (" + std::to_string(l.ep) + ") must divide both dp (" + std::to_string(l.dp) +
                  ") and the experts (" + std::to_string(w.experts) + ")");
  if (l.cp > 1 && w.sequence_length > 0 && w.sequence_length % l.cp != 0)
    out.push_back("sequence length (" + std::to_string(w.sequence_length) + ") is not a multiple of cp (" +
                  std::to_string(l.cp) + ")");
  if (w.sequence_length <= 0 || w.micro_batch_size <= 0 || l.dp <= 0 || !(w.global_batch_tokens > 0))
    return;  // already reported
  const double m = micro_batches_exact(in);
  const double rounded = std::round(m);
  if (rounded < 1 || rounded > INT_MAX || std::fabs(m - rounded) > 1e-9 * m)
    out.push_back("global batch of " + num(w.global_batch_tokens) +
                  " tokens is not a positive whole number of micro-batches of sequence length * "
                  "micro-batch size * dp = " +
                  num(static_cast<double>(w.sequence_length) * w.micro_batch_size * l.dp) + " tokens (got " + num(m) +
                  ")");
}

/// The layers of the stage with the most: L / p, or with embedding chunks a middle stage's v chunks
/// (the first and last stage's v - 1 when there are only two stages).
double busiest_stage_layers(const Workload& w, const ParallelLayout& l)
{
  return stage_layers(w, l, l.pp > 2 ? 1 : 0);
}

/// The passes' worth of model-parallel collectives per micro-batch: one forward and one backward,
/// which full recomputation doubles (backward_collectives_factor).
double collective_passes(const Workload& w) { return 1.0 + backward_collectives_factor(w); }

/// Tensor-parallel all-reduces on NVLink: (L/p) * m * 2 * (1 + f) * T_allreduce(b*s*h*bytes, tp),
/// f = tp_backward_collectives_factor (2 all-reduces per layer in the forward, 2 f in the backward:
/// f is 2 with full recomputation, and sequence parallelism's re-gathered inputs add 1/2).
units::Seconds tp_comm_time(const StepInputs& in, int micro_batches)
{
  const Workload& w = in.workload;
  const ParallelLayout& l = in.layout;
  if (l.tp <= 1)
    return units::Seconds(0.0);
  const units::Bytes activation(static_cast<double>(w.micro_batch_size) * w.sequence_length / l.cp * w.hidden *
                                w.bytes_per_value);
  const AlphaBeta nvlink{in.fabric.nvlink_latency, in.fabric.nvlink_bandwidth};
  const double layers_per_stage = busiest_stage_layers(w, l);
  return ring_allreduce_time(activation, l.tp, nvlink) *
         (layers_per_stage * micro_batches * kTpAllReducesPerLayerPass * (1.0 + tp_backward_collectives_factor(w, l)));
}

/// Pipeline sends on the NIC: 2 * v * m point-to-point transfers of b*s*h*bytes / tp.
units::Seconds pp_comm_time(const StepInputs& in, int micro_batches)
{
  const Workload& w = in.workload;
  const ParallelLayout& l = in.layout;
  if (l.pp <= 1)
    return units::Seconds(0.0);
  const units::Bytes activation(static_cast<double>(w.micro_batch_size) * w.sequence_length / l.cp * w.hidden *
                                w.bytes_per_value / l.tp);
  const AlphaBeta nic{in.fabric.nic_latency, in.fabric.nic_bandwidth};
  return (p2p_time(activation, nic) + in.fabric.pp_overhead) * (2.0 * l.virtual_stages * micro_batches);
}

/// ZeRO-style data parallelism on the NIC: reduce-scatter of gradients, all-gather of parameters,
/// over the dp * cp replicas of each shard (context-parallel ranks hold the same weights); sharded
/// gradients in their own precision (model.gradient_bytes). With sharded weights (ZeRO-3, FSDP),
/// every micro-batch gathers the weights twice (for its forward and again for its backward) and
/// reduce-scatters its gradients.
units::Seconds dp_comm_time(const StepInputs& in, int micro_batches)
{
  const ParallelLayout& l = in.layout;
  const int replicas = l.dp * l.cp;
  if (replicas <= 1)
    return units::Seconds(0.0);
  const units::Bytes shard(dp_shard_bytes(in));
  // k members of the group on a node: k rings at once, each through its own NIC (at most NVLink's rate).
  const int k = dp_ring_channels(l, in.fabric.gpus_per_node);
  const units::BytesPerSecond bandwidth =
      k > 1 ? units::BytesPerSecond(std::min(k * in.fabric.nic_bandwidth.si(), in.fabric.nvlink_bandwidth.si()))
            : in.fabric.nic_bandwidth;
  const AlphaBeta nic{in.fabric.nic_latency, bandwidth};
  const units::Seconds gather = ring_all_gather_time(shard, replicas, nic);
  // Sharded gradients (ZeRO-2, -3) are reduce-scattered in their own precision.
  const units::Bytes gradients(l.sharded_grads() ? shard.si() * in.workload.gradient_bytes / in.workload.bytes_per_value
                                                 : shard.si());
  if (!l.sharded_weights)
    return ring_reduce_scatter_time(gradients, replicas, nic) + gather;
  return units::Seconds((2.0 * gather.si() + ring_reduce_scatter_time(gradients, replicas, nic).si()) * micro_batches);
}

/// Expert parallelism: every MoE layer sends its tokens to their experts and back (two all-to-alls
/// per pass, forward and backward, and again in a fully recomputed forward), all at once to the
/// other ep - 1 ranks of the group.
units::Seconds ep_comm_time(const StepInputs& in, int micro_batches)
{
  const ParallelLayout& l = in.layout;
  if (!in.workload.moe() || l.ep <= 1)
    return units::Seconds(0.0);
  const units::Seconds one = in.fabric.nic_latency + units::Bytes(ep_alltoall_bytes(in)) / in.fabric.nic_bandwidth;
  const double layers_per_stage = busiest_stage_layers(in.workload, l);
  return one * (2.0 * collective_passes(in.workload) * layers_per_stage * micro_batches);
}

/// Context parallelism (all-gather based, as Llama 3's): in every layer each forward pass
/// all-gathers the keys and values of the sequence's cp chunks, and each backward pass
/// reduce-scatters their gradients (after all-gathering them again under full recomputation), a
/// ring over cp ranks of 2 b (s/cp) h_kv bytes per rank: on NVLink when the group sits in one node,
/// else at the NIC's rate (the ring's hops between nodes bound it), as the simulated fabric times it.
units::Seconds cp_comm_time(const StepInputs& in, int micro_batches)
{
  const Workload& w = in.workload;
  const ParallelLayout& l = in.layout;
  if (l.cp <= 1)
    return units::Seconds(0.0);
  const double kv_bytes = 2.0 * w.micro_batch_size * w.sequence_length / l.cp * w.hidden *
                          (static_cast<double>(w.kv_heads) / w.attention_heads) / l.tp * w.bytes_per_value;
  const units::Bytes gathered(kv_bytes * l.cp);  // the all-gather's whole buffer
  const AlphaBeta link = cp_group_within_node(l, in.fabric.gpus_per_node)
                             ? AlphaBeta{in.fabric.nvlink_latency, in.fabric.nvlink_bandwidth}
                             : AlphaBeta{in.fabric.nic_latency, in.fabric.nic_bandwidth};
  const double layers_per_stage = busiest_stage_layers(w, l);
  if (l.cp_exchange == CpExchange::Ring) {  // only what the attention kernels do not hide
    const AttentionCost a = attention_seconds(in);
    const CpRingExposure r = cp_ring_exposure(l.cp, p2p_time(units::Bytes(kv_bytes), link).si(), a.forward_s, a.backward_s);
    const double forwards = w.recompute == Recompute::Full ? 2.0 : 1.0;
    return units::Seconds((forwards * r.forward_s + r.backward_s) * layers_per_stage * micro_batches);
  }
  return ring_all_gather_time(gathered, l.cp, link) * (collective_passes(w) * layers_per_stage * micro_batches);
}

}  // namespace

std::string binding_term(const StepBreakdown& b)
{
  if (b.comm_exposed > b.compute && b.comm_exposed >= b.sync)
    return "communication";
  if (b.sync > b.compute && b.sync > b.comm_exposed)
    return "coordination";
  return "compute";
}

std::vector<std::string> check_step_inputs(const StepInputs& in, long gpus)
{
  std::vector<std::string> out;
  if (gpus <= 0)
    out.push_back("gpu count must be positive (got " + std::to_string(gpus) + ")");
  check_workload(in.workload, out);
  check_accelerator(in.accelerator, out);
  check_layout(in.layout, gpus, out);
  check_fabric(in.fabric, in.layout, out);
  check_partitioning(in, out);
  if (out.empty() && in.layout.tp > 0 && in.workload.attention_heads % in.layout.tp != 0)
    out.push_back("attention heads (" + std::to_string(in.workload.attention_heads) + ") are not a multiple of tp (" +
                  std::to_string(in.layout.tp) + ")");
  if (out.empty() && in.accelerator.check_memory)
    if (std::string problem = memory_problem(in); !problem.empty())
      out.push_back(problem);
  return out;
}

double dp_shard_bytes(const StepInputs& in)
{
  const Workload& w = in.workload;
  const ParallelLayout& l = in.layout;
  const double expert = w.moe() ? w.expert_parameters : 0.0;
  const double ep = w.moe() ? l.ep : 1;
  return ((w.parameters - expert) + expert / ep) / (static_cast<double>(l.tp) * l.pp) * w.bytes_per_value;
}

CpRingExposure cp_ring_exposure(int cp, double ring_step_s, double attention_forward_s, double attention_backward_s)
{
  if (cp <= 1)
    return {};
  return {(cp - 1) * std::max(0.0, ring_step_s - attention_forward_s / cp),
          (cp - 1) * std::max(0.0, 2.0 * ring_step_s - attention_backward_s / cp)};
}

int dp_ring_channels(const ParallelLayout& l, int gpus_per_node)
{
  if (gpus_per_node <= 1)
    return 1;
  int members = 0;  // of the group of tensor rank 0, stage 0, on rank 0's node
  for (int d = 0; d < l.dp; ++d)
    for (int c = 0; c < l.cp; ++c)
      if (layout_rank(l, 0, 0, d, c) < gpus_per_node)
        ++members;
  return std::max(1, members);
}

bool cp_group_within_node(const ParallelLayout& l, int gpus_per_node)
{
  if (l.cp <= 1 || gpus_per_node <= 1)
    return false;
  const int node = layout_rank(l, 0, 0, 0, 0) / gpus_per_node;
  for (int c = 1; c < l.cp; ++c)
    if (layout_rank(l, 0, 0, 0, c) / gpus_per_node != node)
      return false;
  return true;
}

int fsdp_units_per_chunk(const StepInputs& in)
{
  return std::max(1, static_cast<int>(std::lround(layers_per_chunk(in.workload, in.layout))));
}

double layers_per_chunk(const Workload& w, const ParallelLayout& l)
{
  return static_cast<double>(w.layers) / static_cast<double>(std::max(1L, l.layer_chunks()));
}

double stage_layers(const Workload& w, const ParallelLayout& l, int stage)
{
  if (!l.embedding_chunks)
    return static_cast<double>(w.layers) / l.pp;
  int chunks = 0;
  for (int c = 0; c < l.virtual_stages; ++c)
    chunks += l.chunk_holds_layers(stage, c) ? 1 : 0;
  return chunks * layers_per_chunk(w, l);
}

double ep_alltoall_bytes(const StepInputs& in)
{
  const Workload& w = in.workload;
  const ParallelLayout& l = in.layout;
  if (!w.moe() || l.ep <= 1)
    return 0;
  const double tokens = static_cast<double>(w.micro_batch_size) * w.sequence_length / l.cp;
  return tokens * w.hidden * w.bytes_per_value / l.tp * w.experts_per_token * (l.ep - 1.0) / l.ep;
}

const char* attention_flops_name(AttentionFlops a) { return name_of(kAttentionFlopsNames, a).data(); }

double backward_collectives_factor(const Workload& w) { return w.recompute == Recompute::Full ? 2.0 : 1.0; }

double tp_backward_collectives_factor(const Workload& w, const ParallelLayout& l)
{
  constexpr double kSequenceParallelRegather = 0.5;  // 2 all-gathers of 1/2 all-reduce each, of 2 per pass
  return backward_collectives_factor(w) + (l.sequence_parallel && l.tp > 1 ? kSequenceParallelRegather : 0.0);
}

const char* recompute_name(Recompute r) { return name_of(kRecomputeNames, r).data(); }

namespace {

/// Attention's score and value products per token over the layers, forward and backward.
double attention_flops_per_token(const Workload& w)
{
  const double full = 12.0 * w.layers * static_cast<double>(w.hidden) * w.sequence_length;
  return w.attention_flops == AttentionFlops::Causal ? full / 2 : full;
}

}  // namespace

double training_flops_per_token(const Workload& w)
{
  return 6.0 * w.active_parameters() + attention_flops_per_token(w);
}

double hardware_flops_per_token(const Workload& w)
{
  const double attention_forward = attention_flops_per_token(w) / 3.0;
  double extra = w.flash_attention ? attention_forward / 2 : 0.0;
  if (w.recompute == Recompute::Full) {
    const double embedding = static_cast<double>(w.vocabulary) * w.hidden;  // the logits are not recomputed
    extra += 2.0 * std::max(0.0, w.active_parameters() - embedding) + attention_forward;
  } else if (w.recompute == Recompute::Selective && !w.flash_attention) {
    extra += attention_forward;
  }
  return training_flops_per_token(w) + extra;
}

double hardware_flops_utilisation(const StepBreakdown& b, const Workload& w)
{
  return b.flops_per_token > 0 ? b.mfu * hardware_flops_per_token(w) / b.flops_per_token : 0.0;
}

namespace {

/// The compute of the pipeline's critical stage, and the part of it that is its layers' (which the
/// bubble scales with).
struct StageCompute {
  units::Seconds total{0};
  units::Seconds layers{0};
};

StageCompute compute_time(const StepInputs& in, int micro_batches)
{
  const ParallelLayout& l = in.layout;
  const Accelerator& a = in.accelerator;
  if (!a.gemm_curve.enabled()) {
    const double flops = hardware_flops_per_token(in.workload) * in.workload.global_batch_tokens;
    const units::Seconds t = units::Flops(flops / static_cast<double>(l.gpus())) /
                             (a.peak_flops * (a.gemm_efficiency * a.speed));
    return {t, t};
  }
  const LayerCost c = layer_cost(in);
  const double per_layer = micro_batches * (c.forward_s + c.backward_s);
  // The logit GEMM runs on the last stage only, its forward and backward once per micro-batch:
  // that stage is the slowest, and sets the pipeline's steady state (models::pass_work). With
  // embedding chunks the last stage has a chunk of layers fewer, and a middle stage may be slower.
  const double logits = micro_batches * (logits_forward_seconds(in) + logits_backward_seconds(in));
  const double last = stage_layers(in.workload, l, l.pp - 1) * per_layer + logits;
  const double critical = l.pp > 2 ? std::max(last, stage_layers(in.workload, l, 1) * per_layer) : last;
  // The bubble is p - 1 chunks' passes of every micro-batch: what v chunks of layers take, over v m.
  const double chunked = l.virtual_stages * layers_per_chunk(in.workload, l) * per_layer;
  // The optimizer step follows the stage's gradient reduction, outside the pipeline's schedule.
  return {units::Seconds(critical + optimizer_seconds(in)), units::Seconds(chunked)};
}

}  // namespace

double pipeline_bubble_fraction(int stages, int micro_batches, int virtual_stages)
{
  FLEETSIM_CHECK(stages >= 1 && micro_batches >= 1 && virtual_stages >= 1,
                 "a pipeline has at least one stage, micro-batch and chunk");
  return (stages - 1.0) / (static_cast<double>(virtual_stages) * micro_batches);
}

StepBreakdown AnalyticStepModel::step(const StepInputs& in) const
{
  const ParallelLayout& l = in.layout;
  const long gpus = l.gpus();
  FLEETSIM_CHECK(check_step_inputs(in, gpus).empty(), "check_step_inputs first");
  FLEETSIM_CHECK(gpus <= INT_MAX, "a layout's GPUs fit an int (the loader bounds cluster.gpus)");

  StepBreakdown b;
  b.micro_batches = static_cast<int>(std::lround(micro_batches_exact(in)));
  b.flops_per_token = training_flops_per_token(in.workload);
  b.hardware_flops_per_token = hardware_flops_per_token(in.workload);
  b.tokens_per_step = in.workload.global_batch_tokens;
  const double model_flops = b.flops_per_token * b.tokens_per_step;
  const StageCompute stage = compute_time(in, b.micro_batches);
  b.compute = stage.total;

  b.tp_comm = tp_comm_time(in, b.micro_batches);
  b.pp_comm = pp_comm_time(in, b.micro_batches);
  b.dp_comm = dp_comm_time(in, b.micro_batches);
  b.cp_comm = cp_comm_time(in, b.micro_batches);
  b.ep_comm = ep_comm_time(in, b.micro_batches);
  b.comm = b.tp_comm + b.cp_comm + b.ep_comm + b.pp_comm + b.dp_comm;
  // TP traffic hides behind the GEMMs next to it (Megatron's TP communication overlap), DP traffic
  // behind the backward pass (ZeRO-3's gathers behind both passes: FSDP prefetches the next unit).
  b.overlap = std::min(b.tp_comm * in.fabric.tp_overlap, b.compute) +
              std::min(b.dp_comm * (l.gradients_after_flush ? 0.0 : in.fabric.dp_overlap),
                       b.compute * (l.sharded_weights ? 1.0 : kBackwardShare));
  b.comm_exposed = b.comm - b.overlap;
  // The hidden communication slows the compute it runs beside.
  b.compute += b.overlap * in.fabric.overlap_slowdown;

  b.bubble = stage.layers * pipeline_bubble_fraction(l.pp, b.micro_batches, l.virtual_stages);
  b.barrier = barrier_time(static_cast<int>(gpus), in.fabric.nic_latency);
  b.sync = b.bubble + b.barrier;

  b.step_time = b.compute + b.comm + b.sync - b.overlap;
  const double peak_per_step = static_cast<double>(gpus) * in.accelerator.peak_flops.si() * b.step_time.si();
  b.mfu = model_flops / peak_per_step;
  b.hfu = b.hardware_flops_per_token * b.tokens_per_step / peak_per_step;
  b.compute_fraction = b.compute / b.step_time;
  b.binding_term = binding_term(b);
  return b;
}

}  // namespace fleetsim::models
