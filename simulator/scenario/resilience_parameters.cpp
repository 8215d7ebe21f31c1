#include "key_facts.hpp"
#include "parameter_specs.hpp"

#include "models/resilience/failure_scope.hpp"
#include "models/resilience/recovery_policy.hpp"

namespace fleetsim::scenario::detail {

// What slows, stops and restores the job: stragglers, mixed generations, storage, checkpoints, data
// loading, recovery, spares, repair, lemons, planned maintenance and the failure causes.
// fleetsim-lint: table (one declaration per key)
std::vector<ParamSpec> resilience_parameters()
{
  const auto T = Dimension::Time;
  const auto B = Dimension::Bytes;
  const auto BW = Dimension::Bandwidth;
  return {
      real("stragglers.persistent_fraction", "0", "fraction of nodes that always run slow", 0.0, false, 1.0)
          .when(below("stragglers.persistent_speed", 1, "persistent stragglers at full speed are not slow"))
          .job_only()
          .into([](auto& s) -> auto& { return s.stragglers.persistent_fraction; }),
      real("stragglers.persistent_speed", "1", "speed of a persistent straggler, relative to nominal", 0.0, true, 1.0)
          .when(positive("stragglers.persistent_fraction", "no persistent straggler"))
          .job_only()
          .into([](auto& s) -> auto& { return s.stragglers.persistent_speed; }),
      real("stragglers.transient_probability", "0", "probability that a node runs slow in a given step", 0.0, false,
           1.0)
          .when(below("stragglers.transient_speed", 1, "a slowed step at full speed is not slow"))
          .job_only()
          .into([](auto& s) -> auto& { return s.stragglers.transient_probability; }),
      real("stragglers.transient_speed", "1", "speed of a node in a slow step, relative to nominal", 0.0, true, 1.0)
          .when(positive("stragglers.transient_probability", "no slowed step"))
          .job_only()
          .into([](auto& s) -> auto& { return s.stragglers.transient_speed; }),
      quantity("stragglers.episode_interval", T, "0s",
               "mean time between slowdown episodes of one node (0: none); episodes start at exponential intervals",
               0.0, false)
          .when(below("stragglers.episode_speed", 1, "an episode at full speed is not slow"))
          .job_only()
          .into([](auto& s) -> auto& { return s.stragglers.episode_interval; }),
      quantity("stragglers.episode_duration", T, "30min", "mean duration of a slowdown episode")
          .when(positive("stragglers.episode_interval", "no slowdown episode"))
          .when(below("stragglers.episode_speed", 1))
          .job_only()
          .into([](auto& s) -> auto& { return s.stragglers.episode_duration; }),
      choice("stragglers.episode_distribution", "exponential", "distribution of episode durations around their mean",
             {"exponential", "fixed"})
          .when(positive("stragglers.episode_interval", "no slowdown episode"))
          .when(below("stragglers.episode_speed", 1))
          .job_only()
          .into_flag(
              [](auto& s) -> auto& { return s.stragglers.episode_exponential; }, "exponential"),
      real("stragglers.episode_speed", "1", "speed of a node during a slowdown episode, relative to nominal", 0.0, true,
           1.0)
          .when(positive("stragglers.episode_interval", "no slowdown episode"))
          .job_only()
          .into([](auto& s) -> auto& { return s.stragglers.episode_speed; }),
      real("stragglers.diurnal_amplitude", "0",
           "peak-to-trough throughput swing of every node over a day (Llama 3 saw 1-2%)", 0.0, false, 0.5)
          .job_only()
          .into([](auto& s) -> auto& { return s.stragglers.diurnal_amplitude; }),
      quantity("stragglers.diurnal_peak", T, "15h",
               "time of day (from the start of the run) at which nodes are slowest", 0.0, false)
          .when(positive("stragglers.diurnal_amplitude", "no diurnal swing"))
          .job_only()
          .into([](auto& s) -> auto& { return s.stragglers.diurnal_peak; }),
      quantity("stragglers.diurnal_resolution", T, "1h", "how often the replay updates the diurnal speed")
          .when(positive("stragglers.diurnal_amplitude", "no diurnal swing"))
          .job_only()
          .into([](auto& s) -> auto& { return s.stragglers.diurnal_resolution; }),
      real("stragglers.drain_below", "0",
           "mitigation: drain a node whose speed stays below this for stragglers.drain_after (0: never)", 0.0, false,
           1.0)
          .when(facts::nodes_run_slow())
          .job_only()
          .into([](auto& s) -> auto& { return s.stragglers.drain_below; }),
      quantity("stragglers.drain_after", T, "10min", "mitigation: how long a node must stay slow before it is drained",
               0.0, false)
          .when(positive("stragglers.drain_below", "no node is drained"))
          .job_only()
          .into([](auto& s) -> auto& { return s.stragglers.drain_after; }),
      quantity("stragglers.drain_repair", T, "4h", "mitigation: until a drained node is back, at full speed", 0.0,
               false)
          .when(positive("stragglers.drain_below", "no node is drained"))
          .job_only()
          .into([](auto& s) -> auto& { return s.stragglers.drain_repair; }),

      real("heterogeneous.fraction", "0", "fraction of the job's nodes that are of an older accelerator generation",
           0.0, false, 1.0)
          .job_only()
          .into([](auto& s) -> auto& { return s.heterogeneous.fraction; }),
      text("heterogeneous.accelerator", "A100-SXM-80GB", "the older generation's accelerator, for reports")
          .when(positive("heterogeneous.fraction", "no node of an older generation"))
          .job_only()
          .into([](auto& s) -> auto& { return s.heterogeneous.accelerator; }),
      real("heterogeneous.speed", "0.315",
           "the older generation's throughput relative to accelerator.peak_flops (A100 312 / H100 989 TFLOPS dense "
           "BF16)",
           0.0, true, 1.0)
          .when(positive("heterogeneous.fraction", "no node of an older generation"))
          .job_only()
          .into([](auto& s) -> auto& { return s.heterogeneous.speed; }),
      choice("heterogeneous.placement", "block",
             "where the older nodes sit: the job's last nodes (racks of their own), or spread at random",
             {"block", "spread"})
          .when(positive("heterogeneous.fraction", "no node of an older generation"))
          .job_only()
          .into_flag(
              [](auto& s) -> auto& { return s.heterogeneous.spread; }, "spread"),
      choice("heterogeneous.balance", "none",
             "none: every data-parallel replica gets the same batch share, so the slowest gates the step; "
             "micro_batches: replicas get micro-batches in proportion to their generation's speed",
             {"none", "micro_batches"})
          .when(positive("heterogeneous.fraction", "no node of an older generation"))
          .job_only()
          .into_flag(
              [](auto& s) -> auto& { return s.heterogeneous.balanced; }, "micro_batches"),

      quantity("storage.write_bandwidth", BW, "2TB/s",
               "the storage servers' sustained write bandwidth, shared by every writer")
          .when(facts::storage_carries_traffic())
          .into([](auto& s) -> auto& { return s.storage.write_bandwidth; }),
      quantity("storage.read_bandwidth", BW, "2TB/s", "the storage servers' read bandwidth, shared by every reader")
          .when(facts::storage_carries_traffic())
          .into([](auto& s) -> auto& { return s.storage.read_bandwidth; }),
      quantity("storage.bandwidth", BW, std::nullopt,
               "the servers' total throughput, which reads and writes share (default: the larger of the write and "
               "read bandwidths, so they only contend above it)")
          .when(facts::storage_carries_traffic())
          .into([](auto& s) -> auto& { return s.storage.bandwidth; }),
      quantity("storage.burst_bandwidth", BW, std::nullopt,
               "token bucket: the servers' total throughput while burst credit lasts (above storage.bandwidth)")
          .when(facts::storage_carries_traffic())
          .into([](auto& s) -> auto& { return s.storage.burst_bandwidth; }),
      quantity("storage.burst_bytes", B, std::nullopt,
               "token bucket: the burst credit, spent at the excess over storage.bandwidth and refilled by its "
               "shortfall")
          .when(positive("storage.burst_bandwidth", "no token bucket"))
          .when(facts::storage_carries_traffic())
          .into([](auto& s) -> auto& { return s.storage.burst_bytes; }),
      quantity("storage.client_bandwidth", BW, std::nullopt,
               "each node's storage NIC (a job's I/O is limited by the sum over its nodes; default: no limit)")
          .when(facts::storage_carries_traffic())
          .into([](auto& s) -> auto& { return s.storage.client_bandwidth; }),
      real("storage.metadata_rate", std::nullopt,
           "file opens and creates the metadata service serves per second, shared by all clients (default: free)", 0.0,
           true, std::nullopt)
          .when(facts::storage_carries_traffic())
          .into([](auto& s) -> auto& { return s.storage.metadata_rate; }),

      quantity("checkpoint.interval", T, "30min",
               "training time between the end of one checkpoint and the start of the next (checkpoint.policy: "
               "fixed; the other policies compute it)")
          .when(is("checkpoint.policy", {"fixed"}, "the policy computes the interval"))
          .job_only()
          .into([](auto& s) -> auto& { return s.checkpoint.interval; }),
      choice("checkpoint.policy", "fixed",
             "how the interval is chosen: fixed (checkpoint.interval), young or daly (from the checkpoint cost and "
             "the failure model's MTBF), adaptive (Daly's interval at the MTBF estimated from the failures seen so "
             "far, starting from checkpoint.prior_mtbf)",
             {"fixed", "young", "daly", "adaptive"})
          .job_only()
          .into([](auto& s) -> auto& { return s.checkpoint.policy; }),
      quantity("checkpoint.prior_mtbf", T, "1d", "adaptive: the prior guess of the job's mean time between failures")
          .when(is("checkpoint.policy", {"adaptive"}))
          .job_only()
          .into([](auto& s) -> auto& { return s.checkpoint.prior_mtbf; }),
      real("checkpoint.prior_weight", "1", "adaptive: how many failures' worth of evidence the prior counts as", 0.0,
           true, std::nullopt)
          .when(is("checkpoint.policy", {"adaptive"}))
          .job_only()
          .into([](auto& s) -> auto& { return s.checkpoint.prior_weight; }),
      quantity("checkpoint.state_per_gpu", B, "400MB", "checkpoint bytes written per accelerator").job_only().into([
      ](auto& s) -> auto& { return s.checkpoint.state_per_gpu; }),
      quantity("checkpoint.state_total", B, std::nullopt,
               "the model's whole checkpoint (e.g. 14 B/parameter x parameters); when given, each GPU writes "
               "state_total / cluster.gpus and checkpoint.state_per_gpu is ignored, so a sweep over cluster.gpus keeps "
               "the checkpoint one size")
          .job_only(),
      quantity("checkpoint.write_overhead", T, "0s",
               "fixed cost of each checkpoint besides the data transfer (barrier, metadata)", 0.0, false)
          .job_only()
          .into([](auto& s) -> auto& { return s.checkpoint.write_overhead; }),
      enum_choice(
          "checkpoint.strategy", "sync",
          "sync: training pauses for the whole write; async: training pauses for the device-to-host snapshot "
          "and the write drains to storage in the background; multi_level: snapshots to host memory and peers "
          "every interval, every checkpoint.remote_every-th one also drained to storage",
          kCheckpointStrategyNames, [](auto& s) -> auto& { return s.checkpoint.strategy; })
          .job_only(),
      quantity("checkpoint.snapshot_bandwidth", BW, "25GB/s",
               "async, multi_level: device-to-host copy rate per GPU (the training pause is state_per_gpu over it)")
          .when(facts::snapshots_to_host_memory())
          .into([](auto& s) -> auto& { return s.checkpoint.snapshot_bandwidth; }),
      integer("checkpoint.host_buffers", "1",
              "async: snapshots host memory holds while they drain; a checkpoint due when all are full waits", 1, 64)
          .when(is("checkpoint.strategy", {"async"}))
          .job_only()
          .into([](auto& s) -> auto& { return s.checkpoint.host_buffers; }),
      integer("checkpoint.remote_every", "4", "multi_level: every k-th snapshot also goes to remote storage", 1, 1e6)
          .when(is("checkpoint.strategy", {"multi_level"}))
          .job_only()
          .into([](auto& s) -> auto& { return s.checkpoint.remote_every; }),
      enum_choice(
          "checkpoint.files", "per_rank",
          "how a checkpoint is laid out: per_rank (a file per GPU), per_node, or consolidated (one file); each "
          "file costs one metadata operation (storage.metadata_rate)",
          kCheckpointFilesNames, [](auto& s) -> auto& { return s.checkpoint.files; })
          .when(positive("storage.metadata_rate", "file operations are free"))
          .when(facts::storage_carries_traffic()),
      real("checkpoint.corrupt_probability", "0",
           "chance that a checkpoint turns out unreadable at restore: the job falls back to the previous one", 0.0,
           false, 0.999)
          .when(facts::interrupted())
          .job_only()
          .into([](auto& s) -> auto& { return s.checkpoint.corrupt_probability; }),

      quantity("data.bytes_per_token", B, "0B",
               "training data read from storage per token (0: data loading is not modelled); in a fleet, by its jobs "
               "declared by tokens (and a replayed job)",
               0.0, false)
          .into([](auto& s) -> auto& { return s.data.bytes_per_token; }),
      integer("data.prefetch_steps", "2", "batches the loader keeps ready ahead of training", 1, 1e6)
          .when(positive("data.bytes_per_token", "no data loading"))
          .job_only()
          .into([](auto& s) -> auto& { return s.data.prefetch_steps; }),

      quantity("recovery.detection", T, "5min", "from a failure to the job being declared failed")
          .when(facts::interrupted())
          .into([](auto& s) -> auto& { return s.recovery.detection; }),
      quantity("recovery.restart", T, "10min", "rescheduling, process start, communicator init and rendezvous", 0.0,
               false)
          .when(facts::policy_restarts())
          .when(facts::interrupted())
          .job_only()
          .into([](auto& s) -> auto& { return s.recovery.restart; }),
      quantity("recovery.warmup", T, "0s", "time after reload before steps run at full speed (counted as lost)", 0.0,
               false)
          .when(facts::interrupted())
          .job_only()
          .into([](auto& s) -> auto& { return s.recovery.warmup; }),
      quantity("recovery.watchdog_timeout", T, "10min",
               "collective timeout that detects hangs (PyTorch's NCCL default is 10 min)")
          .when(facts::a_cause_hangs())
          .into([](auto& s) -> auto& { return s.recovery.watchdog_timeout; }),
      registered_choice("recovery.policy", "restart",
                        "what happens after a failure: restart = resubmit the whole job from the last checkpoint; "
                        "hot_spare = keep the allocation, swap warm spare nodes in (recovery.spare_swap); elastic = "
                        "continue on fewer data-parallel replicas and grow back when nodes return; in_memory = restore "
                        "from checkpoint copies in peers' host memory (Gemini-style), remote storage only when every "
                        "copy of a shard is lost; requeue = give every node back and wait, holding none, to be placed "
                        "again (a fleet's queue; alone, until idle nodes can hold the job) "
                        "(models/resilience/recovery_policy.hpp: the registry)",
                        models::recovery_policy_names)
          .when(facts::interrupted())
          .job_only()
          .into([](auto& s) -> auto& { return s.recovery.policy_name; }),

      integer("spares.nodes", "0", "warm spare nodes beside the job's; failures strike them too", 0, 1e7).into([
      ](auto& s) -> auto& { return s.capacity.spare_nodes; }),
      quantity("repair.time", T, "0s",
               "mean time until a failed node is back in service (0: the scheduler always finds a healthy replacement "
               "at once)",
               0.0, false)
          .when(facts::a_cause_takes_the_default_repair())
          .into([](auto& s) -> auto& { return s.capacity.repair_time; }),
      choice("repair.distribution", "exponential", "distribution of repair times around their mean",
             {"exponential", "fixed"})
          .when(facts::nodes_wait_for_repair())
          .into_flag(
              [](auto& s) -> auto& { return s.capacity.repair_exponential; }, "exponential"),

      real("lemons.fraction", "0",
           "fraction of nodes that fail much more often than the others (GPU- and node-scope causes)", 0.0, false, 1.0)
          .when(facts::nodes_own_faults())
          .into([](auto& s) -> auto& { return s.capacity.lemons.fraction; }),
      real("lemons.rate_multiplier", "10",
           "failure rate of a lemon node over a normal node's (the fleet average stays as configured)", 1.0, false,
           std::nullopt)
          .when(positive("lemons.fraction", "no lemon node"))
          .when(facts::nodes_own_faults())
          .into([](auto& s) -> auto& { return s.capacity.lemons.rate_multiplier; }),
      integer("lemons.retire_after", "0",
              "retire a node after this many of its own failures within lemons.retire_window (0: never)", 0, 1e6)
          .when(facts::nodes_own_faults())
          .job_only()
          .into([](auto& s) -> auto& { return s.capacity.lemons.retire_after; }),
      quantity("lemons.retire_window", T, "7d", "window over which a node's failures count toward retirement")
          .when(positive("lemons.retire_after", "no node is retired"))
          .when(facts::nodes_own_faults())
          .job_only()
          .into([](auto& s) -> auto& { return s.capacity.lemons.retire_window; }),
      quantity("lemons.replace_time", T, "0s", "until a retired node's position holds a new, healthy node", 0.0, false)
          .when(positive("lemons.retire_after", "no node is retired"))
          .when(facts::nodes_own_faults())
          .job_only()
          .into([](auto& s) -> auto& { return s.capacity.lemon_replace_time; }),

      real("planned.count", "0", "planned interruptions per planned.window", 0.0, false, std::nullopt).job_only().into([
      ](auto& s) -> auto& { return s.planned.count; }),
      quantity("planned.window", T, "54d", "window over which planned.count is given")
          .when(positive("planned.count", "no planned interruption"))
          .job_only()
          .into([](auto& s) -> auto& { return s.planned.window; }),
      quantity("planned.duration", T, "15min", "downtime of one planned interruption, restart included", 0.0, false)
          .when(positive("planned.count", "no planned interruption"))
          .job_only()
          .into([](auto& s) -> auto& { return s.planned.duration; }),
      flag("planned.checkpoint_before", "true", "write a checkpoint just before a planned interruption")
          .when(positive("planned.count", "no planned interruption"))
          .job_only()
          .into([](auto& s) -> auto& { return s.planned.checkpoint_before; }),
      choice("planned.arrival", "uniform", "evenly spaced, or a Poisson process", {"uniform", "poisson"})
          .when(positive("planned.count", "no planned interruption"))
          .job_only()
          .into_flag(
              [](auto& s) -> auto& { return s.planned.poisson; }, "poisson"),

      integer("failures.reference_gpus", "16384", "fleet size at which failure counts were observed", 1, 1e9)
          .when(facts::a_cause_is_counted()),
      quantity("failures.reference_window", T, "54d", "window over which failure counts were observed")
          .when(facts::a_cause_is_counted()),
      real("failures.causes.<name>.count", std::nullopt,
           "interruptions in the reference window at the reference fleet size", 0.0, false, std::nullopt),
      quantity("failures.causes.<name>.mtbf", T, std::nullopt,
               "mean time between failures of one component of the cause's scope (instead of count)"),
      registered_choice(
          "failures.causes.<name>.scope", "gpu",
          "failure domain the cause takes down: a GPU (its node goes to repair), a node, a node's network link, a rack "
          "(its top-of-rack switch), a pod (network.pod_size GPUs; the whole job without pods), the storage service "
          "(the job fails and cannot reload from storage until the cause's repair time has passed), or the job "
          "(software) (models/resilience/failure_scope.hpp: the registry)",
          models::scope_names),
      choice("failures.causes.<name>.detected_by", "auto",
             "health_check: recovery.detection; watchdog: the job hangs until recovery.watchdog_timeout; auto: "
             "watchdog for link failures, health_check otherwise (a cause's own detection wins)",
             {"auto", "health_check", "watchdog"})
          .when(not_given("failures.causes.<name>.detection", "the cause's own detection wins")),
      text("failures.causes.<name>.category", "",
           "root-cause category: summary.json groups interruptions (a single job) or lost GPU-hours (a fleet) by it"),
      flag("failures.causes.<name>.scales_with_fleet", "true", "a count-based rate grows linearly with cluster.gpus")
          .when(given("failures.causes.<name>.count", "the cause is rated by mtbf"))
          .when(facts::cluster_differs_from_reference()),
      quantity("failures.causes.<name>.detection", T, std::nullopt,
               "detection delay of this cause (default recovery.detection)", 0.0, false),
      quantity("failures.causes.<name>.repair", T, std::nullopt,
               "mean repair time of the nodes this cause takes down (default repair.time)", 0.0, false)
          .when(facts::this_cause_takes_components()),
  };
}

}  // namespace fleetsim::scenario::detail
