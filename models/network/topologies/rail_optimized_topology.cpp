// rail_optimized: inside a pod, GPU r of every node hangs off rail switch r, so the pod's uplink is
// split per rail: each (pod, rail) group gets pod_size / gpus_per_node x NIC bandwidth /
// pod_oversubscription, and cross-rail traffic climbs to the spine. Rail groups replace the rack and
// pod levels.
#include "builtin_topologies.hpp"

#include <cstdio>

namespace fleetsim::models {
namespace {

class RailOptimizedTopology final : public Topology {
public:
  [[nodiscard]] std::vector<std::string> check(const FabricSpec& spec) const override
  {
    if (spec.gpus_per_node < 2)
      return {"a rail-optimized fabric needs more than one GPU per node"};
    return {};
  }
  [[nodiscard]] FabricLayout lay_out(const FabricSpec& spec) const override
  {
    FabricLayout f;
    const int pod = spec.pod_size > 0 ? spec.pod_size : spec.ranks;
    const double members = static_cast<double>(pod) / spec.gpus_per_node;
    f.levels.push_back({pod, members * spec.nic_bandwidth / spec.pod_oversubscription, "rail", true});
    f.pods = (spec.ranks + pod - 1) / pod;
    return f;
  }
  [[nodiscard]] std::string describe(const FabricSpec& spec, const FabricLayout& layout) const override
  {
    std::string out = describe_nodes(spec);
    char buf[96];
    std::snprintf(buf, sizeof buf, ", rail-optimized (each pod's rail uplinks at 1:%g)", spec.pod_oversubscription);
    out += buf;
    if (layout.pods > 1) {
      std::snprintf(buf, sizeof buf, ", %d pods of %d GPUs at 1:%g", layout.pods, spec.pod_size,
                    spec.pod_oversubscription);
      out += buf;
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Topology> make_rail_optimized_topology() { return std::make_unique<RailOptimizedTopology>(); }

}  // namespace fleetsim::models
