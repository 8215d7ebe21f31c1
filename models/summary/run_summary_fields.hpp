#pragma once
// summary.json of a single job's replay (simulator/output/run_outputs.cpp writes it), declared once:
// see summary_field.hpp. In the order the summary writes them.

#include "models/summary/summary_fields.hpp"

namespace fleetsim::models::summary::run {

inline constexpr Field kScenarioFile = string("scenario_file", "the scenario file, as given");
inline constexpr Field kGpus = integer("gpus", "the job's GPUs");
inline constexpr Field kSimulatedTimeS = number("simulated_time_s", "s",
                                                "the job's window (a fleet's job: from its start to its end)");
inline constexpr Field kEttr = number("ettr", "", "effective training time ratio: productive time / elapsed time");
inline constexpr Field kGoodputRatio = number("goodput_ratio", "",
                                              "tokens trained / what the uniform full fleet would train in the window");
inline constexpr Field kTokensTrained = number("tokens_trained", "tokens", "net tokens trained at the window's end");
inline constexpr Field kStepsTrained = integer("steps_trained", "net steps trained at the window's end");
inline constexpr Field kStepTimeS = number("step_time_s", "s", "the full job's training step");
inline constexpr Field kMfu = number("mfu", "", "model FLOPs utilisation of the step");

namespace interruptions {
inline constexpr Field kUnexpected = integer("unexpected", "failures that stopped the job");
inline constexpr Field kPlanned = integer("planned", "planned maintenance stops of the job");
inline constexpr Field kByCause = map("by_cause", Type::Integer, "", "interruptions by failure cause");
inline constexpr Field kExpectedUnexpected = number("expected_unexpected", "",
                                                    "the failures the scenario's rates expect over the window");
inline constexpr Field kExpectedByCause = map("expected_by_cause", Type::Number, "",
                                              "the failures the rates expect, by cause");
inline constexpr Field kByCategory = map("by_category", Type::Integer, "",
                                         "interruptions by the causes' category (when the causes name one)")
                                         .optional();
inline constexpr Field kReconfigurations =
    integer("reconfigurations", "the job's reconfigurations (elastic resizes)").optional();
inline constexpr const Field* kFields[] = {&kUnexpected,      &kPlanned,    &kByCause,         &kExpectedUnexpected,
                                           &kExpectedByCause, &kByCategory, &kReconfigurations};
}  // namespace interruptions
inline constexpr Field kInterruptions = object("interruptions", interruptions::kFields,
                                               "the job's interruptions against their expected counts");

/// The time breakdown's terms (models/accounting/goodput.hpp kBreakdownTerms), in that order.
[[nodiscard]] std::vector<std::string> breakdown_names();
inline constexpr Field kTimeBreakdownS =
    map("time_breakdown_s", Type::Number, "s", "the window's time by what the job did").keyed_by(breakdown_names);
inline constexpr Field kLostTimeByCauseS = map(
    "lost_time_by_cause_s", Type::Number, "s",
    "time charged to each failure cause, then to planned stops, checkpoints and the other charges");

namespace recovery {
inline constexpr Field kPolicy = string("policy", "recovery.policy");
inline constexpr Field kSpareNodes = integer("spare_nodes", "the spare nodes the run had");
inline constexpr Field kRepairs = integer("repairs", "repairs finished");
inline constexpr Field kSwaps = integer("swaps", "failed nodes replaced by a spare");
inline constexpr Field kSparesExhausted = integer("spares_exhausted", "replacements that found no spare");
inline constexpr Field kSpareFailures = integer("spare_failures", "failures of idle spares");
inline constexpr Field kSlowdownEpisodes =
    integer("slowdown_episodes", "straggler episodes (dynamic stragglers)").optional();
inline constexpr Field kDrains = integer("drains", "slow nodes drained (dynamic stragglers)").optional();
inline constexpr Field kLemonNodes = integer("lemon_nodes", "lemon nodes in the cluster (lemons)").optional();
inline constexpr Field kNodesRetired = integer("nodes_retired", "nodes retired (lemons)").optional();
inline constexpr Field kLemonsRetired = integer("lemons_retired", "lemon nodes among them (lemons)").optional();
inline constexpr const Field* kFields[] = {&kPolicy,          &kSpareNodes,    &kRepairs,          &kSwaps,
                                           &kSparesExhausted, &kSpareFailures, &kSlowdownEpisodes, &kDrains,
                                           &kLemonNodes,      &kNodesRetired,  &kLemonsRetired};
}  // namespace recovery
/// Beyond its fields, the counters the recovery policy reports (models/resilience/recovery/).
inline constexpr Field kRecovery = object("recovery", recovery::kFields,
                                          "the recovery policy and what it did; then the policy's own counters")
                                       .open(Type::Integer);

namespace checkpoints {
inline constexpr Field kCommitted = integer("committed", "checkpoints committed");
inline constexpr Field kIntervalS = number("interval_s", "s", "the interval the run used (the policy's last)");
inline constexpr Field kBytes = number("bytes", "B", "a checkpoint's size");
inline constexpr Field kWriteTimeS = number("write_time_s", "s", "a checkpoint's write");
inline constexpr Field kJobMtbfS = number("job_mtbf_s", "s", "the job's mean time between failures").or_null();
inline constexpr Field kYoungIntervalS = number("young_interval_s", "s", "Young's interval").optional();
inline constexpr Field kDalyIntervalS = number("daly_interval_s", "s", "Daly's interval").optional();
inline constexpr Field kStrategy = string("strategy", "checkpoint.strategy");
inline constexpr Field kPauseS = number("pause_s", "s", "the training pause a checkpoint costs");
inline constexpr Field kMeanDrainS = number("mean_drain_s", "s", "an asynchronous write's mean drain").optional();
inline constexpr Field kMaxDrainS = number("max_drain_s", "s", "its longest drain").optional();
inline constexpr Field kPolicy = string("policy", "checkpoint.policy");
inline constexpr Field kFirstIntervalS =
    number("first_interval_s", "s", "the adaptive policy's first interval").optional();
inline constexpr Field kEstimatedMtbfS =
    number("estimated_mtbf_s", "s", "the MTBF the policy estimated last (a policy other than fixed)").optional();
inline constexpr Field kCorrupt = integer("corrupt", "checkpoints found corrupt on reload");
inline constexpr const Field* kFields[] = {&kCommitted,      &kIntervalS,      &kBytes,         &kWriteTimeS,
                                           &kJobMtbfS,       &kYoungIntervalS, &kDalyIntervalS, &kStrategy,
                                           &kPauseS,         &kMeanDrainS,     &kMaxDrainS,     &kPolicy,
                                           &kFirstIntervalS, &kEstimatedMtbfS, &kCorrupt};
}  // namespace checkpoints
inline constexpr Field kCheckpoints = object("checkpoints", checkpoints::kFields, "how the job checkpointed");

namespace token_target {
inline constexpr Field kTokens = number("tokens", "tokens", "run.token_target");
inline constexpr Field kReached = boolean("reached", "whether the job reached it for good");
inline constexpr Field kTimeToTargetS = number("time_to_target_s", "s", "when (null: never)").or_null();
inline constexpr const Field* kFields[] = {&kTokens, &kReached, &kTimeToTargetS};
}  // namespace token_target
inline constexpr Field kTokenTarget = object("token_target", token_target::kFields,
                                             "when the token target was reached (with run.token_target)")
                                          .optional();

namespace stragglers {
inline constexpr Field kStepFactor = number("step_factor", "", "the persistent stragglers' step factor");
inline constexpr Field kMeanStepTimeS = number("mean_step_time_s", "s", "the mean training step");
inline constexpr Field kStepTimeS = number("step_time_s", "s", "the step with the persistent stragglers");
inline constexpr Field kPersistentNodes = integer("persistent_nodes", "persistent straggler nodes expected");
inline constexpr Field kProbabilityStepSlowed = number("probability_step_slowed", "",
                                                       "the probability that a transient straggler slows a step");
inline constexpr const Field* kFields[] = {&kStepFactor, &kMeanStepTimeS, &kStepTimeS, &kPersistentNodes,
                                           &kProbabilityStepSlowed};
}  // namespace stragglers
inline constexpr Field kStragglers =
    object("stragglers", stragglers::kFields, "what the stragglers cost (with stragglers)").optional();

namespace heterogeneous {
inline constexpr Field kAccelerator = string("accelerator", "the other generation's accelerator");
inline constexpr Field kNodes = integer("nodes", "its nodes");
inline constexpr Field kSpeed = number("speed", "", "its speed against the main generation");
inline constexpr Field kPlacement = string("placement", "spread or block");
inline constexpr Field kBalance = string("balance", "micro_batches or none");
inline constexpr Field kMeanStepTimeS = number("mean_step_time_s", "s", "the mean training step");
inline constexpr const Field* kFields[] = {&kAccelerator, &kNodes, &kSpeed, &kPlacement, &kBalance, &kMeanStepTimeS};
}  // namespace heterogeneous
inline constexpr Field kHeterogeneous =
    object("heterogeneous", heterogeneous::kFields, "the mixed generations (with heterogeneous.*)").optional();

/// The top level, in the order the summary writes it (step and energy: run_summary_energy.hpp).
[[nodiscard]] Fields fields();

}  // namespace fleetsim::models::summary::run
