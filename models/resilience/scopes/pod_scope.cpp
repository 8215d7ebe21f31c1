// pod: a pod's aggregation switches fail: every node of the pod (network.pod_size GPUs) goes down.
#include "builtin_scopes.hpp"

#include "models/resilience/node_pool.hpp"
#include "models/core/random_stream.hpp"

namespace fleetsim::models {
namespace {

long pod_gpus(const FleetShape& fleet) { return fleet.gpus_per_pod > 0 ? fleet.gpus_per_pod : fleet.gpus; }

class PodScope final : public FailureScopeModel {
public:
  [[nodiscard]] long component_count(const FleetShape& fleet) const override
  {
    return components_of(fleet, pod_gpus(fleet));
  }
  [[nodiscard]] GpuRange blast_radius(long index, const FleetShape& fleet) const override
  {
    return block_of(index, pod_gpus(fleet), fleet);
  }
  [[nodiscard]] std::optional<Strike> draw(RandomStream& which, const NodePool& pool, const FleetShape&) const override
  {
    const auto index = static_cast<long>(which.below(static_cast<std::uint64_t>(pool.pods())));
    return Strike{index, index * pool.nodes_per_pod(), pool.nodes_per_pod()};
  }
};

}  // namespace

std::unique_ptr<FailureScopeModel> make_pod_scope() { return std::make_unique<PodScope>(); }

}  // namespace fleetsim::models
