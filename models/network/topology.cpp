#include "topology.hpp"

#include "models/core/named_registry.hpp"
#include "topologies/builtin_topologies.hpp"

#include <utility>

namespace fleetsim::models {
namespace {

NamedRegistry<std::unique_ptr<Topology>>& registry()
{
  // The built-in topologies, one line each (models/network/topologies/).
  static NamedRegistry<std::unique_ptr<Topology>> r = [] {
    NamedRegistry<std::unique_ptr<Topology>> v;
    v.add("clos", make_clos_topology());
    v.add("rail_optimized", make_rail_optimized_topology());
    v.add("torus", make_torus_topology());
    return v;
  }();
  return r;
}

}  // namespace

const Topology* find_topology(std::string_view name)
{
  const auto* t = registry().find(name);
  return t != nullptr ? t->get() : nullptr;
}

std::vector<std::string> topology_names() { return registry().names(); }

bool register_topology(std::string name, std::unique_ptr<Topology> topology)
{
  return topology && registry().add(std::move(name), std::move(topology));
}

}  // namespace fleetsim::models
