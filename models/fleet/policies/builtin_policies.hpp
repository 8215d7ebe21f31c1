#pragma once
// The built-in scheduling policies, one file each (registered by scheduling_policy.cpp).

#include "models/fleet/scheduling_policy.hpp"

#include <vector>

namespace fleetsim::models::fleet {

[[nodiscard]] SchedulingPolicyEntry fifo_policy_entry();
[[nodiscard]] SchedulingPolicyEntry easy_backfill_policy_entry();
[[nodiscard]] SchedulingPolicyEntry priority_policy_entry();

[[nodiscard]] inline std::vector<SchedulingPolicyEntry> builtin_scheduling_policies()
{
  return {fifo_policy_entry(), easy_backfill_policy_entry(), priority_policy_entry()};
}

}  // namespace fleetsim::models::fleet
