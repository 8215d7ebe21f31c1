#include "key_facts.hpp"

#include "key_usage.hpp"
#include "parameter_specs.hpp"
#include "scenario_loader.hpp"

#include "models/fleet/scheduling_policy.hpp"

#include <algorithm>

namespace fleetsim::scenario::detail::facts {
namespace {

const Scenario& sc(const FactInput& in) { return in.scenario; }

template <class Pred>
bool any_cause(const FactInput& in, Pred p)
{
  return std::any_of(sc(in).causes.begin(), sc(in).causes.end(), p);
}

template <class Pred>
bool any_declared(const FactInput& in, Pred p)
{
  const auto& jobs = sc(in).workload.jobs;
  return std::any_of(jobs.begin(), jobs.end(), p);
}

const models::FailureCause* cause_named(const FactInput& in)
{
  for (const auto& c : sc(in).causes)
    if (c.name == in.name)
      return &c;
  return nullptr;
}

const FleetJobDecl* job_named(const FactInput& in)
{
  for (const auto& d : sc(in).workload.jobs)
    if (d.name == in.name)
      return &d;
  return nullptr;
}

// The scenario writes workload.jobs.<job>.<field> (not its default).
bool job_gives(const FactInput& in, const std::string& job, const char* field)
{
  const std::string key = "workload.jobs." + job + "." + field;
  return std::any_of(in.resolved.begin(), in.resolved.end(),
                     [&key](const ResolvedValue& v) { return v.key == key && !v.is_default; });
}

// Jobs that take workload.defaults.*: a trace's, the generator's.
bool undeclared_jobs(const FactInput& in)
{
  return !sc(in).workload.trace_jobs.empty() || sc(in).workload.generator.has_value();
}

// A declared job (not replayed) that does not give `field` itself.
bool a_declared_job_lacks(const FactInput& in, const char* field)
{
  return any_declared(in, [&](const FleetJobDecl& d) { return !d.job.replayed && !job_gives(in, d.name, field); });
}

// A trace's or the generator's job checkpoints (they take workload.defaults.checkpoint_interval).
bool an_undeclared_job_checkpoints(const FactInput& in)
{
  const auto& w = sc(in).workload;
  return (w.generator && w.generator->defaults.checkpoint_interval > 0) ||
         std::any_of(w.trace_jobs.begin(), w.trace_jobs.end(),
                     [](const models::fleet::JobSpec& j) { return j.checkpoint_interval > 0; });
}

bool a_job_checkpoints(const FactInput& in)
{
  return an_undeclared_job_checkpoints(in) ||
         any_declared(in, [](const FleetJobDecl& d) { return !d.job.replayed && d.job.checkpoint_interval > 0; });
}

const models::fleet::SchedulingPolicyEntry* scheduling_policy(const FactInput& in)
{
  return models::fleet::find_scheduling_policy(sc(in).scheduler.policy);
}

}  // namespace

Condition step_runs()
{
  return fact("the step model runs (a single job, or a fleet job declared by tokens or replayed)",
              "no job of this fleet is declared by tokens or replayed, so the step model does not run",
              [](const FactInput& in) {
                return !sc(in).is_fleet() ||
                       any_declared(in, [](const FleetJobDecl& d) { return d.tokens > 0 || d.job.replayed; });
              });
}

Condition a_replay_runs()
{
  return fact("the run replays a job (a single job, or a fleet's replayed job)",
              "the fleet replays no job (workload.jobs.<name>.runtime: replay)", [](const FactInput& in) {
                return !sc(in).is_fleet() || any_declared(in, [](const FleetJobDecl& d) { return d.job.replayed; });
              });
}

Condition interrupted()
{
  return decided_by(fact("a failure cause or a planned interruption can stop the job",
                         "no failure cause and no planned interruption stops a job",
                         [](const FactInput& in) {
                           return !sc(in).causes.empty() || (!sc(in).is_fleet() && sc(in).planned.count > 0);
                         }),
                    {"planned.count"});
}

Condition nodes_fail()
{
  return fact("a failure cause takes nodes down (scope gpu, node, link, rack or pod)",
              "no failure cause takes nodes down", [](const FactInput& in) {
                return any_cause(in, [](const models::FailureCause& c) {
                  return c.scope.model().effect() == models::ScopeEffect::Nodes;
                });
              });
}

Condition nodes_own_faults()
{
  return fact("a failure cause is the nodes' own hardware (scope gpu or node)",
              "no failure cause is the nodes' own hardware (scope gpu or node)", [](const FactInput& in) {
                return any_cause(in, [](const models::FailureCause& c) { return c.scope.model().own_fault(); });
              });
}

Condition a_cause_takes_the_default_repair()
{
  return fact("a failure cause that takes nodes down or the storage out has no repair time of its own",
              "every failure cause that takes nodes down or the storage out has its own repair time, or none does",
              [](const FactInput& in) {
                return any_cause(in, [](const models::FailureCause& c) {
                  return c.scope.model().effect() != models::ScopeEffect::WholeJob && !c.repair;
                });
              });
}

Condition nodes_wait_for_repair()
{
  return fact("a failed node waits for a repair time above 0 (its cause's, or repair.time)",
              "no failed node waits for repair (repair times are 0, or no cause takes nodes down)",
              [](const FactInput& in) {
                return any_cause(in, [&in](const models::FailureCause& c) {
                  return c.scope.model().effect() == models::ScopeEffect::Nodes &&
                         c.repair.value_or(sc(in).capacity.repair_time).si() > 0;
                });
              });
}

Condition a_cause_hangs()
{
  return fact("a failure cause hangs the job (detected_by watchdog, or auto with a link scope)",
              "no failure cause hangs the job", [](const FactInput& in) {
                return any_cause(in, [](const models::FailureCause& c) { return c.hang && !c.detection; });
              });
}

Condition a_cause_is_counted()
{
  return fact("a failure cause is rated by count", "every failure cause is rated by mtbf, or there is none",
              [](const FactInput& in) {
                return any_cause(in, [](const models::FailureCause& c) { return c.count.has_value(); });
              });
}

Condition this_cause_takes_components()
{
  return fact("the cause takes nodes down or the storage out (its scope is not job)",
              "the cause's scope is job: it takes no node and no storage down", [](const FactInput& in) {
                const models::FailureCause* c = cause_named(in);
                return c != nullptr && c->scope.model().effect() != models::ScopeEffect::WholeJob;
              });
}

Condition cluster_differs_from_reference()
{
  return fact("cluster.gpus differs from failures.reference_gpus",
              "cluster.gpus equals failures.reference_gpus, so a count scales by 1", [](const FactInput& in) {
                const models::FailureCause* c = cause_named(in);
                return c != nullptr && c->reference_gpus != sc(in).fleet.gpus;
              });
}

Condition nodes_run_slow()
{
  return fact("some nodes run slow (stragglers.*, heterogeneous.*)",
              "no node runs slow: no straggler, episode, diurnal swing or older generation",
              [](const FactInput& in) { return sc(in).stragglers.any() || sc(in).heterogeneous.any(); });
}

Condition storage_carries_traffic()
{
  return decided_by(
      fact("the storage carries traffic (a single job's checkpoints; a fleet job's stored checkpoints or data)",
           "no job of this fleet stores its checkpoints (checkpoint_size, workload.defaults.checkpoint_size_per_gpu) "
           "or reads data",
           [](const FactInput& in) {
             const Scenario& s = sc(in);
             if (!s.is_fleet() || s.data.bytes_per_token.si() > 0)
               return true;
             if (any_declared(in, [](const FleetJobDecl& d) { return d.job.checkpoint_bytes > 0 || d.job.replayed; }))
               return true;
             return s.workload.checkpoint_size_per_gpu > 0 && a_job_checkpoints(in);
           }),
      {"workload.defaults.checkpoint_size_per_gpu", "data.bytes_per_token"});
}

Condition snapshots_to_host_memory()
{
  return decided_by(
      fact("a checkpoint is snapshotted to host memory first (checkpoint.strategy async or multi_level; a fleet "
           "job's checkpoint_strategy async)",
           "every checkpoint is written synchronously",
           [](const FactInput& in) {
             const Scenario& s = sc(in);
             const bool own = s.checkpoint.strategy != CheckpointStrategy::Sync;
             if (!s.is_fleet())
               return own;
             return any_declared(
                 in, [own](const FleetJobDecl& d) { return d.job.checkpoint_async || (d.job.replayed && own); });
           }),
      {"checkpoint.strategy"});
}

Condition generator_runs()
{
  return fact("the workload has a generator (workload.generator.preset, jobs, window or arrivals_per_day)",
              "the workload has no generator: give workload.generator.preset, jobs, window or arrivals_per_day",
              [](const FactInput& in) { return sc(in).workload.generator.has_value(); });
}

namespace {

template <models::fleet::DurationLaw Law>
bool generator_law_is(const FactInput& in)
{
  const auto& g = sc(in).workload.generator;
  return g && g->duration == Law;
}

// The generator's run-time law is `Law` (named `name`): set by its duration key or its preset.
template <models::fleet::DurationLaw Law>
Condition generator_law(const std::string& name)
{
  return decided_by(fact("the generator's run-time law is " + name, "the generator's run-time law is not " + name,
                         &generator_law_is<Law>),
                    {"workload.generator.duration", "workload.generator.preset"});
}

}  // namespace

Condition generator_lognormal() { return generator_law<models::fleet::DurationLaw::Lognormal>("lognormal"); }

Condition generator_weibull() { return generator_law<models::fleet::DurationLaw::Weibull>("weibull"); }

Condition generator_trace_shaped()
{
  return decided_by(fact("the generator's arrivals are trace_shaped", "the generator's arrivals are Poisson",
                         [](const FactInput& in) {
                           const auto& g = sc(in).workload.generator;
                           return g && g->arrival == models::fleet::ArrivalProcess::TraceShaped;
                         }),
                    {"workload.generator.arrival", "workload.generator.preset"});
}

Condition generator_weights_vary()
{
  return fact("the generator's hourly weights vary (workload.generator.hourly_weights or its preset's)",
              "the generator's hourly weights are all equal, so trace_shaped arrivals are Poisson",
              [](const FactInput& in) {
                const auto& g = sc(in).workload.generator;
                return g && std::any_of(g->hourly_weights.begin(), g->hourly_weights.end(),
                                        [&g](double w) { return w != g->hourly_weights[0]; });
              });
}

Condition a_job_takes_the_default_interval()
{
  return fact("a job takes the default (a trace's or the generator's, or a declared job without its own)",
              "every job gives its own checkpoint_interval", [](const FactInput& in) {
                return undeclared_jobs(in) || a_declared_job_lacks(in, "checkpoint_interval");
              });
}

Condition a_job_takes_the_default_cost()
{
  return fact("a job that checkpoints takes the default cost",
              "no job that checkpoints takes the default checkpoint_cost", [](const FactInput& in) {
                return an_undeclared_job_checkpoints(in) || any_declared(in, [&in](const FleetJobDecl& d) {
                         return !d.job.replayed && d.job.checkpoint_interval > 0 &&
                                !job_gives(in, d.name, "checkpoint_cost");
                       });
              });
}

Condition a_job_takes_the_default_restart()
{
  return fact("a job takes the default restart cost", "every job gives its own restart_cost",
              [](const FactInput& in) { return undeclared_jobs(in) || a_declared_job_lacks(in, "restart_cost"); });
}

Condition a_job_takes_the_default_recovery()
{
  return fact("a job takes the default recovery", "every job gives its own recovery", [](const FactInput& in) {
    return undeclared_jobs(in) || any_declared(in, [&in](const FleetJobDecl& d) {
             return !d.job.replayed && !job_gives(in, d.name, "recovery");
           });
  });
}

Condition a_job_takes_the_default_runtime()
{
  return fact("a trace or the generator gives jobs", "every job is declared (workload.jobs: its own runtime)",
              [](const FactInput& in) { return undeclared_jobs(in); });
}

Condition a_job_takes_the_default_comm_fraction()
{
  return fact("a job given as work (not tokens) takes the default communication share",
              "every job gives its own comm_fraction or is declared by tokens (the step model's share)",
              [](const FactInput& in) {
                return undeclared_jobs(in) || any_declared(in, [&in](const FleetJobDecl& d) {
                         return !d.job.replayed && d.tokens <= 0 && !job_gives(in, d.name, "comm_fraction");
                       });
              });
}

Condition a_job_checkpoints_unsized()
{
  return fact("a job that checkpoints has no checkpoint_size of its own",
              "every job that checkpoints gives its checkpoint_size, or none checkpoints", [](const FactInput& in) {
                return an_undeclared_job_checkpoints(in) || any_declared(in, [](const FleetJobDecl& d) {
                         return !d.job.replayed && d.job.checkpoint_interval > 0 && d.job.checkpoint_bytes <= 0;
                       });
              });
}

Condition this_job_checkpoints()
{
  return fact("the job checkpoints (its checkpoint_interval, or workload.defaults', above 0)",
              "the job never checkpoints (its checkpoint_interval is 0)", [](const FactInput& in) {
                const FleetJobDecl* d = job_named(in);
                return d != nullptr && d->job.checkpoint_interval > 0;
              });
}

Condition this_job_spans_nodes()
{
  return fact("the job spans more than one node", "the job fits in one node", [](const FactInput& in) {
    const FleetJobDecl* d = job_named(in);
    const auto& l = sc(in).step.layout;
    const long gpus = d == nullptr ? 0 : d->job.gpus > 0 ? d->job.gpus : static_cast<long>(l.tp) * l.cp * l.pp * l.dp;
    return gpus > sc(in).fleet.gpus_per_node;
  });
}

Condition policy_backfills()
{
  return decided_by(fact("scheduler.policy backfills (easy_backfill, priority)", "scheduler.policy does not backfill",
                         [](const FactInput& in) {
                           const auto* p = scheduling_policy(in);
                           return p != nullptr && p->backfills;
                         }),
                    {"scheduler.policy"});
}

Condition policy_orders_by_priority()
{
  return decided_by(fact("scheduler.policy orders jobs by priority (priority)", "scheduler.policy ignores priorities",
                         [](const FactInput& in) {
                           const auto* p = scheduling_policy(in);
                           return p != nullptr && p->by_priority;
                         }),
                    {"scheduler.policy"});
}

Condition a_job_is_deferrable()
{
  return fact(
      "a job is deferrable (workload.jobs.<name>.deferrable above 0)", "no job is deferrable",
      [](const FactInput& in) { return any_declared(in, [](const FleetJobDecl& d) { return d.job.deferrable > 0; }); });
}

Condition preset_fills_a_key()
{
  return fact("the preset sets a key the scenario leaves unset, and the run reads, to a value other than its default",
              "every key the preset sets is given by the scenario, equal to its default or not read by this run",
              [](const FactInput& in) {
                return std::any_of(in.resolved.begin(), in.resolved.end(), [&in](const ResolvedValue& v) {
                  if (v.where.file.rfind("preset ", 0) != 0)
                    return false;
                  const ParamSpec* spec = find_param(v.key);
                  return spec != nullptr && spec->default_value != v.text && key_is_read(v.key, in);
                });
              });
}

Condition replicas()
{
  return decided_by(
      fact("parallelism.dp x parallelism.cp > 1", "parallelism.dp x parallelism.cp is 1: no gradient is reduced",
           [](const FactInput& in) { return sc(in).step.layout.dp * sc(in).step.layout.cp > 1; }),
      {"parallelism.dp", "parallelism.cp"});
}

Condition gradients_sharded()
{
  return decided_by(
      fact("the gradients are sharded (parallelism.sharded_gradients or sharded_weights)",
           "the gradients are not sharded", [](const FactInput& in) { return sc(in).step.layout.sharded_grads(); }),
      {"parallelism.sharded_gradients", "parallelism.sharded_weights"});
}

Condition gradients_wider_than_values()
{
  return decided_by(
      fact("model.gradient_bytes differs from model.bytes_per_value",
           "model.gradient_bytes equals model.bytes_per_value, so a gradient shard travels as a value does",
           [](const FactInput& in) {
             return sc(in).step.workload.gradient_bytes != sc(in).step.workload.bytes_per_value;
           }),
      {"model.gradient_bytes", "model.bytes_per_value"});
}

Condition simulated_dp_beside_compute()
{
  return decided_by(fact("the simulated step's DP traffic runs beside compute (parallelism.overlap_data_parallel, "
                         "virtual_stages > 1 or sharded_weights)",
                         "the simulated step's DP traffic waits for each stage's backward to end",
                         [](const FactInput& in) {
                           const auto& l = sc(in).step.layout;
                           return l.overlap_data_parallel || l.virtual_stages > 1 || l.sharded_weights;
                         }),
                    {"parallelism.overlap_data_parallel", "parallelism.virtual_stages", "parallelism.sharded_weights"});
}

Condition fleet_places_by_topology()
{
  return fact("a fleet places its jobs by racks and pods (scheduler.placement topology)",
              "no fleet placement reads the racks and pods", [](const FactInput& in) {
                return sc(in).is_fleet() && sc(in).scheduler.packing == models::fleet::Packing::Topology;
              });
}

Condition a_cause_takes_pods()
{
  return fact("a failure cause takes a pod down (scope pod)", "no failure cause takes a pod down",
              [](const FactInput& in) {
                return any_cause(in, [](const models::FailureCause& c) { return c.scope == models::Scope::Pod; });
              });
}

Condition policy_restarts()
{
  return decided_by(
      fact("recovery.policy restarts the job (restart, elastic, in_memory)",
           "recovery.policy swaps spares in instead (recovery.spare_swap)",
           [](const FactInput& in) {
             const models::RecoveryPolicyEntry* p = models::find_recovery_policy(sc(in).recovery.policy_name);
             return p == nullptr || !p->replaces_restart;
           }),
      {"recovery.policy"});
}

}  // namespace fleetsim::scenario::detail::facts
