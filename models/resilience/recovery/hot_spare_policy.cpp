// hot_spare: keep the allocation and swap warm spares in: recovery.spare_swap instead of
// recovery.restart (no rescheduling, no re-initialisation of the survivors).
#include "builtin_policies.hpp"

namespace fleetsim::models {
namespace {

class HotSparePolicy final : public RecoveryPolicy {
public:
  [[nodiscard]] double restart_seconds(const RecoverySpec& spec) const override { return spec.spare_swap.si(); }
};

}  // namespace

RecoveryPolicyEntry hot_spare_policy_entry()
{
  return {"hot_spare",
          "keep the allocation, swap warm spare nodes in (recovery.spare_swap)",
          [] { return std::make_unique<HotSparePolicy>(); },
          {duration_key("recovery.spare_swap", "2min",
                        "hot_spare: restart in the job's own allocation with warm spares swapped in (replaces "
                        "recovery.restart)",
                        &RecoverySpec::spare_swap)},
          /*replaces_restart=*/true};
}

}  // namespace fleetsim::models
