#pragma once
// One actor per failure cause: a Poisson process over the whole cluster (the job's nodes and the
// spares) at the cause's rate, drawing which component failed; a draw that lands on a node already
// under repair, or misses the lemon weights, is discarded (thinning, models/node_pool.hpp). Each cause has its own named random streams, so that changing one cause's
// rate does not move any other cause's failures.

#include "run_context.hpp"

namespace fleetsim::sim {

class FailureInjector {
public:
  FailureInjector(const RunContext& ctx, int cause_index) : ctx_(ctx), cause_(cause_index) {}
  void operator()() const;

private:
  const RunContext& ctx_;
  int cause_;
};

/// The repair pipeline: takes failed nodes (Repair messages) and returns each to the scheduler
/// (Repaired) when its repair time has passed.
class RepairShop {
public:
  explicit RepairShop(const RunContext& ctx) : ctx_(ctx) {}
  void operator()() const;

private:
  const RunContext& ctx_;
};

/// Planned interruptions (maintenance), evenly spaced or Poisson, announced to the scheduler.
class MaintenanceCalendar {
public:
  explicit MaintenanceCalendar(const RunContext& ctx) : ctx_(ctx) {}
  void operator()() const;

private:
  const RunContext& ctx_;
};

}  // namespace fleetsim::sim
