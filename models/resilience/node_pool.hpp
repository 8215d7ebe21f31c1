#pragma once
// The cluster's nodes as the jobs on it see them: which job slot each one holds, which wait idle
// (spares, or free nodes), which are being repaired, and how often each one fails. One pool serves
// every job of a run: a single-job replay is job 0 of its pool; a fleet's jobs each have a slot
// table in the fleet's pool, and draw replacements from the same idle nodes.
//
// Nodes are numbered by physical position: node n sits in rack n / nodes_per_rack. A node is
//   Active  - holding one slot of one job,
//   Idle    - healthy and free (a spare, a free node, or a survivor of an elastic shrink),
//   Repair  - taken down by a failure until the repair pipeline returns it.
// A job is a table of node slots (its ranks' nodes, in order): a slot holds one node or is empty,
// and the job uses its first used_slots() slots (fewer than all after an elastic shrink).
//
// Lemon nodes: a fixed number round(fraction x nodes) of the cluster's nodes fail `rate_multiplier`
// times as often as the others, for the causes that strike hardware (GPU and node scope). The
// weights are normalised so that the cluster's mean is 1: the scenario's failure counts stay the
// fleet average, lemons included, and only their spread over the nodes changes. A retirement policy
// removes a node after `retire_after` failures within `retire_window`; its position gets a fresh,
// healthy node (weight of a normal node) once the replacement is done.
//
// Failures are drawn by thinning: a candidate arrives at the rate of the whole cluster at its initial
// weight, picks a node with probability proportional to the node's current weight, and is discarded
// when that node is already down or when the pick falls outside the current weights (a retired lemon
// replaced by a healthy node lowers the total). This is exact for rates that only change at events.

#include <algorithm>
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

namespace fleetsim::models {

struct LemonSpec {
  double fraction = 0;                 // of the cluster's nodes, [0, 1]
  double rate_multiplier = 10;         // a lemon's failure rate over a normal node's, >= 1
  int retire_after = 0;                // failures within retire_window that retire a node; 0 = never
  double retire_window = 7 * 86400.0;  // seconds
  [[nodiscard]] bool any() const { return fraction > 0 && rate_multiplier > 1; }
};

enum class NodeState { Active, Idle, Repair };

class NodePool {
public:
  /// `nodes` idle nodes and no job. Lemons are drawn from the "lemons" stream of `seed`.
  NodePool(long nodes, int nodes_per_rack, const LemonSpec& lemons, std::uint64_t seed);
  /// A single job's cluster: job 0 of `job_nodes` slots on the first nodes, `spare_nodes` idle after them.
  NodePool(long job_nodes, long spare_nodes, int nodes_per_rack, const LemonSpec& lemons, std::uint64_t seed);

  [[nodiscard]] long size() const { return static_cast<long>(nodes_.size()); }
  [[nodiscard]] int nodes_per_rack() const { return nodes_per_rack_; }
  [[nodiscard]] long racks() const { return (size() + nodes_per_rack_ - 1) / nodes_per_rack_; }
  /// Pods of `nodes` nodes each (0: the whole cluster is one pod), numbered by position like racks.
  void set_nodes_per_pod(long nodes) { nodes_per_pod_ = nodes > 0 ? nodes : 0; }
  [[nodiscard]] long nodes_per_pod() const { return nodes_per_pod_ > 0 ? nodes_per_pod_ : size(); }
  [[nodiscard]] long pods() const { return (size() + nodes_per_pod() - 1) / nodes_per_pod(); }
  /// Nodes holding a slot of any job.
  [[nodiscard]] long active() const { return active_; }
  [[nodiscard]] long idle() const { return idle_; }
  [[nodiscard]] long in_repair() const { return size() - active_ - idle_; }
  [[nodiscard]] NodeState state(long node) const { return nodes_.at(static_cast<size_t>(node)).state; }
  /// The job whose slot a node holds, -1 when it holds none.
  [[nodiscard]] long job_of(long node) const { return nodes_.at(static_cast<size_t>(node)).job; }
  /// The slot a node holds in its job, -1 when it holds none.
  [[nodiscard]] long slot_of(long node) const { return nodes_.at(static_cast<size_t>(node)).slot; }
  [[nodiscard]] bool lemon(long node) const { return nodes_.at(static_cast<size_t>(node)).lemon; }
  [[nodiscard]] double weight(long node) const { return nodes_.at(static_cast<size_t>(node)).weight; }
  [[nodiscard]] long lemons() const;
  [[nodiscard]] bool weighted() const { return weighted_; }

