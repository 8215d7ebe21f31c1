#pragma once
// summary.json of a fleet (simulator/output/fleet_outputs.cpp and fleet_energy_outputs.cpp write
// it), declared once: see summary_field.hpp. In the order the summary writes them. A fleet's summary
// says "kind": "fleet"; a single job's has no "kind".

#include "models/summary/run_energy_fields.hpp"
#include "models/summary/run_summary_fields.hpp"
#include "models/summary/summary_fields.hpp"

namespace fleetsim::models::summary::fleet {

inline constexpr Field kKind = constant("kind", "fleet", "a fleet's summary");
inline constexpr Field kWindowDays = number("window_days", "d", "the window");

namespace cluster {
inline constexpr Field kGpus = integer("gpus", "the cluster's GPUs");
inline constexpr Field kNodes = integer("nodes", "its nodes");
inline constexpr Field kSpareNodes = integer("spare_nodes", "spares.nodes");
inline constexpr const Field* kFields[] = {&kGpus, &kNodes, &kSpareNodes};
}  // namespace cluster
inline constexpr Field kCluster = object("cluster", cluster::kFields, "the cluster");

namespace scheduler {
inline constexpr Field kPolicy = string("policy", "scheduler.policy");
inline constexpr Field kPreemption = string("preemption", "scheduler.preemption");
inline constexpr Field kPlacement = string("placement", "scheduler.placement");
inline constexpr const Field* kFields[] = {&kPolicy, &kPreemption, &kPlacement};
}  // namespace scheduler
inline constexpr Field kScheduler = object("scheduler", scheduler::kFields, "the scheduler");

namespace jobs {
inline constexpr Field kDeclared = integer("declared", "jobs the workload declared");
inline constexpr Field kTooLarge = integer("too_large_for_the_cluster", "jobs refused: larger than the cluster");
inline constexpr Field kSubmitted = integer("submitted", "jobs submitted in the window");
inline constexpr Field kStarted = integer("started", "jobs started");
inline constexpr Field kFinished = integer("finished", "jobs finished");
inline constexpr Field kRunningAtEnd = integer("running_at_end", "jobs running at the window's end");
inline constexpr Field kWaitingAtEnd = integer("waiting_at_end", "jobs waiting at the window's end");
inline constexpr const Field* kFields[] = {&kDeclared, &kTooLarge,     &kSubmitted,   &kStarted,
                                           &kFinished, &kRunningAtEnd, &kWaitingAtEnd};
}  // namespace jobs
inline constexpr Field kJobs = object("jobs", jobs::kFields, "the jobs by state");

namespace utilisation {
inline constexpr Field kAllocated = number("allocated", "", "GPU-time held by jobs / the cluster's GPU-time");
inline constexpr Field kProductive = number("productive", "", "productive GPU-time / the cluster's GPU-time");
inline constexpr const Field* kFields[] = {&kAllocated, &kProductive};
}  // namespace utilisation
inline constexpr Field kUtilisation = object("utilisation", utilisation::kFields, "the cluster's utilisation");

namespace gpu_hours {
inline constexpr Field kCapacity = number("capacity", "GPU-h", "the cluster's GPU-hours over the window");
inline constexpr Field kAllocated = number("allocated", "GPU-h", "held by jobs");
inline constexpr Field kProductive = number("productive", "GPU-h", "trained");
inline constexpr Field kLost = number("lost", "GPU-h", "held but lost");
inline constexpr Field kLostByCause = map("lost_by_cause", Type::Number, "GPU-h", "lost, by loss cause");
inline constexpr Field kLostByCategory =
    map("lost_by_category", Type::Number, "GPU-h", "lost, by the causes' category (when they name one)").optional();
inline constexpr const Field* kFields[] = {&kCapacity, &kAllocated,   &kProductive,
                                           &kLost,     &kLostByCause, &kLostByCategory};
}  // namespace gpu_hours
inline constexpr Field kGpuHours = object("gpu_hours", gpu_hours::kFields, "the cluster's GPU-hours by use");
inline constexpr Field kGoodputGpuHours = number("goodput_gpu_hours", "GPU-h", "productive GPU-hours");

/// A distribution (models/fleet/fleet_summary.hpp Distribution): only the count when it is empty.
namespace distribution {
inline constexpr Field kCount = integer("count", "the sample's size");
inline constexpr Field kMean = number("mean", "", "its mean").optional();
inline constexpr Field kP50 = number("p50", "", "its median").optional();
inline constexpr Field kP90 = number("p90", "", "its 90th percentile").optional();
inline constexpr Field kP99 = number("p99", "", "its 99th percentile").optional();
inline constexpr Field kMax = number("max", "", "its maximum").optional();
inline constexpr const Field* kFields[] = {&kCount, &kMean, &kP50, &kP90, &kP99, &kMax};
}  // namespace distribution
/// The size classes' names (models/fleet/fleet_summary.hpp kSizeClasses), in that order.
[[nodiscard]] std::vector<std::string> size_class_names();
inline constexpr Field kWaitS = object("wait_s", distribution::kFields, "jobs' first wait in the queue (s)");
inline constexpr Field kWaitSByGpus = map_of_objects("wait_s_by_gpus", distribution::kFields,
                                                     "the same by the GPUs a job asked for")
                                          .keyed_by(size_class_names);
inline constexpr Field kBoundedSlowdown = object("bounded_slowdown", distribution::kFields,
                                                 "(wait + run) / max(run, 10 s) over finished jobs");

namespace fragmentation {
inline constexpr Field kIdleGpuHours = number("idle_gpu_hours_while_jobs_wait", "GPU-h",
                                              "idle GPU-hours while jobs wait");
inline constexpr Field kFractionOfCapacity = number("fraction_of_capacity", "", "the same / the cluster's");
inline constexpr const Field* kFields[] = {&kIdleGpuHours, &kFractionOfCapacity};
}  // namespace fragmentation
inline constexpr Field kFragmentation = object("fragmentation", fragmentation::kFields, "GPUs idle while jobs wait");
inline constexpr Field kRacksSpannedMean = number("racks_spanned_mean", "", "mean racks a multi-node job spans");

namespace fabric {
inline constexpr Field kContentionGpuHours = number("contention_gpu_hours", "GPU-h",
                                                    "the GPU-hours the fabric's sharing cost");
inline constexpr const Field* kFields[] = {&kContentionGpuHours};
}  // namespace fabric
/// Beyond its field, "utilisation_<level>": what the level's uplinks carried / their capacity.
inline constexpr Field kFabric = object("fabric", fabric::kFields, "the shared fabric (network.fleet_fabric: shared)")
                                     .optional()
                                     .open(Type::Number, "utilisation_");

inline constexpr Field kFailures = integer("failures", "failures (nodes struck)");
inline constexpr Field kInterruptions = integer("interruptions", "failures that interrupted a job");
inline constexpr Field kFailuresOnIdleNodes = integer("failures_on_idle_nodes", "failures that struck idle nodes");
inline constexpr Field kPreemptions = integer("preemptions", "jobs preempted");
inline constexpr Field kRequeues = integer("requeues", "jobs put back in the queue");
inline constexpr Field kInPlaceRecoveries = integer("in_place_recoveries", "recoveries where a spare replaced a node");
inline constexpr Field kRepairs = integer("repairs", "repairs finished");

namespace energy {
namespace peak {
inline constexpr const Field* kFields[] = {&summary::energy::kMw, &summary::energy::kTS};
}  // namespace peak
inline constexpr Field kPeakMw = object(run::energy::kPeakMw.key, peak::kFields, run::energy::kPeakMw.doc);
inline constexpr Field kRowS = number("row_s", "s", "the timeline's row");
inline constexpr Field kJobsMwh = number("jobs_mwh", "MWh", "the energy charged to jobs");
inline constexpr Field kEnergyPerTokenJ =
    number("energy_per_token_j", "J", "energy per token of the jobs declared by tokens").optional();
/// With the keys a replay's energy shares (summary_fields.hpp), so that one metric reads both.
inline constexpr const Field* kFields[] = {&summary::energy::kFacilityMwh,
                                           &summary::energy::kItMwh,
                                           &summary::energy::kByComponentMwh,
                                           &summary::energy::kMeanMw,
                                           &kPeakMw,
                                           &kRowS,
                                           &kJobsMwh,
                                           &kEnergyPerTokenJ,
                                           &summary::energy::kCarbon};
}  // namespace energy
inline constexpr Field kEnergy = object(summary::energy::kKey, energy::kFields, "the facility's energy and carbon");

namespace carbon_aware {
/// A total and a mean (deferral_s, queue_after_eligible_s, submit_to_start_s).
namespace stat {
inline constexpr Field kTotal = number("total", "s", "the sum over the jobs");
inline constexpr Field kMean = number("mean", "s", "the mean over the jobs");
inline constexpr const Field* kFields[] = {&kTotal, &kMean};
}  // namespace stat
inline constexpr Field kEnabled = boolean("enabled", "scheduler.carbon_aware with a grid profile");
inline constexpr Field kDeferrableJobs = integer("deferrable_jobs", "deferrable jobs submitted");
inline constexpr Field kDeferredJobs = integer("deferred_jobs", "those deferred");
inline constexpr Field kDeferredAtEnd = integer("deferred_at_end", "those still deferred at the window's end");
inline constexpr Field kStarted = integer("started", "those started");
inline constexpr Field kDeferralS = object("deferral_s", stat::kFields, "submit to eligible");
inline constexpr Field kQueueAfterEligibleS = object("queue_after_eligible_s", stat::kFields, "eligible to start");
inline constexpr Field kSubmitToStartS = object("submit_to_start_s", stat::kFields, "submit to start");
inline constexpr Field kEnergyMwh = number("energy_mwh", "MWh", "their energy");
inline constexpr Field kCarbonT = number("carbon_t", "t", "their operational carbon");
inline constexpr Field kMeanIntensityGPerKwh = number("mean_intensity_g_per_kwh", "g/kWh", "their mean intensity");
inline constexpr const Field* kFields[] = {&kEnabled,   &kDeferrableJobs, &kDeferredJobs,        &kDeferredAtEnd,
                                           &kStarted,   &kDeferralS,      &kQueueAfterEligibleS, &kSubmitToStartS,
                                           &kEnergyMwh, &kCarbonT,        &kMeanIntensityGPerKwh};
}  // namespace carbon_aware
inline constexpr Field kCarbonAware = object("carbon_aware", carbon_aware::kFields, "the deferrable jobs");

namespace replayed_jobs {
inline constexpr Field kId = string("id", "the job's id");
inline constexpr Field kOutputs = string("outputs", "its outputs' directory, relative to the summary's");
inline constexpr Field kEttr = number(run::kEttr.key, "", "its ETTR, as its own summary gives it");
inline constexpr Field kUnexpectedInterruptions = integer("unexpected_interruptions", "its unexpected interruptions");
inline constexpr const Field* kFields[] = {&kId, &kOutputs, &kEttr, &kUnexpectedInterruptions};
}  // namespace replayed_jobs
inline constexpr Field kReplayedJobs =
    array_of_objects("replayed_jobs", replayed_jobs::kFields, "each replayed job (runtime: replay)").optional();

/// The top level, in the order the summary writes it.
[[nodiscard]] Fields fields();

}  // namespace fleetsim::models::summary::fleet
