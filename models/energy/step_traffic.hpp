#pragma once
// The bytes one GPU sends in one training step, by link class: what the network's energy per bit
// is charged on. The same collectives as the step model (models/step/step_model.cpp), counted in bytes
// sent rather than in seconds: tensor parallelism on the scale-up links (NVLink); pipeline, data,
// context and expert parallelism on the scale-out network (the NIC), as the step model places them.

#include "models/step/step_model.hpp"

namespace fleetsim::models::energy {

struct StepTraffic {
  double scale_up_bytes = 0;   // per GPU per step, over NVLink
  double scale_out_bytes = 0;  // per GPU per step, through the NIC
};

/// Ring all-reduces send 2 (n - 1) / n of the buffer per rank, ring reduce-scatters and
/// all-gathers (n - 1) / n, point-to-point sends the whole message, an all-to-all (ep - 1) / ep.
/// `micro_batches`: m per pipeline per step (StepBreakdown::micro_batches).
[[nodiscard]] StepTraffic step_traffic(const StepInputs& in, int micro_batches);

}  // namespace fleetsim::models::energy