  // ---- jobs: a slot table each ----
  /// A new job of `slots` empty slots; returns its id (ids count from 0, in order of addition).
  long add_job(long slots);
  [[nodiscard]] long jobs() const { return static_cast<long>(jobs_.size()); }
  /// Puts idle `nodes` into the job's slots 0, 1, ... (its placement); the job held no node.
  void place(long job, const std::vector<long>& nodes);
  /// The job ends: the nodes in its slots go idle and its table is empty (it holds nothing more).
  void release(long job);
  /// Idle `node` takes the first empty slot of `job`, or a new slot at the end of its table; for a
  /// table that uses all its slots (a fleet keeps the nodes its other jobs hold in one, so that no
  /// job of the pool takes them as replacements).
  void hold(long job, long node);
  /// `node` leaves its slot (which stays empty) and goes idle.
  void let_go(long node);
  [[nodiscard]] long job_slots(long job) const { return static_cast<long>(table(job).slots.size()); }
  /// The node in a job's slot, -1 when the slot is empty.
  [[nodiscard]] long node_in(long job, long slot) const { return table(job).slots.at(static_cast<size_t>(slot)); }
  /// Nodes holding the job's slots.
  [[nodiscard]] long active(long job) const { return table(job).active; }
  /// Sets the job to `slots` slots (elastic resizing; the full job at start): keeps the nodes already
  /// in slots below `slots`, moves nodes of higher slots down, then fills the empty slots from idle
  /// nodes (lowest position first). Returns the number of empty slots left (0 when the job is whole).
  long fill(long job, long slots);
  /// Slots the job currently uses.
  [[nodiscard]] long used_slots(long job) const { return table(job).used; }
  [[nodiscard]] long empty_slots(long job) const { return table(job).empty; }

  /// Stragglers: `count` distinct nodes (drawn from the "stragglers/persistent" stream) always run at
  /// `speed`. A drained node comes back from repair at full speed.
  void draw_slow_nodes(long count, double speed, std::uint64_t seed);
  /// Heterogeneous fleets: `count` of the job's nodes are of an older generation running at `speed`
  /// (relative to the main accelerator): those of its last `count` slots (block: their own racks), or
  /// drawn from the "heterogeneous" stream (spread). Spares are of the main generation.
  void set_old_generation(long job, long count, double speed, bool spread, std::uint64_t seed);
  /// A node's speed now: its generation's, times its persistent straggler speed or, lower, its
  /// slowdown episode's.
  [[nodiscard]] double speed(long node) const
  {
    const Node& n = nodes_.at(static_cast<size_t>(node));
    return n.generation * std::min(n.base_speed, n.episode_speed);
  }
  [[nodiscard]] double generation_speed(long node) const { return nodes_.at(static_cast<size_t>(node)).generation; }
  /// A job's compute stretch over a uniform fleet's, 1 / (effective speed): its used slots form
  /// groups of `slots_per_group` (data-parallel replicas); a replica runs at its slowest node.
  ///  - unbalanced: every replica gets the same share, so the slowest replica gates: 1 / min speed;
  ///  - balanced: replica r gets a share of the batch in proportion to its planned (generation) speed
  ///    g_r, so the step lasts groups x max_r (g_r / (sum g) / speed_r); with no other slowdown that
  ///    is groups / sum g.
  [[nodiscard]] double compute_stretch(long job, long slots_per_group, bool balanced) const;
  [[nodiscard]] double base_speed(long node) const { return nodes_.at(static_cast<size_t>(node)).base_speed; }
  [[nodiscard]] double episode_speed(long node) const { return nodes_.at(static_cast<size_t>(node)).episode_speed; }
  /// Starts slowdown episode `id` on a node at time t; ends it if `id` is still the node's latest.
  void start_episode(long node, long id, double speed, double t);
  void end_episode(long node, long id);
  [[nodiscard]] long episode(long node) const { return nodes_.at(static_cast<size_t>(node)).episode; }
  /// The node's own speed (persistent straggler or episode), its generation left out.
  [[nodiscard]] double own_speed(long node) const { return std::min(base_speed(node), episode_speed(node)); }
  /// Since when the node's own speed has been below 1 (its current episode, or 0 for a persistent
  /// straggler); meaningless when it is not slow.
  [[nodiscard]] double slow_since(long node) const { return nodes_.at(static_cast<size_t>(node)).slow_since; }
  /// A job's nodes slower than `below` on their own for at least `window` at time t, lowest slot first.
  [[nodiscard]] std::vector<long> slow_job_nodes(long job, double below, double window, double t) const;
  /// The slowest speed among the nodes holding a job's slots (1 when none is slow).
  [[nodiscard]] double slowest_active_speed(long job) const;
  /// Marks a node in repair to come back at full speed (it was drained for being slow).
  void heal_on_return(long node) { nodes_.at(static_cast<size_t>(node)).heal = true; }

