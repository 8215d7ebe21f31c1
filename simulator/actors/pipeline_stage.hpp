#pragma once
// One pipeline stage playing its share of a training iteration: Megatron's pass order, each pass
// an Exec on the stage's GPU followed by its tensor-parallel all-reduces, inputs arriving from
// other stages a transfer time after they were produced, and the data-parallel all-gather (before
// a chunk's first forward) and reduce-scatter (after its last backward) on a per-stage stream.
//
// The pass and transfer times come from the fabric: TP all-reduces, PP sends and DP ring steps are
// timed first on the whole fabric with every concurrent flow (simulator/run/step_simulation.cpp).
// All data-parallel replicas are identical, so one pipeline is played.

#include "models/step/dp_overlap.hpp"
#include "models/step/iteration_plan.hpp"

#include <simgrid/s4u.hpp>

#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace fleetsim::sim {

namespace sg4 = simgrid::s4u;

/// A span of the iteration, for the Chrome trace.
struct TraceSlice {
  int track = 0;  // 0 compute, 1 NVLink (TP), 2 NIC pipeline sends, 3 NIC data-parallel, 4 NIC context-parallel,
                  // 5 NIC expert-parallel
  int stage = 0;
  std::string name;
  double start = 0;  // seconds from the start of the iteration
  double duration = 0;
};

struct PipelineTimes {
  double forward_flops = 0;  // executed on the GPU (model FLOPs / GEMM efficiency)
  double backward_flops = 0;
  double logits_forward_flops = 0;     // the logit GEMM on the model's last chunk (models::pass_work)
  double logits_backward_flops = 0;    // its two gradients
  double tp_per_pass = 0;              // seconds of tensor-parallel all-reduce after each forward pass
  double tp_slowed_per_pass = 0;       // seconds a forward pass's compute is slowed by the TP traffic it hides
  double overlap_slowdown = 0;         // compute seconds per second of DP traffic under the stage's compute
  double cp_per_pass = 0;              // seconds of context-parallel K/V exchange exposed after a forward pass
  double cp_backward_per_pass = 0;     // ... after a backward pass (all-gather: backward_collectives x the above)
  double ep_per_pass = 0;              // seconds of expert-parallel token all-to-alls per pass
  double backward_collectives = 1;     // a backward pass's CP and EP time as a multiple of the above
                                       // (the forward's): IterationPlan::backward_collectives
  double tp_backward_collectives = 1;  // and its TP time: IterationPlan::tp_backward_collectives
  double transfer = 0;                 // seconds from the end of a pass to its input reaching the next stage
  double dp_all_gather = 0;            // seconds per chunk
  double dp_reduce_scatter = 0;
  int dp_buckets = 0;  // > 0: bucketed overlap of a chunk's DP collectives with its first forward and last backward
  int fsdp_units = 0;  // > 0: sharded weights (ZeRO-3), every pass gathers and every backward reduce-scatters
                       // its chunk's weights in that many units (models::IterationPlan::fsdp_units)
  double optimizer = 0;  // seconds of the optimizer step once the stage's gradients are reduced
};

class DataParallelStreams;

struct PipelineShared {
  models::ParallelLayout layout;  // the stages (pp), their chunks (v), which chunks hold layers, the DP release
  int micro_batches = 1;
  [[nodiscard]] int stages() const { return layout.pp; }
  [[nodiscard]] int chunks() const { return layout.virtual_stages; }
  PipelineTimes times;
  std::vector<sg4::Host*> hosts;  // per stage
  bool record = false;
  double origin = 0;  // simulated time the iteration starts
  // When set, the DP all-gathers and reduce-scatters are real flows on the fabric
  // (data_parallel_rank.hpp) and times.dp_* are not used; else each takes its times.dp_* time.
  DataParallelStreams* dp = nullptr;

  // Finished passes: (stage, kind, micro-batch, chunk) -> simulated finish time.
  std::map<std::tuple<int, int, int, int>, double> finished;
  sg4::ConditionVariablePtr changed = sg4::ConditionVariable::create();
  sg4::MutexPtr mutex = sg4::Mutex::create();

  // Results, per stage.
  std::vector<double> end;        // compute and data-parallel traffic both done
  std::vector<double> compute;    // seconds in Execs
  std::vector<int> remote_sends;  // passes whose output went to another stage
  std::vector<double> dp_busy;    // seconds the stage's DP stream was busy
  std::vector<TraceSlice> slices;
};

class PipelineStage {
public:
  using Spans = models::Spans;  // [start, end) in simulated seconds
  PipelineStage(PipelineShared& shared, int stage) : shared_(shared), stage_(stage) {}
  void operator()() const;

private:
  [[nodiscard]] double wait_for_input(const models::PipelineOp& op) const;
  // The stage's DP stream. dp_free: when the timed stream is next free (unused when streamed).
  [[nodiscard]] std::vector<double> timed_all_gathers(double& dp_free) const;  // per chunk: parameters there
  [[nodiscard]] double parameters_ready(const std::vector<double>& gathered, int chunk) const;
  // Sharded weights: the pass's all-gather on the timed stream, from when the pass could start.
  models::StreamSpan sharded_gather(const models::PipelineOp& op, double ready, double& dp_free) const;
  // When it starts (timed), from the chunk's last backward pass [started, ready).
  double reduce_scatter(int chunk, double started, double ready, double& dp_free) const;
  [[nodiscard]] double finish_data_parallel(double dp_free) const;  // when the stream is done
  [[nodiscard]] double blocking_collectives(const models::PipelineOp& op, double computed) const;
  void publish(const models::PipelineOp& op, double end) const;
  [[nodiscard]] double finish(const Spans& busy, Spans dp_spans, double dp_free) const;
  void record(int track, std::string name, double start, double end) const;
  PipelineShared& shared_;
  int stage_;
};

/// Whether the output of `op` on `stage` is consumed by another stage (and so is sent).
[[nodiscard]] bool sends_output(int stages, int chunks, int stage, const models::PipelineOp& op);

}  // namespace fleetsim::sim
