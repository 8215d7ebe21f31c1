#pragma once
// A validated scenario as plain structs: what the loader produces and the simulator consumes.
// No SimGrid, no YAML: every value is already in SI units and inside its valid range.

#include "models/checkpoint/checkpoint_plan.hpp"
#include "models/core/names.hpp"
#include "models/core/units.hpp"
#include "models/energy/carbon.hpp"
#include "models/energy/power_model.hpp"
#include "models/fleet/cluster.hpp"
#include "models/fleet/job_generator.hpp"
#include "models/fleet/job_spec.hpp"
#include "models/fleet/scheduling_policy.hpp"
#include "models/resilience/failure_model.hpp"
#include "models/resilience/node_pool.hpp"
#include "models/resilience/recovery_policy.hpp"
#include "models/step/step_model.hpp"
#include "models/step/stragglers.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fleetsim::scenario {

/// The simulated step runs one SimGrid actor per GPU; each costs two memory mappings, and Linux's
/// default vm.max_map_count (65,530) stops SimGrid near 32k actors (shared/notes/simgrid.md).
constexpr long kMaxSimulatedGpus = 30000;
/// The expert all-to-all posts ep - 1 receives per GPU on one mailbox, which SimGrid 3.32 matches
/// by a linear scan: 64,512 flows (1,024 GPUs at ep 64) take 4.6 s, and the cost grows faster than
/// the flow count. Half a million flows keeps the step simulation within tens of seconds.
constexpr long kMaxSimulatedExpertFlows = 500000;

/// The scale-out fabric's shape beyond the per-GPU NIC (which lives in the step inputs).
/// How a fleet's jobs use the fabric: each at its isolated speed, or sharing the fabric's links
/// (simulator/platform/fleet_fabric.hpp; docs/models/fleet.md).
enum class FleetFabricMode { Isolated, Shared };
inline constexpr models::NameTable<FleetFabricMode, 2> kFleetFabricNames{
    {{"isolated", FleetFabricMode::Isolated}, {"shared", FleetFabricMode::Shared}}};

struct FabricShape {
  FleetFabricMode fleet = FleetFabricMode::Isolated;
  long pod_size = 0;  // GPUs per full-bisection pod; 0 = one pod
  double pod_oversubscription = 1;
  double rack_oversubscription = 1;  // rack (ToR) uplinks: 1:1 unless the scenario says otherwise
  std::string topology = "clos";     // clos | rail_optimized | torus
  std::vector<int> torus_dims;
  double torus_link_bandwidth = 45e9;  // bytes/s
  double torus_hop_latency = 1e-6;     // s
};

// The checkpoint section and the storage (models/checkpoint/checkpoint_plan.hpp: the checkpoint
// rules that the replay and a fleet's jobs share read them there).
using models::CheckpointFiles;
using models::CheckpointSpec;
using models::CheckpointStrategy;
using models::kCheckpointFilesNames;
using models::kCheckpointStrategyNames;
using models::StorageSpec;

/// Training data read from storage while the job trains.
struct DataSpec {
  units::Bytes bytes_per_token{0};  // 0: not modelled
  int prefetch_steps = 2;
};

using models::RecoverySpec;  // models/resilience/recovery_policy.hpp: the policies read it

/// Spare nodes and the repair pipeline.
struct CapacitySpec {
  long spare_nodes = 0;
  units::Seconds repair_time{0};  // mean; 0 = failed nodes are replaced at once
  bool repair_exponential = true;
  models::LemonSpec lemons;
  units::Seconds lemon_replace_time{0};
  /// True when the replay needs to track nodes (spares, repair, lemons or a non-restart policy).
  [[nodiscard]] bool tracks_nodes() const { return spare_nodes > 0 || repair_time.si() > 0 || lemons.any(); }
};

struct PlannedSpec {
  double count = 0;  // per window
  units::Seconds window{54 * 86400.0};
  units::Seconds duration{900};
  bool checkpoint_before = true;
  bool poisson = false;  // false: evenly spaced
};

/// Mixed accelerator generations in one job.
struct HeterogeneousSpec {
  double fraction = 0;
  std::string accelerator = "A100-SXM-80GB";
  double speed = 0.315;
  bool spread = false;
  bool balanced = false;
  [[nodiscard]] bool any() const { return fraction > 0 && speed < 1; }
};

/// A job the scenario declares by name under workload.jobs (count copies, `every` apart).
struct Scenario;