  /// Thinning pick for a hardware failure: u uniform in [0, size()). Returns the node, or nullopt when
  /// the candidate is discarded (node down, or beyond the current total weight).
  [[nodiscard]] std::optional<long> pick(double u) const;
  /// True when the node can fail (it is not being repaired).
  [[nodiscard]] bool up(long node) const { return state(node) != NodeState::Repair; }

  struct Lost {
    long job = -1;
    long slot = -1;
    long node = -1;
  };
  struct Hit {
    std::vector<long> nodes;    // nodes taken down (those that were up)
    std::vector<Lost> lost;     // the job slots they held
    std::vector<long> retired;  // of `nodes`, those the retirement policy removes
    /// The slots of `job` among those lost.
    [[nodiscard]] std::vector<long> slots_of(long job) const;
    /// The job whose slot `node` held when it failed, -1 when it held none.
    [[nodiscard]] long holder(long node) const;
  };
  /// Takes nodes [first, first + count) that are up to Repair at time t. `node_fault`: the failure
  /// is the node's own (GPU or node scope), which counts toward retirement.
  Hit fail(long first, long count, double t, bool node_fault);
  /// A node comes back from repair: Idle. A retired node comes back as a fresh, healthy node.
  void repaired(long node);
  [[nodiscard]] long retired_total() const { return retired_total_; }
  /// Of the retired nodes, those that were lemons (the others were healthy nodes with bad luck).
  [[nodiscard]] long retired_lemons() const { return retired_lemons_; }

private:
  struct Node {
    NodeState state = NodeState::Idle;
    long job = -1;
    long slot = -1;
    bool lemon = false;
    bool retired = false;
    double weight = 1;
    double generation = 1;        // accelerator generation's speed relative to the main one
    double base_speed = 1;        // persistent straggler: < 1
    double episode_speed = 1;     // during a slowdown episode: < 1
    long episode = 0;             // id of the latest episode
    double slow_since = 0;        // start of the current episode (persistent stragglers: 0)
    bool heal = false;            // drained: back at full speed after repair
    std::deque<double> failures;  // times of the node's own failures inside the retirement window
  };
  struct Table {              // a job's slots
    std::vector<long> slots;  // node in each slot, -1 when empty
    long used = 0;            // slots the job uses
    long empty = 0;           // slots below `used` with no node
    long active = 0;          // nodes in its slots
  };
  [[nodiscard]] const Table& table(long job) const { return jobs_.at(static_cast<size_t>(job)); }
  void set_state(Node& n, NodeState s);
  /// Node `node` (Idle, or Active in the same job's other slot) takes slot `slot` of `job`.
  void seat(long job, long slot, long node);
  /// The node leaves its slot (the slot is empty); its state is the caller's to set.
  void unseat(Node& n);

  std::vector<Node> nodes_;
  std::vector<Table> jobs_;
  int nodes_per_rack_;
  long nodes_per_pod_ = 0;
  LemonSpec lemons_;
  bool weighted_ = false;
  double normal_weight_ = 1;
  long active_ = 0;
  long idle_ = 0;
  long retired_total_ = 0;
  long retired_lemons_ = 0;
  bool any_slow_ = false;  // some node was ever slower than 1 (else slowest_active_speed is 1)
};

/// In-memory checkpoints (Gemini-style): each slot's shard has `copies` replicas, on its own node and
/// on the nodes `stride`, 2 x stride, ... slots further (mod `slots`), so peers sit in other racks.
/// True when every shard still has a copy after the slots in `lost` lost their host memory.
[[nodiscard]] bool memory_copies_survive(const std::vector<long>& lost, long slots, int copies, long stride);

}  // namespace fleetsim::models
