#include "topology.hpp"

#include "topologies/builtin_topologies.hpp"

#include <deque>
#include <utility>

namespace fleetsim::models {
namespace {

struct Entry {
  std::string name;
  std::unique_ptr<Topology> topology;
};

std::deque<Entry>& registry()
{
  // The built-in topologies, one line each (models/topologies/). A deque: registering one never moves
  // the others (find_topology hands out pointers).
  static std::deque<Entry> entries = [] {
    std::deque<Entry> v;
    v.push_back({"clos", make_clos_topology()});
    v.push_back({"rail_optimized", make_rail_optimized_topology()});
    v.push_back({"torus", make_torus_topology()});
    return v;
  }();
  return entries;
}

}  // namespace

const Topology* find_topology(std::string_view name)
{
  for (const auto& e : registry())
    if (e.name == name)
      return e.topology.get();
  return nullptr;
}

std::vector<std::string> topology_names()
{
  std::vector<std::string> names;
  for (const auto& e : registry())
    names.push_back(e.name);
  return names;
}

bool register_topology(std::string name, std::unique_ptr<Topology> topology)
{
  if (find_topology(name) != nullptr || !topology)
    return false;
  registry().push_back({std::move(name), std::move(topology)});
  return true;
}

}  // namespace fleetsim::models
