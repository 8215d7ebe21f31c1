#include "iteration_plan.hpp"

#include "models/core/check.hpp"

#include "layer_cost.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace fleetsim::models {

int layout_rank(const ParallelLayout& l, int tp, int stage, int replica, int context)
{
  return tp + l.tp * (context + l.cp * (stage + l.pp * replica));
}

bool schedule_supported(int stages, int micro_batches, int chunks)
{
  if (stages < 1 || micro_batches < 1 || chunks < 1)
    return false;
  return chunks == 1 || micro_batches % stages == 0;
}

std::vector<PipelineOp> pipeline_order(int stages, int micro_batches, int chunks, int stage)
{
  FLEETSIM_CHECK(schedule_supported(stages, micro_batches, chunks) && stage >= 0 && stage < stages, "a supported schedule and a stage of it");
  const int p = stages;
  const int v = chunks;
  const int total = micro_batches * v;
  const int warmup = std::min(total, v == 1 ? p - stage - 1 : 2 * (p - stage - 1) + (v - 1) * p);
  auto micro_batch = [&](int k) { return (k / (p * v)) * p + k % p; };
  auto forward = [&](int k) { return PipelineOp{PassKind::Forward, micro_batch(k), (k % (p * v)) / p}; };
  auto backward = [&](int k) { return PipelineOp{PassKind::Backward, micro_batch(k), v - 1 - (k % (p * v)) / p}; };
  std::vector<PipelineOp> order;
  order.reserve(static_cast<size_t>(2 * total));
  for (int k = 0; k < warmup; ++k)
    order.push_back(forward(k));
  for (int i = 0; i < total - warmup; ++i) {
    order.push_back(forward(warmup + i));
    order.push_back(backward(i));
  }
  for (int k = total - warmup; k < total; ++k)
    order.push_back(backward(k));
  return order;
}

Dependency pipeline_dependency(int stages, int chunks, int stage, const PipelineOp& op)
{
  Dependency d;
  if (op.kind == PassKind::Forward) {
    if (stage > 0)
      d = {true, stage - 1, op};
    else if (op.chunk > 0)
      d = {true, stages - 1, {PassKind::Forward, op.micro_batch, op.chunk - 1}};
    return d;
  }
  if (stage < stages - 1)
    return {true, stage + 1, op};
  if (op.chunk < chunks - 1)
    return {true, 0, {PassKind::Backward, op.micro_batch, op.chunk + 1}};
  return {true, stage, {PassKind::Forward, op.micro_batch, op.chunk}};
}

ScheduleReplay replay_schedule(int stages, int micro_batches, int chunks, double forward_s, double backward_s,
                               double transfer_s)
{
  using Key = std::tuple<int, int, int, int>;  // stage, kind, micro-batch, chunk
  auto key = [](int stage, const PipelineOp& op) {
    return Key{stage, static_cast<int>(op.kind), op.micro_batch, op.chunk};
  };
  std::vector<std::vector<PipelineOp>> orders;
  for (int s = 0; s < stages; ++s)
    orders.push_back(pipeline_order(stages, micro_batches, chunks, s));
  std::vector<size_t> next(static_cast<size_t>(stages), 0);
  std::vector<double> free_at(static_cast<size_t>(stages), 0.0);
  std::map<Key, double> finished;
  ScheduleReplay r;
  for (bool progress = true; progress;) {
    progress = false;
    for (int s = 0; s < stages; ++s) {
      const auto us = static_cast<size_t>(s);
      while (next[us] < orders[us].size()) {
        const PipelineOp& op = orders[us][next[us]];
        const Dependency dep = pipeline_dependency(stages, chunks, s, op);
        double ready = 0;
        if (dep.has_producer) {
          auto it = finished.find(key(dep.stage, dep.op));
          if (it == finished.end())
            break;
          ready = it->second + (dep.stage == s ? 0.0 : transfer_s);
        }
        const double start = std::max(free_at[us], ready);
        free_at[us] = start + (op.kind == PassKind::Forward ? forward_s : backward_s);
        finished[key(s, op)] = free_at[us];
        ++next[us];
        progress = true;
      }
    }
  }
  for (int s = 0; s < stages; ++s)
    r.deadlock = r.deadlock || next[static_cast<size_t>(s)] < orders[static_cast<size_t>(s)].size();
  r.stage_end = free_at;
  r.makespan = *std::max_element(free_at.begin(), free_at.end());
  return r;
}

double IterationPlan::tp_allreduce_time(double ring_step) const
{
  return layout.tp > 1 ? 2.0 * (layout.tp - 1) * ring_step : 0.0;
}

