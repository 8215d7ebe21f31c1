#pragma once
// What the job and its scheduler share about checkpoints: the interval in force and the checkpoints
// in storage. Owned by the Simulation, lent to both actors through their wirings.

#include "models/checkpoint/interval_policy.hpp"
#include "models/core/random_stream.hpp"

#include <cstdint>
#include <vector>

namespace fleetsim::sim {

/// The checkpoint interval in force (models/checkpoint/interval_policy.hpp). The scheduler tells it of each
/// failure that strikes the job; the job asks it at the start of every stretch. Its exposure is the
/// wall-clock time since the run began: the job is exposed to failures whatever it is doing.
class IntervalControl {
public:
  IntervalControl(const models::IntervalPolicySpec& spec, double cost_s, double mtbf_s)
      : policy_(spec, cost_s, mtbf_s),
        fixed_(spec.kind == models::IntervalPolicyKind::Fixed),
        first_s_(policy_.interval_s()),
        last_s_(first_s_)
  {}
  /// The interval the run started with, and the last one the job asked for (s).
  [[nodiscard]] double first_interval_s() const { return first_s_; }
  [[nodiscard]] double last_interval_s() const { return last_s_; }
  /// True when the interval never changes (the job then uses its shape's steps per checkpoint).
  [[nodiscard]] bool fixed() const { return fixed_; }
  /// The training time to run before the next checkpoint (s), decided at time t.
  [[nodiscard]] double interval(double t)
  {
    advance(t);
    last_s_ = policy_.interval_s();
    return last_s_;
  }
  /// The run's exposure up to t, without deciding an interval (the estimate at the window's end).
  void expose_until(double t) { advance(t); }
  void failure(double t)
  {
    advance(t);
    policy_.observe_failure();
  }
  [[nodiscard]] const models::IntervalPolicy& policy() const { return policy_; }

private:
  void advance(double t)
  {
    if (t > last_)
      policy_.observe_exposure(t - last_);
    last_ = t;
  }
  models::IntervalPolicy policy_;
  bool fixed_;
  double first_s_;
  double last_s_;
  double last_ = 0;
};

/// The checkpoints in storage, newest last. Each turns out corrupt (unreadable at restore) with
/// probability checkpoint.corrupt_probability, drawn when it is written and only found out when a
/// restore reads it: the restore then falls back to the one before, losing the training between.
class CheckpointHistory {
public:
  CheckpointHistory(double corrupt_probability, std::uint64_t seed)
      : p_(corrupt_probability), draws_(seed, "checkpoint/corruption")
  {}
  void commit(long step) { kept_.push_back({step, p_ > 0 && draws_.uniform() < p_}); }
  /// The step of the newest checkpoint not yet found corrupt; 0 (the run's start) when none.
  [[nodiscard]] long latest() const { return kept_.empty() ? 0 : kept_.back().step; }
  /// True when the newest checkpoint is corrupt (a restore finds out by reading it).
  [[nodiscard]] bool latest_corrupt() const { return !kept_.empty() && kept_.back().corrupt; }
  /// A restore found the newest checkpoint corrupt: it is gone.
  void discard_latest() { kept_.pop_back(); }

private:
  struct Kept {
    long step;
    bool corrupt;
  };
  double p_;
  models::RandomStream draws_;
  std::vector<Kept> kept_;
};

}  // namespace fleetsim::sim
