// in_memory: host-memory snapshots every step (or recovery.memory_snapshot_interval) held by the
// node and recovery.memory_copies - 1 peers one rack apart (Gemini-style). A recovery reloads from
// memory (recovery.memory_reload), losing only the training since the last snapshot; from storage
// when a failure left some shard with no surviving copy.
#include "builtin_policies.hpp"

#include "models/resilience/node_pool.hpp"

namespace fleetsim::models {
namespace {

class InMemoryPolicy final : public RecoveryPolicy {
public:
  [[nodiscard]] bool restores_from_memory(const RecoveryView& v) const override
  {
    return memory_copies_survive(v.lost_slots, v.pool.job_slots(v.job), v.spec.memory_copies, v.pool.nodes_per_rack());
  }
  [[nodiscard]] std::optional<double> snapshot_interval(const RecoverySpec& spec) const override
  {
    return spec.memory_snapshot_interval.si();
  }
  [[nodiscard]] std::vector<std::pair<std::string, long>> reported(const PolicyCounters& c) const override
  {
    return {{"memory_restores", c.memory_restores}, {"storage_restores", c.storage_restores}};
  }
};

}  // namespace

RecoveryPolicyEntry in_memory_policy_entry()
{
  return {"in_memory",
          "restore from checkpoint copies in peers' host memory (Gemini-style)",
          [] { return std::make_unique<InMemoryPolicy>(); },
          {duration_key("recovery.memory_snapshot_interval", "0s",
                        "in_memory: training time between snapshots to host memory (0: every step); snapshots are "
                        "assumed hidden behind training",
                        &RecoverySpec::memory_snapshot_interval),
           duration_key("recovery.memory_reload", "30s",
                        "in_memory: restoring the state from host memory and peers (replaces the storage reload)",
                        &RecoverySpec::memory_reload),
           count_key("recovery.memory_copies", "2",
                     "in_memory: copies of each node's shard, on its own node and on peers in other racks",
                     &RecoverySpec::memory_copies, 1, 64)}};
}

}  // namespace fleetsim::models
