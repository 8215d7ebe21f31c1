#pragma once
// Layout search: every TP x CP x PP x DP (x EP) x virtual stages x micro-batch size that a model and
// a GPU count admit, each with the lightest activation recomputation that fits in HBM, ranked by
// the analytic step time. Pure (no SimGrid): `fleetsim plan` simulates the top few on the fabric.

#include "memory_model.hpp"
#include "step_model.hpp"

#include <vector>

namespace fleetsim::models {

struct SearchSpace {
  int gpus_per_node = 8;                        // tp and tp x cp... tp never leaves a node
  std::vector<int> micro_batch_sizes{1, 2, 4};  // sequences per micro-batch
  std::vector<int> virtual_stages{1, 2, 4, 8};  // interleaved chunks per GPU (with pp > 1)
  std::vector<int> context_parallel{1, 2, 4, 8, 16};
  // ParallelLayout::embedding_chunks settings to try (with pp > 1); empty: the base layout's only.
  std::vector<bool> embedding_chunks;
};

struct LayoutCandidate {
  StepInputs inputs;  // the base inputs with this layout, micro-batch size and recomputation
  StepBreakdown step;
  MemoryEstimate memory;
};

struct SearchStats {
  long enumerated = 0;       // consistent layouts (before the memory check)
  long rejected_memory = 0;  // of those, none of whose recomputation modes fits
};

/// Every candidate, fastest first (ties: fewer GPUs per model replica, then tp, pp, cp, v, mbs).
/// The memory check is always on; `base.accelerator.memory` must be set.
[[nodiscard]] std::vector<LayoutCandidate> search_layouts(const StepInputs& base, long gpus, const SearchSpace& space,
                                                          SearchStats* stats = nullptr);

}  // namespace fleetsim::models
