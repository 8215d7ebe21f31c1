#pragma once
// A running job's progress inside one allocation, in closed form: after `restart` seconds of
// launch, initialisation and reload, it trains in cycles of `interval` seconds of work followed by a
// checkpoint stall of `cost` seconds; no checkpoint follows the last piece of work. A failure loses
// the work since the last checkpoint that completed (a checkpoint still being written is lost).

#include <algorithm>
#include <cmath>

namespace fleetsim::models::fleet {

struct Segment {
  double t0 = 0;        // allocation
  double restart = 0;   // s before training starts
  double interval = 0;  // s of work between checkpoints; 0: never checkpoints
  double cost = 0;      // s per checkpoint
};

/// Where a segment stands at time t (>= t0).
struct SegmentState {
  double restart_spent = 0;  // s of the restart phase done
  double work = 0;           // s of work done since the restart
  double committed = 0;      // of which saved by a completed checkpoint
  double checkpointing = 0;  // s spent in checkpoint stalls (the one in progress included)
};

[[nodiscard]] inline SegmentState segment_at(const Segment& s, double t)
{
  SegmentState st;
  const double e = std::max(0.0, t - s.t0);
  st.restart_spent = std::min(e, s.restart);
  const double train = e - st.restart_spent;
  if (!(s.interval > 0)) {
    st.work = train;
    return st;
  }
  const double cycle = s.interval + s.cost;
  const double k = std::floor(train / cycle);
  const double rem = train - k * cycle;
  st.work = k * s.interval + std::min(rem, s.interval);
  st.committed = k * s.interval;
  st.checkpointing = k * s.cost + std::max(0.0, rem - s.interval);
  return st;
}

/// Checkpoints written while doing `remaining` s of work (none after the last piece).
[[nodiscard]] inline double checkpoints_for(const Segment& s, double remaining)
{
  if (!(s.interval > 0) || !(remaining > 0))
    return 0;
  return std::max(0.0, std::ceil(remaining / s.interval) - 1);
}

/// When the segment completes `remaining` s of work.
[[nodiscard]] inline double finish_time(const Segment& s, double remaining)
{
  return s.t0 + s.restart + remaining + checkpoints_for(s, remaining) * s.cost;
}

}  // namespace fleetsim::models::fleet
