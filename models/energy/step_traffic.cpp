#include "step_traffic.hpp"

namespace fleetsim::models::energy {

StepTraffic step_traffic(const StepInputs& in, int micro_batches)
{
  const Workload& w = in.workload;
  const ParallelLayout& l = in.layout;
  const double m = micro_batches;
  const double layers_per_stage = static_cast<double>(w.layers) / l.pp;
  // One micro-batch's activations on one GPU of a tensor-parallel group (a sequence chunk of s/cp).
  const double activation = static_cast<double>(w.micro_batch_size) * w.sequence_length / l.cp * w.hidden *
                            w.bytes_per_value;
  StepTraffic t;
  if (l.tp > 1)  // four all-reduces per layer (two forward, two backward)
    t.scale_up_bytes = 2.0 * (l.tp - 1.0) / l.tp * activation * 4.0 * layers_per_stage * m;
  if (l.pp > 1)  // an activation forward and a gradient backward per micro-batch and virtual stage
    t.scale_out_bytes += 2.0 * l.virtual_stages * m * activation / l.tp;
  const double replicas = static_cast<double>(l.dp) * l.cp;
  if (replicas > 1)  // reduce-scatter of the gradients, all-gather of the parameters
    t.scale_out_bytes += 2.0 * (replicas - 1.0) / replicas * dp_shard_bytes(in);
  if (l.cp > 1) {  // keys and values gathered forward, their gradients scattered backward, per layer
    const double kv = 2.0 * activation * (static_cast<double>(w.kv_heads) / w.attention_heads) / l.tp;
    t.scale_out_bytes += (l.cp - 1.0) * kv * 2.0 * layers_per_stage * m;
  }
  if (w.moe() && l.ep > 1)  // dispatch and combine, forward and backward, per MoE layer
    t.scale_out_bytes += 4.0 * layers_per_stage * m * ep_alltoall_bytes(in);
  return t;
}

}  // namespace fleetsim::models::energy