double IterationPlan::dp_reduce_scatter_time(double ring_step) const
{
  return dp_group > 1 ? (dp_group - 1.0) * ring_step : 0.0;
}

double IterationPlan::cp_all_gather_time(double ring_step) const
{
  return layout.cp > 1 ? (layout.cp - 1.0) * ring_step : 0.0;
}

CpRingExposure IterationPlan::cp_exposed_per_pass(double ring_step) const
{
  if (layout.cp_exchange != CpExchange::Ring || layout.cp <= 1) {
    const double forward = cp_gathers_per_pass * cp_all_gather_time(ring_step);
    return {forward, forward * backward_collectives};
  }
  const CpRingExposure r = cp_ring_exposure(layout.cp, ring_step, attention_forward_s, attention_backward_s);
  return {cp_gathers_per_pass * r.forward_s,
          cp_gathers_per_pass * (r.backward_s + (backward_collectives - 1.0) * r.forward_s)};
}

std::vector<size_t> gradient_release(const std::vector<PipelineOp>& order, int chunks, bool after_flush)
{
  std::vector<size_t> release(static_cast<size_t>(chunks), 0);
  size_t last = 0;
  for (size_t i = 0; i < order.size(); ++i)
    if (order[i].kind == PassKind::Backward) {
      release[static_cast<size_t>(order[i].chunk)] = i;
      last = i;
    }
  if (after_flush)
    std::fill(release.begin(), release.end(), last);
  return release;
}

double pass_work(const ChunkWork& work, const ParallelLayout& l, int stage, const PipelineOp& op)
{
  const bool last_chunk = stage == l.pp - 1 && op.chunk == l.virtual_stages - 1;
  const double layers = l.chunk_holds_layers(stage, op.chunk) ? 1.0 : 0.0;
  if (op.kind == PassKind::Forward)
    return layers * work.forward + (last_chunk ? work.logits_forward : 0.0);
  return layers * work.backward + (last_chunk ? work.logits_backward : 0.0);
}

namespace {
void add_flow_patterns(const StepInputs& in, IterationPlan& plan);
}  // namespace

IterationPlan make_iteration_plan(const StepInputs& in)
{
  const Workload& w = in.workload;
  const ParallelLayout& l = in.layout;
  IterationPlan plan;
  plan.layout = l;
  const double sequences = w.global_batch_tokens / w.sequence_length;
  plan.micro_batches = static_cast<int>(std::lround(sequences / (w.micro_batch_size * l.dp)));
  plan.flops_per_token = training_flops_per_token(w);
  plan.tokens_per_step = w.global_batch_tokens;
  const double gpus = static_cast<double>(l.gpus());
  // A pass of a chunk that holds layers, per GPU: the pipeline's work over its layer chunks (p v, or
  // p v - 2 with embedding chunks, whose two edge chunks carry only the logits: pass_work).
  const double chunks_per_stage = static_cast<double>(l.layer_chunks()) / l.pp;
  const double per_pass = plan.flops_per_token * plan.tokens_per_step / gpus /
                          (static_cast<double>(plan.micro_batches) * chunks_per_stage);
  plan.forward_flops = per_pass / 3.0;
  plan.hardware_flops_per_token = hardware_flops_per_token(w);
  const double recomputed = (plan.hardware_flops_per_token - plan.flops_per_token) * plan.tokens_per_step / gpus /
                            (static_cast<double>(plan.micro_batches) * chunks_per_stage);
  plan.backward_flops = per_pass * 2.0 / 3.0 + recomputed;
  const Accelerator& a = in.accelerator;
  if (a.gemm_curve.enabled()) {
    const LayerCost c = layer_cost(in);
    const double chunk_layers = layers_per_chunk(w, l);
    plan.forward_work = chunk_layers * c.forward_s * a.peak_flops.si();
    plan.backward_work = chunk_layers * c.backward_s * a.peak_flops.si();
    plan.logits_forward_work = logits_forward_seconds(in) * a.peak_flops.si();
    plan.logits_backward_work = logits_backward_seconds(in) * a.peak_flops.si();
    plan.optimizer_s = optimizer_seconds(in);
  } else {
    plan.forward_work = plan.forward_flops / (a.gemm_efficiency * a.speed);
    plan.backward_work = plan.backward_flops / (a.gemm_efficiency * a.speed);
  }
  plan.tp_overlap = in.fabric.tp_overlap;
  plan.overlap_slowdown = in.fabric.overlap_slowdown;
  plan.pp_overhead = in.fabric.pp_overhead.si();
  // Megatron tensor parallelism: two all-reduces per layer in each pass (after attention, after MLP).
  plan.tp_allreduces_per_pass = l.tp > 1 ? 2.0 * layers_per_chunk(w, l) : 0.0;
  plan.cp_gathers_per_pass = l.cp > 1 ? layers_per_chunk(w, l) : 0.0;
  const double tokens = static_cast<double>(w.micro_batch_size) * w.sequence_length / l.cp;
  plan.activation_bytes = tokens * w.hidden * w.bytes_per_value;
  plan.pp_message_bytes = plan.activation_bytes / l.tp;
  plan.cp_message_bytes = 2.0 * tokens * w.hidden * (static_cast<double>(w.kv_heads) / w.attention_heads) / l.tp *
                          w.bytes_per_value;
  plan.dp_chunk_bytes = dp_shard_bytes(in) / l.virtual_stages;
  if (l.overlap_data_parallel) {
    const double bucket = std::max(40e6, 1e6 * l.dp * l.cp);  // parameters (Megatron-Core's default)
    plan.dp_buckets = static_cast<int>(std::max(1.0, std::ceil(plan.dp_chunk_bytes / w.bytes_per_value / bucket)));
  }
  if (l.cp > 1 && l.cp_exchange == CpExchange::Ring) {
    const AttentionCost attention = attention_seconds(in);
    plan.attention_forward_s = attention.forward_s;
    plan.attention_backward_s = attention.backward_s;
  }
  if (l.sharded_weights)
    plan.fsdp_units = fsdp_units_per_chunk(in);
  if (l.sharded_grads())  // the reduce-scatter fills the gradient shards, in their precision
    plan.dp_reduce_ratio = w.gradient_bytes / w.bytes_per_value;
  plan.dp_group = l.dp * l.cp;
  plan.backward_collectives = backward_collectives_factor(w);
  plan.tp_backward_collectives = tp_backward_collectives_factor(w, l);
  plan.ep_alltoalls_per_pass = w.moe() && l.ep > 1 ? 2.0 * layers_per_chunk(w, l) : 0.0;
  add_flow_patterns(in, plan);
  return plan;
}

