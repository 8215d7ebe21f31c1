#pragma once
// The fleet's GPUs as the scheduler allocates them: nodes of `gpus_per_node` GPUs in racks and pods,
// each node up or in repair, and a reserve of spare nodes that new jobs never get.
//
// Allocation is a gang: a job gets all of its GPUs at once or waits. A job of at most one node's GPUs
// shares a node with others (best fit: the node with the fewest free GPUs that still hold it); a
// larger job takes whole nodes, ceil(gpus / gpus_per_node) of them, exclusively (as Slurm's exclusive
// node allocation: the job is charged its whole nodes).
//
// Packing:
//   first_fit - the lowest-numbered free nodes;
//   topology  - as few racks and pods as possible: the fullest-fitting single rack (best fit), else
//               the best-fitting single pod filled rack by rack, else the pods with the most free
//               nodes first;
//   random    - scattered: wholly free nodes in a pseudo-random order, a hash of the cluster's seed,
//               the node and the placements taken so far (reproducible, and place() stays pure), as
//               a scheduler that ignores the topology leaves a busy cluster.
// A job of at most one node's GPUs is placed by best fit under every packing.
// Every placement records the racks and pods it spans.

#include "models/core/names.hpp"

#include <cstdint>
#include <optional>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

namespace fleetsim::models::fleet {

enum class Packing { FirstFit, Topology, Random };
inline constexpr NameTable<Packing, 3> kPackingNames{
    {{"topology", Packing::Topology}, {"first_fit", Packing::FirstFit}, {"random", Packing::Random}}};
[[nodiscard]] inline std::optional<Packing> packing_from_name(std::string_view name)
{
  return from_name(kPackingNames, name);
}

struct Placement {
  std::vector<std::pair<long, int>> parts;  // (node, GPUs held on it)
  long racks = 0;                           // racks spanned
  long pods = 0;                            // pods spanned
  [[nodiscard]] long gpus() const
  {
    long g = 0;
    for (const auto& p : parts)
      g += p.second;
    return g;
  }
};

class Cluster {
public:
  /// `nodes` nodes in racks of `nodes_per_rack` and pods of `nodes_per_pod` (0: one pod); the last
  /// `spare_nodes` start as the spare reserve.
  Cluster(long nodes, int gpus_per_node, int nodes_per_rack, long nodes_per_pod, long spare_nodes,
          std::uint64_t seed = 0);

  [[nodiscard]] long nodes() const { return static_cast<long>(node_.size()); }
  [[nodiscard]] int gpus_per_node() const { return gpn_; }
  [[nodiscard]] long gpus() const { return nodes() * gpn_; }
  [[nodiscard]] long rack_of(long node) const { return node / npr_; }
  [[nodiscard]] long pod_of(long node) const { return node / npp_; }

  /// GPUs a job of `gpus` holds: itself up to a node, else whole nodes.
  [[nodiscard]] long held_gpus(long gpus) const;
  /// True when a job of `gpus` could be placed now (outside the spare reserve).
  [[nodiscard]] bool fits(long gpus) const;
  /// Where a job of `gpus` would go now, or nullopt. Changes nothing.
  [[nodiscard]] std::optional<Placement> place(long gpus, Packing packing) const;
  void take(const Placement& p);
  /// Returns a placement's GPUs; GPUs on a node in repair come back with the node.
  void give(const Placement& p);

  /// A node goes to repair (its jobs must be released by the caller; their GPUs stay off until repair).
  void node_down(long node);
  /// A node is back: to the spare reserve while it is below its target, else schedulable.
  void node_up(long node);
  [[nodiscard]] bool up(long node) const { return node_.at(static_cast<size_t>(node)).up; }

  /// A healthy, wholly free node to replace a failed one in a running job: a spare first (unless
  /// `spares` is false), else a schedulable node. It is taken (as a whole node) at once.
  std::optional<long> take_replacement(bool spares = true);
  [[nodiscard]] bool spare(long node) const { return node_.at(static_cast<size_t>(node)).spare; }

  // Nodes the simulator's node keeper keeps for replayed jobs: the scheduler sees them by count
  // only (FleetState's kept nodes), each as a spare, taken whole, or down (in repair).
  enum class Kept { Spare, Taken, Down };
  /// A kept node is shown as `as` (from whichever of the three it was shown as).
  void keep(long node, Kept as);
  /// A kept node comes back to the scheduler: up, wholly free, schedulable.
  void reclaim(long node);

  // Counts for the timeline and the policies.
  [[nodiscard]] long free_gpus() const { return free_gpus_; }    // schedulable, up, unallocated
  [[nodiscard]] long free_nodes() const { return whole_free_; }  // schedulable nodes with no job
  [[nodiscard]] long spare_gpus() const { return static_cast<long>(spares_.size()) * gpn_; }
  [[nodiscard]] long down_gpus() const { return down_nodes_ * gpn_; }

  /// A cheap copy of the free capacity for a scheduler's look-ahead (EASY backfill's shadow time):
  /// per-node free GPUs of schedulable nodes, with count-based fits (no topology). Running jobs'
  /// placements are given back first, then jobs are taken (by counts only): no give after a take.
  class Projection {
  public:
    [[nodiscard]] bool fits(long gpus) const;
    void take(long gpus);  // best fit, as Cluster::place, by counts
    void give(const Placement& p);

  private:
    friend class Cluster;
    int gpn_ = 8;
    std::vector<std::int8_t> free_;  // -1: not schedulable
    std::vector<long> by_free_;      // number of nodes with each free count (0..gpn)
    bool taken_ = false;
  };
  [[nodiscard]] Projection projection() const;

private:
  struct Node {
    bool up = true;
    bool spare = false;
    int free = 0;  // GPUs not held by a job (also while down: what it will have back)
  };
  [[nodiscard]] bool schedulable(const Node& n) const { return n.up && !n.spare; }
  /// Takes a kept node out of the category it is shown in (spare, listed, or down).
  void unkeep(long node);
  void unlist(long node);
  void list(long node);
  void pick_whole(long count, Packing packing, Placement& out) const;
  void set_span(Placement& p) const;

  int gpn_;
  int npr_;
  long npp_;
  long spare_target_;
  std::vector<Node> node_;
  std::vector<std::set<long>> by_free_;  // schedulable up nodes by free GPU count
  std::vector<long> rack_whole_;         // wholly free schedulable nodes per rack
  std::vector<long> pod_whole_;          // ... per pod
  std::set<long> spares_;                // up, free, reserved
  long free_gpus_ = 0;
  long whole_free_ = 0;
  long down_nodes_ = 0;
  std::uint64_t seed_ = 0;  // Packing::Random's order
  std::uint64_t taken_ = 0;  // placements taken so far
};

}  // namespace fleetsim::models::fleet
