#pragma once
// The facts under which keys are read that no one key decides (parameter_table.hpp's
// Condition::Test::Fact): "the step model runs", "a failure cause hangs the job", ... Each is a
// condition ready to put on a declaration, with what it says when it holds and when it does not;
// the parameter files name them next to the keys they decide (internal to the loader).

#include "parameter_table.hpp"

namespace fleetsim::scenario::detail::facts {

// ---- the job and its step
/// A single job, or a fleet job declared by tokens or replayed: the step model runs.
[[nodiscard]] Condition step_runs();
/// The job is a single job's replay, or the fleet has a replayed job (its own summary).
[[nodiscard]] Condition a_replay_runs();

// ---- failures and repairs
/// A failure cause or a planned interruption can stop the job.
[[nodiscard]] Condition interrupted();
/// A failure cause takes nodes down.
[[nodiscard]] Condition nodes_fail();
/// A failure cause is the nodes' own hardware (gpu and node scopes): it counts toward lemons.
[[nodiscard]] Condition nodes_own_faults();
/// A cause taking nodes down or the storage out has no repair time of its own (repair.time's).
[[nodiscard]] Condition a_cause_takes_the_default_repair();
/// A failed node waits for a repair time above 0 (repair.distribution draws it).
[[nodiscard]] Condition nodes_wait_for_repair();
/// A cause hangs the job (detected by the collective watchdog).
[[nodiscard]] Condition a_cause_hangs();
/// A cause is rated by count (over failures.reference_window at failures.reference_gpus).
[[nodiscard]] Condition a_cause_is_counted();
/// The cause named by the key takes nodes down or the storage out (its scope is not the job).
[[nodiscard]] Condition this_cause_takes_components();
/// cluster.gpus differs from failures.reference_gpus (a count scales by their ratio).
[[nodiscard]] Condition cluster_differs_from_reference();
/// Some nodes run slow (persistent stragglers, episodes, the diurnal swing, an older generation).
[[nodiscard]] Condition nodes_run_slow();

// ---- checkpoints and storage
/// The storage system carries traffic: the single job's checkpoints, or a fleet job's stored ones, or data loading.
[[nodiscard]] Condition storage_carries_traffic();
/// A checkpoint is snapshotted to host memory first (async, multi_level; a fleet job's async).
[[nodiscard]] Condition snapshots_to_host_memory();

// ---- the fleet's workload and scheduler
/// The workload has a generator.
[[nodiscard]] Condition generator_runs();
/// The generator's run-time law is lognormal / weibull.
[[nodiscard]] Condition generator_lognormal();
[[nodiscard]] Condition generator_weibull();
/// The generator's arrivals are trace-shaped (hourly weights).
[[nodiscard]] Condition generator_trace_shaped();
/// The generator's hourly weights are not all equal (trace_shaped arrivals differ from Poisson).
[[nodiscard]] Condition generator_weights_vary();
/// A fleet job takes workload.defaults' checkpoint interval / cost / restart cost / recovery / comm fraction.
[[nodiscard]] Condition a_job_takes_the_default_interval();
[[nodiscard]] Condition a_job_takes_the_default_cost();
[[nodiscard]] Condition a_job_takes_the_default_restart();
[[nodiscard]] Condition a_job_takes_the_default_recovery();
/// A trace or the generator gives jobs (they run as workload.defaults.runtime says).
[[nodiscard]] Condition a_job_takes_the_default_runtime();
[[nodiscard]] Condition a_job_takes_the_default_comm_fraction();
/// A fleet job checkpoints without a checkpoint_size of its own.
[[nodiscard]] Condition a_job_checkpoints_unsized();
/// The job named by the key checkpoints (its interval, or the defaults', above 0).
[[nodiscard]] Condition this_job_checkpoints();
/// The job named by the key spans more than one node.
[[nodiscard]] Condition this_job_spans_nodes();
/// The scheduling policy backfills / orders by priority (models/fleet/scheduling_policy.hpp).
[[nodiscard]] Condition policy_backfills();
[[nodiscard]] Condition policy_orders_by_priority();
/// A fleet job may wait for a cleaner grid (workload.jobs.<name>.deferrable above 0).
[[nodiscard]] Condition a_job_is_deferrable();

// ---- the layout
/// parallelism.dp x parallelism.cp > 1: gradients are reduced, the optimizer state can be sharded.
[[nodiscard]] Condition replicas();
/// The gradients are sharded (parallelism.sharded_gradients or sharded_weights).
[[nodiscard]] Condition gradients_sharded();
/// model.gradient_bytes differs from model.bytes_per_value (sharded gradients travel in their precision).
[[nodiscard]] Condition gradients_wider_than_values();
/// The simulated step's DP traffic runs beside compute (bucketed overlap, interleaved chunks, ZeRO-3's gathers).
[[nodiscard]] Condition simulated_dp_beside_compute();
/// A fleet places its multi-node jobs by racks and pods (scheduler.placement topology).
[[nodiscard]] Condition fleet_places_by_topology();
/// A failure cause takes a pod down.
[[nodiscard]] Condition a_cause_takes_pods();

// ---- the fabric
/// network.preset puts a value other than a key's default in place of a key the scenario leaves unset.
[[nodiscard]] Condition preset_fills_a_key();
/// The recovery policy restarts the job in a new allocation (recovery.restart; not hot_spare's swap).
[[nodiscard]] Condition policy_restarts();

}  // namespace fleetsim::scenario::detail::facts
