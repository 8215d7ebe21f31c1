#pragma once
// Step-time model: the fleet law
//   T_step(N) = T_compute/N + T_comm(N) + T_sync(N) - T_overlap
// with the C3 reading: compute <-> computation, T_comm <-> communication, T_sync <-> coordination.
// StepTimeModel is the interface the run-level simulation asks for a step time; the analytic model
// below is the first implementation (a simulated fabric will be another).

#include "kernel_tables.hpp"
#include "models/core/names.hpp"
#include "models/core/units.hpp"

#include <memory>
#include <string>
#include <vector>

namespace fleetsim::models {

/// How attention's score and value products are counted in model FLOPs: `full` charges every
/// query against every key (the convention of Narayanan et al. 2021, Korthikanti et al. 2022 and
/// PaLM); `causal` charges only the unmasked half, as a causal kernel that skips masked blocks does.
enum class AttentionFlops { Full, Causal };
/// Activation recomputation: `none` keeps every activation; `selective` recomputes the attention
/// core (scores, softmax, dropout, value product) in the backward pass (Korthikanti et al. 2022);
/// `full` keeps only each layer's input and reruns the whole layer forward.
enum class Recompute { None, Selective, Full };
inline constexpr NameTable<AttentionFlops, 2> kAttentionFlopsNames{
    {{"full", AttentionFlops::Full}, {"causal", AttentionFlops::Causal}}};
inline constexpr NameTable<Recompute, 3> kRecomputeNames{
    {{"none", Recompute::None}, {"selective", Recompute::Selective}, {"full", Recompute::Full}}};
/// How context parallelism moves keys and values: `all_gather` gathers every chunk before each
/// layer's attention and reduce-scatters their gradients after its backward, exposed (Llama 3's
/// choice); `ring` passes one chunk at a time around the CP ring while the attention runs on the chunk
/// at hand (ring attention: each step's transfer hidden behind that chunk's kernel, the backward
/// passing the keys, values and their gradients; each step's partial output merged by a rescaling
/// kernel).
enum class CpExchange { AllGather, Ring };
inline constexpr NameTable<CpExchange, 2> kCpExchangeNames{{{"all_gather", CpExchange::AllGather}, {"ring", CpExchange::Ring}}};
/// How a group of memory-bound operations runs (layer_cost.cpp counts each one's bytes):
/// `fused` is one kernel reading its inputs and writing its output in BF16 (Megatron-Core and
/// Transformer Engine's fused kernels, Triton ones); `eager` is PyTorch's op-by-op sequence as the
/// source's code reads, each op a kernel that reads and writes its whole tensor, in FP32 where the
/// code upcasts.
enum class Kernels { Fused, Eager };
inline constexpr NameTable<Kernels, 2> kKernelsNames{{{"fused", Kernels::Fused}, {"eager", Kernels::Eager}}};

[[nodiscard]] const char* attention_flops_name(AttentionFlops a);
[[nodiscard]] const char* recompute_name(Recompute r);

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
  int ffn_hidden = 0;              // MLP inner dimension; 0 = 4h
  bool gated_mlp = false;          // SwiGLU-style MLP: three h x ffn matrices instead of two
  int vocabulary = 0;              // vocabulary size: the logit GEMM and its activations; 0 = left out
  bool dropout = false;            // dropout layers (their masks are activations to keep)
  bool flash_attention = false;    // fused attention: scores never stored, recomputed in the backward pass
  std::string attention_kernel;    // the fused kernel's measurements in the accelerator's attention table
                                   // ("": the table's first kernel)
  AttentionFlops attention_flops = AttentionFlops::Full;
  Recompute recompute = Recompute::None;
  double rotary_fraction = 0;  // share of each head's dimensions rotary embeddings rotate (0: learned or
                               // absolute positions, no rotary kernel; Nemotron-4: 0.5)
  Kernels kernels = Kernels::Fused;      // the MLP activation, rotary embedding and grouped-query K/V repeat
  Kernels norm_kernel = Kernels::Fused;  // the two normalisations
  Kernels loss_kernel = Kernels::Fused;  // the cross-entropy over the vocabulary
  double gradient_bytes = 4;    // bytes per parameter of the gradient buffer (FP32 main gradients; 2: BF16)
  double optimizer_bytes = 12;  // bytes per parameter of optimizer state (FP32 master weight and Adam's two
                                // moments; 10 when only the master weight's low bytes are kept)
  [[nodiscard]] int ffn() const { return ffn_hidden > 0 ? ffn_hidden : 4 * hidden; }
  [[nodiscard]] bool moe() const { return experts > 0; }
  /// Parameters a token passes through: the dense part plus k/E of the experts.
  [[nodiscard]] double active_parameters() const
  {
    return moe() ? parameters - expert_parameters * (1.0 - static_cast<double>(experts_per_token) / experts)
                 : parameters;
  }
};

