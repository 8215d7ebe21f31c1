// storage: the storage service fails for the cause's repair time: the job's I/O fails (it crashes),
// and no checkpoint can be read until storage is back; host-memory snapshots do not need it.
#include "builtin_scopes.hpp"

namespace fleetsim::models {
namespace {

class StorageScope final : public FailureScopeModel {
public:
  [[nodiscard]] long component_count(const FleetShape&) const override { return 1; }
  [[nodiscard]] GpuRange blast_radius(long, const FleetShape& fleet) const override { return {0, fleet.gpus}; }
  [[nodiscard]] std::optional<Strike> draw(RandomStream&, const NodePool&, const FleetShape&) const override
  {
    return Strike{};
  }
  [[nodiscard]] ScopeEffect effect() const override { return ScopeEffect::StorageOutage; }
};

}  // namespace

std::unique_ptr<FailureScopeModel> make_storage_scope() { return std::make_unique<StorageScope>(); }

}  // namespace fleetsim::models
