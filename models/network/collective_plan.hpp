#pragma once
// Collectives as traffic plans: which rank sends how many bytes to which, step by step. A plan is
// pure data (no SimGrid): the simulator executes it on a fabric, and the alpha-beta model prices it.
//
// Collectives repeat the same traffic pattern: a ring all-reduce over N ranks is 2(N-1) identical
// steps of N concurrent flows. A plan therefore lists distinct patterns with a repetition count;
// the simulator can run every repetition (full) or each pattern once (reduced) and multiply.

#include "collectives.hpp"
#include "models/core/units.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fleetsim::models {

enum class CollectiveOp { AllReduce, ReduceScatter, AllGather, Broadcast, AllToAll, SendRecv };
enum class CollectiveAlgo { Ring, Tree, DoubleTree, Hierarchical, Direct };

[[nodiscard]] std::string_view op_name(CollectiveOp op);
[[nodiscard]] std::string_view algo_name(CollectiveAlgo algo);
[[nodiscard]] std::optional<CollectiveOp> op_from_name(std::string_view name);
[[nodiscard]] std::optional<CollectiveAlgo> algo_from_name(std::string_view name);

struct Flow {
  int src = 0;
  int dst = 0;
  double bytes = 0;
};

/// A set of flows that run concurrently, repeated `repetitions` times back to back.
struct TrafficStep {
  std::string label;  // "ring step", "reduce level 3", ...
  std::vector<Flow> flows;
  long repetitions = 1;
};

struct CollectivePlan {
  CollectiveOp op = CollectiveOp::AllReduce;
  CollectiveAlgo algo = CollectiveAlgo::Ring;
  int ranks = 0;
  double bytes = 0;  // the collective's buffer size M
  std::vector<TrafficStep> steps;

  /// Bytes each rank sends over the whole collective (the largest over ranks).
  [[nodiscard]] double bytes_sent_per_rank() const;
  /// Distinct patterns and total pattern executions.
  [[nodiscard]] long total_step_executions() const;
};

/// Whether `algo` implements `op`:
///  - ring: all-reduce, reduce-scatter, all-gather, broadcast;
///  - tree (binomial) and doubletree: all-reduce (and broadcast for the binomial tree);
///  - hierarchical: all-reduce, reduce-scatter, all-gather;
///  - direct: all-to-all and send/recv.
[[nodiscard]] bool plan_supported(CollectiveOp op, CollectiveAlgo algo);

struct PlanOptions {
  int chunks = 0;         // pipeline chunks (broadcast chain, double tree); 0 = the algorithm's default
  int gpus_per_node = 1;  // hierarchical: ranks per node (ranks must be a multiple)
};

/// The plan of `op` with `algo` over `ranks` ranks on a buffer of `bytes` (plan_supported first;
/// hierarchical needs ranks % gpus_per_node == 0).
///  - Ring: reduce-scatter and all-gather are N-1 steps of N flows of M/N bytes (rank i -> i+1);
///    all-reduce is both (2(N-1) steps); broadcast is a chain of N-1 hops pipelined in C chunks
///    (default C = N): C + N - 2 steps of M/C.
///  - Tree: a binomial tree, not pipelined. Reduce: ceil(log2 N) levels; at level k every rank
///    r with r mod 2^(k+1) = 2^k sends M to r - 2^k. Broadcast mirrors it. All-reduce = reduce
///    then broadcast: 2 ceil(log2 N) levels of one full-buffer message per receiver.
///  - DoubleTree (NCCL's all-reduce for large N): two binary trees, each carrying M/2 in C chunks
///    (default: 1 MiB chunks); tree 1 is the heap order (children of i are 2i+1, 2i+2), tree 2
///    maps heap slot i to rank N-1-i, so tree 1's inner ranks are tree 2's leaves. Reduce then
///    broadcast, each d + C - 1 steps (d = tree height) with every edge of both trees active.
///    This over-counts the fill and drain steps, where only some edges carry data.
///  - Hierarchical (nodes of g GPUs, n = N / g nodes): ring reduce-scatter inside each node
///    (g-1 steps of M/g), ring reduce-scatter across nodes among equal local ranks (n-1 steps of
///    M/(g n)); all-gather mirrors it; all-reduce is both.
///  - Direct all-to-all: one step in which every rank sends M/N to every other rank at once.
///    Direct send/recv: one step, rank i sends M to rank i+1 (mod N).
[[nodiscard]] CollectivePlan make_plan(CollectiveOp op, CollectiveAlgo algo, int ranks, double bytes,
                                       const PlanOptions& options = {});

/// `groups` copies of a plan running at once, as the data-parallel groups of a 3-D layout do. Rank i
/// of group g becomes rank i * groups + g (data parallelism outermost, as Megatron-LM places it), so
/// consecutive members of one group sit `groups` ranks apart.
[[nodiscard]] CollectivePlan concurrent_groups(const CollectivePlan& plan, int groups);

/// The two link classes a GPU has: NVLink to the GPUs of its node, the NIC to everything else.
struct LinkClasses {
  int gpus_per_node = 1;
  AlphaBeta nvlink;
  AlphaBeta nic;
};

/// Alpha-beta time of a plan when only the endpoints limit it: a step costs the largest alpha of
/// its flows plus the largest bytes any rank sends or receives on one link class, over that
/// class's beta. For rings and trees that is alpha + (largest flow)/beta; an all-to-all pays each
/// rank's N-1 messages on its NIC. Fabric contention beyond the endpoints is what the simulation adds.
[[nodiscard]] units::Seconds plan_time(const CollectivePlan& plan, const LinkClasses& links);
/// The same with one link class for every flow.
[[nodiscard]] units::Seconds plan_time(const CollectivePlan& plan, AlphaBeta link);

/// Bytes a plan puts on each class of link, repetitions included: NVLink inside a node, and NIC
/// traffic that stays in a rack, crosses racks inside a pod, or crosses pods (sizes <= 0: no such level).
struct WireBytes {
  double nvlink = 0;
  double in_rack = 0;
  double in_pod = 0;
  double cross_pod = 0;
};
[[nodiscard]] WireBytes wire_bytes(const CollectivePlan& plan, int gpus_per_node, int rack_size, int pod_size);

/// Bus bandwidth (NCCL's convention): algorithm bandwidth M / t times the op's factor,
/// 2(N-1)/N for all-reduce, (N-1)/N for reduce-scatter, all-gather and all-to-all, 1 for
/// broadcast and send/recv.
[[nodiscard]] double bus_bandwidth(CollectiveOp op, int ranks, double bytes, units::Seconds time);

/// Binomial-tree all-reduce, 2 ceil(log2 N) (alpha + M/beta).
[[nodiscard]] units::Seconds tree_allreduce_time(units::Bytes bytes, int ranks, AlphaBeta link);

}  // namespace fleetsim::models
