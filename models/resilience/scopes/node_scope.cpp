// node: a host fails (CPU, memory, power supply): all of its GPUs are lost; it goes to repair.
#include "builtin_scopes.hpp"

namespace fleetsim::models {
namespace {

class NodeScope final : public FailureScopeModel {
public:
  [[nodiscard]] long component_count(const FleetShape& fleet) const override
  {
    return components_of(fleet, fleet.gpus_per_node);
  }
  [[nodiscard]] GpuRange blast_radius(long index, const FleetShape& fleet) const override
  {
    return block_of(index, fleet.gpus_per_node, fleet);
  }
  [[nodiscard]] std::optional<Strike> draw(RandomStream& which, const NodePool& pool,
                                           const FleetShape& cluster) const override
  {
    return draw_node(which, pool, cluster, false);
  }
  [[nodiscard]] bool own_fault() const override { return true; }
};

}  // namespace

std::unique_ptr<FailureScopeModel> make_node_scope() { return std::make_unique<NodeScope>(); }

}  // namespace fleetsim::models
