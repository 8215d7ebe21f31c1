#pragma once
// The data-parallel traffic of the reduced step simulation's play (simulator/run/step_simulation.cpp,
// phase 2) as real flows on the fabric, issued when the played pipeline's stages issue them.
//
// Stage s of the played pipeline stands for stage s of every replica: when it starts a chunk's
// all-gather or reduce-scatter, every GPU of stage s (every tensor index, context index and
// replica) sends to its next DP-ring neighbour at once (the DP ring-step pattern's flows of that
// stage). The dp*cp - 1 steps of a ring move the same pattern, so a GPU's steps are one flow of all
// their bytes, and the route latencies the merged steps do not pay are waited after it. Collectives
// of different stages meet on the links as the schedule makes them meet: the last stage ends its
// backward passes first, so its reduce-scatter has the uplinks to itself until the earlier stages'
// join. (Timing one ring step with every stage's flows at once, the older way, charged every stage
// the contention of all of them.)
//
// One DataParallelRank actor per GPU runs its collectives in order: the v all-gathers from the
// start, then a reduce-scatter each time its stage releases a chunk's gradients.

#include "models/network/collective_plan.hpp"
#include "models/step/iteration_plan.hpp"

#include <simgrid/s4u.hpp>

#include <vector>

namespace fleetsim::sim {

namespace sg4 = simgrid::s4u;

/// The flows of one whole collective per GPU; built once, played by any number of plays.
struct DataParallelFlows {
  int stages = 0;
  int collectives = 0;                // per GPU: v all-gathers, then v reduce-scatters
  std::vector<sg4::Host*> hosts;      // per rank
  std::vector<sg4::Mailbox*> box;     // per rank
  std::vector<int> next;              // per rank: the DP-ring neighbour it sends to
  std::vector<int> prev;              // per rank: the one it receives from
  std::vector<double> bytes;          // per rank: every ring step's bytes of one all-gather
  double reduce_ratio = 1;            // a reduce-scatter's bytes over an all-gather's (IterationPlan::dp_reduce_ratio:
                                      // sharded gradients reduce in model.gradient_bytes)
  std::vector<double> extra_latency;  // per rank: (steps - 1) x the route latency to `next`
  std::vector<int> stage;             // per rank
  std::vector<int> members;           // per stage: its ranks
};

/// The DP ring-step pattern as whole-collective flows per GPU, on `hosts` (per rank).
[[nodiscard]] DataParallelFlows make_data_parallel_flows(const models::IterationPlan& plan,
                                                         const std::vector<sg4::Host*>& hosts);

/// One play's progress of every stage's DP stream (what the stage actors and the ranks share).
class DataParallelStreams {
public:
  DataParallelStreams(const DataParallelFlows& flows, int chunks);

  /// Creates one DataParallelRank per GPU; the all-gathers start now. Must outlive the run.
  void launch();
  /// From a stage actor: `chunk`'s gradients are ready for their reduce-scatter.
  void release(int stage, int chunk);
  /// From a stage actor: blocks until every GPU of `stage` finished its collective `k`; returns when.
  double wait_done(int stage, int k);
  /// After the run: the stage's collectives in order, each from when it could start to when it ended.
  struct Span {
    double start, end;
    bool all_gather;
    int chunk;
  };
  [[nodiscard]] std::vector<Span> spans(int stage) const;
  [[nodiscard]] const DataParallelFlows& flows() const { return flows_; }

  // Used by the ranks.
  void wait_released(int stage, int k);
  void finished(int stage, int k);

private:
  struct Stage {
    std::vector<double> released;  // per collective: when it could start
    std::vector<int> chunk;        // per collective
    std::vector<int> arrived;      // per collective: ranks done
    std::vector<double> done;      // per collective: when the last rank was done (< 0: not yet)
    sg4::ConditionVariablePtr changed = sg4::ConditionVariable::create();
  };
  const DataParallelFlows& flows_;
  std::vector<Stage> stages_;
  sg4::MutexPtr mutex_ = sg4::Mutex::create();
};

class DataParallelRank {
public:
  DataParallelRank(DataParallelStreams& streams, int rank) : streams_(streams), rank_(rank) {}
  void operator()() const;

private:
  DataParallelStreams& streams_;
  int rank_;
};

}  // namespace fleetsim::sim
