#include "collective_plan.hpp"

#include "models/core/check.hpp"

#include <algorithm>
#include <cmath>
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
    case CollectiveOp::AllToAll: return "alltoall";
    case CollectiveOp::SendRecv: return "sendrecv";
  }
  return "?";
}

std::string_view algo_name(CollectiveAlgo algo)
{
  switch (algo) {
    case CollectiveAlgo::Ring: return "ring";
    case CollectiveAlgo::Tree: return "tree";
    case CollectiveAlgo::DoubleTree: return "doubletree";
    case CollectiveAlgo::Hierarchical: return "hierarchical";
    case CollectiveAlgo::Direct: return "direct";
  }
  return "?";
}

std::optional<CollectiveOp> op_from_name(std::string_view name)
{
  for (auto op : {CollectiveOp::AllReduce, CollectiveOp::ReduceScatter, CollectiveOp::AllGather,
                  CollectiveOp::Broadcast, CollectiveOp::AllToAll, CollectiveOp::SendRecv})
    if (op_name(op) == name)
      return op;
  return std::nullopt;
}

std::optional<CollectiveAlgo> algo_from_name(std::string_view name)
{
  for (auto a : {CollectiveAlgo::Ring, CollectiveAlgo::Tree, CollectiveAlgo::DoubleTree, CollectiveAlgo::Hierarchical,
                 CollectiveAlgo::Direct})
    if (algo_name(a) == name)
      return a;
  return std::nullopt;
}

bool plan_supported(CollectiveOp op, CollectiveAlgo algo)
{
  using Op = CollectiveOp;
  switch (algo) {
    case CollectiveAlgo::Ring: return op != Op::AllToAll && op != Op::SendRecv;
    case CollectiveAlgo::Tree: return op == Op::AllReduce || op == Op::Broadcast;
    case CollectiveAlgo::DoubleTree: return op == Op::AllReduce;
    case CollectiveAlgo::Hierarchical: return op == Op::AllReduce || op == Op::ReduceScatter || op == Op::AllGather;
    case CollectiveAlgo::Direct: return op == Op::AllToAll || op == Op::SendRecv;
  }
  return false;
}

namespace {

// Both trees' edges (child, parent); see make_plan.
std::vector<Flow> double_tree_edges(int ranks, double bytes)
{
  std::vector<Flow> edges;
  for (int i = 1; i < ranks; ++i) {
    const int parent = (i - 1) / 2;
    edges.push_back({i, parent, bytes});
    edges.push_back({ranks - 1 - i, ranks - 1 - parent, bytes});
  }
  return edges;
}

int heap_height(int ranks)
{
  int height = 0;
  for (long last = ranks - 1; last > 0; last = (last - 1) / 2)
    ++height;
  return height;
}

// Ring steps among the ranks {base + k * stride}, k = 0..count-1, for every base in `bases`.
TrafficStep strided_rings(const std::vector<int>& bases, int count, int stride, double bytes, long repetitions,
                          std::string label)
{
  TrafficStep s;
  s.label = std::move(label);
  s.repetitions = repetitions;
  for (int base : bases)
    for (int k = 0; k < count; ++k)
      s.flows.push_back({base + k * stride, base + ((k + 1) % count) * stride, bytes});
  return s;
}

void hierarchical(CollectivePlan& p, int g)
{
  const int n = p.ranks / g;
  std::vector<int> node_bases;
  std::vector<int> local_bases;
  for (int node = 0; node < n; ++node)
    node_bases.push_back(node * g);
  for (int l = 0; l < g; ++l)
    local_bases.push_back(l);
  const double intra = p.bytes / g;
  const double inter = p.bytes / (static_cast<double>(g) * n);
  const bool rs = p.op != CollectiveOp::AllGather;
  const bool ag = p.op != CollectiveOp::ReduceScatter;
  if (rs && g > 1)
    p.steps.push_back(strided_rings(node_bases, g, 1, intra, g - 1L, "intra-node reduce-scatter step"));
  if (rs && n > 1)
    p.steps.push_back(strided_rings(local_bases, n, g, inter, n - 1L, "inter-node reduce-scatter step"));
  if (ag && n > 1)
    p.steps.push_back(strided_rings(local_bases, n, g, inter, n - 1L, "inter-node all-gather step"));
  if (ag && g > 1)
    p.steps.push_back(strided_rings(node_bases, g, 1, intra, g - 1L, "intra-node all-gather step"));
}

}  // namespace

