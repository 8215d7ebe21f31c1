#pragma once
// A running job's progress inside one allocation, in closed form: after `restart` seconds of
// launch, initialisation and reload, it trains in cycles of `interval` seconds of work followed by a
// checkpoint stall of `cost` seconds; no checkpoint follows the last piece of work. A failure loses
// the work since the last checkpoint that completed (a checkpoint still being written is lost).
//
// Work is counted in seconds at the job's isolated speed. On a shared fabric a job may train slower
// (`speed` < 1: work-seconds per second of training, fleet_fabric.hpp); its restart and checkpoint
// stalls do not slow. A segment can also start part-way through a cycle: when a job's speed
// changes, FleetState closes its segment and opens one at the new speed that carries the work done
// since the last checkpoint (`carried`) and, if a checkpoint stall was under way, what is left of it
// (`stall`; the checkpoint then commits the carried work when it ends).

#include <algorithm>
#include <cmath>

namespace fleetsim::models::fleet {

struct Segment {
  double t0 = 0;        // allocation
  double restart = 0;   // s before training starts
  double interval = 0;  // s of work between checkpoints; 0: never checkpoints
  double cost = 0;      // s per checkpoint
  double speed = 1;     // work-seconds per second of training
  double fabric = 1;    // the speed its share of the fabric alone allows (>= speed; below it, data loading binds)
  double carried = 0;   // work done before t0 since the last checkpoint (< interval when it checkpoints)
  double stall = 0;     // s left of a checkpoint under way at t0 + restart, which saves `carried`
  [[nodiscard]] bool plain() const { return speed == 1 && carried == 0 && stall == 0; }
};

/// Where a segment stands at time t (>= t0).
struct SegmentState {
  double restart_spent = 0;  // s of the restart phase done
  double work = 0;           // s of work done since the last checkpoint before t0 (`carried` included)
  double committed = 0;      // of which saved by a completed checkpoint
  double checkpointing = 0;  // s spent in checkpoint stalls (the one in progress included)
  double training = 0;       // s spent training (work = carried + speed x training)
  double stall_left = 0;     // s left of the checkpoint stall under way at t (0: none)
};

[[nodiscard]] inline SegmentState segment_at(const Segment& s, double t)
{
  SegmentState st;
  const double e = std::max(0.0, t - s.t0);
  st.restart_spent = std::min(e, s.restart);
  double train = e - st.restart_spent;
  if (s.plain()) {  // (kept as it was: the results of a fleet without a shared fabric stay bit-identical)
    if (!(s.interval > 0)) {
      st.work = train;
      st.training = train;
      return st;
    }
    const double cycle = s.interval + s.cost;
    const double k = std::floor(train / cycle);
    const double rem = train - k * cycle;
    st.work = k * s.interval + std::min(rem, s.interval);
    st.committed = k * s.interval;
    st.checkpointing = k * s.cost + std::max(0.0, rem - s.interval);
    st.training = k * s.interval + std::min(rem, s.interval);
    if (rem > s.interval)
      st.stall_left = s.cost - (rem - s.interval);
    return st;
  }
  double base = 0;  // work saved inside this segment before the regular cycles
  double phase = s.carried;
  if (s.stall > 0) {  // the checkpoint under way at t0 saves the carried work when it ends
    const double stalled = std::min(train, s.stall);
    st.checkpointing = stalled;
    train -= stalled;
    if (stalled < s.stall) {
      st.work = s.carried;
      st.stall_left = s.stall - stalled;
      return st;
    }
    base = s.carried;
    phase = 0;
  }
  if (!(s.interval > 0)) {
    st.work = base + phase + s.speed * train;
    st.committed = base;
    st.training = train;
    return st;
  }
  // Cycles of (interval - phase) work for the first, interval for the others, each then a stall.
  const double first = (s.interval - phase) / s.speed;
  if (train < first) {
    st.work = base + phase + s.speed * train;
    st.committed = base;
    st.training = train;
    return st;
  }
  const double full = s.interval / s.speed;
  const double cycle = full + s.cost;
  const double after = train - first;  // from the end of the first cycle's work
  if (after < s.cost) {
    st.work = base + s.interval;
    st.committed = base;
    st.training = first;
    st.checkpointing += after;
    st.stall_left = s.cost - after;
    return st;
  }
  const double k = std::floor((after - s.cost) / cycle);
  const double rem = after - s.cost - k * cycle;
  st.work = base + s.interval + k * s.interval + std::min(rem * s.speed, s.interval);
  st.committed = base + s.interval + k * s.interval;
  st.training = first + k * full + std::min(rem, full);
  st.checkpointing += s.cost + k * s.cost + std::max(0.0, rem - full);
  if (rem > full)
    st.stall_left = s.cost - (rem - full);
  return st;
}

/// Checkpoints written while doing `remaining` s of work from the last checkpoint before t0 (none
/// after the last piece; a checkpoint under way at t0 not counted).
[[nodiscard]] inline double checkpoints_for(const Segment& s, double remaining)
{
  const double left = s.stall > 0 ? remaining - s.carried : remaining;
  if (!(s.interval > 0) || !(left > 0))
    return 0;
  return std::max(0.0, std::ceil(left / s.interval) - 1);
}

/// When the segment completes `remaining` s of work, counted from the last checkpoint before t0.
[[nodiscard]] inline double finish_time(const Segment& s, double remaining)
{
  if (s.plain())
    return s.t0 + s.restart + remaining + checkpoints_for(s, remaining) * s.cost;
  return s.t0 + s.restart + s.stall + std::max(0.0, remaining - s.carried) / s.speed +
         checkpoints_for(s, remaining) * s.cost;
}

/// What is left of a segment at t, as a segment from t at `speed` (the same restart, interval and cost).
[[nodiscard]] inline Segment rebase(const Segment& s, double t, double speed)
{
  const SegmentState st = segment_at(s, t);
  Segment n = s;
  n.t0 = t;
  n.restart = s.restart - st.restart_spent;
  n.speed = speed;
  n.carried = st.work - st.committed;
  n.stall = st.stall_left;
  return n;
}

}  // namespace fleetsim::models::fleet
