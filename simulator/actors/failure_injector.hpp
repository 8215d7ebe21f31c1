#pragma once
// One process per failure cause (process.hpp): a Poisson process over the whole cluster (the job's nodes and the
// spares) at the cause's rate, drawing which component failed; a draw that lands on a node already
// under repair, or misses the lemon weights, is discarded (thinning, models/resilience/node_pool.hpp). Each cause has its own named random streams, so that changing one cause's
// rate does not move any other cause's failures.

#include "process.hpp"
#include "run_context.hpp"

namespace fleetsim::sim {

class FailureInjector {
public:
  FailureInjector(const EventSourceWiring& w, int cause_index) : w_(w), cause_(cause_index) {}
  Process operator()() const;

private:
  EventSourceWiring w_;
  int cause_;
};

class NodeKeeper;

/// True when a cause's failures strike nodes (gpu, node, rack, pod, link scopes): the run draws them
/// once over its pool and its node keeper applies them (node_keeper.hpp); the other causes (a job's
/// software, the storage) are each job's own.
[[nodiscard]] bool strikes_nodes(const models::FailureCause& cause);

/// Spawns an injector per cause that strikes nodes, drawing over `w.pool` and handing each failure
/// to `keeper` (w.scheduler is not used).
void spawn_node_failures(EventSourceWiring w, NodeKeeper& keeper, ProcessHost& host);

/// Delivers messages to the scheduler after a delay: repaired nodes, the ends of slowdown episodes,
/// drain checks and diurnal ticks. Messages due at the same instant arrive in the order they were set.
class AlarmClock {
public:
  AlarmClock(Inbox<AlarmRequest>& requests, Inbox<SchedulerMessage>& scheduler)
      : requests_(requests), scheduler_(scheduler)
  {}
  Process operator()() const;

private:
  Inbox<AlarmRequest>& requests_;
  Inbox<SchedulerMessage>& scheduler_;
};

/// Slowdown episodes: a Poisson process over the cluster's nodes (stragglers.episode_interval per
/// node), each with a drawn duration, announced to the scheduler.
class SlowdownInjector {
public:
  explicit SlowdownInjector(const EventSourceWiring& w) : w_(w) {}
  Process operator()() const;

private:
  EventSourceWiring w_;
};

/// Planned interruptions (maintenance), evenly spaced or Poisson, announced to the scheduler.
class MaintenanceCalendar {
public:
  explicit MaintenanceCalendar(const EventSourceWiring& w) : w_(w) {}
  Process operator()() const;

private:
  EventSourceWiring w_;
};

}  // namespace fleetsim::sim
