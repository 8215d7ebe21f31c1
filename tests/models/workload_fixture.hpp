#pragma once
// A workload by its shape, for the step-model tests: a dense model's parameters, layers, hidden size,
// sequence length and global batch, one sequence per micro-batch in BF16; the other fields keep their
// defaults (set one by one: an aggregate initializer that leaves fields out is a -Wextra warning).

#include "models/step/step_model.hpp"

namespace fleetsim::models::testing {

inline Workload dense_workload(double parameters, int layers, int hidden, int sequence_length,
                               double global_batch_tokens)
{
  Workload w;
  w.parameters = parameters;
  w.layers = layers;
  w.hidden = hidden;
  w.sequence_length = sequence_length;
  w.global_batch_tokens = global_batch_tokens;
  w.micro_batch_size = 1;
  w.bytes_per_value = 2;
  return w;
}

}  // namespace fleetsim::models::testing
