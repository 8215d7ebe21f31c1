#pragma once
// The built-in recovery policies, one file each: its class, and its entry (name, description,
// factory and the keys it declares), registered in recovery_policy.cpp.

#include "models/resilience/recovery_policy.hpp"

#include <memory>

namespace fleetsim::models {

[[nodiscard]] RecoveryPolicyEntry restart_policy_entry();
[[nodiscard]] RecoveryPolicyEntry hot_spare_policy_entry();
[[nodiscard]] RecoveryPolicyEntry elastic_policy_entry();
[[nodiscard]] RecoveryPolicyEntry in_memory_policy_entry();
[[nodiscard]] RecoveryPolicyEntry requeue_policy_entry();

}  // namespace fleetsim::models
