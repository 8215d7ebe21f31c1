#include "recovery_policy.hpp"

#include "recovery/builtin_policies.hpp"

#include <algorithm>
#include <deque>

namespace fleetsim::models {

std::optional<int> RecoveryPolicy::restart_width(const RecoveryView& v) const
{
  if (v.pool.empty_slots() <= v.pool.idle())
    return v.full_dp;
  return std::nullopt;
}

namespace {

std::deque<RecoveryPolicyEntry>& registry()
{
  // The built-in policies, one line each (models/recovery/). A deque: registering one never moves
  // the others (find_recovery_policy hands out pointers).
  static std::deque<RecoveryPolicyEntry> entries = {
      {"restart", "resubmit the whole job from the last checkpoint", make_restart_policy},
      {"hot_spare", "keep the allocation, swap warm spare nodes in (recovery.spare_swap)", make_hot_spare_policy},
      {"elastic", "continue on fewer data-parallel replicas and grow back when nodes return", make_elastic_policy},
      {"in_memory", "restore from checkpoint copies in peers' host memory (Gemini-style)", make_in_memory_policy},
  };
  return entries;
}

}  // namespace

const std::deque<RecoveryPolicyEntry>& recovery_policies() { return registry(); }

const RecoveryPolicyEntry* find_recovery_policy(std::string_view name)
{
  for (const auto& e : registry())
    if (e.name == name)
      return &e;
  return nullptr;
}

std::vector<std::string> recovery_policy_names()
{
  std::vector<std::string> names;
  for (const auto& e : registry())
    names.push_back(e.name);
  return names;
}

bool register_recovery_policy(RecoveryPolicyEntry entry)
{
  if (find_recovery_policy(entry.name) != nullptr)
    return false;
  registry().push_back(std::move(entry));
  return true;
}

}  // namespace fleetsim::models
