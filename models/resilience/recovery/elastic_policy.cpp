// elastic: restart at once on as many whole data-parallel replicas as the healthy nodes hold (at
// least recovery.elastic_min_dp), and grow back with a planned restart (checkpoint, restart, reload,
// warm-up) when repaired nodes make room for more replicas.
#include "builtin_policies.hpp"

#include "models/resilience/run_plan.hpp"

namespace fleetsim::models {
namespace {

// Replicas the healthy nodes hold, at most the layout's dp.
int healthy_width(const RecoveryView& v)
{
  return elastic_width(v.pool.active(v.job) + v.pool.idle(), v.replica_gpus, v.gpus_per_node, v.full_dp,
                       v.pool.job_slots(v.job));
}

class ElasticPolicy final : public RecoveryPolicy {
public:
  [[nodiscard]] std::optional<int> restart_width(const RecoveryView& v) const override
  {
    const int dp = healthy_width(v);
    return dp >= v.spec.elastic_min_dp ? std::optional<int>(dp) : std::nullopt;
  }
  [[nodiscard]] bool resizes() const override { return true; }
  [[nodiscard]] int width_now(const RecoveryView& v) const override { return healthy_width(v); }
  [[nodiscard]] std::optional<int> grow_width(const RecoveryView& v) const override
  {
    const int dp = healthy_width(v);
    return dp > v.dp ? std::optional<int>(dp) : std::nullopt;
  }
  [[nodiscard]] std::vector<std::pair<std::string, long>> reported(const PolicyCounters& c) const override
  {
    return {{"shrinks", c.shrinks}, {"regrows", c.regrows}, {"min_dp", c.min_dp}};
  }
};

}  // namespace

RecoveryPolicyEntry elastic_policy_entry()
{
  return {"elastic",
          "continue on fewer data-parallel replicas and grow back when nodes return",
          [] { return std::make_unique<ElasticPolicy>(); },
          {flag_choice_key("recovery.elastic_batch", "global",
                           "elastic: keep the global batch (more micro-batches per replica) or the per-replica batch "
                           "(smaller global batch)",
                           "global", "per_replica", &RecoverySpec::elastic_keep_global_batch),
           count_key("recovery.elastic_min_dp", "1",
                     "elastic: fewest data-parallel replicas to train on; below it the job waits for nodes",
                     &RecoverySpec::elastic_min_dp, 1, 1e8)}};
}

}  // namespace fleetsim::models
