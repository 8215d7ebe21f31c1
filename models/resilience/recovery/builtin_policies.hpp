#pragma once
// The built-in recovery policies, one file each; registered by name in recovery_policy.cpp.

#include "models/resilience/recovery_policy.hpp"

#include <memory>

namespace fleetsim::models {

[[nodiscard]] std::unique_ptr<RecoveryPolicy> make_restart_policy();
[[nodiscard]] std::unique_ptr<RecoveryPolicy> make_hot_spare_policy();
[[nodiscard]] std::unique_ptr<RecoveryPolicy> make_elastic_policy();
[[nodiscard]] std::unique_ptr<RecoveryPolicy> make_in_memory_policy();

}  // namespace fleetsim::models
