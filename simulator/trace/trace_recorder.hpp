#pragma once
// Collects the typed trace records of one run (see models/accounting/trace_records.hpp). Exactly one phase is
// open at any simulated instant: the job's (training, checkpoint) or the scheduler's (recovery
// phases, planned maintenance). open()/close() hand that single slot from actor to actor, which
// makes "the segments tile the run" a checked property instead of a hope.

#include "models/accounting/trace_records.hpp"

#include <optional>

namespace fleetsim::sim {

class TraceRecorder {
public:
  explicit TraceRecorder(double step_time) : step_time_(step_time) {}

  /// The job's current rates, stamped on every segment opened from now on (and used by steps_in).
  void set_job(double step_time, double tokens_per_step, double straggler_factor)
  {
    step_time_ = step_time;
    tokens_per_step_ = tokens_per_step;
    straggler_factor_ = straggler_factor;
  }
  /// GPUs holding the job's ranks, stamped on every segment opened from now on.
  void set_active_gpus(long gpus) { active_gpus_ = gpus; }

  /// Room for `records` records up front: a run's log is a few megabytes, and growing it by
  /// doubling copied it and touched twice the pages (page faults were a third of a replica's time
  /// in a sweep).
  void reserve(size_t records) { log_.reserve(records); }

  /// Opens `phase` at t; `queued`: a Waiting phase in which the job holds no node (requeued).
  void open(models::Phase phase, double t, bool queued = false);
  /// Closes the open phase at t. For training, `steps` is the number of steps completed, or -1
  /// to count the whole steps that fit in the segment.
  void close(double t, bool interrupted, long steps = -1);
  void interruption(models::Interruption rec);
  void commit(models::CheckpointCommitted rec);
  void discard(models::CheckpointDiscarded rec);

  /// Closes whatever is open at the end of the window (not an interruption).
  void finish(double horizon);

  [[nodiscard]] bool is_open() const { return open_.has_value(); }
  [[nodiscard]] models::Phase open_phase() const { return open_->phase; }
  [[nodiscard]] double open_since() const { return open_->t_begin; }
  /// Whole steps in a training stretch from t_begin to t_end. The tolerance grows with the clock:
  /// at day 54 a double resolves ~1e-9 s, after 3,000 days ~6e-8 s.
  [[nodiscard]] long steps_in(double t_begin, double t_end) const;
  /// True when `elapsed` seconds after t_begin is a whole number of steps, up to clock rounding.
  [[nodiscard]] bool on_step_boundary(double t_begin, double t_end) const;
  [[nodiscard]] const models::TraceLog& log() const { return log_; }
  [[nodiscard]] models::TraceLog take() { return std::move(log_); }

private:
  double step_time_;
  double tokens_per_step_ = 0;
  double straggler_factor_ = 1;
  long active_gpus_ = 0;
  std::optional<models::PhaseSegment> open_;
  models::TraceLog log_;
};

}  // namespace fleetsim::sim
