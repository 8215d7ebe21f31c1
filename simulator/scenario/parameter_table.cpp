#include "parameter_table.hpp"
#include "parameter_specs.hpp"

#include "models/fleet/job_generator.hpp"
#include "models/fleet/job_trace.hpp"
#include "models/fleet/scheduling_policy.hpp"

#include "models/failure_scope.hpp"
#include "models/recovery_policy.hpp"
#include "models/topology.hpp"

#include <cstdio>

namespace fleetsim::scenario {
namespace {

using units::Dimension;
using namespace detail;  // the spec builders (parameter_specs.hpp)

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

std::vector<ParamSpec> build_table()
{
  const auto T = Dimension::Time;
  const auto B = Dimension::Bytes;
  const auto BW = Dimension::Bandwidth;
  std::vector<ParamSpec> table = {
      text("name", "unnamed", "short name of the scenario, copied into summary.json"),
      text("description", "", "one-line description"),

      integer("cluster.gpus", "16384", "accelerators in the training job", 1, 1e8),
      integer("cluster.gpus_per_node", "8", "accelerators per server (node scope of failure causes)", 1, 1024),
      integer("cluster.gpus_per_rack", "16",
              "accelerators behind one top-of-rack switch (rack scope of failure causes)", 1, 1e6),

      text("accelerator.name", "H100-SXM-80GB", "accelerator model, for reports"),
      quantity("accelerator.peak_flops", Dimension::FlopRate, "989TFLOPS",
               "peak dense BF16 throughput per accelerator"),
      quantity("accelerator.memory", B, "80GB", "HBM capacity per accelerator"),
      quantity("accelerator.power", Dimension::Power, "700W", "board power (TDP) per accelerator"),
      real("accelerator.gemm_efficiency", "0.6",
           "achieved fraction of peak in the model's kernels, when no accelerator.gemm curve is given", 0.0, true, 1.0),

      real("model.parameters", "405e9", "trainable parameters", 0.0, true, std::nullopt),
      integer("model.layers", "126", "transformer layers", 1, 1e6),
      integer("model.hidden", "16384", "model dimension", 1, 1e7),
      integer("model.sequence_length", "8192", "tokens per sequence", 1, 1e8),
      real("model.global_batch_tokens", "16777216", "tokens per optimizer step (global batch)", 0.0, true,
           std::nullopt),
      integer("model.micro_batch_size", "1", "sequences per micro-batch", 1, 1e6),
      integer("model.attention_heads", "128", "query heads per layer", 1, 1e6),
      integer("model.kv_heads", "8",
              "key/value heads per layer (grouped-query attention); sizes context-parallel traffic", 1, 1e6),
      integer("model.experts", "0", "experts per MoE layer (0: dense); every layer's MLP is MoE", 0, 1e6),
      integer("model.experts_per_token", "2", "experts each token is routed to (top-k)", 1, 1e6),
      real("model.expert_parameters", "0", "parameters in all experts of all layers, part of model.parameters", 0.0,
           false, std::nullopt),
      real("model.bytes_per_value", "2", "bytes per activation or gradient value on the wire", 0.0, true, 16.0),

      integer("parallelism.tp", "8", "tensor-parallel degree", 1, 1e6),
      integer("parallelism.cp", "1",
              "context-parallel degree: each sequence split over cp GPUs (all-gather based, as Llama 3's long-context "
              "stage)",
              1, 1e6),
      integer("parallelism.ep", "1",
              "expert-parallel degree: experts sharded over ep data-parallel replicas (MoE models)", 1, 1e6),
      integer("parallelism.pp", "16", "pipeline-parallel degree", 1, 1e6),
      integer("parallelism.dp", "128", "data-parallel degree", 1, 1e8),
      integer("parallelism.virtual_stages", "1", "interleaved pipeline chunks per device (v)", 1, 1024),

      quantity("network.nvlink_bandwidth", BW, "450GB/s", "scale-up (NVLink) bandwidth per GPU, one direction"),
      quantity("network.nvlink_latency", T, "1us", "scale-up per-message latency", 0.0, false),
      quantity("network.nic_bandwidth", BW, "400Gbps", "scale-out NIC bandwidth per GPU, one direction"),
      quantity("network.nic_latency", T, "5us", "scale-out per-message latency", 0.0, false),
      real("network.dp_overlap", "0.8",
           "analytic step model only: fraction of data-parallel traffic hidden behind the backward pass (the simulated "
           "step measures it)",
           0.0, false, 1.0),
      integer("network.pod_size", "0", "GPUs per full-bisection pod of the scale-out fabric (0: one pod)", 0, 1e8),
      real("network.pod_oversubscription", "1", "pod-to-aggregation oversubscription (7 means 1:7)", 1.0, false,
           std::nullopt),
      choice("network.preset", "none",
             "a named fabric whose values replace the defaults of the keys the scenario leaves unset: llama3 = 8-GPU "
             "nodes, 16-GPU racks at 1:1, 3,072-GPU pods at full bisection joined at 1:7, 400 Gbps NICs, 450 GB/s "
             "NVLink ([L3] section 3.3.1)",
             {"none", "llama3"}),
      registered_choice("network.topology", "clos",
                        "fabric of the simulated step: Clos of racks and pods, rail-optimized pods, or a 3-D torus "
                        "(TPU-style) (models/topology.hpp: the registry)",
                        models::topology_names),
      text("network.torus_dims", "", "torus shape XxYxZ, product = cluster.gpus (topology torus only)"),
      quantity("network.torus_link_bandwidth", BW, "45GB/s", "each direction of each torus link (topology torus only)"),
      quantity("network.torus_hop_latency", T, "1us", "latency of one torus hop (topology torus only)", 0.0, false),
      real("network.rack_oversubscription", "1", "rack (top-of-rack switch) uplink oversubscription within a pod", 1.0,
           false, std::nullopt),

      real("stragglers.persistent_fraction", "0", "fraction of nodes that always run slow", 0.0, false, 1.0),
      real("stragglers.persistent_speed", "1", "speed of a persistent straggler, relative to nominal", 0.0, true, 1.0),
      real("stragglers.transient_probability", "0", "probability that a node runs slow in a given step", 0.0, false,
           1.0),
      real("stragglers.transient_speed", "1", "speed of a node in a slow step, relative to nominal", 0.0, true, 1.0),
      quantity("stragglers.episode_interval", T, "0s",
               "mean time between slowdown episodes of one node (0: none); episodes start at exponential intervals",
               0.0, false),
      quantity("stragglers.episode_duration", T, "30min", "mean duration of a slowdown episode"),
      choice("stragglers.episode_distribution", "exponential", "distribution of episode durations around their mean",
             {"exponential", "fixed"}),
      real("stragglers.episode_speed", "1", "speed of a node during a slowdown episode, relative to nominal", 0.0, true,
           1.0),
      real("stragglers.diurnal_amplitude", "0",
           "peak-to-trough throughput swing of every node over a day (Llama 3 saw 1-2%)", 0.0, false, 0.5),
      quantity("stragglers.diurnal_peak", T, "15h",
               "time of day (from the start of the run) at which nodes are slowest", 0.0, false),
      quantity("stragglers.diurnal_resolution", T, "1h", "how often the replay updates the diurnal speed"),
      real("stragglers.drain_below", "0",
           "mitigation: drain a node whose speed stays below this for stragglers.drain_after (0: never)", 0.0, false,
           1.0),
      quantity("stragglers.drain_after", T, "10min", "mitigation: how long a node must stay slow before it is drained",
               0.0, false),
      quantity("stragglers.drain_repair", T, "4h", "mitigation: until a drained node is back, at full speed", 0.0,
               false),

      real("heterogeneous.fraction", "0", "fraction of the job's nodes that are of an older accelerator generation",
           0.0, false, 1.0),
      text("heterogeneous.accelerator", "A100-SXM-80GB", "the older generation's accelerator, for reports"),
      real("heterogeneous.speed", "0.315",
           "the older generation's throughput relative to accelerator.peak_flops (A100 312 / H100 989 TFLOPS dense "
           "BF16)",
           0.0, true, 1.0),
      choice("heterogeneous.placement", "block",
             "where the older nodes sit: the job's last nodes (racks of their own), or spread at random",
             {"block", "spread"}),
      choice("heterogeneous.balance", "none",
             "none: every data-parallel replica gets the same batch share, so the slowest gates the step; "
             "micro_batches: replicas get micro-batches in proportion to their generation's speed",
             {"none", "micro_batches"}),

      quantity("storage.write_bandwidth", BW, "2TB/s",
               "the storage servers' sustained write bandwidth, shared by every writer"),
      quantity("storage.read_bandwidth", BW, "2TB/s", "the storage servers' read bandwidth, shared by every reader"),
      quantity("storage.bandwidth", BW, std::nullopt,
               "the servers' total throughput, which reads and writes share (default: the larger of the write and "
               "read bandwidths, so they only contend above it)"),
      quantity("storage.burst_bandwidth", BW, std::nullopt,
               "token bucket: the servers' total throughput while burst credit lasts (above storage.bandwidth)"),
      quantity("storage.burst_bytes", B, std::nullopt,
               "token bucket: the burst credit, spent at the excess over storage.bandwidth and refilled by its "
               "shortfall"),
      quantity("storage.client_bandwidth", BW, std::nullopt,
               "each node's storage NIC (a job's I/O is limited by the sum over its nodes; default: no limit)"),
      real("storage.metadata_rate", std::nullopt,
           "file opens and creates the metadata service serves per second, shared by all clients (default: free)", 0.0,
           true, std::nullopt),

      quantity("checkpoint.interval", T, "30min",
               "training time between the end of one checkpoint and the start of the next (checkpoint.policy: "
               "fixed; the other policies compute it)"),
      choice("checkpoint.policy", "fixed",
             "how the interval is chosen: fixed (checkpoint.interval), young or daly (from the checkpoint cost and "
             "the failure model's MTBF), adaptive (Daly's interval at the MTBF estimated from the failures seen so "
             "far, starting from checkpoint.prior_mtbf)",
             {"fixed", "young", "daly", "adaptive"}),
      quantity("checkpoint.prior_mtbf", T, "1d", "adaptive: the prior guess of the job's mean time between failures"),
      real("checkpoint.prior_weight", "1", "adaptive: how many failures' worth of evidence the prior counts as", 0.0,
           true, std::nullopt),
      quantity("checkpoint.state_per_gpu", B, "400MB", "checkpoint bytes written per accelerator"),
      quantity("checkpoint.state_total", B, std::nullopt,
               "the model's whole checkpoint (e.g. 14 B/parameter x parameters); when given, each GPU writes "
               "state_total / cluster.gpus and checkpoint.state_per_gpu is ignored, so a sweep over cluster.gpus keeps "
               "the checkpoint one size"),
      quantity("checkpoint.write_overhead", T, "0s",
               "fixed cost of each checkpoint besides the data transfer (barrier, metadata)", 0.0, false),
      choice("checkpoint.strategy", "sync",
             "sync: training pauses for the whole write; async: training pauses for the device-to-host snapshot "
             "and the write drains to storage in the background; multi_level: snapshots to host memory and peers "
             "every interval, every checkpoint.remote_every-th one also drained to storage",
             {"sync", "async", "multi_level"}),
      quantity("checkpoint.snapshot_bandwidth", BW, "25GB/s",
               "async, multi_level: device-to-host copy rate per GPU (the training pause is state_per_gpu over it)"),
      integer("checkpoint.host_buffers", "1",
              "async: snapshots host memory holds while they drain; a checkpoint due when all are full waits", 1, 64),
      integer("checkpoint.remote_every", "4", "multi_level: every k-th snapshot also goes to remote storage", 1, 1e6),
      choice("checkpoint.files", "per_rank",
             "how a checkpoint is laid out: per_rank (a file per GPU), per_node, or consolidated (one file); each "
             "file costs one metadata operation (storage.metadata_rate)",
             {"per_rank", "per_node", "consolidated"}),
      real("checkpoint.corrupt_probability", "0",
           "chance that a checkpoint turns out unreadable at restore: the job falls back to the previous one", 0.0,
           false, 0.999),

      quantity("data.bytes_per_token", B, "0B",
               "training data read from storage per token (0: data loading is not modelled)", 0.0, false),
      integer("data.prefetch_steps", "2", "batches the loader keeps ready ahead of training", 1, 1e6),

      quantity("recovery.detection", T, "5min", "from a failure to the job being declared failed"),
      quantity("recovery.restart", T, "10min", "rescheduling, process start, communicator init and rendezvous", 0.0,
               false),
      quantity("recovery.warmup", T, "0s", "time after reload before steps run at full speed (counted as lost)", 0.0,
               false),
      quantity("recovery.watchdog_timeout", T, "10min",
               "collective timeout that detects hangs (PyTorch's NCCL default is 10 min)"),
      registered_choice("recovery.policy", "restart",
                        "what happens after a failure: restart = resubmit the whole job from the last checkpoint; "
                        "hot_spare = keep the allocation, swap warm spare nodes in (recovery.spare_swap); elastic = "
                        "continue on fewer data-parallel replicas and grow back when nodes return; in_memory = restore "
                        "from checkpoint copies in peers' host memory (Gemini-style), remote storage only when every "
                        "copy of a shard is lost (models/recovery_policy.hpp: the registry)",
                        models::recovery_policy_names),
      quantity("recovery.spare_swap", T, "2min",
               "hot_spare: restart in the job's own allocation with warm spares swapped in (replaces recovery.restart)",
               0.0, false),
      choice("recovery.elastic_batch", "global",
             "elastic: keep the global batch (more micro-batches per replica) or the per-replica batch (smaller global "
             "batch)",
             {"global", "per_replica"}),
      integer("recovery.elastic_min_dp", "1",
              "elastic: fewest data-parallel replicas to train on; below it the job waits for nodes", 1, 1e8),
      quantity("recovery.memory_snapshot_interval", T, "0s",
               "in_memory: training time between snapshots to host memory (0: every step); snapshots are assumed "
               "hidden behind training",
               0.0, false),
      quantity("recovery.memory_reload", T, "30s",
               "in_memory: restoring the state from host memory and peers (replaces the storage reload)", 0.0, false),
      integer("recovery.memory_copies", "2",
              "in_memory: copies of each node's shard, on its own node and on peers in other racks", 1, 64),

      integer("spares.nodes", "0", "warm spare nodes beside the job's; failures strike them too", 0, 1e7),
      quantity("repair.time", T, "0s",
               "mean time until a failed node is back in service (0: the scheduler always finds a healthy replacement "
               "at once)",
               0.0, false),
      choice("repair.distribution", "exponential", "distribution of repair times around their mean",
             {"exponential", "fixed"}),

      real("lemons.fraction", "0",
           "fraction of nodes that fail much more often than the others (GPU- and node-scope causes)", 0.0, false, 1.0),
      real("lemons.rate_multiplier", "10",
           "failure rate of a lemon node over a normal node's (the fleet average stays as configured)", 1.0, false,
           std::nullopt),
      integer("lemons.retire_after", "0",
              "retire a node after this many of its own failures within lemons.retire_window (0: never)", 0, 1e6),
      quantity("lemons.retire_window", T, "7d", "window over which a node's failures count toward retirement"),
      quantity("lemons.replace_time", T, "0s", "until a retired node's position holds a new, healthy node", 0.0, false),

      real("planned.count", "0", "planned interruptions per planned.window", 0.0, false, std::nullopt),
      quantity("planned.window", T, "54d", "window over which planned.count is given"),
      quantity("planned.duration", T, "15min", "downtime of one planned interruption, restart included", 0.0, false),
      flag("planned.checkpoint_before", "true", "write a checkpoint just before a planned interruption"),
      choice("planned.arrival", "uniform", "evenly spaced, or a Poisson process", {"uniform", "poisson"}),

      integer("failures.reference_gpus", "16384", "fleet size at which failure counts were observed", 1, 1e9),
      quantity("failures.reference_window", T, "54d", "window over which failure counts were observed"),
      real("failures.causes.<name>.count", std::nullopt,
           "interruptions in the reference window at the reference fleet size", 0.0, false, std::nullopt),
      quantity("failures.causes.<name>.mtbf", T, std::nullopt,
               "mean time between failures of one component of the cause's scope (instead of count)"),
      registered_choice(
          "failures.causes.<name>.scope", "gpu",
          "failure domain the cause takes down: a GPU (its node goes to repair), a node, a node's network link, a rack "
          "(its top-of-rack switch), a pod (network.pod_size GPUs; the whole job without pods), the storage service "
          "(the job fails and cannot reload from storage until the cause's repair time has passed), or the job "
          "(software) (models/failure_scope.hpp: the registry)",
          models::scope_names),
      choice("failures.causes.<name>.detected_by", "auto",
             "health_check: recovery.detection; watchdog: the job hangs until recovery.watchdog_timeout; auto: "
             "watchdog for link failures, health_check otherwise (a cause's own detection wins)",
             {"auto", "health_check", "watchdog"}),
      text("failures.causes.<name>.category", "", "root-cause category, for reports"),
      flag("failures.causes.<name>.scales_with_fleet", "true", "a count-based rate grows linearly with cluster.gpus"),
      quantity("failures.causes.<name>.detection", T, std::nullopt,
               "detection delay of this cause (default recovery.detection)", 0.0, false),
      quantity("failures.causes.<name>.repair", T, std::nullopt,
               "mean repair time of the nodes this cause takes down (default repair.time)", 0.0, false),

      // ---- a fleet: many jobs on one cluster (docs/models/fleet.md). Any workload key makes the
      // scenario a fleet; without one, the scenario is the one job its model and layout describe.
      quantity("workload.jobs.<name>.submit", T, "0s", "when the job (its first copy) is submitted", 0.0, false),
      integer("workload.jobs.<name>.gpus", "0",
              "GPUs the job gangs (0: the layout's, parallelism.tp x cp x pp x dp); a job of more than one node takes "
              "whole nodes",
              0),
      quantity("workload.jobs.<name>.work", T, std::nullopt,
               "training time at full speed (or give tokens); restarts, checkpoints and lost work come on top"),
      real("workload.jobs.<name>.tokens", std::nullopt,
           "tokens to train, at the speed the step model gives the scenario's model and layout (instead of work)", 0.0,
           true, std::nullopt),
      integer("workload.jobs.<name>.count", "1", "copies of the job (ids name-1, name-2, ...)", 1, 1e7),
      quantity("workload.jobs.<name>.every", T, "0s", "time between the copies' submissions", 0.0, false),
      integer("workload.jobs.<name>.priority", "0", "higher runs first under scheduler.policy: priority", -1e6, 1e6),
      flag("workload.jobs.<name>.preemptible", "true", "a higher-priority job may preempt it"),
      quantity("workload.jobs.<name>.checkpoint_interval", T, std::nullopt,
               "training time between checkpoints (default workload.defaults.checkpoint_interval)", 0.0, false),
      quantity("workload.jobs.<name>.checkpoint_cost", T, std::nullopt,
               "training stall per checkpoint (default workload.defaults.checkpoint_cost)", 0.0, false),
      quantity("workload.jobs.<name>.checkpoint_size", B, std::nullopt,
               "its whole checkpoint: when given, its checkpoints are written to and its restarts read from the shared "
               "storage system (storage.*), taking as long as the sharing with other jobs gives them "
               "(checkpoint_cost is then only the scheduler's estimate)"),
      choice(
          "workload.jobs.<name>.checkpoint_strategy", "sync",
          "with a checkpoint_size: sync (the job stalls for the write) or async (it stalls for the device-to-host "
          "snapshot, its share of the checkpoint over checkpoint.snapshot_bandwidth, while the write drains; the next "
          "checkpoint waits for the drain, and a failure before it completes loses that checkpoint)",
          {"sync", "async"}),
      quantity("workload.jobs.<name>.restart_cost", T, std::nullopt,
               "launch, initialisation and checkpoint reload at each start (default workload.defaults.restart_cost)",
               0.0, false),
      choice("workload.jobs.<name>.recovery", "default",
             "after a failure: requeue (release every GPU, queue again), in_place (keep the healthy nodes, replace the "
             "failed ones from the spares or idle nodes; requeue when there are none), default "
             "(workload.defaults.recovery)",
             {"default", "requeue", "in_place"}),
      quantity("workload.defaults.checkpoint_interval", T, "0s",
               "training time between checkpoints of jobs that do not say (0: they never checkpoint)", 0.0, false),
      quantity("workload.defaults.checkpoint_cost", T, "0s", "training stall per checkpoint", 0.0, false),
      quantity("workload.defaults.restart_cost", T, "0s", "launch, initialisation and reload at each start", 0.0,
               false),
      choice("workload.defaults.recovery", "requeue", "after a failure: requeue or in_place", {"requeue", "in_place"}),
      text("workload.trace.file", std::nullopt,
           "a CSV job trace (docs/models/workload.md), relative to the scenario file: one job per row"),
      registered_choice("workload.trace.preset", "acme",
                        "the trace's column names: acme (AcmeTrace), helios (HeliosData), philly (Philly, flattened "
                        "to CSV), none (workload.trace.columns.* only)",
                        trace_preset_choices),
      text("workload.trace.columns.id", std::nullopt,
           "the trace's column for the job's id (over the preset's; \"\" unmaps it)"),
      text("workload.trace.columns.user", std::nullopt,
           "the trace's column for the job's user (over the preset's; \"\" unmaps it)"),
      text("workload.trace.columns.submit", std::nullopt,
           "the trace's column for the job's submit (over the preset's; \"\" unmaps it)"),
      text("workload.trace.columns.start", std::nullopt,
           "the trace's column for the job's start (over the preset's; \"\" unmaps it)"),
      text("workload.trace.columns.end", std::nullopt,
           "the trace's column for the job's end (over the preset's; \"\" unmaps it)"),
      text("workload.trace.columns.duration", std::nullopt,
           "the trace's column for the job's duration (over the preset's; \"\" unmaps it)"),
      text("workload.trace.columns.gpus", std::nullopt,
           "the trace's column for the job's gpus (over the preset's; \"\" unmaps it)"),
      text("workload.trace.columns.nodes", std::nullopt,
           "the trace's column for the job's nodes (over the preset's; \"\" unmaps it)"),
      text("workload.trace.columns.state", std::nullopt,
           "the trace's column for the job's state (over the preset's; \"\" unmaps it)"),
      text("workload.trace.columns.priority", std::nullopt,
           "the trace's column for the job's priority (over the preset's; \"\" unmaps it)"),
      quantity("workload.trace.time_unit", T, "1s", "what one unit of a numeric time or duration cell is"),
      text("workload.trace.states", "",
           "keep only rows whose state column is one of these (comma separated; \"\": all)"),
      registered_choice("workload.generator.preset", "none",
                        "a generator preset (kalos: fitted to AcmeTrace's Kalos summary) whose laws the keys below "
                        "override; none: only the keys below",
                        generator_preset_choices),
      integer("workload.generator.jobs", std::nullopt, "jobs to generate (with window: whichever ends first)", 1, 1e8),
      quantity("workload.generator.window", T, std::nullopt, "arrivals stop at this time (default run.duration)"),
      real("workload.generator.arrivals_per_day", std::nullopt, "mean arrival rate (default jobs / window)", 0.0, true,
           std::nullopt),
      choice("workload.generator.arrival", "poisson",
             "poisson, or trace_shaped (Poisson modulated by workload.generator.hourly_weights)",
             {"poisson", "trace_shaped"}),
      text("workload.generator.hourly_weights", std::nullopt,
           "trace_shaped: 24 relative rates, one per hour of the day"),
      text("workload.generator.gpus", std::nullopt,
           "gang sizes and their weights, \"gpus:weight, ...\" (e.g. \"1:0.6, 8:0.3, 64:0.1\")"),
      choice("workload.generator.duration", "lognormal",
             "run-time law: lognormal (median, sigma) or weibull "
             "(shape, scale)",
             {"lognormal", "weibull"}),
      quantity("workload.generator.median", T, std::nullopt, "lognormal: median run time"),
      real("workload.generator.sigma", std::nullopt, "lognormal: standard deviation of ln(run time)", 0.0, false,
           std::nullopt),
      real("workload.generator.shape", std::nullopt, "weibull: shape k (1: exponential)", 0.0, true, std::nullopt),
      quantity("workload.generator.scale", T, std::nullopt, "weibull: scale"),
      quantity("workload.generator.max_duration", T, std::nullopt, "longer run times are cut to this (0: no cap)", 0.0,
               false),
      real("workload.generator.size_duration_correlation", std::nullopt,
           "the Gaussian copula's correlation between gang size and run time (large jobs run longer); 0: "
           "independent draws",
           0.0, false, 0.999),
      registered_choice("scheduler.policy", "easy_backfill",
                        "fleet scheduling policy (models/fleet/scheduling_policy.hpp: the registry)",
                        models::fleet::scheduling_policy_names),
      choice("scheduler.preemption", "none",
             "how the priority policy preempts: none, kill (the victim loses the work since its last checkpoint) or "
             "checkpoint (the victim writes a checkpoint first)",
             {"none", "kill", "checkpoint"}),
      choice("scheduler.placement", "topology",
             "where a multi-node job goes: topology (as few racks and pods as possible) or first_fit (lowest nodes)",
             {"topology", "first_fit"}),
      integer("scheduler.backfill_depth", "1000", "waiting jobs a backfill pass looks at behind the first one", 1, 1e9),
      quantity("scheduler.timeline_interval", T, "1h", "a fleet timeline row's length"),

      quantity("run.duration", T, "54d", "simulated window"),
      real("run.token_target", "0",
           "tokens to train (e.g. 15.6e12): summary.json reports when the net tokens trained reached them for good "
           "(time_to_target); 0 = no target. The run still lasts run.duration: make it long enough",
           0.0, false, std::nullopt),
      integer("run.seed", "1", "root random seed (overridden by --seed)", 0, 9.007199254740992e15),
      choice("run.step_model", "simulated",
             "source of the step time: one iteration simulated on the fabric (cached), or the alpha-beta formulas",
             {"simulated", "analytic"}),

      // ---- a fleet's carbon-aware scheduling (docs/models/energy.md)
      flag("scheduler.carbon_aware", "false",
           "fleet: a deferrable job starts at the hour, within its deferrable delay, whose grid intensity over its "
           "run is lowest (needs power.carbon.intensity)"),
      quantity("workload.jobs.<name>.deferrable", T, "0s",
               "how long the job may wait past its submit for a cleaner grid (scheduler.carbon_aware; 0: not "
               "deferrable)",
               0.0, false),
  };
  for (ParamSpec& p : step_detail_parameters())
    table.push_back(std::move(p));
  for (ParamSpec& p : power_parameters())
    table.push_back(std::move(p));
  return table;
}

bool matches(std::string_view pattern, std::string_view key)
{
  while (true) {
    auto pdot = pattern.find('.');
    auto kdot = key.find('.');
    std::string_view pseg = pattern.substr(0, pdot);
    std::string_view kseg = key.substr(0, kdot);
    if (pseg != kseg && !(pseg == "<name>" && !kseg.empty()))
      return false;
    if (pdot == std::string_view::npos || kdot == std::string_view::npos)
      return pdot == kdot;
    pattern.remove_prefix(pdot + 1);
    key.remove_prefix(kdot + 1);
  }
}

// Does `pattern` start with the segments of `prefix` (wildcards matching)? Returns the rest.
std::optional<std::string_view> strip_prefix(std::string_view pattern, std::string_view prefix)
{
  if (prefix.empty())
    return pattern;
  while (!prefix.empty()) {
    auto pdot = pattern.find('.');
    if (pdot == std::string_view::npos)
      return std::nullopt;  // pattern is a leaf at this depth
    auto kdot = prefix.find('.');
    std::string_view pseg = pattern.substr(0, pdot);
    std::string_view kseg = prefix.substr(0, kdot);
    if (pseg != kseg && pseg != "<name>")
      return std::nullopt;
    pattern.remove_prefix(pdot + 1);
    prefix = kdot == std::string_view::npos ? std::string_view{} : prefix.substr(kdot + 1);
  }
  return pattern;
}

std::string format_number(double v)
{
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

const std::vector<ParamSpec>& parameter_table()
{
  static const std::vector<ParamSpec> table = build_table();
  return table;
}

std::vector<std::pair<std::string, std::string>> preset_values(std::string_view preset)
{
  if (preset == "llama3")  // [L3] section 3.3.1 and shared/reference/published.md
    return {{"cluster.gpus_per_node", "8"},       {"cluster.gpus_per_rack", "16"},
            {"network.topology", "clos"},         {"network.rack_oversubscription", "1"},
            {"network.pod_size", "3072"},         {"network.pod_oversubscription", "7"},
            {"network.nic_bandwidth", "400Gbps"}, {"network.nvlink_bandwidth", "450GB/s"}};
  return {};
}

const ParamSpec* find_param(std::string_view key)
{
  for (const auto& p : parameter_table())
    if (matches(p.key, key))
      return &p;
  return nullptr;
}

std::vector<std::string> children_of(std::string_view prefix)
{
  std::vector<std::string> out;
  for (const auto& p : parameter_table()) {
    auto rest = strip_prefix(p.key, prefix);
    if (!rest)
      continue;
    std::string child(rest->substr(0, rest->find('.')));
    bool seen = false;
    for (const auto& c : out)
      seen = seen || c == child;
    if (!seen)
      out.push_back(child);
  }
  return out;
}

bool is_section(std::string_view prefix)
{
  for (const auto& p : parameter_table()) {
    auto rest = strip_prefix(p.key, prefix);
    if (rest && !rest->empty())
      return true;
  }
  return false;
}

std::vector<std::string> choices_of(const ParamSpec& spec)
{
  return spec.choices_from != nullptr ? spec.choices_from() : spec.choices;
}

std::string kind_description(const ParamSpec& spec)
{
  switch (spec.kind) {
    case Kind::Int: return "integer";
    case Kind::Float: return "number";
    case Kind::Bool: return "boolean";
    case Kind::String: return "string";
    case Kind::Enum: {
      std::string s = "one of:";
      for (const auto& c : choices_of(spec))
        s += " " + c;
      return s;
    }
    case Kind::Quantity: return std::string(units::dimension_name(spec.dimension));
  }
  return "?";
}

std::string range_description(const ParamSpec& spec)
{
  auto fmt = [&](double v) {
    return spec.kind == Kind::Quantity ? units::format_quantity(v, spec.dimension) : format_number(v);
  };
  std::string s;
  if (spec.min)
    s += (spec.min_exclusive ? "> " : ">= ") + fmt(*spec.min);
  if (spec.max)
    s += (s.empty() ? "" : ", ") + std::string("<= ") + fmt(*spec.max);
  return s;
}

}  // namespace fleetsim::scenario
