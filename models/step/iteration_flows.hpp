#pragma once
// The flows of one whole training iteration, per GPU, for the full flow-by-flow reference
// simulation (simulator/run/full_iteration.cpp) that the reduced step simulation is validated
// against. Pure (no SimGrid).
//
// Every GPU (tensor index t, stage s, replica d) plays its stage's schedule (pipeline_order):
//  - each pass is compute, then the pass's TP all-reduces as ring steps among the TP group on
//    NVLink. A pass has k = tp_allreduces_per_pass all-reduces of the same buffer; they are
//    aggregated into one ring of 2(tp-1) steps carrying k buffers' bytes, and the k-1 rings'
//    latencies the aggregation saves are spent as a wait, so a pass's TP time is
//    k 2(tp-1) (alpha + M/(tp beta)) as in the reduced model;
//  - its output goes to the consumer stage's GPU with the same t and d (1/tp of the activation);
//  - on a per-GPU stream, chunk c's parameters are all-gathered (dp cp - 1 ring steps) before its
//    first forward and its gradients reduce-scattered after its last backward, over the GPUs with
//    the same t and s in every replica.

#include "iteration_plan.hpp"

namespace fleetsim::models {

struct IterationFlows {
  int tp_ring_steps = 0;        // per pass: 2 (tp - 1), 0 without TP
  double tp_step_bytes = 0;     // per flow of one aggregated ring step: k M / tp
  double tp_extra_latency = 0;  // per pass: (k - 1) 2 (tp - 1) alpha_nvlink, never negative
  // The same for a backward pass, whose k is IterationPlan::tp_backward_collectives times a forward's.
  double tp_backward_step_bytes = 0;
  double tp_backward_extra_latency = 0;
  double pp_message_bytes = 0;  // per activation or gradient send
  int dp_ring_steps = 0;        // per all-gather or reduce-scatter of one chunk: dp cp - 1
  double dp_step_bytes = 0;     // per flow of one DP ring step of an all-gather
  double dp_reduce_step_bytes = 0;  // ... and of a reduce-scatter (sharded gradients: in model.gradient_bytes)
  double forward_flops = 0;     // executed per forward pass: IterationPlan::forward_work
  double backward_flops = 0;
  double logits_forward_flops = 0;  // on the model's last chunk: IterationPlan::logits_forward_work
  double logits_backward_flops = 0;  // IterationPlan::logits_backward_work
};

/// The flows of `plan`'s iteration; `in` gives the GEMM efficiency and the NVLink latency.
[[nodiscard]] IterationFlows make_iteration_flows(const IterationPlan& plan, const StepInputs& in);

/// The stage that consumes the output of pass `op` on `stage` (the inverse of pipeline_dependency):
/// the next virtual stage for a forward, the previous one for a backward; `stage` itself when the
/// last virtual stage's forward feeds its own backward. Only meaningful when the output is used.
[[nodiscard]] int pipeline_consumer(int stages, int chunks, int stage, const PipelineOp& op);

}  // namespace fleetsim::models
