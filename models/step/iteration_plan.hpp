#pragma once
// One training iteration of a DP x TP x PP layout as data: where each rank sits, what each
// pipeline stage computes and in which order, and which traffic patterns the iteration puts on
// the fabric. Pure (no SimGrid): the simulator times the patterns on a fabric and plays the
// schedule with actors; tests check the schedule's properties here.
//
// Placement follows Llama 3's order of parallel dimensions, [TP, CP, PP, DP] from innermost to
// outermost ([L3] section 3.3.2): rank = tp + TP * (cp + CP * (pp + PP * dp)). Tensor-parallel
// groups are consecutive ranks (one NVLink node at TP 8), context-parallel groups TP apart, a
// pipeline is TP * CP * PP consecutive ranks, and data-parallel replicas TP * CP * PP apart.

#include "models/network/collective_plan.hpp"
#include "step_model.hpp"

#include <string>
#include <vector>

namespace fleetsim::models {

/// Rank of the GPU at (tensor index, pipeline stage, data-parallel replica, context index).
[[nodiscard]] int layout_rank(const ParallelLayout& l, int tp, int stage, int replica, int context = 0);

enum class PassKind { Forward, Backward };

/// One forward or backward pass of one micro-batch through one model chunk of a stage.
struct PipelineOp {
  PassKind kind = PassKind::Forward;
  int micro_batch = 0;
  int chunk = 0;  // model chunk on this stage, 0..v-1 (virtual stage chunk * p + stage)
  bool operator==(const PipelineOp&) const = default;
};

/// Whether the schedule exists: v = 1 (1F1B) takes any m >= 1; the interleaved schedule (v > 1)
/// needs m to be a multiple of p, as in Megatron-LM.
[[nodiscard]] bool schedule_supported(int stages, int micro_batches, int chunks);

/// The order in which stage `stage` runs its passes: Megatron-LM's 1F1B (v = 1) or interleaved
/// 1F1B (v > 1) schedule. Warm-up forwards, then one forward / one backward alternating, then the
/// cool-down backwards. Warm-up is p - s - 1 (v = 1) or 2 (p - s - 1) + (v - 1) p (v > 1), capped
/// at m v. In forward k a stage works on chunk (k mod pv) / p and micro-batch (k / pv) p + k mod p;
/// backward k walks the chunks in reverse.
[[nodiscard]] std::vector<PipelineOp> pipeline_order(int stages, int micro_batches, int chunks, int stage);

/// The work of one pass of one chunk that holds layers (forward, backward), and of the logit GEMM.
struct ChunkWork {
  double forward = 0;
  double backward = 0;
  double logits_forward = 0;
  double logits_backward = 0;
};

/// The work of one pass of `op` on `stage` of layout `l`: the chunk's layers' forward or backward work
/// (none on an embedding chunk: ParallelLayout::chunk_holds_layers), plus the logit GEMM's forward or
/// backward when `op` is on the model's last chunk. Without embedding chunks the last stage is the
/// pipeline's slowest by that much (Llama 3 moves a layer off the first and last stage for this
/// reason, [L3] §3.3.2: ParallelLayout::embedding_chunks).
[[nodiscard]] double pass_work(const ChunkWork& work, const ParallelLayout& l, int stage, const PipelineOp& op);

/// For each chunk of a stage's pass `order`, the index of the pass after which its gradients are
/// complete and their reduce-scatter may start: that chunk's last backward, or with
/// `after_flush` the stage's last backward for every chunk.
[[nodiscard]] std::vector<size_t> gradient_release(const std::vector<PipelineOp>& order, int chunks, bool after_flush);

/// What one pass costs and which traffic one iteration needs, for a validated StepInputs.
struct IterationPlan {
  ParallelLayout layout;
  int micro_batches = 0;
  double forward_flops = 0;   // model FLOPs of one forward pass of one chunk, per GPU
  double backward_flops = 0;  // twice the forward, plus what recomputation repeats
  double forward_work = 0;    // FLOPs an Exec at peak speed runs for one forward pass: its time x peak
  double backward_work = 0;   // the same for one backward pass
  // The logit GEMM's forward and backward, as work at peak: on the model's last chunk only (the last
  // stage's last chunk; pass_work). With kernel times by shape; 0 otherwise, where the logits' FLOPs
  // are spread over the chunks in forward_work.
  double logits_forward_work = 0;
  double logits_backward_work = 0;
  double optimizer_s = 0;  // every GPU's optimizer step after its gradients are reduced (optimizer_seconds)
  double tp_overlap = 0;   // share of each pass's TP communication hidden behind its GEMMs
  double overlap_slowdown = 0;  // compute seconds each second of hidden communication costs (FabricParams)
  double pp_overhead = 0;       // seconds each pipeline send adds to its transfer (FabricParams)
  // With ParallelLayout::overlap_data_parallel, the buckets a chunk's gradients and parameters move in:
  // Megatron-Core's default bucket, max(40M, 1M x dp x cp) parameters; 0 without overlap.
  int dp_buckets = 0;
  // With ParallelLayout::sharded_weights (ZeRO-3, FSDP): every pass all-gathers its chunk's weights and
  // every backward reduce-scatters its gradients, per micro-batch, in fsdp_units units (a layer each)
  // that stream ahead of (gathers) and behind (reduce-scatters) the compute; 0 otherwise. The
  // reduce-scatter carries the gradients' precision when it fills gradient shards (ZeRO-2 and -3):
  // dp_reduce_ratio = gradient_bytes / bytes_per_value times the all-gather's bytes (1 otherwise).
  int fsdp_units = 0;
  double dp_reduce_ratio = 1;
  // One layer's attention core (layer_cost.hpp attention_seconds), forward and backward: what ring
  // attention (ParallelLayout::cp_exchange) hides its steps behind.
  double attention_forward_s = 0;
  double attention_backward_s = 0;
  double flops_per_token = 0;
  double hardware_flops_per_token = 0;
  double tokens_per_step = 0;
  double tp_allreduces_per_pass = 0;  // 2 per layer in a pass: layers / (p v) per chunk, may be fractional
  double cp_gathers_per_pass = 0;     // 1 per layer in a pass (K/V all-gather, or its gradients' reduce-scatter)
  double ep_alltoalls_per_pass = 0;   // 2 per MoE layer in a pass (dispatch and combine)
  // A backward pass runs that many times a forward's TP, CP and EP collectives: 2 under full
  // recomputation (backward_collectives_factor). The *_per_pass counts above are a forward's.
  double backward_collectives = 1;
  double tp_backward_collectives = 1;  // the TP share: tp_backward_collectives_factor (sequence parallelism's
                                       // re-gathered inputs on top of backward_collectives)
  double activation_bytes = 0;         // b (s/cp) h bytes: one TP all-reduce buffer
  double pp_message_bytes = 0;         // b (s/cp) h bytes / tp: one GPU's activation (or gradient) send
  double cp_message_bytes = 0;         // 2 b (s/cp) h_kv bytes / tp: one GPU's keys and values
  double dp_chunk_bytes = 0;           // one GPU's gradient shard of one chunk: P / (tp pp v) bytes
  int dp_group = 1;                    // replicas of each shard: dp * cp
  // Traffic patterns, each one step of concurrent flows over all ranks (empty when unused):
  TrafficStep tp_ring_step;  // every TP group's ring step on its activation (bytes / tp per flow)
  TrafficStep cp_ring_step;  // every CP group's ring step of the K/V all-gather
  TrafficStep ep_alltoall;   // every expert-parallel group's token all-to-all, all pairs at once
  TrafficStep pp_send;       // every stage sends to the next (and the last to the first when v > 1)
  TrafficStep dp_ring_step;  // every DP group's ring step on one chunk's gradient shard
  /// Times of whole collectives from the time of one ring step of each pattern.
  [[nodiscard]] double tp_allreduce_time(double ring_step) const;
  [[nodiscard]] double cp_all_gather_time(double ring_step) const;
  /// The context-parallel exchange exposed after one forward and one backward pass of a chunk, from one
  /// ring step of its pattern: the all-gather's (cp - 1 steps per layer, backward_collectives times in
  /// the backward) or ring attention's (what each step outlasts its chunk's kernel; the re-run forward
  /// of full recomputation exchanges again).
  [[nodiscard]] CpRingExposure cp_exposed_per_pass(double ring_step) const;
  [[nodiscard]] double dp_reduce_scatter_time(double ring_step) const;  // also the all-gather's
};

/// What playing the schedule measured, per GPU of the critical (last to finish) stage.
struct PlayedIteration {
  double compute = 0;                       // seconds in Execs
  double cp_backward_per_pass = -1;         // CP seconds after each backward pass; < 0: backward_collectives x
                                            // the forward's (the all-gather's; ring attention's differ)
  double blocking_per_pass[3] = {0, 0, 0};  // TP, CP, EP seconds after each forward pass (exposed);
                                            // a backward's are IterationPlan::tp_backward_collectives (TP) and
                                            // backward_collectives (CP, EP) times these
  double tp_hidden_per_pass = 0;            // TP seconds per forward pass hidden behind compute
  double own_pp = 0;                        // the stage's own sends x the transfer time
  double own_dp = 0;                        // v x (all-gather + reduce-scatter) per chunk
  double makespan = 0;                      // the schedule as is
  double makespan_free_dp = 0;              // with DP traffic free
  double makespan_free_net = 0;             // with DP and PP traffic free
  double barrier = 0;                       // step-end barrier
};

/// The fleet-law decomposition of a played iteration: T_step = compute + comm + sync - overlap,
/// exposed comm = TP + CP + EP (blocking) + PP exposed (free-DP minus free-net makespan) + DP exposed
/// (as-is minus free-DP), bubble = free-net makespan - compute - blocking comm. A dimension's T_comm
/// is the larger of one GPU's own traffic time and its exposed time (a pipeline's critical path can
/// carry more transfers than one stage sends), so T_overlap is never negative.
[[nodiscard]] StepBreakdown decompose_played_iteration(const IterationPlan& plan, const PlayedIteration& played,
                                                       units::FlopsPerSecond peak_flops);

/// The plan of one iteration; in.layout must be consistent (check_step_inputs).
[[nodiscard]] IterationPlan make_iteration_plan(const StepInputs& in);

/// The non-empty patterns as one CollectivePlan over all ranks, one step each (run it reduced).
[[nodiscard]] CollectivePlan iteration_traffic(const IterationPlan& plan);

/// Where pass `op` of stage `stage` gets its input: the producing stage and pass. A forward pass
/// takes the previous virtual stage's forward (stage - 1, or the last stage's previous chunk); a
/// backward pass the next virtual stage's backward, or on the very last virtual stage its own
/// forward. `has_producer` is false for the first virtual stage's forwards.
struct Dependency {
  bool has_producer = false;
  int stage = 0;
  PipelineOp op;
};
[[nodiscard]] Dependency pipeline_dependency(int stages, int chunks, int stage, const PipelineOp& op);

/// A pure replay of the schedule with fixed pass times: each stage runs its passes in order, each
/// pass as soon as the stage is free and its input has arrived (transfer seconds after the
/// producer finished, for inputs from another stage). The reference the simulated schedule is
/// tested against; also proves the order is deadlock-free.
struct ScheduleReplay {
  bool deadlock = false;
  double makespan = 0;
  std::vector<double> stage_end;
};
[[nodiscard]] ScheduleReplay replay_schedule(int stages, int micro_batches, int chunks, double forward_s,
                                             double backward_s, double transfer_s);

}  // namespace fleetsim::models
