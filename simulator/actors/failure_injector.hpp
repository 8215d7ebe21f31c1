#pragma once
// One actor per failure cause: a Poisson process over the whole fleet at the cause's rate, drawing
// which component failed. Each cause has its own named random streams, so that changing one cause's
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

/// Planned interruptions (maintenance), evenly spaced or Poisson, announced to the scheduler.
class MaintenanceCalendar {
public:
  explicit MaintenanceCalendar(const RunContext& ctx) : ctx_(ctx) {}
  void operator()() const;

private:
  const RunContext& ctx_;
};

}  // namespace fleetsim::sim
