#include "key_facts.hpp"
#include "parameter_specs.hpp"

#include "models/fleet/job_generator.hpp"
#include "models/fleet/job_trace.hpp"
#include "models/fleet/scheduling_policy.hpp"

namespace fleetsim::scenario::detail {
namespace {

std::vector<std::string> trace_preset_choices()
{
  std::vector<std::string> out = models::fleet::trace_preset_names();
  out.emplace_back("none");
  return out;
}

std::vector<std::string> generator_preset_choices()
{
  std::vector<std::string> out = {"none"};
  for (auto& n : models::fleet::generator_preset_names())
    out.push_back(n);
  return out;
}

}  // namespace

// A fleet: the workload's jobs (declared, from a trace or generated) and the scheduler.
// fleetsim-lint: table (one declaration per key)
std::vector<ParamSpec> fleet_parameters()
{
  const auto T = Dimension::Time;
  const auto B = Dimension::Bytes;
  return {
      // ---- a fleet: many jobs on one cluster (docs/models/fleet.md). Any workload key makes the
      // scenario a fleet; without one, the scenario is the one job its model and layout describe.
      quantity("workload.jobs.<name>.submit", T, "0s", "when the job (its first copy) is submitted", 0.0, false)
          .fleet_only(),
      integer("workload.jobs.<name>.gpus", "0",
              "GPUs the job gangs (0: the layout's, parallelism.tp x cp x pp x dp; a job declared by tokens or "
              "replayed must have the layout's); a job of more than one node takes whole nodes",
              0)
          .fleet_only(),
      quantity("workload.jobs.<name>.work", T, std::nullopt,
               "training time at full speed (or give tokens); restarts, checkpoints and lost work come on top; a "
               "replayed job trains the tokens its step trains in that long")
          .fleet_only(),
      real("workload.jobs.<name>.tokens", std::nullopt,
           "tokens to train, at the speed the step model gives the scenario's model and layout (instead of work); "
           "a replayed job ends once it has trained and checkpointed them (without: at the window's end)",
           0.0, true, std::nullopt)
          .fleet_only(),
      integer("workload.jobs.<name>.count", "1", "copies of the job (ids name-1, name-2, ...)", 1, 1e7).fleet_only(),
      quantity("workload.jobs.<name>.every", T, "0s", "time between the copies' submissions", 0.0, false)
          .when(above("workload.jobs.<name>.count", 1, "one copy"))
          .fleet_only(),
      integer("workload.jobs.<name>.priority", "0", "higher runs first under scheduler.policy: priority", -1e6, 1e6)
          .when(facts::policy_orders_by_priority())
          .fleet_only(),
      flag("workload.jobs.<name>.preemptible", "true", "a higher-priority job may preempt it")
          .when(is_not("scheduler.preemption", {"none"}))
          .when(facts::policy_orders_by_priority())
          .fleet_only(),
      quantity("workload.jobs.<name>.checkpoint_interval", T, std::nullopt,
               "training time between checkpoints (default workload.defaults.checkpoint_interval)", 0.0, false)
          .fleet_only(),
      quantity("workload.jobs.<name>.checkpoint_cost", T, std::nullopt,
               "training stall per checkpoint (default workload.defaults.checkpoint_cost)", 0.0, false)
          .when(facts::this_job_checkpoints())
          .fleet_only(),
      quantity("workload.jobs.<name>.checkpoint_size", B, std::nullopt,
               "its whole checkpoint: when given, its checkpoints are written to and its restarts read from the shared "
               "storage system (storage.*), taking as long as the sharing with other jobs gives them "
               "(checkpoint_cost is then only the scheduler's estimate)")
          .when(facts::this_job_checkpoints())
          .fleet_only(),
      choice(
          "workload.jobs.<name>.checkpoint_strategy", "sync",
          "with a checkpoint_size: sync (the job stalls for the write) or async (it stalls for the device-to-host "
          "snapshot, its share of the checkpoint over checkpoint.snapshot_bandwidth, while the write drains; the next "
          "checkpoint waits for the drain, and a failure before it completes loses that checkpoint)",
          {"sync", "async"})
          .when(given("workload.jobs.<name>.checkpoint_size", "its checkpoints are not stored"))
          .when(facts::this_job_checkpoints())
          .fleet_only(),
      real(
          "workload.jobs.<name>.comm_fraction", std::nullopt,
          "with network.fleet_fabric: shared: the share of its isolated step that is scale-out communication (default: "
          "the step model's for a job given by tokens, else workload.defaults.comm_fraction)",
          0.0, false, 1.0)
          .when(is("network.fleet_fabric", {"shared"}))
          .when(facts::this_job_spans_nodes())
          .fleet_only(),
      quantity("workload.jobs.<name>.restart_cost", T, std::nullopt,
               "launch, initialisation and checkpoint reload at each start (default workload.defaults.restart_cost)",
               0.0, false)
          .fleet_only(),
      choice("workload.jobs.<name>.recovery", "default",
             "after a failure: requeue (release every GPU, queue again), in_place (keep the healthy nodes, replace the "
             "failed ones from the spares or idle nodes; requeue when there are none), default "
             "(workload.defaults.recovery)",
             {"default", "requeue", "in_place"})
          .when(facts::interrupted())
          .fleet_only(),
      choice("workload.jobs.<name>.runtime", "closed_form",
             "how the fleet runs the job: closed_form (the fleet's own job model: progress in closed form between "
             "events, requeue or in-place recovery; docs/models/fleet.md) or replay (the single-job replay's actors on "
             "the job's nodes: the scenario's model and layout, checkpoint.*, recovery.policy, stragglers, lemons and "
             "data loading, with its own summary.json, timeline.csv, events.csv and storage.csv under jobs/<name>/; it "
             "queues from its submit, trains to its tokens (or work) or the window's end, and draws its spares from "
             "the fleet's spare nodes, shared with the other replayed jobs)",
             {"closed_form", "replay"})
          .fleet_only(),
      quantity("workload.defaults.checkpoint_interval", T, "0s",
               "training time between checkpoints of jobs that do not say (0: they never checkpoint)", 0.0, false)
          .when(facts::a_job_takes_the_default_interval())
          .fleet_only(),
      quantity("workload.defaults.checkpoint_cost", T, "0s", "training stall per checkpoint", 0.0, false)
          .when(facts::a_job_takes_the_default_cost())
          .fleet_only(),
      quantity("workload.defaults.restart_cost", T, "0s", "launch, initialisation and reload at each start", 0.0, false)
          .when(facts::a_job_takes_the_default_restart())
          .fleet_only(),
      choice("workload.defaults.runtime", "closed_form",
             "how the fleet runs a trace's and the generator's jobs: closed_form (the fleet's own job model) or "
             "replay (each on the single-job replay's runtime as a unit of work: its step a second of its work at "
             "full speed, a checkpoint every checkpoint_interval stalling it checkpoint_cost, its first start and "
             "each restart restart_cost, its recovery the restart (in_place) or requeue policy; no outputs of its "
             "own; docs/models/fleet.md, \"Work jobs on the runtime\")",
             {"closed_form", "replay"})
          .when(facts::a_job_takes_the_default_runtime())
          .fleet_only(),
      choice("workload.defaults.recovery", "requeue", "after a failure: requeue or in_place", {"requeue", "in_place"})
          .when(facts::a_job_takes_the_default_recovery())
          .when(facts::interrupted())
          .fleet_only(),
      quantity("workload.defaults.checkpoint_size_per_gpu", B, "0B",
               "> 0: every job that checkpoints and gives no checkpoint_size writes its checkpoints to, and restores "
               "them from, the shared storage system (storage.*) through its own nodes' storage NICs "
               "(storage.client_bandwidth each), contending with every other job: a trace's or the generator's job "
               "and one given as work with this many bytes per GPU, a job declared by tokens with its model's 14 "
               "bytes per parameter; its checkpoint_cost is then only the scheduler's estimate. 0: such jobs stall "
               "checkpoint_cost per checkpoint, with no storage modelled (docs/models/fleet.md)",
               0.0, false)
          .when(facts::a_job_checkpoints_unsized())
          .fleet_only(),
      real("workload.defaults.comm_fraction", "0.2",
           "with network.fleet_fabric: shared, of the jobs that do not say: the share of a multi-node job's isolated "
           "step that is scale-out communication and stretches when the job gets less of the fabric (ASSUMPTION, "
           "docs/models/fleet.md)",
           0.0, false, 1.0)
          .when(is("network.fleet_fabric", {"shared"}))
          .when(facts::a_job_takes_the_default_comm_fraction())
          .fleet_only(),
      text("workload.trace.file", std::nullopt,
           "a CSV job trace (docs/models/workload.md), relative to the scenario file: one job per row")
          .fleet_only(),
      registered_choice("workload.trace.preset", "acme",
                        "the trace's column names: acme (AcmeTrace), helios (HeliosData), philly (Philly, flattened "
                        "to CSV), none (workload.trace.columns.* only)",
                        trace_preset_choices)
          .when(given("workload.trace.file", "no trace"))
          .fleet_only(),
      text("workload.trace.columns.id", std::nullopt,
           "the trace's column for the job's id (over the preset's; \"\" unmaps it)")
          .when(given("workload.trace.file", "no trace"))
          .fleet_only(),
      text("workload.trace.columns.user", std::nullopt,
           "the trace's column for the job's user (over the preset's; \"\" unmaps it)")
          .when(given("workload.trace.file", "no trace"))
          .fleet_only(),
      text("workload.trace.columns.submit", std::nullopt,
           "the trace's column for the job's submit (over the preset's; \"\" unmaps it)")
          .when(given("workload.trace.file", "no trace"))
          .fleet_only(),
      text("workload.trace.columns.start", std::nullopt,
           "the trace's column for the job's start (over the preset's; \"\" unmaps it)")
          .when(given("workload.trace.file", "no trace"))
          .fleet_only(),
      text("workload.trace.columns.end", std::nullopt,
           "the trace's column for the job's end (over the preset's; \"\" unmaps it)")
          .when(given("workload.trace.file", "no trace"))
          .fleet_only(),
      text("workload.trace.columns.duration", std::nullopt,
           "the trace's column for the job's duration (over the preset's; \"\" unmaps it)")
          .when(given("workload.trace.file", "no trace"))
          .fleet_only(),
      text("workload.trace.columns.gpus", std::nullopt,
           "the trace's column for the job's gpus (over the preset's; \"\" unmaps it)")
          .when(given("workload.trace.file", "no trace"))
          .fleet_only(),
      text("workload.trace.columns.nodes", std::nullopt,
           "the trace's column for the job's nodes (over the preset's; \"\" unmaps it)")
          .when(given("workload.trace.file", "no trace"))
          .fleet_only(),
      text("workload.trace.columns.state", std::nullopt,
           "the trace's column for the job's state (over the preset's; \"\" unmaps it)")
          .when(given("workload.trace.file", "no trace"))
          .fleet_only(),
      text("workload.trace.columns.priority", std::nullopt,
           "the trace's column for the job's priority (over the preset's; \"\" unmaps it)")
          .when(given("workload.trace.file", "no trace"))
          .fleet_only(),
      quantity("workload.trace.time_unit", T, "1s", "what one unit of a numeric time or duration cell is")
          .when(given("workload.trace.file", "no trace"))
          .fleet_only(),
      text("workload.trace.states", "",
           "keep only rows whose state column is one of these (comma separated; \"\": all)")
          .when(given("workload.trace.file", "no trace"))
          .fleet_only(),
      registered_choice("workload.generator.preset", "none",
                        "a generator preset (kalos: fitted to AcmeTrace's Kalos summary) whose laws the keys below "
                        "override; none: only the keys below",
                        generator_preset_choices)
          .fleet_only(),
      integer("workload.generator.jobs", std::nullopt, "jobs to generate (with window: whichever ends first)", 1, 1e8)
          .fleet_only(),
      quantity("workload.generator.window", T, std::nullopt, "arrivals stop at this time (default run.duration)")
          .fleet_only(),
      real("workload.generator.arrivals_per_day", std::nullopt, "mean arrival rate (default jobs / window)", 0.0, true,
           std::nullopt)
          .fleet_only(),
      choice("workload.generator.arrival", "poisson",
             "poisson, or trace_shaped (Poisson modulated by workload.generator.hourly_weights)",
             {"poisson", "trace_shaped"})
          .when(facts::generator_weights_vary())
          .when(facts::generator_runs())
          .fleet_only(),
      text("workload.generator.hourly_weights", std::nullopt,
           "trace_shaped: 24 relative rates, one per hour of the day")
          .when(facts::generator_trace_shaped())
          .when(facts::generator_runs())
          .fleet_only(),
      text("workload.generator.gpus", std::nullopt,
           "gang sizes and their weights, \"gpus:weight, ...\" (e.g. \"1:0.6, 8:0.3, 64:0.1\")")
          .when(facts::generator_runs())
          .fleet_only(),
      choice("workload.generator.duration", "lognormal",
             "run-time law: lognormal (median, sigma) or weibull "
             "(shape, scale)",
             {"lognormal", "weibull"})
          .when(facts::generator_runs())
          .fleet_only(),
      quantity("workload.generator.median", T, std::nullopt, "lognormal: median run time")
          .when(facts::generator_lognormal())
          .when(facts::generator_runs())
          .fleet_only(),
      real("workload.generator.sigma", std::nullopt, "lognormal: standard deviation of ln(run time)", 0.0, false,
           std::nullopt)
          .when(facts::generator_lognormal())
          .when(facts::generator_runs())
          .fleet_only(),
      real("workload.generator.shape", std::nullopt, "weibull: shape k (1: exponential)", 0.0, true, std::nullopt)
          .when(facts::generator_weibull())
          .when(facts::generator_runs())
          .fleet_only(),
      quantity("workload.generator.scale", T, std::nullopt, "weibull: scale")
          .when(facts::generator_weibull())
          .when(facts::generator_runs())
          .fleet_only(),
      quantity("workload.generator.max_duration", T, std::nullopt, "longer run times are cut to this (0: no cap)", 0.0,
               false)
          .when(facts::generator_runs())
          .fleet_only(),
      real("workload.generator.size_duration_correlation", std::nullopt,
           "the Gaussian copula's correlation between gang size and run time (large jobs run longer); 0: "
           "independent draws",
           0.0, false, 0.999)
          .when(facts::generator_runs())
          .fleet_only(),
      registered_choice("scheduler.policy", "easy_backfill",
                        "fleet scheduling policy (models/fleet/scheduling_policy.hpp: the registry)",
                        models::fleet::scheduling_policy_names)
          .fleet_only()
          .into([](auto& s) -> auto& { return s.scheduler.policy; }),
      enum_choice(
          "scheduler.preemption", "none",
          "how the priority policy preempts: none, kill (the victim loses the work since its last checkpoint) or "
          "checkpoint (the victim writes a checkpoint first)",
          models::fleet::kPreemptionNames, [](auto& s) -> auto& { return s.scheduler.preemption; })
          .when(facts::policy_orders_by_priority())
          .fleet_only(),
      enum_choice(
          "scheduler.placement", "topology",
          "where a multi-node job goes: topology (as few racks and pods as possible), first_fit (lowest nodes) or "
          "random (scattered over the free nodes, reproducibly from the run's seed)",
          models::fleet::kPackingNames, [](auto& s) -> auto& { return s.scheduler.packing; })
          .fleet_only(),
      integer("scheduler.backfill_depth", "1000", "waiting jobs a backfill pass looks at behind the first one", 1, 1e9)
          .when(facts::policy_backfills())
          .fleet_only()
          .into([](auto& s) -> auto& { return s.scheduler.backfill_depth; }),
      quantity("scheduler.timeline_interval", T, "1h", "a fleet timeline row's length").fleet_only().into([
      ](auto& s) -> auto& { return s.scheduler.timeline_interval; }),
  };
}

}  // namespace fleetsim::scenario::detail
