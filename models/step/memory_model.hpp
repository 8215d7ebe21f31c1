#pragma once
// HBM per GPU for one layout: weights, gradients, optimizer state and activations, on the pipeline
// stage that needs the most (the first holds the most micro-batches in flight, the last the
// logits). Mixed-precision Adam as Megatron-LM keeps it: BF16 weights (2 bytes per parameter),
// FP32 gradients (4, Workload::gradient_bytes) and FP32 master weights, momentum and variance (12,
// Workload::optimizer_bytes); the distributed optimizer shards the latter over the dp x cp replicas. Activations per layer and micro-batch follow
// Korthikanti et al. 2022, generalised to grouped-query attention, gated MLPs and MoE:
//   kept by every TP rank (split by sequence parallelism): two norm inputs and the QKV and MLP
//   inputs (4 h values) and two dropout masks (2 h bytes);
//   split by TP: Q, K, V, the attention output, the MLP's inner activations;
//   scores (heads x s per token, 5 bytes with dropout) unless flash attention or recomputation drops them;
//   full recomputation keeps only the layer input.
// A stage keeps one set per micro-batch-chunk in flight (from the pipeline order itself).

#include "step_model.hpp"

#include <string>
#include <vector>

namespace fleetsim::models {

struct MemoryTerm {
  std::string name;
  double bytes = 0;
};

struct MemoryEstimate {
  int stage = 0;          // the stage these figures are for (the largest)
  double parameters = 0;  // parameters that stage's GPUs hold
  double weights = 0;
  double gradients = 0;
  double optimizer = 0;
  double activations = 0;  // every in-flight micro-batch-chunk's, and the logits on the last stage
  int in_flight = 0;       // micro-batch-chunks whose activations the stage holds at its peak
  double total = 0;
  double capacity = 0;  // HBM less the reserve
  [[nodiscard]] bool fits() const { return capacity <= 0 || total <= capacity; }
  [[nodiscard]] std::vector<MemoryTerm> terms() const;
  [[nodiscard]] MemoryTerm biggest() const;
};

/// Bytes of one layer's activations for one micro-batch on one GPU.
[[nodiscard]] double layer_activation_bytes(const StepInputs& in);

/// Micro-batch-chunks whose forward has run and backward has not, at the stage's peak.
[[nodiscard]] int peak_in_flight(int stages, int micro_batches, int chunks, int stage);

/// The estimate for a consistent layout (check_step_inputs first).
[[nodiscard]] MemoryEstimate estimate_memory(const StepInputs& in);

/// Empty when the layout fits (or the accelerator's memory is unset); otherwise a sentence naming
/// the need, the capacity and the biggest term.
[[nodiscard]] std::string memory_problem(const StepInputs& in);

}  // namespace fleetsim::models
