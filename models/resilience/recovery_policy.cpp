#include "recovery_policy.hpp"

#include "models/core/named_registry.hpp"
#include "recovery/builtin_policies.hpp"

#include <utility>

namespace fleetsim::models {

std::optional<int> RecoveryPolicy::restart_width(const RecoveryView& v) const
{
  if (v.pool.empty_slots() <= v.pool.idle())
    return v.full_dp;
  return std::nullopt;
}

namespace {

NamedRegistry<RecoveryPolicyEntry>& registry()
{
  // The built-in policies, one line each (models/resilience/recovery/).
  static NamedRegistry<RecoveryPolicyEntry> r = [] {
    NamedRegistry<RecoveryPolicyEntry> v;
    for (auto e :
         {RecoveryPolicyEntry{"restart", "resubmit the whole job from the last checkpoint", make_restart_policy},
          RecoveryPolicyEntry{"hot_spare", "keep the allocation, swap warm spare nodes in (recovery.spare_swap)",
                              make_hot_spare_policy},
          RecoveryPolicyEntry{"elastic", "continue on fewer data-parallel replicas and grow back when nodes return",
                              make_elastic_policy},
          RecoveryPolicyEntry{"in_memory", "restore from checkpoint copies in peers' host memory (Gemini-style)",
                              make_in_memory_policy}})
      v.add(e.name, e);
    return v;
  }();
  return r;
}

}  // namespace

const RecoveryPolicyEntry* find_recovery_policy(std::string_view name) { return registry().find(name); }

std::vector<std::string> recovery_policy_names() { return registry().names(); }

bool register_recovery_policy(RecoveryPolicyEntry entry)
{
  std::string name = entry.name;
  return registry().add(std::move(name), std::move(entry));
}

}  // namespace fleetsim::models
