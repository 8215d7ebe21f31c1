#include "iteration_flows.hpp"

#include <algorithm>

namespace fleetsim::models {

IterationFlows make_iteration_flows(const IterationPlan& plan, const StepInputs& in)
{
  IterationFlows f;
  const ParallelLayout& l = plan.layout;
  if (l.tp > 1) {
    const double k = plan.tp_allreduces_per_pass;
    f.tp_ring_steps = 2 * (l.tp - 1);
    f.tp_step_bytes = k * plan.activation_bytes / l.tp;
    f.tp_extra_latency = std::max(0.0, (k - 1.0) * f.tp_ring_steps * in.fabric.nvlink_latency.si());
    const double kb = k * plan.tp_backward_collectives;
    f.tp_backward_step_bytes = kb * plan.activation_bytes / l.tp;
    f.tp_backward_extra_latency = std::max(0.0, (kb - 1.0) * f.tp_ring_steps * in.fabric.nvlink_latency.si());
  }
  f.pp_message_bytes = plan.pp_message_bytes;
  if (plan.dp_group > 1) {
    f.dp_ring_steps = plan.dp_group - 1;
    f.dp_step_bytes = plan.dp_chunk_bytes / plan.dp_group;
    f.dp_reduce_step_bytes = f.dp_step_bytes * plan.dp_reduce_ratio;
  }
  f.forward_flops = plan.forward_work;  // the kernels' time at peak: by shape, or FLOPs / efficiency
  f.backward_flops = plan.backward_work;
  f.logits_forward_flops = plan.logits_forward_work;
  f.logits_backward_flops = plan.logits_backward_work;
  return f;
}

int pipeline_consumer(int stages, int chunks, int stage, const PipelineOp& op)
{
  if (op.kind == PassKind::Forward) {
    if (stage < stages - 1)
      return stage + 1;
    return op.chunk < chunks - 1 ? 0 : stage;
  }
  if (stage > 0)
    return stage - 1;
  return stages - 1;  // chunk > 0: the last stage's previous chunk
}

}  // namespace fleetsim::models
