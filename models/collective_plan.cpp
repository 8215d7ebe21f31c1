#include "collective_plan.hpp"

#include <algorithm>
#include <cassert>
#include <map>

namespace fleetsim::models {
namespace {

int ceil_log2(int n)
{
  int depth = 0;
  for (long reach = 1; reach < n; reach *= 2)
    ++depth;
  return depth;
}

TrafficStep ring_step(int ranks, double bytes, long repetitions, std::string label)
{
  TrafficStep s;
  s.label = std::move(label);
  s.repetitions = repetitions;
  for (int r = 0; r < ranks; ++r)
    s.flows.push_back({r, (r + 1) % ranks, bytes});
  return s;
}

// Level k of a binomial reduce: r -> r - 2^k for every r with r mod 2^(k+1) == 2^k.
TrafficStep tree_level(int ranks, double bytes, int k, bool down)
{
  TrafficStep s;
  s.label = std::string(down ? "broadcast" : "reduce") + " level " + std::to_string(k);
  const int half = 1 << k;
  for (int r = half; r < ranks; r += 2 * half) {
    if (down)
      s.flows.push_back({r - half, r, bytes});
    else
      s.flows.push_back({r, r - half, bytes});
  }
  return s;
}

}  // namespace

std::string_view op_name(CollectiveOp op)
{
  switch (op) {
    case CollectiveOp::AllReduce: return "allreduce";
    case CollectiveOp::ReduceScatter: return "reducescatter";
    case CollectiveOp::AllGather: return "allgather";
    case CollectiveOp::Broadcast: return "broadcast";
  }
  return "?";
}

std::string_view algo_name(CollectiveAlgo algo) { return algo == CollectiveAlgo::Ring ? "ring" : "tree"; }

std::optional<CollectiveOp> op_from_name(std::string_view name)
{
  for (auto op : {CollectiveOp::AllReduce, CollectiveOp::ReduceScatter, CollectiveOp::AllGather,
                  CollectiveOp::Broadcast})
    if (op_name(op) == name)
      return op;
  return std::nullopt;
}

std::optional<CollectiveAlgo> algo_from_name(std::string_view name)
{
  for (auto a : {CollectiveAlgo::Ring, CollectiveAlgo::Tree})
    if (algo_name(a) == name)
      return a;
  return std::nullopt;
}

bool plan_supported(CollectiveOp op, CollectiveAlgo algo)
{
  return algo == CollectiveAlgo::Ring || op == CollectiveOp::AllReduce || op == CollectiveOp::Broadcast;
}

CollectivePlan make_plan(CollectiveOp op, CollectiveAlgo algo, int ranks, double bytes)
{
  assert(ranks >= 1 && bytes >= 0 && plan_supported(op, algo));
  CollectivePlan p;
  p.op = op;
  p.algo = algo;
  p.ranks = ranks;
  p.bytes = bytes;
  if (ranks == 1)
    return p;
  const double chunk = bytes / ranks;
  if (algo == CollectiveAlgo::Ring) {
    switch (op) {
      case CollectiveOp::AllReduce:
        p.steps.push_back(ring_step(ranks, chunk, 2L * (ranks - 1), "ring step"));
        break;
      case CollectiveOp::ReduceScatter:
      case CollectiveOp::AllGather:
        p.steps.push_back(ring_step(ranks, chunk, ranks - 1L, "ring step"));
        break;
      case CollectiveOp::Broadcast: {
        // Pipelined chain: N chunks of M/N pass N-1 hops; (N-1) + (N-1) steps of one chunk.
        TrafficStep s = ring_step(ranks, chunk, 2L * (ranks - 1), "chain step");
        s.flows.pop_back();  // the last rank does not send back to the root
        p.steps.push_back(std::move(s));
        break;
      }
    }
    return p;
  }
  const int depth = ceil_log2(ranks);
  const bool up = op == CollectiveOp::AllReduce;
  const bool down = true;  // all-reduce's broadcast half, or the broadcast itself
  if (up)
    for (int k = 0; k < depth; ++k)
      p.steps.push_back(tree_level(ranks, bytes, k, false));
  if (down)
    for (int k = depth - 1; k >= 0; --k)
      p.steps.push_back(tree_level(ranks, bytes, k, true));
  return p;
}

CollectivePlan concurrent_groups(const CollectivePlan& plan, int groups)
{
  assert(groups >= 1);
  CollectivePlan out = plan;
  out.ranks = plan.ranks * groups;
  for (auto& step : out.steps) {
    std::vector<Flow> flows;
    flows.reserve(step.flows.size() * static_cast<size_t>(groups));
    for (int g = 0; g < groups; ++g)
      for (const auto& f : step.flows)
        flows.push_back({f.src * groups + g, f.dst * groups + g, f.bytes});
    step.flows = std::move(flows);
  }
  return out;
}

double CollectivePlan::bytes_sent_per_rank() const
{
  std::map<int, double> sent;
  for (const auto& s : steps)
    for (const auto& f : s.flows)
      sent[f.src] += f.bytes * static_cast<double>(s.repetitions);
  double most = 0;
  for (const auto& [rank, b] : sent)
    most = std::max(most, b);
  return most;
}

long CollectivePlan::total_step_executions() const
{
  long n = 0;
  for (const auto& s : steps)
    n += s.repetitions;
  return n;
}

units::Seconds plan_time(const CollectivePlan& plan, AlphaBeta link)
{
  double t = 0;
  for (const auto& s : plan.steps) {
    double largest = 0;
    for (const auto& f : s.flows)
      largest = std::max(largest, f.bytes);
    t += static_cast<double>(s.repetitions) * (link.alpha.si() + largest / link.beta.si());
  }
  return units::Seconds(t);
}

double bus_bandwidth(CollectiveOp op, int ranks, double bytes, units::Seconds time)
{
  if (time.si() <= 0 || ranks <= 1)
    return 0;
  const double n = ranks;
  double factor = 1;
  if (op == CollectiveOp::AllReduce)
    factor = 2 * (n - 1) / n;
  else if (op == CollectiveOp::ReduceScatter || op == CollectiveOp::AllGather)
    factor = (n - 1) / n;
  return bytes / time.si() * factor;
}

units::Seconds tree_allreduce_time(units::Bytes bytes, int ranks, AlphaBeta link)
{
  if (ranks <= 1)
    return units::Seconds(0);
  return (link.alpha + bytes / link.beta) * (2.0 * ceil_log2(ranks));
}

}  // namespace fleetsim::models
