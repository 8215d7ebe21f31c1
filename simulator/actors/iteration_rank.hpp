#pragma once
// One GPU of the full flow-by-flow iteration (simulator/run/full_iteration.cpp): two actors on the
// GPU's host.
//  - IterationRank plays the stage's pass order: an Exec per pass, the pass's TP all-reduces as
//    real ring flows among its TP group on NVLink, each output sent as a real Comm to the
//    consumer stage's GPU (inputs are received into receives posted at the start, so a transfer
//    starts when its producer sends it). It waits for a chunk's parameters before its first
//    forward and hands a chunk's gradients to the stream after its last backward.
//  - DataParallelStream all-gathers every chunk's parameters in turn, then reduce-scatters each
//    chunk's gradients when they are ready, as ring flows among the GPUs of its DP group.
// Every flow that leaves a node is recorded (endpoints, kind, group, start and finish times), so
// the link sharing of the whole iteration can be read back after the run.

#include "models/step/iteration_flows.hpp"

#include <simgrid/s4u.hpp>

#include <deque>
#include <vector>

namespace fleetsim::sim {

namespace sg4 = simgrid::s4u;

enum class FlowKind { Pipeline = 0, DataParallel = 1 };

struct FlowRecord {
  int src = 0;
  int dst = 0;
  FlowKind kind = FlowKind::Pipeline;
  int group = 0;  // Pipeline: the replica d; DataParallel: the DP group t + tp s
  double start = 0;
  double finish = 0;
};

/// What the two actors of one GPU share.
struct RankSync {
  sg4::SemaphorePtr gathered = sg4::Semaphore::create(0);  // one token per all-gathered chunk, in order
  sg4::SemaphorePtr ready = sg4::Semaphore::create(0);     // one token per chunk in `ready_chunks`
  std::deque<int> ready_chunks;                            // chunks whose gradients are complete
  double compute_end = 0;
  double dp_end = 0;
};

struct IterationShared {
  models::ParallelLayout layout;
  int micro_batches = 1;
  models::IterationFlows flows;
  std::vector<sg4::Host*> hosts;  // per rank
  std::vector<sg4::Mailbox*> tp_box;
  std::vector<sg4::Mailbox*> dp_box;
  std::vector<RankSync> sync;  // per rank
  std::vector<FlowRecord> records;
  long comms = 0;  // every flow, NVLink included
  long execs = 0;
};

class IterationRank {
public:
  IterationRank(IterationShared& shared, int rank) : shared_(shared), rank_(rank) {}
  void operator()() const;

private:
  void tensor_parallel_ring(models::PassKind kind) const;  // a backward's carries backward_collectives times the bytes
  IterationShared& shared_;
  int rank_;
};

class DataParallelStream {
public:
  DataParallelStream(IterationShared& shared, int rank) : shared_(shared), rank_(rank) {}
  void operator()() const;

private:
  void ring(double step_bytes) const;  // one all-gather or reduce-scatter of one chunk
  IterationShared& shared_;
  int rank_;
};

/// Creates both actors of every rank; shared.hosts and shared.flows must be set. `shared` must
/// outlive the run.
void launch_iteration(IterationShared& shared);

}  // namespace fleetsim::sim
