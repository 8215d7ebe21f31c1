#pragma once
// A test fixture shared by the models tests: Llama 3 405B's step inputs.
#include "models/step/step_model.hpp"

namespace fleetsim::models {

// Llama 3 405B on H100 as the paper describes it (Table 3 shape, 8K sequences, 16M-token batches,
// FSDP sharding, flash attention), on the H100 file's GEMM curve (scenarios/hardware/).
inline StepInputs llama3_405b_inputs()
{
  StepInputs in;
  Workload& w = in.workload;
  w.parameters = 405e9;
  w.layers = 126;
  w.hidden = 16384;
  w.attention_heads = 128;
  w.kv_heads = 8;
  w.ffn_hidden = 53248;
  w.gated_mlp = true;
  w.vocabulary = 128256;
  w.flash_attention = true;
  w.sequence_length = 8192;
  w.global_batch_tokens = 16777216.0;
  w.bytes_per_value = 2;
  Accelerator& a = in.accelerator;
  a.peak_flops = units::FlopsPerSecond(989e12);
  a.memory = units::Bytes(80e9);
  a.hbm_bandwidth = units::BytesPerSecond(3.35e12);
  a.gemm_curve.max_efficiency = 0.80;
  a.gemm_curve.kernel_overhead = 5.5e-6;
  in.layout.sequence_parallel = true;
  in.layout.sharded_gradients = true;
  in.fabric = FabricParams{units::BytesPerSecond(450e9), units::Seconds(1e-6), units::BytesPerSecond(50e9),
                           units::Seconds(5e-6), 0.8};
  return in;
}

}  // namespace fleetsim::models
