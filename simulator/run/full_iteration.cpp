#include "full_iteration.hpp"

#include "models/network/collectives.hpp"
#include "models/step/iteration_flows.hpp"
#include "simulator/actors/iteration_rank.hpp"
#include "simulator/platform/fabric_builder.hpp"
#include "simulator/run/engine_setup.hpp"
#include "simulator/run/step_simulation.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <stdexcept>
#include <unordered_map>
#include <utility>

namespace fleetsim::sim {

namespace {

struct Edge {
  double t;
  int delta;  // +1 start, -1 finish
  int kind;
  int group;
};

// The sharing of one link direction from the intervals of the flows that crossed it.
LinkSharing sweep(std::string name, std::vector<Edge>& edges)
{
  // Finishes before starts at the same instant: a flow that ends as another begins does not share.
  std::sort(edges.begin(), edges.end(),
            [](const Edge& a, const Edge& b) { return a.t != b.t ? a.t < b.t : a.delta < b.delta; });
  LinkSharing out;
  out.link = std::move(name);
  std::map<std::pair<int, int>, int> active;  // (kind, group) -> flows
  int flows = 0;
  int per_kind[2] = {0, 0};
  double last = edges.empty() ? 0.0 : edges.front().t;
  for (const Edge& e : edges) {
    if (active.size() >= 2)
      out.shared_s += e.t - last;
    if (per_kind[0] > 0 && per_kind[1] > 0)
      out.mixed_s += e.t - last;
    last = e.t;
    flows += e.delta;
    per_kind[e.kind] += e.delta;
    auto key = std::make_pair(e.kind, e.group);
    if ((active[key] += e.delta) == 0)
      active.erase(key);
    out.max_flows = std::max(out.max_flows, flows);
    out.max_groups = std::max(out.max_groups, static_cast<int>(active.size()));
  }
  return out;
}

bool is_uplink(const std::string& name) { return name.find("-uplink") != std::string::npos; }

// Every recorded flow's interval on every link of its route; uplinks in full, the busiest NIC.
void link_sharing(const IterationShared& shared, FullIteration& r)
{
  std::unordered_map<const sg4::Link*, std::vector<Edge>> per_link;
  std::vector<sg4::Link*> route;
  for (const FlowRecord& f : shared.records) {
    if (!(f.finish > f.start))
      continue;
    route.clear();
    double latency = 0;
    shared.hosts[static_cast<size_t>(f.src)]->route_to(shared.hosts[static_cast<size_t>(f.dst)], route, &latency);
    for (const sg4::Link* link : route) {
      auto& edges = per_link[link];
      edges.push_back({f.start, +1, static_cast<int>(f.kind), f.group});
      edges.push_back({f.finish, -1, static_cast<int>(f.kind), f.group});
    }
  }
  for (auto& [link, edges] : per_link) {
    LinkSharing s = sweep(link->get_name(), edges);
    if (is_uplink(s.link)) {
      r.uplinks.push_back(std::move(s));
    } else if (std::make_tuple(s.max_groups, s.mixed_s, s.link) >
               std::make_tuple(r.busiest_nic.max_groups, r.busiest_nic.mixed_s, r.busiest_nic.link)) {
      r.busiest_nic = std::move(s);
    }
  }
  std::sort(r.uplinks.begin(), r.uplinks.end(),
            [](const LinkSharing& a, const LinkSharing& b) { return a.link < b.link; });
}

}  // namespace

FullIteration simulate_full_iteration(const scenario::Scenario& s)
{
  const auto wall0 = std::chrono::steady_clock::now();
  const models::StepInputs& in = s.step;
  if (in.layout.cp != 1 || in.layout.ep != 1)
    throw std::invalid_argument("the full iteration models cp = ep = 1 only");
  const models::IterationPlan plan = models::make_iteration_plan(in);
  const int ranks = static_cast<int>(in.layout.gpus());

  auto engine = make_engine();
  const Fabric fabric = build_fabric(fabric_spec(s, ranks));
  IterationShared shared;
  shared.layout = in.layout;
  shared.micro_batches = plan.micro_batches;
  shared.flows = models::make_iteration_flows(plan, in);
  shared.hosts = fabric.ranks;
  launch_iteration(shared);
  engine->run();

  FullIteration r;
  for (const RankSync& sync : shared.sync)
    r.makespan_s = std::max({r.makespan_s, std::max(sync.compute_end, sync.dp_end) + plan.optimizer_s});
  r.barrier_s = models::barrier_time(ranks, in.fabric.nic_latency).si();
  r.step_time_s = r.makespan_s + r.barrier_s;
  r.comms = shared.comms;
  r.execs = shared.execs;
  r.recorded_flows = static_cast<long>(shared.records.size());
  link_sharing(shared, r);
  r.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return r;
}

}  // namespace fleetsim::sim
