#include "key_facts.hpp"
#include "parameter_specs.hpp"

namespace fleetsim::scenario::detail {

// Kernel times by shape, recomputation, memory and the TP / optimizer options of the step model
// (models/step/layer_cost.hpp, models/step/memory_model.hpp, docs/models/kernels-and-memory.md). Every default
// keeps the constant-efficiency step of before. fleetsim-lint: table (one declaration per key)
std::vector<ParamSpec> step_detail_parameters()
{
  const auto B = Dimension::Bytes;
  const auto T = Dimension::Time;
  const auto BW = Dimension::Bandwidth;
  return {
      real("accelerator.gemm.max_efficiency", "0",
           "kernel times by shape: the fraction of peak a large GEMM sustains (0: use accelerator.gemm_efficiency "
           "for every kernel). See docs/models/kernels-and-memory.md",
           0.0, false, 1.0)
          .always_when(facts::step_runs())
          .into([](auto& s) -> auto& { return s.step.accelerator.gemm_curve.max_efficiency; }),
      quantity("accelerator.gemm.kernel_overhead", T, "0s",
               "time every kernel adds to its roofline or measured time (launch and synchronisation gap; with "
               "accelerator.gemm.max_efficiency alone, also the last partial wave)",
               0.0, false)
          .when(positive("accelerator.gemm.max_efficiency", "kernel times by shape"))
          .always_when(facts::step_runs())
          .into([](auto& s) -> auto& { return s.step.accelerator.gemm_curve.kernel_overhead; }),
      text("accelerator.gemm.table", std::nullopt,
           "measured GEMM efficiency by shape and pass: a CSV file (m,k,n,forward,input_gradient,weight_gradient,"
           "source), relative to the file that names it; shapes between the measured ones are interpolated, "
           "at most accelerator.gemm.max_efficiency. See docs/models/kernels-and-memory.md")
          .when(positive("accelerator.gemm.max_efficiency", "kernel times by shape"))
          .always_when(facts::step_runs()),
      real("accelerator.gemm.table_scale", "1",
           "factor on the GEMM table's efficiencies: carries a table measured on another part of the same "
           "architecture over to this one (the ratio of their maximum achievable matmul throughput)",
           0.0, false, 2.0)
          .when(given("accelerator.gemm.table"))
          .when(positive("accelerator.gemm.max_efficiency", "kernel times by shape"))
          .always_when(facts::step_runs()),
      text("accelerator.attention.table", std::nullopt,
           "measured fused-attention throughput by kernel, pass, causal mask, head dimension and sequence length: a "
           "CSV file (kernel,pass,causal,head_dim,seq,tflops,source), relative to the file that names it; used by "
           "model.flash_attention with kernel times by shape")
          .when(positive("accelerator.gemm.max_efficiency", "kernel times by shape"))
          .when(is("model.flash_attention", {"true"}))
          .always_when(facts::step_runs()),
      real("accelerator.attention.cp_forward_efficiency", "1",
           "context-parallel attention's forward against its ideal, 1/cp of the whole sequence's kernel time "
           "(the load-balanced ring's imbalance and exchanges; the kernels' shorter length is in the table)",
           0.0, true, 1.0)
          .when(above("parallelism.cp", 1))
          .when(given("accelerator.attention.table"))
          .when(positive("accelerator.gemm.max_efficiency", "kernel times by shape"))
          .when(is("model.flash_attention", {"true"}))
          .always_when(facts::step_runs())
          .into([](auto& s) -> auto& { return s.step.accelerator.gemm_curve.cp_forward_efficiency; }),
      real("accelerator.attention.cp_backward_efficiency", "1",
           "context-parallel attention's backward against its ideal (as cp_forward_efficiency)", 0.0, true, 1.0)
          .when(above("parallelism.cp", 1))
          .when(given("accelerator.attention.table"))
          .when(positive("accelerator.gemm.max_efficiency", "kernel times by shape"))
          .when(is("model.flash_attention", {"true"}))
          .always_when(facts::step_runs())
          .into([](auto& s) -> auto& { return s.step.accelerator.gemm_curve.cp_backward_efficiency; }),
      quantity("accelerator.hbm_bandwidth", BW, "0B/s",
               "HBM bandwidth: the roofline of GEMMs and the time of element-wise kernels (0: not modelled)", 0.0,
               false)
          .when(positive("accelerator.gemm.max_efficiency", "kernel times by shape"))
          .always_when(facts::step_runs())
          .into([](auto& s) -> auto& { return s.step.accelerator.hbm_bandwidth; }),
      real("accelerator.hbm_efficiency", "1",
           "fraction of accelerator.hbm_bandwidth that memory-bound kernels (element-wise, optimizer, the GEMM "
           "roofline) achieve",
           0.0, true, 1.0)
          .when(positive("accelerator.hbm_bandwidth"))
          .when(positive("accelerator.gemm.max_efficiency", "kernel times by shape"))
          .always_when(facts::step_runs())
          .into([](auto& s) -> auto& { return s.step.accelerator.hbm_efficiency; }),
      flag("accelerator.memory_check", "false",
           "reject a layout whose weights, gradients, optimizer state and activations do not fit in HBM, naming the "
           "biggest term (docs/models/kernels-and-memory.md)")
          .always_when(facts::step_runs())
          .into([](auto& s) -> auto& { return s.step.accelerator.check_memory; }),
      quantity("accelerator.memory_reserved", B, "0B",
               "HBM the model cannot use (CUDA context, communication buffers, fragmentation)", 0.0, false)
          .when(is("accelerator.memory_check", {"true"}, "the memory model is read only to check the fit"))
          .always_when(facts::step_runs())
          .into([](auto& s) -> auto& { return s.step.accelerator.memory_reserved; }),
      integer("model.ffn_hidden", "0", "MLP inner dimension (0: 4 x hidden)", 0, 1e8)
          .when(positive("accelerator.gemm.max_efficiency", "kernel times by shape"))
          .or_when(is("accelerator.memory_check", {"true"}, "the memory model is read only to check the fit"))
          .always_when(facts::step_runs())
          .into([](auto& s) -> auto& { return s.step.workload.ffn_hidden; }),
      flag("model.gated_mlp", "false", "SwiGLU-style MLP: three hidden x ffn matrices instead of two")
          .when(positive("accelerator.gemm.max_efficiency", "kernel times by shape"))
          .or_when(is("accelerator.memory_check", {"true"}, "the memory model is read only to check the fit"))
          .always_when(facts::step_runs())
          .into([](auto& s) -> auto& { return s.step.workload.gated_mlp; }),
      integer("model.vocabulary", "0", "vocabulary size: the logit GEMM and its memory (0: left out)", 0, 1e8)
          .when(positive("accelerator.gemm.max_efficiency", "kernel times by shape"))
          .or_when(is("accelerator.memory_check", {"true"}, "the memory model is read only to check the fit"))
          .always_when(facts::step_runs())
          .into([](auto& s) -> auto& { return s.step.workload.vocabulary; }),
      flag("model.dropout", "false", "dropout layers, whose masks are kept as activations")
          .when(is("accelerator.memory_check", {"true"}, "the memory model is read only to check the fit"))
          .or_when(positive("accelerator.gemm.max_efficiency", "kernel times by shape"))
          .when(positive("accelerator.hbm_bandwidth"))
          .always_when(facts::step_runs())
          .into([](auto& s) -> auto& { return s.step.workload.dropout; }),
      flag("model.flash_attention", "false", "fused attention: scores never stored, recomputed in the backward kernel")
          .always_when(facts::step_runs())
          .into([](auto& s) -> auto& { return s.step.workload.flash_attention; }),
      text("model.attention_kernel", "",
           "which kernel of accelerator.attention.table the fused attention runs (\"\": the table's first)")
          .when(given("accelerator.attention.table"))
          .when(is("model.flash_attention", {"true"}))
          .when(positive("accelerator.gemm.max_efficiency", "kernel times by shape"))
          .always_when(facts::step_runs())
          .into([](auto& s) -> auto& { return s.step.workload.attention_kernel; }),
      enum_choice(
          "model.attention_flops", "full",
          "how attention counts in model FLOPs: full (every query against every key: Narayanan et al. 2021, "
          "Korthikanti et al. 2022, PaLM) or causal (the unmasked half)",
          models::kAttentionFlopsNames, [](auto& s) -> auto& { return s.step.workload.attention_flops; })
          .when(facts::a_replay_runs())
          .always_when(facts::step_runs()),
      real("model.rotary_fraction", "0",
           "share of each attention head's dimensions rotary position embeddings rotate: 1 for RoPE (Llama), 0.5 "
           "for Nemotron-4's rotary_percentage, 0 for learned or absolute positions (GPT-3, BLOOM's ALiBi): the "
           "rotary kernel's bytes on queries and keys",
           0.0, false, 1.0)
          .when(positive("accelerator.hbm_bandwidth", "memory-bound kernels are not timed"))
          .when(positive("accelerator.gemm.max_efficiency", "kernel times by shape"))
          .always_when(facts::step_runs())
          .into([](auto& s) -> auto& { return s.step.workload.rotary_fraction; }),
      enum_choice(
          "model.kernels", "fused",
          "how the MLP activation, the rotary embedding and grouped-query attention's shared keys run: "
          "fused (one BF16 kernel each: Megatron-Core, Transformer Engine, NeMo) or eager (PyTorch's "
          "op-by-op code with its FP32 upcasts: SwiGLU as silu then a product, rotary as torchtitan's "
          "complex multiply, keys and values copied to every query head)",
          models::kKernelsNames, [](auto& s) -> auto& { return s.step.workload.kernels; })
          .when(positive("accelerator.hbm_bandwidth", "memory-bound kernels are not timed"))
          .when(positive("accelerator.gemm.max_efficiency", "kernel times by shape"))
          .always_when(facts::step_runs()),
      enum_choice(
          "model.norm_kernel", "fused",
          "how the normalisations run: fused (one kernel: Apex/TE layer norm, a Triton RMSNorm) or eager "
          "(PyTorch's RMSNorm op by op in FP32: eight kernels, 36 bytes per value in BF16)",
          models::kKernelsNames, [](auto& s) -> auto& { return s.step.workload.norm_kernel; })
          .when(positive("accelerator.hbm_bandwidth", "memory-bound kernels are not timed"))
          .when(positive("accelerator.gemm.max_efficiency", "kernel times by shape"))
          .always_when(facts::step_runs()),
      enum_choice(
          "model.loss_kernel", "fused",
          "how the cross-entropy over the vocabulary runs: fused (the logits read once forward, read and "
          "their gradient written backward: Megatron's cross_entropy_loss_fusion) or eager (Megatron's "
          "vocab-parallel cross-entropy on FP32 logits, op by op: 52 bytes per logit in BF16)",
          models::kKernelsNames, [](auto& s) -> auto& { return s.step.workload.loss_kernel; })
          .when(positive("model.vocabulary", "no output layer"))
          .when(positive("accelerator.hbm_bandwidth", "memory-bound kernels are not timed"))
          .when(positive("accelerator.gemm.max_efficiency", "kernel times by shape"))
          .always_when(facts::step_runs()),
      real("model.gradient_bytes", "4",
           "bytes per parameter of the gradient buffer (memory): 4 for FP32 main gradients (Megatron-LM), 2 for "
           "BF16 ones (NeMo's distributed_fused_adam with BF16 gradient sync)",
           0.0, true, 8.0)
          .when(is("accelerator.memory_check", {"true"}, "the memory model is read only to check the fit"))
          .or_when(facts::gradients_sharded())
          .when(facts::replicas())
          .always_when(facts::step_runs())
          .into([](auto& s) -> auto& { return s.step.workload.gradient_bytes; }),
      real("model.optimizer_bytes", "12",
           "bytes per parameter of optimizer state (memory): 12 for an FP32 master weight and Adam's two moments, "
           "10 when only the master weight's low half is kept beside the BF16 weight (NeMo's param remainders)",
           0.0, false, 32.0)
          .when(is("accelerator.memory_check", {"true"}, "the memory model is read only to check the fit"))
          .always_when(facts::step_runs())
          .into([](auto& s) -> auto& { return s.step.workload.optimizer_bytes; }),
      enum_choice(
          "model.recompute", "none",
          "activation recomputation: none, selective (the attention core, Korthikanti et al. 2022) or full "
          "(every layer's forward again)",
          models::kRecomputeNames, [](auto& s) -> auto& { return s.step.workload.recompute; })
          .always_when(facts::step_runs()),
      flag("parallelism.sequence_parallel", "false",
           "sequence parallelism: TP all-reduces become reduce-scatter + all-gather, and norms, dropout and their "
           "activations are split over tp")
          .when(above("parallelism.tp", 1, "no tensor parallelism to split the sequence over"))
          .always_when(facts::step_runs())
          .into([](auto& s) -> auto& { return s.step.layout.sequence_parallel; }),
      flag("parallelism.distributed_optimizer", "false",
           "optimizer state (FP32 weights, Adam moments) sharded over the dp x cp replicas (ZeRO-1)")
          .when(is("accelerator.memory_check", {"true"}, "the memory model is read only to check the fit"))
          .or_when(positive("accelerator.gemm.max_efficiency", "kernel times by shape"))
          .when(positive("accelerator.hbm_bandwidth", "memory-bound kernels are not timed"))
          .always_when(
              is("parallelism.sharded_gradients", {"false"}, "sharded gradients shard the optimizer state too"))
          .always_when(is("parallelism.sharded_weights", {"false"}, "sharded weights shard the optimizer state too"))
          .always_when(facts::replicas())
          .always_when(facts::step_runs())
          .into([](auto& s) -> auto& { return s.step.layout.distributed_optimizer; }),
      flag("parallelism.sharded_gradients", "false",
           "gradients sharded over the dp x cp replicas as well as the optimizer state (ZeRO-2; PyTorch FSDP as "
           "Llama 3 used it); memory only, the traffic is that of the distributed optimizer")
          .when(is("accelerator.memory_check", {"true"}, "the memory model is read only to check the fit"))
          .or_when(facts::gradients_wider_than_values())
          .or_when(is("parallelism.distributed_optimizer", {"false"}))
          .when(positive("accelerator.gemm.max_efficiency", "kernel times by shape"))
          .when(positive("accelerator.hbm_bandwidth", "memory-bound kernels are not timed"))
          .always_when(is("parallelism.sharded_weights", {"false"}, "sharded weights shard the gradients too"))
          .always_when(facts::replicas())
          .always_when(facts::step_runs())
          .into([](auto& s) -> auto& { return s.step.layout.sharded_gradients; }),
      flag("parallelism.sharded_weights", "false",
           "weights sharded over the dp x cp replicas as well as gradients and optimizer state (ZeRO-3, PyTorch "
           "FSDP FULL_SHARD): every pass all-gathers its chunk's weights layer by layer ahead of the compute and "
           "every backward reduce-scatters its gradients (model.gradient_bytes each) behind it, per micro-batch; "
           "memory holds a shard plus two gathered layers")
          .always_when(facts::step_runs())
          .into([](auto& s) -> auto& { return s.step.layout.sharded_weights; }),
      flag("parallelism.gradients_after_flush", "false",
           "every chunk's gradient reduce-scatter waits until the stage's whole backward is done (Megatron's local "
           "DDP of 2021-22, which overlapped none of it); false: each chunk's starts after that chunk's last backward")
          .when(is("run.step_model", {"analytic"}))
          .when(positive("network.dp_overlap"))
          .or_when(is("run.step_model", {"simulated"}))
          .when(above("parallelism.virtual_stages", 1, "one chunk per stage: its backward ends with the stage's"))
          .always_when(facts::replicas())
          .always_when(facts::step_runs())
          .into([](auto& s) -> auto& { return s.step.layout.gradients_after_flush; }),
      flag("parallelism.overlap_data_parallel", "false",
           "bucketed DP overlap in the simulated step: a chunk's gradient reduce-scatter streams bucket by bucket "
           "during its last backward and its parameter all-gather during its first forward (Megatron-Core's "
           "--overlap-grad-reduce / --overlap-param-gather, NeMo's overlap_grad_sync / overlap_param_sync); "
           "buckets of max(40M, 1M x dp x cp) parameters")
          .when(is("run.step_model", {"simulated"}))
          .always_when(facts::step_runs())
          .into([](auto& s) -> auto& { return s.step.layout.overlap_data_parallel; }),
      flag("parallelism.embedding_chunks", "false",
           "the model's first pipeline chunk holds only the embedding and its last only the output layer and "
           "loss, the layers filling the other pp x virtual_stages - 2 chunks (Llama 3: one layer fewer on the "
           "first and last stage, [L3] 3.3.2); false: the layers fill every chunk and the last carries the logits "
           "too")
          .always_when(facts::step_runs())
          .into([](auto& s) -> auto& { return s.step.layout.embedding_chunks; }),
      enum_choice(
          "parallelism.cp_exchange", "all_gather",
          "how context-parallel ranks exchange keys and values: all_gather (every chunk gathered before "
          "each layer's attention, exposed; Llama 3) or ring (ring attention: one chunk at a time around "
          "the CP ring, each step hidden behind the attention on the chunk at hand, plus a merge kernel "
          "per step)",
          models::kCpExchangeNames, [](auto& s) -> auto& { return s.step.layout.cp_exchange; })
          .when(above("parallelism.cp", 1, "no context parallelism"))
          .always_when(facts::step_runs()),
      real("network.tp_overlap", "0", "fraction of tensor-parallel communication hidden behind the GEMMs next to it",
           0.0, false, 1.0)
          .when(above("parallelism.tp", 1, "no tensor parallelism"))
          .always_when(facts::step_runs())
          .into([](auto& s) -> auto& { return s.step.fabric.tp_overlap; }),
      real("network.overlap_slowdown", "0",
           "compute slowed by the communication it hides (its kernels take SMs and HBM bandwidth): seconds of "
           "compute each second of hidden TP or DP traffic costs",
           0.0, false, 1.0)
          .when(above("parallelism.tp", 1))
          .when(positive("network.tp_overlap", "no communication is hidden"))
          .or_when(is("run.step_model", {"analytic"}))
          .when(positive("network.dp_overlap"))
          .when(facts::replicas())
          .or_when(is("run.step_model", {"simulated"}))
          .when(facts::replicas())
          .when(facts::simulated_dp_beside_compute())
          .always_when(facts::step_runs())
          .into([](auto& s) -> auto& { return s.step.fabric.overlap_slowdown; }),
      quantity("network.pp_overhead", T, "0s",
               "fixed cost of each pipeline send and receive on top of its transfer (kernel launch, "
               "synchronisation of the two stages)",
               0.0, false)
          .when(above("parallelism.pp", 1, "one pipeline stage sends nothing"))
          .always_when(facts::step_runs())
          .into([](auto& s) -> auto& { return s.step.fabric.pp_overhead; }),
  };
}

}  // namespace fleetsim::scenario::detail
