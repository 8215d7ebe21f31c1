#pragma once
// Recovery policies: what the scheduler does after a failure, as one interface with one file per
// policy (models/resilience/recovery/*.cpp) and a registry that maps the scenario's `recovery.policy` value
// to it. The scheduler (simulator/actors/job_scheduler.cpp) runs the same sequence for every policy,
//
//   detection -> [waiting for nodes] -> restart -> reload (storage | host memory) -> warm-up,
//
// and asks the policy at each decision: how many data-parallel replicas to restart on (or wait for
// repairs), how long the restart phase lasts, whether to restore from host memory, how often to
// snapshot, and when to grow back. A policy is pure: it reads the fleet's state (RecoveryView) and
// never touches SimGrid. To add one: a file in models/resilience/recovery/ with a class deriving from
// RecoveryPolicy, one line in registry() (recovery_policy.cpp) or, outside the
// simulator's sources, register_recovery_policy(); its tests; its paragraph in docs/extending.md.

#include "models/core/key_decl.hpp"
#include "models/core/units.hpp"
#include "node_pool.hpp"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fleetsim::models {

/// The scenario's recovery section (recovery.*), in SI units.
struct RecoverySpec {
  units::Seconds detection{300};
  units::Seconds watchdog_timeout{600};  // detection of hangs
  units::Seconds restart{600};
  units::Seconds warmup{0};
  // From the job's first allocation to its first step (launch, initialisation), charged as its
  // start-up: a fleet's work job's restart_cost (JobSpec::work_job); not a key, 0 in a replay.
  units::Seconds startup{0};
  std::string policy_name = "restart";
  units::Seconds spare_swap{120};         // hot_spare: replaces restart
  bool elastic_keep_global_batch = true;  // elastic: global batch kept (else per-replica batch kept)
  int elastic_min_dp = 1;
  units::Seconds memory_snapshot_interval{0};  // in_memory: 0 = every step
  units::Seconds memory_reload{30};
  int memory_copies = 2;
  /// The values of keys declared by policies registered from outside (models::extension_key): key
  /// -> value in SI units, set by the loader for every such key (its default when not given).
  std::map<std::string, double, std::less<>> extension;
  /// An extension key's value; FLEETSIM_CHECK fails when no registered policy declared the key.
  [[nodiscard]] double extension_value(std::string_view key) const;
};

/// What the scheduler counted during a run, for summary.json (a policy reports the ones it owns).
struct PolicyCounters {
  long swaps = 0;             // failed nodes replaced from the idle pool (spares or repaired nodes)
  long spares_exhausted = 0;  // recoveries that had to wait for the repair pipeline
  long spare_failures = 0;    // failures that struck only nodes outside the job
  long shrinks = 0;           // restarts on fewer replicas than before
  long regrows = 0;           // planned restarts on more replicas
  int min_dp = 0;             // fewest replicas trained on
  long memory_restores = 0;   // recoveries that restored from host memory (every policy counts them)
  long storage_restores = 0;  // recoveries that reloaded from storage (every policy counts them)
  long repairs = 0;           // nodes sent to the repair pipeline
  long episodes = 0;          // slowdown episodes started
  long drains = 0;            // slow nodes drained and replaced
  long requeues = 0;          // recoveries that gave the nodes back and waited to be placed again
};

/// The fleet as a policy sees it when it decides.
struct RecoveryView {
  const NodePool& pool;
  long job = 0;  // the job's slot table in the pool
  const RecoverySpec& spec;
  long replica_gpus = 1;  // GPUs of one data-parallel replica (tp x cp x pp)
  int gpus_per_node = 8;
  int full_dp = 1;                      // the layout's data-parallel width
  int dp = 1;                           // the job's width now
  const std::vector<long>& lost_slots;  // job slots struck since the job last started
};

class RecoveryPolicy {
public:
  virtual ~RecoveryPolicy() = default;

  /// Replicas to restart on now, or nullopt to wait for the repair pipeline. The default is a
  /// rigid job: all of its replicas, once the idle nodes can fill every empty slot. Only a policy
  /// that resizes() restarts at the width it returns; for any other, only "now or wait" counts.
  [[nodiscard]] virtual std::optional<int> restart_width(const RecoveryView& v) const;
  /// True when the job may run on fewer (or more) replicas than the layout's: the scheduler then
  /// refills the pool for restart_width() replicas and recomputes the job's shape.
  [[nodiscard]] virtual bool resizes() const { return false; }
  /// A resizing policy: the replicas the healthy nodes hold now, for a planned resize (which may
  /// find fewer than it planned for when idle nodes failed during its checkpointed stop).
  [[nodiscard]] virtual int width_now(const RecoveryView& v) const { return v.full_dp; }
  /// While training: the width to grow to with a checkpointed planned restart, if larger than now.
  [[nodiscard]] virtual std::optional<int> grow_width(const RecoveryView& /*v*/) const { return std::nullopt; }
  /// True when the job gives back every node after a failure is detected and waits, holding none,
  /// to be placed again (the cluster's queue), instead of waiting for the nodes it lacks.
  [[nodiscard]] virtual bool requeues() const { return false; }
  /// Duration of the restart phase (s).
  [[nodiscard]] virtual double restart_seconds(const RecoverySpec& spec) const { return spec.restart.si(); }
  /// True when a recovery now restores from host memory instead of storage.
  [[nodiscard]] virtual bool restores_from_memory(const RecoveryView& /*v*/) const { return false; }
  /// Training time between host-memory snapshots (s); nullopt: the policy takes none, 0: every step.
  [[nodiscard]] virtual std::optional<double> snapshot_interval(const RecoverySpec& /*spec*/) const
  {
    return std::nullopt;
  }
  /// The counters summary.json's `recovery` object shows for this policy, after the common ones.
  [[nodiscard]] virtual std::vector<std::pair<std::string, long>> reported(const PolicyCounters& /*c*/) const
  {
    return {};
  }
};

struct RecoveryPolicyEntry {
  std::string name;         // the scenario's recovery.policy value
  std::string description;  // one line, for docs and `fleetsim describe`
  std::function<std::unique_ptr<RecoveryPolicy>()> make;
  /// The recovery.* keys the policy reads beyond the common ones, declared here, next to it: the
  /// loader lists them after recovery.policy (a fleet refuses them, as it refuses recovery.policy).
  std::vector<KeyDecl<RecoverySpec>> keys = {};
  /// True when the policy times its restart phase by a key of its own (hot_spare's spare swap), so
  /// that recovery.restart is unused under it (restart_seconds() does not read it).
  bool replaces_restart = false;
};

[[nodiscard]] const RecoveryPolicyEntry* find_recovery_policy(std::string_view name);
[[nodiscard]] std::vector<std::string> recovery_policy_names();
/// Adds a policy (e.g. from a test or a plugin, at static initialisation); returns true, or false
/// when the name is taken.
bool register_recovery_policy(RecoveryPolicyEntry entry);

}  // namespace fleetsim::models
