#pragma once
// Small run-level rules the actors follow, kept here so that no formula lives in an actor.

#include "failure_model.hpp"
#include "models/core/random_stream.hpp"
#include "models/core/units.hpp"

namespace fleetsim::models {

/// How long one node stays in repair: exponential around `mean` (one draw from `draws`, also when
/// the mean is 0), or exactly `mean`. 0: the node is replaced at once.
[[nodiscard]] double repair_duration(double mean, bool exponential, RandomStream& draws);

/// Time of the k-th (0-based) of evenly spaced events at `rate` per second: (k + 1/2) / rate.
[[nodiscard]] double uniform_arrival_time(long k, double rate);

/// Events per second of a count given over a window (planned interruptions: 47 per 54 days).
[[nodiscard]] double rate_per_second(double count, units::Seconds window);

/// The detection delay of a cause: its own; else the watchdog timeout for a hang; else the default.
[[nodiscard]] units::Seconds detection_delay(const FailureCause& cause, units::Seconds fallback,
                                             units::Seconds watchdog = units::Seconds(0));

/// Nodes that `dp` data-parallel replicas of `replica_gpus` GPUs occupy (whole nodes, rounded up),
/// at most `job_nodes`.
[[nodiscard]] long nodes_for_replicas(int dp, long replica_gpus, int gpus_per_node, long job_nodes);

/// Elastic recovery: the most whole replicas (at most `max_dp`) that `healthy_nodes` hold.
[[nodiscard]] int elastic_width(long healthy_nodes, long replica_gpus, int gpus_per_node, int max_dp, long job_nodes);

/// Elastic recovery's global batch on `dp` of `full_dp` replicas: the scenario's batch rounded to
/// whole micro-batches per replica (at least one) when the global batch is kept, else the
/// per-replica batch kept (the global batch shrinks in proportion).
[[nodiscard]] double elastic_global_batch(double global_batch_tokens, double tokens_per_micro_batch, int dp,
                                          int full_dp, bool keep_global);

/// Component label of the i-th component of a scope: "gpu:1234", "node:17", "rack:3", "job".
[[nodiscard]] std::string component_label(Scope scope, long index);

}  // namespace fleetsim::models
