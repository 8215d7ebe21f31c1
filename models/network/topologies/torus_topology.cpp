// torus: no switches; every GPU links to its two neighbours in each of the torus dimensions
// (TPU-style ICI), routed dimension by dimension, the shorter way round each ring. NVLink and the
// NICs are not used.
#include "builtin_topologies.hpp"

#include "models/core/units.hpp"

namespace fleetsim::models {
namespace {

class TorusTopology final : public Topology {
public:
  [[nodiscard]] std::vector<std::string> check(const FabricSpec& spec) const override
  {
    std::vector<std::string> out;
    long product = 1;
    for (int d : spec.torus_dims)
      product *= d;
    if (spec.torus_dims.empty() || product != spec.ranks)
      out.push_back("the torus dimensions must multiply to the " + std::to_string(spec.ranks) + " GPUs");
    if (!(spec.torus_link_bandwidth > 0))
      out.push_back("the torus link bandwidth must be positive");
    return out;
  }
  [[nodiscard]] FabricLayout lay_out(const FabricSpec&) const override
  {
    FabricLayout f;
    f.torus = true;
    return f;
  }
  [[nodiscard]] std::string describe(const FabricSpec& spec, const FabricLayout&) const override
  {
    std::string dims;
    for (int d : spec.torus_dims) {
      if (!dims.empty())
        dims += 'x';
      dims += std::to_string(d);
    }
    return "3-D torus " + dims + ", " + units::format_quantity(spec.torus_link_bandwidth, units::Dimension::Bandwidth) +
           " per link each way, " + units::format_quantity(spec.torus_hop_latency, units::Dimension::Time) + " per hop";
  }
  [[nodiscard]] bool switched() const override { return false; }
};

}  // namespace

std::unique_ptr<Topology> make_torus_topology() { return std::make_unique<TorusTopology>(); }

}  // namespace fleetsim::models