/// Achieved kernel time by shape (models/step/layer_cost.hpp): a roofline, the larger of the math at
/// max_efficiency x peak (or the measured GEMM table's efficiency for the shape and pass, at most
/// max_efficiency) and the operands' HBM traffic, plus a fixed cost per kernel (launch and
/// synchronisation gap). Fused attention at the measured attention table's rate when there is one.
/// Off when max_efficiency = 0: every kernel then runs at gemm_efficiency.
struct GemmCurve {
  double max_efficiency = 0;   // fraction of peak a large GEMM sustains (the table's ceiling)
  double kernel_overhead = 0;  // seconds every kernel adds
  std::shared_ptr<const GemmTable> table;           // measured GEMM efficiency by shape and pass
  std::shared_ptr<const AttentionTable> attention;  // measured fused-attention throughput
  // Context-parallel attention against its ideal (1/cp of the whole sequence's kernel time): the
  // load-balanced ring's imbalance and its chunk exchanges, by pass; 1 = ideal.
  double cp_forward_efficiency = 1.0;
  double cp_backward_efficiency = 1.0;
  [[nodiscard]] bool enabled() const { return max_efficiency > 0; }
  [[nodiscard]] bool measured_gemms() const { return enabled() && table && !table->empty(); }
  /// Either table: layer_cost times each pass of each kernel on its own.
  [[nodiscard]] bool measured() const { return measured_gemms() || (enabled() && attention && !attention->empty()); }
};

struct Accelerator {
  units::FlopsPerSecond peak_flops{0};     // dense BF16 peak
  units::Bytes memory{0};                  // HBM capacity
  double gemm_efficiency = 1.0;            // achieved fraction of peak when no curve is given, (0, 1]
  GemmCurve gemm_curve;                    // achieved fraction by GEMM shape (replaces gemm_efficiency)
  units::BytesPerSecond hbm_bandwidth{0};  // memory-bound kernels; 0 = not modelled
  double hbm_efficiency = 1.0;             // fraction of hbm_bandwidth memory-bound kernels achieve, (0, 1]
  units::Bytes memory_reserved{0};         // HBM not available to the model (context, NCCL, fragmentation)
  double speed = 1.0;                      // clock factor (a power limit), scales every kernel
  bool check_memory = false;               // reject a layout that does not fit (memory_model.hpp)
};

struct ParallelLayout {
  int tp = 1;                          // tensor parallel
  int pp = 1;                          // pipeline parallel
  int dp = 1;                          // data parallel
  int virtual_stages = 1;              // interleaved pipeline chunks per device (v)
  int cp = 1;                          // context parallel: each sequence split over cp GPUs
  int ep = 1;                          // expert parallel: experts sharded over ep data-parallel replicas
  bool sequence_parallel = false;      // TP all-reduces become reduce-scatter + all-gather; norms and
                                       // dropout split over tp (Korthikanti et al. 2022)
  bool distributed_optimizer = false;  // optimizer state sharded over the dp x cp replicas (ZeRO-1)
  bool sharded_gradients = false;      // gradients sharded too (ZeRO-2, PyTorch FSDP as in Llama 3)
  bool sharded_weights = false;        // weights sharded too (ZeRO-3, PyTorch FSDP FULL_SHARD): every pass
                                       // all-gathers its chunk's weights unit by unit (a unit per layer), every
                                       // backward reduce-scatters its gradients, per micro-batch
  bool gradients_after_flush = false;  // every chunk's gradient reduce-scatter waits for the stage's whole
                                       // backward (Megatron's local DDP, 2021-22): no DP overlap
  bool overlap_data_parallel = false;  // bucketed: a chunk's gradient reduce-scatter runs during its last
                                       // backward, its parameter all-gather during its first forward
  CpExchange cp_exchange = CpExchange::AllGather;  // how context-parallel ranks exchange keys and values
  bool embedding_chunks = false;       // the model's first chunk holds only the embedding and its last only the
                                       // output layer and loss; the layers fill the other p v - 2 chunks
                                       // (Llama 3, [L3] section 3.3.2): layer_chunks(), chunk_holds_layers()
  [[nodiscard]] long gpus() const { return static_cast<long>(tp) * cp * pp * dp; }
  [[nodiscard]] bool sharded_optimizer() const { return distributed_optimizer || sharded_gradients || sharded_weights; }
  [[nodiscard]] bool sharded_grads() const { return sharded_gradients || sharded_weights; }
  /// Chunks that hold transformer layers, over the whole pipeline: p v, or p v - 2 with embedding chunks.
  [[nodiscard]] long layer_chunks() const
  {
    return static_cast<long>(pp) * virtual_stages - (embedding_chunks ? 2 : 0);
  }
  /// Whether chunk `chunk` of stage `stage` holds layers: all do but, with embedding chunks, the first
  /// stage's first (the embedding) and the last stage's last (the output layer and loss).
  [[nodiscard]] bool chunk_holds_layers(int stage, int chunk) const
  {
    return !embedding_chunks || !((stage == 0 && chunk == 0) || (stage == pp - 1 && chunk == virtual_stages - 1));
  }
};

