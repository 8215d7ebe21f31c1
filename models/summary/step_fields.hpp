#pragma once
// The step-time breakdown's fields (models/step/step_model.hpp StepBreakdown): summary.json's "step"
// object and the step cache's entries, bound to the breakdown's members by visit_step_fields
// (simulator/trace/step_json.hpp).

#include "models/summary/summary_field.hpp"

namespace fleetsim::models::summary::step {

inline constexpr Field kModel = string("model", "the step model: analytic or simulated");
inline constexpr Field kStepTimeS = number("step_time_s", "s", "one training step");
inline constexpr Field kComputeS = number("compute_s", "s", "compute on the critical path");
inline constexpr Field kCommS = number("comm_s", "s", "communication, overlapped or not");
inline constexpr Field kCommExposedS = number("comm_exposed_s", "s", "communication not hidden by compute");
inline constexpr Field kTpCommS = number("tp_comm_s", "s", "tensor-parallel communication");
inline constexpr Field kPpCommS = number("pp_comm_s", "s", "pipeline-parallel communication");
inline constexpr Field kDpCommS = number("dp_comm_s", "s", "data-parallel communication");
inline constexpr Field kCpCommS = number("cp_comm_s", "s", "context-parallel communication");
inline constexpr Field kEpCommS = number("ep_comm_s", "s", "expert-parallel communication");
inline constexpr Field kSyncS = number("sync_s", "s", "synchronisation: bubble and barrier");
inline constexpr Field kBubbleS = number("bubble_s", "s", "the pipeline bubble");
inline constexpr Field kBarrierS = number("barrier_s", "s", "the step's barrier");
inline constexpr Field kOverlapS = number("overlap_s", "s", "communication hidden under compute");
inline constexpr Field kMicroBatches = integer("micro_batches", "micro-batches per step");
inline constexpr Field kFlopsPerToken = number("flops_per_token", "FLOP", "model FLOPs per token");
inline constexpr Field kComputeFraction = number("compute_fraction", "", "the step's share spent computing");
inline constexpr Field kMfu = number("mfu", "", "model FLOPs utilisation");
inline constexpr Field kBindingTerm = string("binding_term", "the term that binds the step");
/// Not in summary.json (tokens_trained is there): the step cache's entries only.
inline constexpr Field kTokensPerStep = number("tokens_per_step", "tokens", "tokens per step");

/// summary.json's "step": every field but tokens_per_step.
inline constexpr const Field* kFields[] = {&kModel,         &kStepTimeS,       &kComputeS, &kCommS,      &kCommExposedS,
                                           &kTpCommS,       &kPpCommS,         &kDpCommS,  &kCpCommS,    &kEpCommS,
                                           &kSyncS,         &kBubbleS,         &kBarrierS, &kOverlapS,   &kMicroBatches,
                                           &kFlopsPerToken, &kComputeFraction, &kMfu,      &kBindingTerm};

}  // namespace fleetsim::models::summary::step

namespace fleetsim::models::summary {
inline constexpr Field kStep = object("step", step::kFields, "the step-time breakdown of the full job");
}  // namespace fleetsim::models::summary
