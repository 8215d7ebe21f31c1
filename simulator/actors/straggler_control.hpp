#pragma once
// The scheduler's straggler handling (models/step/stragglers.hpp): the fleet's speed state -- slowdown
// episodes and their ends, the diurnal clock, persistent stragglers -- and the step time it implies,
// and the drain checks of stragglers.drain_below/drain_after. It decides; the scheduler acts (a
// Retime to the job, a drain as a checkpointed planned restart).

#include "message.hpp"
#include "run_context.hpp"

#include <vector>

namespace fleetsim::sim {

class StragglerControl {
public:
  StragglerControl(const SchedulerWiring& w)
      : s_(w.scenario), pool_(w.pool), job_(w.pool_job), counters_(w.counters), policy_(w.policy), alarms_(w.alarms)
  {}
  /// The first alarms: the diurnal clock, and a drain check of every persistent straggler.
  void start() const;
  /// Applies a slowdown-episode start or end, or a diurnal tick, to the fleet's state; false for any
  /// other message (nothing changed).
  bool apply(const SchedulerMessage& m) const;
  /// A node back from repair: a failed (not drained) persistent straggler comes back as slow as it left.
  void repaired(long node) const;
  /// Recomputes `shape`'s step time from the fleet's state (the slowest job node, the diurnal clock,
  /// per-step transients); true when it changed. `replica_slots`: the nodes of one replica.
  bool refresh(JobShape& shape, long replica_slots) const;
  /// True when the check finds the node still slow of its own (not of its generation).
  [[nodiscard]] bool drain_due(const msg::DrainCheck& c) const;
  /// Looks at the node again after drain_after.
  void check_later(const msg::DrainCheck& c) const;
  /// The job nodes one drain takes out: every one slow for at least drain_after, and `node`.
  [[nodiscard]] std::vector<long> nodes_to_drain(long node) const;
  [[nodiscard]] double drain_repair() const { return s_.stragglers.drain_repair; }

private:
  void alarm(SchedulerMessage m, double after) const { alarms_.post({after, std::move(m)}); }

  const scenario::Scenario& s_;
  models::NodePool& pool_;
  long job_;  // its slot table in the pool
  PolicyCounters& counters_;
  const models::RecoveryPolicy& policy_;  // its snapshot cadence
  Inbox<AlarmRequest>& alarms_;
};

}  // namespace fleetsim::sim