struct FabricParams {
  units::BytesPerSecond nvlink_bandwidth{0};  // per GPU, one direction
  units::Seconds nvlink_latency{0};
  units::BytesPerSecond nic_bandwidth{0};  // per GPU NIC, one direction
  units::Seconds nic_latency{0};
  double dp_overlap = 0.0;  // fraction of DP gradient traffic hidden behind backward
  double tp_overlap = 0.0;  // fraction of TP communication hidden behind the GEMMs next to it
  // Compute slowed while communication kernels run beside it (they take SMs and HBM bandwidth): each
  // second of communication hidden behind compute costs that many seconds of compute, [0, 1].
  double overlap_slowdown = 0.0;
  units::Seconds pp_overhead{0};  // fixed cost of each pipeline send/receive (launch, synchronisation)
  // GPUs of a node on one NVLink island, ranks rank / gpus_per_node together (1: none). A data-parallel
  // group with k members per node runs k rings at once, as NCCL's channels do, each leaving the node
  // through a different GPU's NIC: the group's traffic uses all k NICs (dp_ring_channels).
  int gpus_per_node = 1;
};

struct StepInputs {
  Workload workload;
  Accelerator accelerator;
  ParallelLayout layout;
  FabricParams fabric;
};

/// Everything a planner needs to know about one training step. Times are per step, per GPU.
struct StepBreakdown {
  std::string model = "analytic";       // which StepTimeModel produced it
  units::Seconds step_time{0};          // T_step
  units::Seconds compute{0};            // T_compute / N: useful math of one GPU at achieved efficiency
  units::Seconds comm{0};               // T_comm(N) = tp + cp + ep + pp + dp communication (before overlap)
  units::Seconds tp_comm{0};            // tensor-parallel all-reduces on NVLink
  units::Seconds pp_comm{0};            // pipeline activation / gradient sends on the NIC
  units::Seconds dp_comm{0};            // data-parallel reduce-scatter + all-gather on the NIC
  units::Seconds cp_comm{0};            // context-parallel key/value all-gathers (and their gradients' reduce-scatters)
  units::Seconds ep_comm{0};            // expert-parallel token all-to-alls (dispatch and combine, both passes)
  units::Seconds sync{0};               // T_sync(N) = bubble + barrier
  units::Seconds bubble{0};             // pipeline bubble (p-1)/(v*m) * compute
  units::Seconds barrier{0};            // step-end global synchronisation (latency bound)
  units::Seconds overlap{0};            // T_overlap: communication hidden behind compute
  units::Seconds comm_exposed{0};       // comm - overlap
  int micro_batches = 0;                // m per pipeline per step
  double flops_per_token = 0;           // model FLOPs per token (6P + attention, see docs)
  double hardware_flops_per_token = 0;  // model FLOPs plus recomputation
  double tokens_per_step = 0;
  double mfu = 0;               // model FLOPs per second per GPU / peak
  double hfu = 0;               // hardware FLOPs (recomputation included) per second per GPU / peak
  double compute_fraction = 0;  // (T_compute/N) / T_step
  std::string binding_term;     // "compute", "communication" or "coordination"
};

