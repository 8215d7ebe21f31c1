// gpu: one accelerator fails (an HBM error, a faulty GPU); its node goes to repair.
#include "builtin_scopes.hpp"

namespace fleetsim::models {
namespace {

class GpuScope final : public FailureScopeModel {
public:
  [[nodiscard]] long component_count(const FleetShape& fleet) const override { return fleet.gpus; }
  [[nodiscard]] GpuRange blast_radius(long index, const FleetShape& fleet) const override
  {
    return block_of(index, 1, fleet);
  }
  [[nodiscard]] std::optional<Strike> draw(RandomStream& which, const NodePool& pool,
                                           const FleetShape& cluster) const override
  {
    return draw_node(which, pool, cluster, true);
  }
  [[nodiscard]] bool own_fault() const override { return true; }
};

}  // namespace

std::unique_ptr<FailureScopeModel> make_gpu_scope() { return std::make_unique<GpuScope>(); }

}  // namespace fleetsim::models
