#pragma once
// The fleet's internal timers: a job's phase ends and a node's repair, fired in time order (ties in
// the order they were set). A job timer carries the job's epoch when it was set: a failure or a
// preemption bumps the epoch, and the timers set before it are void.

#include <cstdint>
#include <functional>
#include <optional>
#include <queue>
#include <tuple>
#include <vector>

namespace fleetsim::models::fleet {

enum class TimerKind { Finish, Detected, Preempted, Repair, CheckpointDue, RestoreDue, SnapshotDone, Eligible };

class TimerQueue {
public:
  struct Timer {
    double t;
    TimerKind kind;
    long id;  // the job, or the node of a Repair
    long epoch;
  };

  void set(double t, TimerKind kind, long id, long epoch) { timers_.emplace(t, seq_++, kind, id, epoch); }
  /// When the earliest timer is due, if any.
  [[nodiscard]] std::optional<double> next() const
  {
    if (timers_.empty())
      return std::nullopt;
    return std::get<0>(timers_.top());
  }
  /// Removes and returns the earliest timer if it is due at or before t.
  [[nodiscard]] std::optional<Timer> pop_due(double t)
  {
    if (timers_.empty() || std::get<0>(timers_.top()) > t)
      return std::nullopt;
    const auto [due, seq, kind, id, epoch] = timers_.top();
    timers_.pop();
    return Timer{due, kind, id, epoch};
  }

private:
  using Entry = std::tuple<double, std::uint64_t, TimerKind, long, long>;  // t, seq, kind, id, epoch
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> timers_;
  std::uint64_t seq_ = 0;
};

}  // namespace fleetsim::models::fleet