/// Bytes of one GPU's data-parallel gradient shard (before splitting into chunks): dense weights
/// over tp * pp, plus its 1/ep of the experts.
[[nodiscard]] double dp_shard_bytes(const StepInputs& in);

/// Ring attention's exposed exchange in one layer's forward and backward pass, from one ring step's
/// time (one GPU's keys and values to the next CP rank): cp - 1 steps, each hidden behind the attention
/// kernel on the chunk at hand (1/cp of the layer's attention); the backward passes the keys, values
/// and their gradients (twice the bytes) behind the backward kernel's chunk.
struct CpRingExposure {
  double forward_s = 0;
  double backward_s = 0;
};
[[nodiscard]] CpRingExposure cp_ring_exposure(int cp, double ring_step_s, double attention_forward_s,
                                              double attention_backward_s);

/// Rings a data-parallel group's collectives run at once: its members on one node (at least 1), each
/// ring a channel carrying 1/k of the bytes whose inter-node hops leave through a different NIC.
[[nodiscard]] int dp_ring_channels(const ParallelLayout& l, int gpus_per_node);

/// True when every rank of a context-parallel group sits on one node (tp * cp ranks within one NVLink
/// island, CP next to TP in the rank order): its key/value exchange then runs on NVLink, not the NIC.
[[nodiscard]] bool cp_group_within_node(const ParallelLayout& l, int gpus_per_node);

/// FSDP units (ZeRO-3 all-gather and reduce-scatter granularity) in one chunk of a stage: one per layer.
[[nodiscard]] int fsdp_units_per_chunk(const StepInputs& in);

/// Transformer layers in each chunk that holds layers: L / (p v), or L / (p v - 2) with embedding
/// chunks (fractional when they do not divide).
[[nodiscard]] double layers_per_chunk(const Workload& w, const ParallelLayout& l);

/// Transformer layers on pipeline stage `stage`: L / p, or with embedding chunks its layer-holding
/// chunks times layers_per_chunk (the first and last stage one chunk fewer than the others).
[[nodiscard]] double stage_layers(const Workload& w, const ParallelLayout& l, int stage);

/// Bytes one GPU sends in one token all-to-all of an MoE layer: its b (s/cp) tokens' activations,
/// sharded over tp, k copies each, (ep - 1)/ep of them to other ranks of its expert-parallel group.
[[nodiscard]] double ep_alltoall_bytes(const StepInputs& in);

/// Problems with a layout (tp*pp*dp != gpus, batch not divisible, ...), lower-case messages;
/// empty when the inputs are consistent.
[[nodiscard]] std::vector<std::string> check_step_inputs(const StepInputs& in, long gpus);

/// Model FLOPs per token: 6 P_active + 12 L h s with `full` attention counting (PaLM's and
/// Megatron's convention), 6 P_active + 6 L h s with `causal`; P_active = P for a dense model.
[[nodiscard]] double training_flops_per_token(const Workload& w);
/// FLOPs per token the hardware runs: the model FLOPs plus what recomputation repeats (a layer's
/// forward, 2 P_layers + attention / 3, for `full`; the attention core's forward for `selective`
/// and for flash attention, which recomputes it in its backward kernel).
[[nodiscard]] double hardware_flops_per_token(const Workload& w);

/// The collectives of one backward pass inside the model-parallel regions (TP all-reduces, CP K/V
/// all-gathers, EP all-to-alls), as a multiple of one forward pass's: 2 with full recomputation,
/// whose re-run forward runs them again before the backward's own, 1 otherwise (selective
/// recomputation re-runs only the attention core, which has none of them).
[[nodiscard]] double backward_collectives_factor(const Workload& w);
/// The tensor-parallel collectives of one backward pass as a multiple of a forward's: the above,
/// plus 1/2 with sequence parallelism, whose column-parallel linears (QKV and the MLP's first) keep
/// only their sequence shard of the input and all-gather it again in the backward for the weight
/// gradient (Megatron-LM's LinearWithGradAccumulationAndAsyncCommunication): two all-gathers per
/// layer, half an all-reduce's bytes each, on top of the pass's two all-reduces' worth.
[[nodiscard]] double tp_backward_collectives_factor(const Workload& w, const ParallelLayout& l);
/// HFU from a breakdown's MFU and the workload's recomputation (a cached breakdown carries no HFU).
[[nodiscard]] double hardware_flops_utilisation(const StepBreakdown& b, const Workload& w);

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
