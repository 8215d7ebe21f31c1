// clos: NVLink nodes, then racks (one ToR switch each) and pods (a full-bisection block) of a Clos
// fabric, each level with its own oversubscription. A level at 1:1 cannot be a bottleneck in a
// flow-level model (its uplink carries at most what its NICs send), so racks at 1:1 add no links;
// pods always do, so that the pod count is visible. Llama 3's cluster ([L3] section 3.3.1): 8-GPU
// nodes, 16-GPU racks at 1:1, 3,072-GPU pods at 1:1 inside and 1:7 to the aggregation layer.
#include "builtin_topologies.hpp"

#include "models/core/units.hpp"

#include <cstdio>

namespace fleetsim::models {

std::string describe_nodes(const FabricSpec& spec)
{
  auto bw = [](double v) { return units::format_quantity(v, units::Dimension::Bandwidth); };
  return std::to_string(spec.gpus_per_node) + "-GPU NVLink nodes at " + bw(spec.nvlink_bandwidth) + ", " +
         bw(spec.nic_bandwidth) + " NIC per GPU (" + units::format_quantity(spec.nic_latency, units::Dimension::Time) +
         ")";
}

namespace {

class ClosTopology final : public Topology {
public:
  [[nodiscard]] FabricLayout lay_out(const FabricSpec& spec) const override
  {
    FabricLayout f;
    if (spec.rack_size > 0 && spec.rack_size < spec.ranks && spec.rack_oversubscription > 1) {
      f.levels.push_back({spec.rack_size, spec.rack_size * spec.nic_bandwidth / spec.rack_oversubscription, "rack"});
      f.racks = (spec.ranks + spec.rack_size - 1) / spec.rack_size;
    }
    if (spec.pod_size > 0 && spec.pod_size < spec.ranks) {
      f.levels.push_back({spec.pod_size, spec.pod_size * spec.nic_bandwidth / spec.pod_oversubscription, "pod"});
      f.pods = (spec.ranks + spec.pod_size - 1) / spec.pod_size;
    }
    return f;
  }
  [[nodiscard]] std::string describe(const FabricSpec& spec, const FabricLayout& layout) const override
  {
    std::string out = describe_nodes(spec);
    char buf[96];
    if (layout.racks > 0) {
      std::snprintf(buf, sizeof buf, ", %d-GPU racks at 1:%g", spec.rack_size, spec.rack_oversubscription);
      out += buf;
    }
    if (layout.pods > 1) {
      std::snprintf(buf, sizeof buf, ", %d pods of %d GPUs at 1:%g", layout.pods, spec.pod_size,
                    spec.pod_oversubscription);
      out += buf;
    } else {
      out += ", one full-bisection pod";
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Topology> make_clos_topology() { return std::make_unique<ClosTopology>(); }

}  // namespace fleetsim::models
