#include "parameter_specs.hpp"

namespace fleetsim::scenario::detail {

// Kernel times by shape, recomputation, memory and the TP / optimizer options of the step model
// (models/step/layer_cost.hpp, models/step/memory_model.hpp, docs/models/kernels-and-memory.md). Every default
// keeps the constant-efficiency step of before.
std::vector<ParamSpec> step_detail_parameters()
{
  const auto B = Dimension::Bytes;
  const auto T = Dimension::Time;
  const auto BW = Dimension::Bandwidth;
  return {
      real("accelerator.gemm.max_efficiency", "0",
           "kernel times by shape: the fraction of peak a large GEMM sustains (0: use accelerator.gemm_efficiency "
           "for every kernel). See docs/models/kernels-and-memory.md",
           0.0, false, 1.0),
      quantity("accelerator.gemm.kernel_overhead", T, "0s",
               "time every kernel adds to its roofline time (launch, the last partial wave)", 0.0, false),
      quantity("accelerator.hbm_bandwidth", BW, "0B/s",
               "HBM bandwidth: the roofline of GEMMs and the time of element-wise kernels (0: not modelled)", 0.0,
               false),
      flag("accelerator.memory_check", "false",
           "reject a layout whose weights, gradients, optimizer state and activations do not fit in HBM, naming the "
           "biggest term (docs/models/kernels-and-memory.md)"),
      quantity("accelerator.memory_reserved", B, "0B",
               "HBM the model cannot use (CUDA context, communication buffers, fragmentation)", 0.0, false),
      integer("model.ffn_hidden", "0", "MLP inner dimension (0: 4 x hidden)", 0, 1e8),
      flag("model.gated_mlp", "false", "SwiGLU-style MLP: three hidden x ffn matrices instead of two"),
      integer("model.vocabulary", "0", "vocabulary size: the logit GEMM and its memory (0: left out)", 0, 1e8),
      flag("model.dropout", "false", "dropout layers, whose masks are kept as activations"),
      flag("model.flash_attention", "false", "fused attention: scores never stored, recomputed in the backward kernel"),
      choice("model.attention_flops", "full",
             "how attention counts in model FLOPs: full (every query against every key: Narayanan et al. 2021, "
             "Korthikanti et al. 2022, PaLM) or causal (the unmasked half)",
             {"full", "causal"}),
      choice("model.recompute", "none",
             "activation recomputation: none, selective (the attention core, Korthikanti et al. 2022) or full "
             "(every layer's forward again)",
             {"none", "selective", "full"}),
      flag("parallelism.sequence_parallel", "false",
           "sequence parallelism: TP all-reduces become reduce-scatter + all-gather, and norms, dropout and their "
           "activations are split over tp"),
      flag("parallelism.distributed_optimizer", "false",
           "optimizer state (FP32 weights, Adam moments) sharded over the dp x cp replicas (ZeRO-1)"),
      flag("parallelism.sharded_gradients", "false",
           "gradients sharded over the dp x cp replicas as well as the optimizer state (ZeRO-2; PyTorch FSDP as "
           "Llama 3 used it); memory only, the traffic is that of the distributed optimizer"),
      flag("parallelism.gradients_after_flush", "false",
           "every chunk's gradient reduce-scatter waits until the stage's whole backward is done (Megatron's local "
           "DDP of 2021-22, which overlapped none of it); false: each chunk's starts after that chunk's last backward"),
      real("network.tp_overlap", "0", "fraction of tensor-parallel communication hidden behind the GEMMs next to it",
           0.0, false, 1.0),
  };
}

}  // namespace fleetsim::scenario::detail
