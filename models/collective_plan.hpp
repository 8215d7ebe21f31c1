#pragma once
// Collectives as traffic plans: which rank sends how many bytes to which, step by step. A plan is
// pure data (no SimGrid): the simulator executes it on a fabric, and the alpha-beta model prices it.
//
// Collectives repeat the same traffic pattern: a ring all-reduce over N ranks is 2(N-1) identical
// steps of N concurrent flows. A plan therefore lists distinct patterns with a repetition count;
// the simulator can run every repetition (full) or each pattern once (reduced) and multiply.

#include "collectives.hpp"
#include "units.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fleetsim::models {

enum class CollectiveOp { AllReduce, ReduceScatter, AllGather, Broadcast };
enum class CollectiveAlgo { Ring, Tree };

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

/// Whether `algo` implements `op`: the ring does all four; the binomial tree does all-reduce and
/// broadcast (a tree reduce-scatter or all-gather is not a thing NCCL or MPI would run).
[[nodiscard]] bool plan_supported(CollectiveOp op, CollectiveAlgo algo);

/// The plan of `op` with `algo` over `ranks` ranks on a buffer of `bytes` (plan_supported first).
///  - Ring: reduce-scatter and all-gather are N-1 steps of N flows of M/N bytes (rank i -> i+1);
///    all-reduce is both (2(N-1) steps); broadcast is a pipelined chain of N-1 hops.
///  - Tree: a binomial tree, not pipelined. Reduce: ceil(log2 N) levels; at level k every rank
///    r with r mod 2^(k+1) = 2^k sends M to r - 2^k. Broadcast mirrors it. All-reduce = reduce
///    then broadcast: 2 ceil(log2 N) levels of one full-buffer message per receiver.
[[nodiscard]] CollectivePlan make_plan(CollectiveOp op, CollectiveAlgo algo, int ranks, double bytes);

/// `groups` copies of a plan running at once, as the data-parallel groups of a 3-D layout do. Rank i
/// of group g becomes rank i * groups + g (data parallelism outermost, as Megatron-LM places it), so
/// consecutive members of one group sit `groups` ranks apart.
[[nodiscard]] CollectivePlan concurrent_groups(const CollectivePlan& plan, int groups);

/// Alpha-beta time of a plan on uncontended links: every step costs alpha + (largest flow)/beta.
[[nodiscard]] units::Seconds plan_time(const CollectivePlan& plan, AlphaBeta link);

/// Bus bandwidth (NCCL's convention): algorithm bandwidth M / t times the op's factor,
/// 2(N-1)/N for all-reduce, (N-1)/N for reduce-scatter and all-gather, 1 for broadcast.
[[nodiscard]] double bus_bandwidth(CollectiveOp op, int ranks, double bytes, units::Seconds time);

/// Binomial-tree all-reduce, 2 ceil(log2 N) (alpha + M/beta).
[[nodiscard]] units::Seconds tree_allreduce_time(units::Bytes bytes, int ranks, AlphaBeta link);

}  // namespace fleetsim::models
