// link: a node's link to the fabric fails: the node is cut off (its GPUs are lost to the job) and the
// job hangs until the collective watchdog sees it. Uniform over the nodes: lemon weights are the
// nodes' own hardware, not their cables.
#include "builtin_scopes.hpp"

#include "models/resilience/node_pool.hpp"
#include "models/core/random_stream.hpp"

namespace fleetsim::models {
namespace {

class LinkScope final : public FailureScopeModel {
public:
  [[nodiscard]] long component_count(const FleetShape& fleet) const override
  {
    return components_of(fleet, fleet.gpus_per_node);
  }
  [[nodiscard]] GpuRange blast_radius(long index, const FleetShape& fleet) const override
  {
    return block_of(index, fleet.gpus_per_node, fleet);
  }
  [[nodiscard]] std::optional<Strike> draw(RandomStream& which, const NodePool& pool, const FleetShape&) const override
  {
    const auto index = static_cast<long>(which.below(static_cast<std::uint64_t>(pool.size())));
    if (!pool.up(index))
      return std::nullopt;
    return Strike{index, index, 1};
  }
  [[nodiscard]] bool hangs() const override { return true; }
};

}  // namespace

std::unique_ptr<FailureScopeModel> make_link_scope() { return std::make_unique<LinkScope>(); }

}  // namespace fleetsim::models
