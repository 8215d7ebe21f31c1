#pragma once
// Collects the typed trace records of one run (see models/trace_records.hpp). Exactly one phase is
// open at any simulated instant: the job's (training, checkpoint) or the scheduler's (recovery
// phases, planned maintenance). open()/close() hand that single slot from actor to actor, which
// makes "the segments tile the run" a checked property instead of a hope.

#include "models/trace_records.hpp"

#include <optional>

namespace fleetsim::sim {

class TraceRecorder {
public:
  explicit TraceRecorder(double step_time) : step_time_(step_time) {}

  void open(models::Phase phase, double t);
  /// Closes the open phase at t. For training, the steps completed are counted from its length.
  void close(double t, bool interrupted);
  void interruption(models::Interruption rec) { log_.emplace_back(std::move(rec)); }
  void commit(models::CheckpointCommitted rec) { log_.emplace_back(rec); }

  /// Closes whatever is open at the end of the window (not an interruption).
  void finish(double horizon);

  [[nodiscard]] bool is_open() const { return open_.has_value(); }
  [[nodiscard]] models::Phase open_phase() const { return open_->phase; }
  [[nodiscard]] double open_since() const { return open_->t_begin; }
  /// Whole steps in a training stretch of the given length.
  [[nodiscard]] long steps_in(double seconds) const;
  [[nodiscard]] const models::TraceLog& log() const { return log_; }
  [[nodiscard]] models::TraceLog take() { return std::move(log_); }

private:
  double step_time_;
  std::optional<models::PhaseSegment> open_;
  models::TraceLog log_;
};

}  // namespace fleetsim::sim