CollectivePlan make_plan(CollectiveOp op, CollectiveAlgo algo, int ranks, double bytes, const PlanOptions& options)
{
  FLEETSIM_CHECK(ranks >= 1 && bytes >= 0 && plan_supported(op, algo), "a supported collective over at least one rank");
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
      case CollectiveOp::AllReduce: p.steps.push_back(ring_step(ranks, chunk, 2L * (ranks - 1), "ring step")); break;
      case CollectiveOp::ReduceScatter:
      case CollectiveOp::AllGather: p.steps.push_back(ring_step(ranks, chunk, ranks - 1L, "ring step")); break;
      case CollectiveOp::Broadcast: {
        // Pipelined chain: C chunks of M/C pass N-1 hops; C + N - 2 steps of one chunk.
        const int c = options.chunks > 0 ? options.chunks : ranks;
        TrafficStep s = ring_step(ranks, bytes / c, c + ranks - 2L, "chain step");
        s.flows.pop_back();  // the last rank does not send back to the root
        p.steps.push_back(std::move(s));
        break;
      }
      default: FLEETSIM_CHECK(false, "every collective algorithm has a plan");
    }
    return p;
  }
  if (algo == CollectiveAlgo::Direct) {
    TrafficStep s;
    if (op == CollectiveOp::AllToAll) {
      s.label = "all-to-all exchange";
      for (int a = 0; a < ranks; ++a)
        for (int b = 0; b < ranks; ++b)
          if (a != b)
            s.flows.push_back({a, b, chunk});
    } else {
      s.label = "send/recv shift";
      for (int a = 0; a < ranks; ++a)
        s.flows.push_back({a, (a + 1) % ranks, bytes});
      if (ranks == 2)
        s.flows.pop_back();  // 0 -> 1 only: one point-to-point message
    }
    p.steps.push_back(std::move(s));
    return p;
  }
  if (algo == CollectiveAlgo::Hierarchical) {
    FLEETSIM_CHECK(options.gpus_per_node >= 1 && ranks % options.gpus_per_node == 0, "a hierarchical collective spans whole nodes");
    hierarchical(p, options.gpus_per_node);
    return p;
  }
  if (algo == CollectiveAlgo::DoubleTree) {
    constexpr double kDefaultChunk = 1024.0 * 1024.0;  // 1 MiB per tree per step
    const double half = bytes / 2;
    const long c = options.chunks > 0 ? options.chunks
                                      : std::max(1L, static_cast<long>(std::ceil(half / kDefaultChunk)));
    const long steps = heap_height(ranks) + c - 1;
    TrafficStep up;
    up.label = "double-tree reduce step";
    up.repetitions = steps;
    up.flows = double_tree_edges(ranks, half / static_cast<double>(c));
    TrafficStep down = up;
    down.label = "double-tree broadcast step";
    for (auto& f : down.flows)
      std::swap(f.src, f.dst);
    p.steps.push_back(std::move(up));
    p.steps.push_back(std::move(down));
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
  FLEETSIM_CHECK(groups >= 1, "at least one group");
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

units::Seconds plan_time(const CollectivePlan& plan, const LinkClasses& links)
{
  const int g = std::max(1, links.gpus_per_node);
  double t = 0;
  for (const auto& s : plan.steps) {
    // Per rank and link class, bytes out and in: the busiest endpoint sets the step.
    std::map<std::pair<int, bool>, double> out;
    std::map<std::pair<int, bool>, double> in;
    double alpha = 0;
    for (const auto& f : s.flows) {
      const bool nvlink = f.src / g == f.dst / g && g > 1;
      const AlphaBeta& l = nvlink ? links.nvlink : links.nic;
      alpha = std::max(alpha, l.alpha.si());
      out[{f.src, nvlink}] += f.bytes;
      in[{f.dst, nvlink}] += f.bytes;
    }
    double transfer = 0;
    for (const auto* side : {&out, &in})
      for (const auto& [key, b] : *side)
        transfer = std::max(transfer, b / (key.second ? links.nvlink : links.nic).beta.si());
    t += static_cast<double>(s.repetitions) * (alpha + transfer);
  }
  return units::Seconds(t);
}

units::Seconds plan_time(const CollectivePlan& plan, AlphaBeta link)
{
  return plan_time(plan, LinkClasses{1, link, link});
}

WireBytes wire_bytes(const CollectivePlan& plan, int gpus_per_node, int rack_size, int pod_size)
{
  WireBytes w;
  auto same = [](int a, int b, int size) { return size > 0 && a / size == b / size; };
  for (const auto& s : plan.steps)
    for (const auto& f : s.flows) {
      const double b = f.bytes * static_cast<double>(s.repetitions);
      if (gpus_per_node > 1 && same(f.src, f.dst, gpus_per_node))
        w.nvlink += b;
      else if (same(f.src, f.dst, rack_size))
        w.in_rack += b;
      else if (pod_size <= 0 || same(f.src, f.dst, pod_size))
        w.in_pod += b;
      else
        w.cross_pod += b;
    }
  return w;
}

double bus_bandwidth(CollectiveOp op, int ranks, double bytes, units::Seconds time)
{
  if (time.si() <= 0 || ranks <= 1)
    return 0;
  const double n = ranks;
  double factor = 1;
  if (op == CollectiveOp::AllReduce)
    factor = 2 * (n - 1) / n;
  else if (op == CollectiveOp::ReduceScatter || op == CollectiveOp::AllGather || op == CollectiveOp::AllToAll)
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
