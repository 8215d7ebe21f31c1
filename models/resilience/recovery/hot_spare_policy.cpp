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

std::unique_ptr<RecoveryPolicy> make_hot_spare_policy() { return std::make_unique<HotSparePolicy>(); }

}  // namespace fleetsim::models
