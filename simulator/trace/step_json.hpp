#pragma once
// The step-time breakdown as JSON: summary.json's "step" object, and the step cache's entries
// (simulator/run/step_source.cpp), written and read through one list of fields.

#include "models/step/step_model.hpp"

#include <nlohmann/json.hpp>

namespace fleetsim::sim {

/// Calls f(name, field) for every field of the breakdown, in summary.json's order (tokens_per_step,
/// which summary.json gives at the top level, comes last).
template <class Breakdown, class F>
void visit_step_fields(Breakdown& b, F&& f)
{
  f("model", b.model);
  f("step_time_s", b.step_time);
  f("compute_s", b.compute);
  f("comm_s", b.comm);
  f("comm_exposed_s", b.comm_exposed);
  f("tp_comm_s", b.tp_comm);
  f("pp_comm_s", b.pp_comm);
  f("dp_comm_s", b.dp_comm);
  f("cp_comm_s", b.cp_comm);
  f("ep_comm_s", b.ep_comm);
  f("sync_s", b.sync);
  f("bubble_s", b.bubble);
  f("barrier_s", b.barrier);
  f("overlap_s", b.overlap);
  f("micro_batches", b.micro_batches);
  f("flops_per_token", b.flops_per_token);
  f("compute_fraction", b.compute_fraction);
  f("mfu", b.mfu);
  f("binding_term", b.binding_term);
  f("tokens_per_step", b.tokens_per_step);
}

/// Every field, tokens_per_step only if `with_tokens` (summary.json has it as tokens_trained's rate).
[[nodiscard]] nlohmann::ordered_json step_json(const models::StepBreakdown& b, bool with_tokens = false);
/// The breakdown step_json(b, true) wrote; throws nlohmann::json::exception on a missing field.
[[nodiscard]] models::StepBreakdown step_from_json(const nlohmann::json& j);

}  // namespace fleetsim::sim
