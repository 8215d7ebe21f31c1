#pragma once
// One rank of a collective: for every traffic step of the plan it sends its outgoing flows, receives
// its incoming ones, and meets the other ranks at a barrier so that rank 0 can time the step.
// In reduced mode each distinct step runs once; in full mode every repetition runs.

#include "models/network/collective_plan.hpp"

#include <simgrid/s4u.hpp>

#include <vector>

namespace fleetsim::sim {

namespace sg4 = simgrid::s4u;

struct CollectiveShared {
  const models::CollectivePlan* plan = nullptr;
  bool full = true;
  std::vector<sg4::Mailbox*> inbox;  // per rank
  sg4::BarrierPtr barrier;
  std::vector<double> step_seconds;  // per plan step: time of one repetition (the mean in full mode)
  // Per step, per rank: outgoing flows and number of incoming ones.
  std::vector<std::vector<std::vector<models::Flow>>> outgoing;
  std::vector<std::vector<int>> incoming;
  // A flow whose dst is `sink_rank` (= plan.ranks) goes to the `sink` host, which runs no actor:
  // the storage service. With background_bytes > 0 every rank also streams that many bytes to the
  // sink for the whole run, without waiting for them (traffic the timed steps must share links with).
  sg4::Host* sink = nullptr;
  int sink_rank = -1;
  double background_bytes = 0;
  // The sink's receivers: rank r's flows go to sink_boxes[r % K] (and background_boxes), so that no
  // actor holds more than a few hundred pending transfers (SimGrid 3.32 scans such lists linearly).
  std::vector<sg4::Mailbox*> sink_boxes;
  std::vector<sg4::Mailbox*> background_boxes;
  std::vector<std::vector<int>> sink_incoming;  // per step, per receiver
  std::vector<int> background_incoming;         // per receiver
};

/// One receiver of the sink (storage) host: takes its share of every step's sink flows in order.
class SinkReceiver {
public:
  SinkReceiver(CollectiveShared& shared, int index) : shared_(shared), index_(index) {}
  void operator()() const;

private:
  CollectiveShared& shared_;
  int index_;
};

/// Precomputes the per-rank flow lists of a plan.
void index_flows(CollectiveShared& shared);

/// Prepares `shared` for `plan` and starts one CollectiveRank per rank on hosts[rank]; the caller
/// runs the Engine, after which shared.step_seconds holds the timings. `shared` must outlive the run.
void launch_collective(CollectiveShared& shared, const models::CollectivePlan& plan, bool full,
                       const std::vector<sg4::Host*>& hosts, sg4::Host* sink = nullptr, double background_bytes = 0);

class CollectiveRank {
public:
  CollectiveRank(CollectiveShared& shared, int rank) : shared_(shared), rank_(rank) {}
  void operator()() const;

private:
  void exchange(size_t step) const;
  CollectiveShared& shared_;
  int rank_;
};

}  // namespace fleetsim::sim
