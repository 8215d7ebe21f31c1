#pragma once
// Step-time model: the fleet law
//   T_step(N) = T_compute/N + T_comm(N) + T_sync(N) - T_overlap
// with the C3 reading: compute <-> computation, T_comm <-> communication, T_sync <-> coordination.
// StepTimeModel is the interface the run-level simulation asks for a step time; the analytic model
// below is the first implementation (a simulated fabric will be another).

#include "units.hpp"

#include <string>
#include <vector>

namespace fleetsim::models {

struct Workload {
  double parameters = 0;           // total trainable parameters (count)
  int layers = 0;                  // transformer layers
  int hidden = 0;                  // model dimension h
  int sequence_length = 0;         // tokens per sequence s
  double global_batch_tokens = 0;  // tokens per optimizer step
  int micro_batch_size = 1;        // sequences per micro-batch
  double bytes_per_value = 2;      // bytes per activation / gradient value on the wire (BF16: 2)
  int attention_heads = 1;         // query heads
  int kv_heads = 1;                // key/value heads (grouped-query attention: fewer than query heads)
  int experts = 0;                 // experts per MoE layer; 0 = dense (every layer's MLP is MoE otherwise)
  int experts_per_token = 1;       // top-k routing
  double expert_parameters = 0;    // parameters in all experts of all layers (part of `parameters`)
  [[nodiscard]] bool moe() const { return experts > 0; }
  /// Parameters a token passes through: the dense part plus k/E of the experts.
  [[nodiscard]] double active_parameters() const
  {
    return moe() ? parameters - expert_parameters * (1.0 - static_cast<double>(experts_per_token) / experts)
                 : parameters;
  }
};

struct Accelerator {
  units::FlopsPerSecond peak_flops{0};  // dense BF16 peak
  units::Bytes memory{0};               // HBM capacity
  double gemm_efficiency = 1.0;         // achieved fraction of peak in the model's kernels, (0, 1]
};

struct ParallelLayout {
  int tp = 1;              // tensor parallel
  int pp = 1;              // pipeline parallel
  int dp = 1;              // data parallel
  int virtual_stages = 1;  // interleaved pipeline chunks per device (v)
  int cp = 1;              // context parallel: each sequence split over cp GPUs
  int ep = 1;              // expert parallel: experts sharded over ep data-parallel replicas
  [[nodiscard]] long gpus() const { return static_cast<long>(tp) * cp * pp * dp; }
};

struct FabricParams {
  units::BytesPerSecond nvlink_bandwidth{0};  // per GPU, one direction
  units::Seconds nvlink_latency{0};
  units::BytesPerSecond nic_bandwidth{0};  // per GPU NIC, one direction
  units::Seconds nic_latency{0};
  double dp_overlap = 0.0;  // fraction of DP gradient traffic hidden behind backward
};

struct StepInputs {
  Workload workload;
  Accelerator accelerator;
  ParallelLayout layout;
  FabricParams fabric;
};

/// Everything a planner needs to know about one training step. Times are per step, per GPU.
struct StepBreakdown {
  std::string model = "analytic";  // which StepTimeModel produced it
  units::Seconds step_time{0};     // T_step
  units::Seconds compute{0};       // T_compute / N: useful math of one GPU at achieved efficiency
  units::Seconds comm{0};          // T_comm(N) = tp + cp + ep + pp + dp communication (before overlap)
  units::Seconds tp_comm{0};       // tensor-parallel all-reduces on NVLink
  units::Seconds pp_comm{0};       // pipeline activation / gradient sends on the NIC
  units::Seconds dp_comm{0};       // data-parallel reduce-scatter + all-gather on the NIC
  units::Seconds cp_comm{0};       // context-parallel key/value all-gathers (and their gradients' reduce-scatters)
  units::Seconds ep_comm{0};       // expert-parallel token all-to-alls (dispatch and combine, both passes)
  units::Seconds sync{0};          // T_sync(N) = bubble + barrier
  units::Seconds bubble{0};        // pipeline bubble (p-1)/(v*m) * compute
  units::Seconds barrier{0};       // step-end global synchronisation (latency bound)
  units::Seconds overlap{0};       // T_overlap: communication hidden behind compute
  units::Seconds comm_exposed{0};  // comm - overlap
  int micro_batches = 0;           // m per pipeline per step
  double flops_per_token = 0;      // model FLOPs per token (6P + attention, see docs)
  double tokens_per_step = 0;
  double mfu = 0;               // model FLOPs per second per GPU / peak
  double compute_fraction = 0;  // (T_compute/N) / T_step
  std::string binding_term;     // "compute", "communication" or "coordination"
};

/// Bytes of one GPU's data-parallel gradient shard (before splitting into chunks): dense weights
/// over tp * pp, plus its 1/ep of the experts.
[[nodiscard]] double dp_shard_bytes(const StepInputs& in);

/// Bytes one GPU sends in one token all-to-all of an MoE layer: its b (s/cp) tokens' activations,
/// sharded over tp, k copies each, (ep - 1)/ep of them to other ranks of its expert-parallel group.
[[nodiscard]] double ep_alltoall_bytes(const StepInputs& in);

/// Problems with a layout (tp*pp*dp != gpus, batch not divisible, ...), lower-case messages;
/// empty when the inputs are consistent.
[[nodiscard]] std::vector<std::string> check_step_inputs(const StepInputs& in, long gpus);

/// Model FLOPs per token: 6 P_active + 12 L h s (PaLM convention, attention counted without causal
/// mask); P_active = P for a dense model.
[[nodiscard]] double training_flops_per_token(const Workload& w);

/// Pipeline bubble as a fraction of ideal compute: (p-1)/(v*m).
[[nodiscard]] double pipeline_bubble_fraction(int stages, int micro_batches, int virtual_stages);

/// The C3 term that binds a decomposed step: "communication" if exposed communication is larger
/// than compute and at least sync, "coordination" if sync is the largest, "compute" otherwise.
[[nodiscard]] std::string binding_term(const StepBreakdown& b);

class StepTimeModel {
public:
  virtual ~StepTimeModel() = default;
  [[nodiscard]] virtual StepBreakdown step(const StepInputs& in) const = 0;
  [[nodiscard]] virtual std::string name() const = 0;
};

class AnalyticStepModel final : public StepTimeModel {
public:
  [[nodiscard]] StepBreakdown step(const StepInputs& in) const override;
  [[nodiscard]] std::string name() const override { return "analytic"; }
};

}  // namespace fleetsim::models
