#pragma once
// The step-time breakdown as JSON: summary.json's "step" object, and the step cache's entries
// (simulator/run/step_source.cpp), written and read through one list of fields.

#include "models/step/step_model.hpp"
#include "models/summary/step_fields.hpp"

#include <nlohmann/json.hpp>

namespace fleetsim::sim {

/// Calls f(name, field) for every field of the breakdown, in summary.json's order (tokens_per_step,
/// which summary.json gives at the top level, comes last). The names are declared in
/// models/summary/step_fields.hpp; this binds them to the breakdown's members.
template <class Breakdown, class F>
void visit_step_fields(Breakdown& b, F&& f)
{
  namespace st = models::summary::step;
  f(st::kModel.key, b.model);
  f(st::kStepTimeS.key, b.step_time);
  f(st::kComputeS.key, b.compute);
  f(st::kCommS.key, b.comm);
  f(st::kCommExposedS.key, b.comm_exposed);
  f(st::kTpCommS.key, b.tp_comm);
  f(st::kPpCommS.key, b.pp_comm);
  f(st::kDpCommS.key, b.dp_comm);
  f(st::kCpCommS.key, b.cp_comm);
  f(st::kEpCommS.key, b.ep_comm);
  f(st::kSyncS.key, b.sync);
  f(st::kBubbleS.key, b.bubble);
  f(st::kBarrierS.key, b.barrier);
  f(st::kOverlapS.key, b.overlap);
  f(st::kMicroBatches.key, b.micro_batches);
  f(st::kFlopsPerToken.key, b.flops_per_token);
  f(st::kComputeFraction.key, b.compute_fraction);
  f(st::kMfu.key, b.mfu);
  f(st::kBindingTerm.key, b.binding_term);
  f(st::kTokensPerStep.key, b.tokens_per_step);
}

/// Every field, tokens_per_step only if `with_tokens` (summary.json has it as tokens_trained's rate).
[[nodiscard]] nlohmann::ordered_json step_json(const models::StepBreakdown& b, bool with_tokens = false);
/// The breakdown step_json(b, true) wrote; throws nlohmann::json::exception on a missing field.
[[nodiscard]] models::StepBreakdown step_from_json(const nlohmann::json& j);

}  // namespace fleetsim::sim
