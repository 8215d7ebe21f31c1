// rack: a top-of-rack switch or the rack's power fails: every node of the rack goes down.
#include "builtin_scopes.hpp"

#include "models/resilience/node_pool.hpp"
#include "models/core/random_stream.hpp"

namespace fleetsim::models {
namespace {

class RackScope final : public FailureScopeModel {
public:
  [[nodiscard]] long component_count(const FleetShape& fleet) const override
  {
    return components_of(fleet, fleet.gpus_per_rack);
  }
  [[nodiscard]] GpuRange blast_radius(long index, const FleetShape& fleet) const override
  {
    return block_of(index, fleet.gpus_per_rack, fleet);
  }
  [[nodiscard]] std::optional<Strike> draw(RandomStream& which, const NodePool& pool, const FleetShape&) const override
  {
    const auto index = static_cast<long>(which.below(static_cast<std::uint64_t>(pool.racks())));
    return Strike{index, index * pool.nodes_per_rack(), pool.nodes_per_rack()};
  }
};

}  // namespace

std::unique_ptr<FailureScopeModel> make_rack_scope() { return std::make_unique<RackScope>(); }

}  // namespace fleetsim::models