namespace {

// The plan's communication patterns: one flow per GPU in each, by the GPU's coordinates.
void add_flow_patterns(const StepInputs& in, IterationPlan& plan)
{
  const ParallelLayout& l = in.layout;
  const bool experts = in.workload.moe() && l.ep > 1;
  // Every GPU, by coordinates: one flow per GPU in each pattern.
  auto for_all = [&](auto&& emit) {
    for (int d = 0; d < l.dp; ++d)
      for (int s = 0; s < l.pp; ++s)
        for (int c = 0; c < l.cp; ++c)
          for (int t = 0; t < l.tp; ++t)
            emit(t, s, d, c);
  };
  if (l.tp > 1) {
    plan.tp_ring_step.label = "tensor-parallel ring step (NVLink)";
    for_all([&](int t, int s, int d, int c) {
      plan.tp_ring_step.flows.push_back(
          {layout_rank(l, t, s, d, c), layout_rank(l, (t + 1) % l.tp, s, d, c), plan.activation_bytes / l.tp});
    });
  }
  if (l.cp > 1) {
    plan.cp_ring_step.label = "context-parallel ring step";
    for_all([&](int t, int s, int d, int c) {
      plan.cp_ring_step.flows.push_back(
          {layout_rank(l, t, s, d, c), layout_rank(l, t, s, d, (c + 1) % l.cp), plan.cp_message_bytes});
    });
  }
  if (experts) {
    plan.ep_alltoall.label = "expert-parallel all-to-all";
    const double pair = ep_alltoall_bytes(in) / (l.ep - 1);
    for_all([&](int t, int s, int d, int c) {
      const int first = d / l.ep * l.ep;
      for (int e = first; e < first + l.ep; ++e)
        if (e != d)
          plan.ep_alltoall.flows.push_back({layout_rank(l, t, s, d, c), layout_rank(l, t, s, e, c), pair});
    });
  }
  if (l.pp > 1) {
    plan.pp_send.label = "pipeline activation sends";
    const int senders = l.virtual_stages > 1 ? l.pp : l.pp - 1;  // interleaving wraps to stage 0
    for_all([&](int t, int s, int d, int c) {
      if (s < senders)
        plan.pp_send.flows.push_back(
            {layout_rank(l, t, s, d, c), layout_rank(l, t, (s + 1) % l.pp, d, c), plan.pp_message_bytes});
    });
  }
  if (plan.dp_group > 1) {
    // Context-parallel ranks hold the same weights: gradients are reduced over dp x cp replicas,
    // in a ring that visits the cp ranks of a replica, then the next replica's: position
    // p = d cp + c, ranks rising with p, so the ring passes node by node. With k members on a node,
    // k rings (NCCL's channels) carry 1/k of the bytes each; ring j visits each node's members
    // rotated by j, so its hop to the next node leaves from member j - 1 and every NIC carries one ring.
    plan.dp_ring_step.label = "data-parallel ring step";
    const int k = dp_ring_channels(l, in.fabric.gpus_per_node);
    const int n = plan.dp_group;
    const bool runs = k > 1 && n % k == 0;  // members come in whole runs of k per node
    const int channels = runs ? k : 1;
    const double bytes = plan.dp_chunk_bytes / n / channels;
    // Ring j visits position p at step ring(j, p) (a rotation within each node's run); the member
    // after p is the one at the next step.
    auto next = [&](int channel, int p) {
      if (!runs)
        return (p + 1) % n;
      const int base = p / k * k;
      const int step = base + ((p - base) - channel + k) % k;  // where ring `channel` visits p
      const int q = (step + 1) % n;
      return q / k * k + (q % k + channel) % k;
    };
    for (int j = 0; j < channels; ++j)
      for_all([&](int t, int s, int d, int c) {
        const int p = next(j, d * l.cp + c);
        plan.dp_ring_step.flows.push_back(
            {layout_rank(l, t, s, d, c), layout_rank(l, t, s, p / l.cp, p % l.cp), bytes});
      });
  }
}

}  // namespace