struct FleetJobDecl {
  std::string name;
  long count = 1;
  double every = 0;            // s between the copies' submissions
  models::fleet::JobSpec job;  // gpus 0: the layout's; work 0 with tokens > 0: from the step model
  double tokens = 0;
  // A replayed job that sets keys of its own (workload.jobs.<name>.recovery.policy, ...): the
  // scenario they make, the fleet's values with its own replacing them (null: the fleet's).
  std::shared_ptr<const Scenario> own;
};

/// A fleet's workload: the jobs a scenario declares, a trace's and a generator's
/// (docs/models/workload.md), in any mix.
struct WorkloadSpec {
  std::vector<FleetJobDecl> jobs;
  std::string trace_file;                                 // as shown in messages ("" = none)
  models::fleet::Workload trace_jobs;                     // read at load time
  long trace_skipped = 0;                                 // rows without GPUs or of other states
  std::optional<models::fleet::GeneratorSpec> generator;  // drawn at run time, from the run's seed
  double default_comm_fraction = 0.2;                     // workload.defaults.comm_fraction
  double checkpoint_size_per_gpu = 0;                     // workload.defaults.checkpoint_size_per_gpu (bytes)
  [[nodiscard]] bool any() const { return !jobs.empty() || !trace_file.empty() || generator.has_value(); }
};

/// The fleet scheduler (scheduler.*).
struct SchedulerSpec {
  std::string policy = "easy_backfill";
  models::fleet::Preemption preemption = models::fleet::Preemption::None;
  models::fleet::Packing packing = models::fleet::Packing::Topology;
  long backfill_depth = 1000;
  units::Seconds timeline_interval{3600};
  bool carbon_aware = false;  // deferrable jobs wait for the cleanest hour (power.carbon.intensity)
};

/// A key the scenario gives that its other choices leave unread (ParamSpec::read_when): refused,
/// unless it came from an included file (a hardware or cluster file describes the machine for
/// whichever model reads it) or the scenario is one point of a compare or a sweep. summary.json
/// lists them (unused_keys).
struct UnusedKey {
  std::string key;
  std::string reason;  // "recovery.policy is restart; it is read when recovery.policy is hot_spare"
  std::string where;   // "file:line" of the value, or "command line"
  bool included = false;
  /// The key is the scenario file's, and a choice --set changed is one of what leaves it unread
  /// (run.step_model=analytic on a scenario that gives a simulated-step key): listed, as a compare's
  /// point lists it, not refused.
  bool by_override = false;
};

struct Scenario {
  std::string name = "unnamed";
  std::string description;
  std::string source;  // file the scenario came from, as given

  models::FleetShape fleet;
  std::string accelerator_name = "H100-SXM-80GB";
  units::Watts accelerator_power{700};
  models::StepInputs step;
  FabricShape fabric;
  models::StragglerSpec stragglers;  // nodes that slow every synchronous step
  HeterogeneousSpec heterogeneous;

  StorageSpec storage;
  DataSpec data;
  CheckpointSpec checkpoint;
  RecoverySpec recovery;
  CapacitySpec capacity;
  PlannedSpec planned;
  std::vector<models::FailureCause> causes;  // in the order the scenario names them
  models::energy::PowerSpec power;           // power.* (docs/models/energy.md)

  units::Seconds duration{54 * 86400.0};
  double token_target = 0;  // tokens to train (0: none): summary.json reports when they were reached
  // The job ends once it has trained token_target tokens and checkpointed them (a fleet's job
  // declared by tokens; not a key: a single job's replay trains to the window's end).
  bool stop_at_target = false;
  // With stop_at_target: the job checkpoints its last stretch before it ends (a replayed job; not a
  // fleet's work job, which, as the closed-form job, ends as soon as its work is done).
  bool checkpoint_at_target = true;
  std::uint64_t seed = 1;
  std::string step_model = "simulated";

  WorkloadSpec workload;  // empty: the one job the model and layout describe
  SchedulerSpec scheduler;
  models::energy::CarbonSpec carbon;    // power.carbon.*, power.embodied.* (docs/models/energy.md)
  double fleet_compute_fraction = 0.7;  // power.fleet_compute_fraction
  std::vector<UnusedKey> unused_keys;   // given, and not read by this run (ParamSpec::read_when)
  /// A fleet of jobs sharing the cluster (simulator/run/fleet_simulation.hpp), not the single-job replay.
  [[nodiscard]] bool is_fleet() const { return workload.any(); }

  /// Total checkpoint size: state_per_gpu x gpus.
  [[nodiscard]] units::Bytes checkpoint_bytes() const
  {
    return checkpoint.state_per_gpu * static_cast<double>(fleet.gpus);
  }
};

}  // namespace fleetsim::scenario
