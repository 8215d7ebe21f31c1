#include "recovery_policy.hpp"

#include "models/core/check.hpp"
#include "models/core/named_registry.hpp"
#include "recovery/builtin_policies.hpp"

#include <utility>

namespace fleetsim::models {

double RecoverySpec::extension_value(std::string_view key) const
{
  const auto it = extension.find(key);
  FLEETSIM_CHECK(it != extension.end(), "a policy reads only the extension keys it declared");
  return it->second;
}

std::optional<int> RecoveryPolicy::restart_width(const RecoveryView& v) const
{
  if (v.pool.empty_slots(v.job) <= v.pool.idle())
    return v.full_dp;
  return std::nullopt;
}

namespace {

NamedRegistry<RecoveryPolicyEntry>& registry()
{
  // The built-in policies, one line each (models/resilience/recovery/).
  static NamedRegistry<RecoveryPolicyEntry> r = [] {
    NamedRegistry<RecoveryPolicyEntry> v;
    for (auto e : {restart_policy_entry(), hot_spare_policy_entry(), elastic_policy_entry(), in_memory_policy_entry(),
                   requeue_policy_entry()})
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