StepBreakdown decompose_played_iteration(const IterationPlan& plan, const PlayedIteration& played,
                                         units::FlopsPerSecond peak_flops)
{
  using units::Seconds;
  StepBreakdown b;
  b.model = "simulated";
  b.micro_batches = plan.micro_batches;
  b.flops_per_token = plan.flops_per_token;
  b.tokens_per_step = plan.tokens_per_step;
  b.compute = Seconds(played.compute);
  // Forward passes' worth of collectives: m v forwards and m v backwards, each backward_collectives
  // (tp_backward_collectives for TP's).
  const double chunk_passes = static_cast<double>(plan.micro_batches) * plan.layout.virtual_stages;
  const double passes = (1.0 + plan.backward_collectives) * chunk_passes;
  const double tp_passes = (1.0 + plan.tp_backward_collectives) * chunk_passes;
  b.tp_comm = Seconds(tp_passes * (played.blocking_per_pass[0] + played.tp_hidden_per_pass));
  const double cp_backward = played.cp_backward_per_pass >= 0 ? played.cp_backward_per_pass
                                                                : plan.backward_collectives * played.blocking_per_pass[1];
  b.cp_comm = Seconds(chunk_passes * (played.blocking_per_pass[1] + cp_backward));
  b.ep_comm = Seconds(passes * played.blocking_per_pass[2]);
  const double dp_exposed = played.makespan - played.makespan_free_dp;
  const double pp_exposed = played.makespan_free_dp - played.makespan_free_net;
  b.pp_comm = Seconds(std::max(played.own_pp, pp_exposed));
  b.dp_comm = Seconds(std::max(played.own_dp, dp_exposed));
  const Seconds blocking = b.tp_comm + b.cp_comm + b.ep_comm;
  b.comm = blocking + b.pp_comm + b.dp_comm;
  b.comm_exposed = blocking + Seconds(pp_exposed + dp_exposed) - Seconds(tp_passes * played.tp_hidden_per_pass);
  b.overlap = b.comm - b.comm_exposed;
  b.bubble = Seconds(played.makespan_free_net) - b.compute - blocking;
  b.barrier = Seconds(played.barrier);
  b.sync = b.bubble + b.barrier;
  b.step_time = Seconds(played.makespan + played.barrier);
  const double gpus = static_cast<double>(plan.layout.gpus());
  b.hardware_flops_per_token = plan.hardware_flops_per_token;
  b.mfu = plan.flops_per_token * plan.tokens_per_step / (gpus * peak_flops.si() * b.step_time.si());
  b.hfu = plan.hardware_flops_per_token * plan.tokens_per_step / (gpus * peak_flops.si() * b.step_time.si());
  b.compute_fraction = b.compute / b.step_time;
  b.binding_term = binding_term(b);
  return b;
}

CollectivePlan iteration_traffic(const IterationPlan& plan)
{
  CollectivePlan c;
  c.ranks = static_cast<int>(plan.layout.gpus());
  for (const TrafficStep* step :
       {&plan.tp_ring_step, &plan.cp_ring_step, &plan.ep_alltoall, &plan.pp_send, &plan.dp_ring_step})
    if (!step->flows.empty())
      c.steps.push_back(*step);
  return c;
}

}  // namespace fleetsim::models
